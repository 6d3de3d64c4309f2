/**
 * The shape of a reranker made from a spec (a leaf: the rerank stage makes them, the exec reranker
 * is one, and neither imports the other for it).
 */
import type { RerankCacheCounters } from '../cache/cached-reranker.js';
import type { Doc } from '../core/dataset.js';
import type { Reranker } from '../core/rerank.js';

/** A reranker made by `createRerankerFromSpec` (rerank-stage.ts): cached, with counters and a close. */
export interface SpecReranker extends Reranker {
  /** Cache counters (zeros when the cache is disabled). */
  counters(): RerankCacheCounters;
  /** What the reranker did and cost beyond scoring pairs (the exec reranker's runs); goes into a reranked result's `rerank.execution`. */
  report?(): Record<string, unknown>;
  /** Rerankers that read the release's statements beyond the candidates (the exec reranker's borrowed samples) take the statement corpus here. */
  useStatements?(docs: readonly Doc[]): void;
  /** Flushes and closes the score store. */
  close(): void;
}
