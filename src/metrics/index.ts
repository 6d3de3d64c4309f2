/** Public API of `metrics`: trec_eval-exact IR measures over qrels and runs (pure, synchronous). */
export * from './evaluate.js';
export * from './measures.js';
export * from './columns.js';
export { glibcLog2, discountTable } from './log2.js';
export * from './trec-format.js';
