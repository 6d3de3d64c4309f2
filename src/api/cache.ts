/**
 * The `cache` namespace of coreb's public API (`import { cache } from 'coreb'`): The persistent
 * caches: embeddings, rerank scores, chat replies and index files, keyed by the full request.
 * @packageDocumentation
 */
export {
  createCachedReranker,
  openRerankStore,
  type CachedReranker,
  type RerankCacheCounters,
} from '../cache/index.js';
export {
  createCachedChatModel,
  type CachedChatModel,
} from '../cache/index.js';
export { openIndexFileStore, type IndexFileStore } from '../cache/index.js';
export {
  createCachedEmbedder,
  openEmbeddingStore,
  pruneEmbeddingStore,
  resolveCacheDir,
  type CacheCounters,
  type CachedEmbedder,
  type EmbeddingStore,
  type OpenStoreOptions,
  type PruneOptions,
  type PruneReport,
  type StoreStats,
} from '../cache/index.js';
