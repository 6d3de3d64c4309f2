/** Public API of `dataset` (barrel; owned by that area). */
export * from './text-file.js';
export * from './jsonl.js';
export * from './coerce.js';
export * from './parquet.js';
export * from './release-schema.js';
export * from './release.js';
export * from './validate-release.js';
export * from './release-tasks.js';
export * from './release-stats.js';
export * from './release-save.js';
export * from './beir.js';
export * from './trec.js';
export * from './pickle.js';
export * from './lcb.js';
export * from './candidates.js';
export * from './python-literal.js';
