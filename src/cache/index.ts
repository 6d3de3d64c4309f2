/** Public API of `cache` (barrel; owned by that area). */
export * from './embedding-store.js';
export * from './cached-embedder.js';
export * from './cache-dir.js';
export * from './chat-cache.js';
export * from './json-file-store.js';
export * from './cached-reranker.js';
export * from './index-file-store.js';
export * from './run-journal.js';
