/**
 * Wraps any {@link Embedder} with the persistent store: identical texts are encoded once per call,
 * cached vectors are never requested again, and each finished batch is written (and synced) as it
 * arrives, so a killed run resumes where it stopped and gives the same vectors as an unbroken one.
 */
import { createHash } from 'node:crypto';
import { sharedFloat32, type EmbedOptions, type Embedder, type EmbeddingMatrix, type PreparedText } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import type { EmbeddingStore } from './embedding-store.js';
import { readThrough } from './read-through.js';

/** Stable JSON: object keys sorted, so equal identities hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return '{' + entries.map(([k, v]) => JSON.stringify(k) + ':' + canonicalJson(v)).join(',') + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

/** The namespace id of an embedder: first 16 bytes of SHA-256 over its canonical identity. */
export function namespaceOf(identity: Record<string, unknown>): Buffer {
  return createHash('sha256').update(canonicalJson(identity)).digest().subarray(0, 16);
}

/**
 * The cache key of one text: SHA-256 over the namespace (provider, model, revision, dimensions,
 * pooling, normalisation), the role, the native input type, the instruction template and the
 * SHA-256 of the exact text sent.
 */
export function cacheKey(ns: Uint8Array, role: string, prepared: PreparedText): Buffer {
  const textHash = createHash('sha256').update(prepared.text, 'utf8').digest('hex');
  return createHash('sha256')
    .update(Buffer.from(ns))
    .update(`\n${role}\n${prepared.inputType ?? ''}\n${prepared.template}\n${textHash}`, 'utf8')
    .digest();
}

/** Counters of a cached embedder since creation. */
export interface CacheCounters {
  /** Texts asked for. */
  requested: number;
  /** Texts answered from the store. */
  hits: number;
  /** Texts that repeated another text of the same call (encoded once). */
  duplicates: number;
  /** Texts sent to the inner embedder. */
  encoded: number;
}

/** A cached embedder with its counters. */
export interface CachedEmbedder extends Embedder {
  counters(): CacheCounters;
}

/** Wraps `inner` with `store`. The store stays open; the caller closes it. */
export function createCachedEmbedder(inner: Embedder, store: EmbeddingStore): CachedEmbedder {
  const identity = inner.identity?.() ?? inner.describe();
  const ns = namespaceOf(identity);
  store.registerNamespace(ns, identity);
  const counters: CacheCounters = { requested: 0, hits: 0, duplicates: 0, encoded: 0 };
  return {
    id: inner.id,
    describe: () => inner.describe(),
    identity: () => identity,
    prepare: inner.prepare?.bind(inner),
    counters: () => ({ ...counters }),
    async embed(texts: readonly string[], options: EmbedOptions): Promise<EmbeddingMatrix> {
      const n = texts.length;
      const { values: vectors, computed } = await readThrough<Float32Array>({
        keys: texts.map((t) => cacheKey(ns, options.role, inner.prepare?.(t, options) ?? { template: '{text}', text: t })),
        get: (key) => store.get(key),
        put: (key, v) => store.put(ns, key, v),
        flush: () => store.flush(),
        counters,
        progress: options.progress,
        label: `embedding with ${inner.id}`,
        async compute(inputs, progress, report) {
          const rowOf = (m: EmbeddingMatrix, r: number): Float32Array => m.data.slice(r * m.dim, (r + 1) * m.dim);
          const result = await inner.embed(
            inputs.map((i) => texts[i]),
            {
              ...options,
              progress,
              onRows: (rows, m) =>
                report(
                  rows,
                  rows.map((_, r) => rowOf(m, r)),
                ),
            },
          );
          return (k) => rowOf(result, k);
        },
      });
      counters.encoded += computed;
      const dim = vectors.length > 0 ? vectors[0].length : 0;
      const data = sharedFloat32(n * dim);
      for (let i = 0; i < n; i++) {
        const v = vectors[i];
        if (v.length !== dim) {
          throw new CorebError(
            'CACHE',
            `cached vectors of ${inner.id} have different dimensions (${v.length} vs ${dim}); run \`coreb cache prune --model ${identity.model as string}\``,
          );
        }
        data.set(v, i * dim);
      }
      options.onRows?.(
        Array.from({ length: n }, (_, i) => i),
        { rows: n, dim, data },
      );
      return { rows: n, dim, data };
    },
  };
}
