/**
 * Wraps any {@link Reranker} with a persistent score store: the same record store as the
 * embeddings (checksummed, append-only, kill -9 safe) in its own folder `rerank-scores-v1`, one
 * float64 score per record. A score is keyed by the reranker's identity (provider, model,
 * template), the task's instruction, the query and the document; repeated pairs are sent once,
 * cached pairs never again, and each answered request is written as it arrives, so an
 * interrupted run resumes without re-sending what was answered.
 */
import { createHash } from 'node:crypto';
import type { RerankOptions, RerankPair, Reranker } from '../core/rerank.js';
import { namespaceOf } from './cached-embedder.js';
import { readThrough } from './read-through.js';
import { openEmbeddingStore, type EmbeddingStore, type OpenStoreOptions } from './embedding-store.js';

/** Folder of the score store under the cache root. */
export const RERANK_STORE_LAYOUT = 'rerank-scores-v1';

/** Opens (creating if needed) the score store under cache root `root`. */
export function openRerankStore(root: string, options: Omit<OpenStoreOptions, 'layout'> = {}): EmbeddingStore {
  return openEmbeddingStore(root, { ...options, layout: RERANK_STORE_LAYOUT });
}

/** The cache key of one pair: SHA-256 over namespace, instruction, and the SHA-256 of query and document. */
export function rerankKey(ns: Uint8Array, instruction: string, pair: RerankPair): Buffer {
  const q = createHash('sha256').update(pair.query, 'utf8').digest('hex');
  const d = createHash('sha256').update(pair.doc, 'utf8').digest('hex');
  return createHash('sha256').update(Buffer.from(ns)).update(`\nrerank\n${instruction}\n${q}\n${d}`, 'utf8').digest();
}

/** A float64 score as the store's two float32 slots (bit-exact). */
function pack(score: number): Float32Array {
  return new Float32Array(Float64Array.of(score).buffer);
}

function unpack(v: Float32Array | undefined): number | undefined {
  if (v === undefined || v.length !== 2) return undefined;
  return new Float64Array(Float32Array.from(v).buffer)[0];
}

/** Counters of a cached reranker since creation. */
export interface RerankCacheCounters {
  /** Pairs asked for. */
  requested: number;
  /** Pairs answered from the store. */
  hits: number;
  /** Pairs repeating another pair of the same call (scored once). */
  duplicates: number;
  /** Pairs sent to the inner reranker. */
  sent: number;
}

/** A cached reranker with its counters. */
export interface CachedReranker extends Reranker {
  counters(): RerankCacheCounters;
}

/** Wraps `inner` with `store` (from {@link openRerankStore}). The caller closes the store. */
export function createCachedReranker(inner: Reranker, store: EmbeddingStore): CachedReranker {
  const identity = { kind: 'reranker', ...inner.identity() };
  const ns = namespaceOf(identity);
  store.registerNamespace(ns, identity);
  const counters: RerankCacheCounters = { requested: 0, hits: 0, duplicates: 0, sent: 0 };
  return {
    id: inner.id,
    identity: () => inner.identity(),
    describe: () => inner.describe(),
    instruction: (task) => inner.instruction(task),
    counters: () => ({ ...counters }),
    async score(pairs: readonly RerankPair[], options: RerankOptions = {}): Promise<Float64Array> {
      const n = pairs.length;
      const instruction = inner.instruction(options.task);
      const { values: scores, computed } = await readThrough<number>({
        keys: pairs.map((p) => rerankKey(ns, instruction, p)),
        get: (key) => unpack(store.get(key)),
        put: (key, score) => store.put(ns, key, pack(score)),
        flush: () => store.flush(),
        counters,
        progress: options.progress,
        label: `reranking with ${inner.id}`,
        async compute(inputs, progress, report) {
          const fresh = await inner.score(
            inputs.map((i) => pairs[i]),
            { ...options, progress, onScores: (positions, got) => report(positions, Array.from(got)) },
          );
          return (k) => fresh[k];
        },
      });
      counters.sent += computed;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = scores[i];
      options.onScores?.(
        Array.from({ length: n }, (_, i) => i),
        out,
      );
      return out;
    },
  };
}
