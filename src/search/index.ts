/** Public API of `search`: BM25, exact dense top-k and reciprocal-rank fusion behind one interface. */
export type * from '../core/retrieval.js';
export * from './bm25.js';
export * from './bm25-store.js';
export * from './dense.js';
export * from './tokenize.js';
export * from './top-k.js';
export * from './rrf.js';
export * from './shingles.js';
export * from '../core/vector-store.js';
export * from './bridge.js';
export * from './grep.js';
