/** Public API of `search`: BM25, exact dense top-k and reciprocal-rank fusion behind one interface. */
export type * from '../core/retrieval.js';
