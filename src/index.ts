/**
 * coreb's public library API: named exports grouped by area. The CLI is built on the same API.
 */
export * from './core/errors.js';
export * from './core/issues.js';
export * from './core/progress.js';
export * from './core/dataset.js';
export * from './core/ids.js';
export * from './core/embedding.js';
export * from './dataset/index.js';
export * from './metrics/index.js';
export * from './search/index.js';
export * from './providers/index.js';
export * from './cache/index.js';
export * from './sandbox/index.js';
export * from './tensors/index.js';
export * from './eval/index.js';
export * from './construct/index.js';
export * from './report/index.js';
export * from './train/index.js';
