/** Public API of `eval`: the evaluation runner (`runEval`), retriever specs, protocols, scoring and result files. */
export type * from '../core/eval-results.js';
export { EVAL_RESULTS_SCHEMA, PROTOCOLS } from '../core/eval-results.js';
export * from './protocol.js';
export * from './rank.js';
export * from './score.js';
export * from './aggregate.js';
export * from './retriever-spec.js';
export * from './run-retriever.js';
export * from './create-retriever.js';
export * from './dense-embedder.js';
export * from './run-eval.js';
export * from './audit.js';
export * from './label-proxies.js';
export * from './dataset-issues.js';
export * from './near-duplicates.js';
export * from './language-detector.js';
export * from './retrieve-tasks.js';
export * from './trec-metrics.js';
