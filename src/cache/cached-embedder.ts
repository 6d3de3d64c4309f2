/**
 * Wraps any {@link Embedder} with the persistent store: identical texts are encoded once per call,
 * cached vectors are never requested again, and each finished batch is written (and synced) as it
 * arrives, so a killed run resumes where it stopped and gives the same vectors as an unbroken one.
 */
import { createHash } from 'node:crypto';
import { sharedFloat32, type EmbedOptions, type Embedder, type EmbeddingMatrix, type PreparedText } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import type { Progress } from '../core/progress.js';
import type { EmbeddingStore } from './embedding-store.js';

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

/** A progress that forwards only ticks (an inner call reports into the outer step). */
export function tickOnly(p: Progress | undefined): Progress | undefined {
  return p === undefined ? undefined : { start() {}, tick: (n) => p.tick(n), done() {} };
}

/**
 * Groups equal cache keys: `unique` lists the first position of each distinct key, `slotOf[i]`
 * is the slot (index into `unique`) of position i, `duplicates` counts the repeats.
 */
export function groupKeys(keys: readonly Buffer[]): { unique: number[]; slotOf: Int32Array; duplicates: number } {
  const firstOf = new Map<string, number>();
  const slotOf = new Int32Array(keys.length);
  const unique: number[] = [];
  let duplicates = 0;
  keys.forEach((k, i) => {
    const h = k.toString('hex');
    const f = firstOf.get(h);
    if (f === undefined) {
      firstOf.set(h, unique.length);
      slotOf[i] = unique.length;
      unique.push(i);
    } else {
      slotOf[i] = f;
      duplicates++;
    }
  });
  return { unique, slotOf, duplicates };
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
      counters.requested += n;
      const keys = texts.map((t) => cacheKey(ns, options.role, inner.prepare?.(t, options) ?? { template: '{text}', text: t }));
      const { unique, slotOf, duplicates } = groupKeys(keys);
      counters.duplicates += duplicates;
      const vectors: (Float32Array | undefined)[] = unique.map((i) => store.get(keys[i]));
      const missing = unique.map((_, s) => s).filter((s) => vectors[s] === undefined);
      let hitRows = 0;
      for (let i = 0; i < n; i++) if (vectors[slotOf[i]] !== undefined) hitRows++;
      counters.hits += hitRows;
      const progress = options.progress;
      progress?.start(`embedding with ${inner.id}`, n);
      try {
        // Rows answered without a request: cache hits, and repeats of a text that is being encoded.
        progress?.tick(n - missing.length);
        if (missing.length > 0) {
          const result = await inner.embed(
            missing.map((s) => texts[unique[s]]),
            {
              ...options,
              progress: tickOnly(progress),
              onRows: (rows, m) => {
                for (let r = 0; r < rows.length; r++) {
                  const s = missing[rows[r]];
                  const v = m.data.slice(r * m.dim, (r + 1) * m.dim);
                  vectors[s] = v;
                  store.put(ns, keys[unique[s]], v);
                }
                store.flush();
              },
            },
          );
          counters.encoded += missing.length;
          for (let r = 0; r < missing.length; r++) {
            const s = missing[r];
            if (vectors[s] === undefined) {
              const v = result.data.slice(r * result.dim, (r + 1) * result.dim);
              vectors[s] = v;
              store.put(ns, keys[unique[s]], v);
            }
          }
          store.flush();
        }
      } finally {
        progress?.done();
      }
      const dim = vectors.length > 0 ? (vectors[0] as Float32Array).length : 0;
      const data = sharedFloat32(n * dim);
      for (let i = 0; i < n; i++) {
        const v = vectors[slotOf[i]] as Float32Array;
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
