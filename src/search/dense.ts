/**
 * Exact dense retrieval: cosine similarity as a dot product of rows normalised once, computed in
 * cache-sized blocks of queries x documents, with one bounded heap per query (no corpus sorts).
 */
import type { Doc, Query } from '../core/dataset.js';
import { normalizeMatrix, type Embedder, type EmbeddingMatrix } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import type { IndexOptions, RankedList, Retriever, RetrieverDescription, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { checkAborted, resolveExcluded, validateDepth, validateDocIds } from './common.js';
import { createWasmDotKernel, hasWasmSimd } from './dense-wasm.js';
import { createTieRanks, TopK } from './top-k.js';

/** Throws `VALIDATION` unless `m` is a consistent matrix of finite values. */
export function validateMatrix(m: EmbeddingMatrix, what: string): void {
  if (!Number.isInteger(m.rows) || !Number.isInteger(m.dim) || m.rows < 0 || m.dim < 1) {
    throw new CorebError('VALIDATION', `${what}: bad shape ${m.rows} x ${m.dim}; rows >= 0 and dim >= 1 are required`);
  }
  if (m.data.length !== m.rows * m.dim) {
    throw new CorebError('VALIDATION', `${what}: data has ${m.data.length} values, expected rows * dim = ${m.rows * m.dim}`);
  }
  const d = m.data;
  for (let i = 0; i < d.length; i++) {
    if (!Number.isFinite(d[i])) {
      throw new CorebError('VALIDATION', `${what}: row ${Math.floor(i / m.dim)} has a non-finite value (${d[i]}) at column ${i % m.dim}`);
    }
  }
}

/** Options of {@link denseTopK}. */
export interface DenseTopKOptions {
  /**
   * Per document row, its docid's code-point rank (see `createTieRanks`): the tie-break key.
   * Required for trec order; without it ties go to the larger row index.
   */
  tieRanks?: Int32Array;
  /** Queries scored together (each holds a heap of `k` entries). Default 256. */
  queryBlockRows?: number;
  /** Documents per block (a block of `dim` floats each should fit in cache). Default 512. */
  docBlockRows?: number;
  /**
   * Per query row, document rows never to return (e.g. the code-to-code anchor). They do not use
   * up places: a query still gets `k` documents when the corpus has `k` others.
   */
  exclude?: ReadonlyArray<readonly number[] | undefined>;
  /**
   * Dot-product kernel: `wasm` = WebAssembly SIMD, float32 accumulation in 4 lanes (like BLAS
   * sdot); `js` = scalar JavaScript, double accumulation rounded to float32 at the end. Default
   * `wasm` when the runtime supports it, else `js`. Both are exact in the sense of scoring every
   * pair; they can differ in the last bits of a score.
   */
  kernel?: DenseKernel;
  signal?: AbortSignal;
  /** Called after each query block with the number of queries finished. */
  onProgress?: (queriesDone: number) => void;
}

/** A dot-product kernel name. */
export type DenseKernel = 'wasm' | 'js';

/** The kernel used when none is asked for: `wasm` when WebAssembly SIMD is available. */
export function defaultDenseKernel(): DenseKernel {
  return hasWasmSimd() ? 'wasm' : 'js';
}

/** The result of {@link denseTopK}: row-major `rows x k` slots, `counts[q]` of them filled for query q. */
export interface DenseTopKResult {
  k: number;
  /** Document row indices, best first. */
  indices: Int32Array;
  /** Their cosine scores (float32). */
  scores: Float32Array;
  counts: Int32Array;
  /** The kernel that computed the scores. */
  kernel: DenseKernel;
}

/**
 * Exact top-k by dot product of every query row with every document row (inputs already normalised
 * when cosine is wanted; use {@link normalizeMatrix}). Working memory is one heap of `k` entries per
 * query of the current query block, independent of the corpus size; the output is `rows x k`.
 * Results do not depend on the block sizes: each score is the same sum in the same order, and the
 * heap order is total (float32 score desc, then tie rank desc).
 * Scores: the `js` kernel accumulates in double over the float32 inputs, then rounds to float32;
 * the `wasm` kernel accumulates in float32 (see {@link DenseTopKOptions.kernel}).
 */
export function denseTopK(queries: EmbeddingMatrix, docs: EmbeddingMatrix, k: number, options: DenseTopKOptions = {}): DenseTopKResult {
  validateDepth(k);
  if (queries.dim !== docs.dim) {
    throw new CorebError('VALIDATION', `query vectors have dim ${queries.dim} but document vectors have dim ${docs.dim}; use one model for both`);
  }
  const nq = queries.rows;
  const nd = docs.rows;
  const dim = docs.dim;
  const kk = Math.min(k, Math.max(nd, 1));
  const tieRanks = options.tieRanks ?? Int32Array.from({ length: nd }, (_, i) => i);
  if (tieRanks.length !== nd) throw new CorebError('VALIDATION', `tieRanks has ${tieRanks.length} entries for ${nd} documents`);
  const qb = Math.max(1, Math.floor(options.queryBlockRows ?? 256));
  const db = Math.max(1, Math.floor(options.docBlockRows ?? 512));
  const indices = new Int32Array(nq * kk);
  const scores = new Float32Array(nq * kk);
  const counts = new Int32Array(nq);
  const heaps: TopK[] = [];
  // Excluded documents are dropped after the heap, so each heap keeps that many extra entries.
  let maxExcluded = 0;
  for (const e of options.exclude ?? []) if (e !== undefined) maxExcluded = Math.max(maxExcluded, e.length);
  const capacity = Math.min(kk + maxExcluded, Math.max(nd, 1));
  for (let i = 0; i < Math.min(qb, nq); i++) heaps.push(new TopK(capacity, tieRanks));
  const excludedMask = new Uint8Array(nd);
  const Q = queries.data;
  const D = docs.data;
  const outDocs = new Int32Array(capacity);
  const outScores = new Float32Array(capacity);
  const wasm = options.kernel === 'js' ? undefined : createWasmDotKernel();
  if (options.kernel === 'wasm' && wasm === undefined) {
    throw new CorebError('UNSUPPORTED', 'dense search: this runtime has no WebAssembly SIMD; use kernel "js"');
  }

  for (let q0 = 0; q0 < nq; q0 += qb) {
    checkAborted(options.signal);
    const q1 = Math.min(nq, q0 + qb);
    for (let d0 = 0; wasm !== undefined && d0 < nd; d0 += db) {
      const d1 = Math.min(nd, d0 + db);
      const w = d1 - d0;
      const { out: block, stride } = wasm.scores(Q.subarray(q0 * dim, q1 * dim), q1 - q0, D.subarray(d0 * dim, d1 * dim), w, dim);
      for (let q = q0; q < q1; q++) {
        const h = heaps[q - q0];
        const o = (q - q0) * stride;
        let bar = h.threshold;
        for (let i = 0; i < w; i++) {
          const v = block[o + i];
          if (v >= bar) {
            h.push(d0 + i, v);
            bar = h.threshold;
          }
        }
      }
    }
    for (let d0 = 0; wasm === undefined && d0 < nd; d0 += db) {
      const d1 = Math.min(nd, d0 + db);
      let q = q0;
      // Four queries at a time share each document load.
      for (; q + 3 < q1; q += 4) {
        const a0 = q * dim;
        const a1 = a0 + dim;
        const a2 = a1 + dim;
        const a3 = a2 + dim;
        const h0 = heaps[q - q0];
        const h1 = heaps[q + 1 - q0];
        const h2 = heaps[q + 2 - q0];
        const h3 = heaps[q + 3 - q0];
        let d = d0;
        // Two documents per pass: 8 accumulators, 6 loads per 8 multiply-adds.
        for (; d + 1 < d1; d += 2) {
          const o = d * dim;
          const p = o + dim;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          let t0 = 0;
          let t1 = 0;
          let t2 = 0;
          let t3 = 0;
          for (let j = 0; j < dim; j++) {
            const x = D[o + j];
            const y = D[p + j];
            const u0 = Q[a0 + j];
            const u1 = Q[a1 + j];
            const u2 = Q[a2 + j];
            const u3 = Q[a3 + j];
            s0 += u0 * x;
            s1 += u1 * x;
            s2 += u2 * x;
            s3 += u3 * x;
            t0 += u0 * y;
            t1 += u1 * y;
            t2 += u2 * y;
            t3 += u3 * y;
          }
          h0.push(d, s0);
          h1.push(d, s1);
          h2.push(d, s2);
          h3.push(d, s3);
          h0.push(d + 1, t0);
          h1.push(d + 1, t1);
          h2.push(d + 1, t2);
          h3.push(d + 1, t3);
        }
        for (; d < d1; d++) {
          const o = d * dim;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          for (let j = 0; j < dim; j++) {
            const x = D[o + j];
            s0 += Q[a0 + j] * x;
            s1 += Q[a1 + j] * x;
            s2 += Q[a2 + j] * x;
            s3 += Q[a3 + j] * x;
          }
          h0.push(d, s0);
          h1.push(d, s1);
          h2.push(d, s2);
          h3.push(d, s3);
        }
      }
      for (; q < q1; q++) {
        const a = q * dim;
        const h = heaps[q - q0];
        for (let d = d0; d < d1; d++) {
          const o = d * dim;
          let s = 0;
          for (let j = 0; j < dim; j++) s += Q[a + j] * D[o + j];
          h.push(d, s);
        }
      }
    }
    for (let q = q0; q < q1; q++) {
      const h = heaps[q - q0];
      const ex = options.exclude?.[q];
      if (ex !== undefined) for (const d of ex) excludedMask[d] = 1;
      const m = h.drainInto(outDocs, outScores);
      let c = 0;
      for (let i = 0; i < m && c < kk; i++) {
        if (excludedMask[outDocs[i]] === 1) continue;
        indices[q * kk + c] = outDocs[i];
        scores[q * kk + c] = outScores[i];
        c++;
      }
      counts[q] = c;
      if (ex !== undefined) for (const d of ex) excludedMask[d] = 0;
    }
    options.onProgress?.(q1);
  }
  return { k: kk, indices, scores, counts, kernel: wasm !== undefined ? 'wasm' : 'js' };
}

/** Produces the vectors of a dense retriever: a live embedder, a file of precomputed vectors, ... */
export interface DenseEncoder {
  /** Secret-free description (model, dimensions, source file...). */
  describe(): Record<string, unknown>;
  /** One row per document, in order. */
  encodeDocs(docs: readonly Doc[], options: IndexOptions): Promise<EmbeddingMatrix>;
  /** One row per query, in order. */
  encodeQueries(queries: readonly Query[], options: SearchOptions): Promise<EmbeddingMatrix>;
}

/**
 * Adapts an {@link Embedder} to a {@link DenseEncoder}: documents are embedded as
 * `title + "\n" + text` (just `text` without a title) with role `document`, queries with role
 * `query`, both with the task so the embedder can pick its instruction template.
 */
export function createEmbedderEncoder(embedder: Embedder): DenseEncoder {
  return {
    describe: () => embedder.describe(),
    encodeDocs: (docs, o) =>
      embedder.embed(
        docs.map((d) => (d.title ? `${d.title}\n${d.text}` : d.text)),
        { role: 'document', task: o.task, signal: o.signal, progress: o.progress },
      ),
    encodeQueries: (queries, o) =>
      embedder.embed(
        queries.map((q) => q.text),
        { role: 'query', task: o.task, signal: o.signal, progress: o.progress },
      ),
  };
}

/** Options of {@link createDenseRetriever}. */
export interface DenseRetrieverOptions {
  /** Display name. Default `dense`. */
  name?: string;
  /** See {@link DenseTopKOptions.queryBlockRows}. Default 256. */
  queryBlockRows?: number;
  /** See {@link DenseTopKOptions.docBlockRows}. Default 512. */
  docBlockRows?: number;
  /** See {@link DenseTopKOptions.kernel}. Default {@link defaultDenseKernel}. */
  kernel?: DenseKernel;
}

/** Turns a {@link denseTopK} result into ranked lists keyed by query id. */
function toRankedLists(queries: readonly Query[], r: DenseTopKResult, docIds: readonly string[]): Map<string, RankedList> {
  const out = new Map<string, RankedList>();
  for (let q = 0; q < queries.length; q++) {
    const c = r.counts[q];
    const ids = new Array<string>(c);
    for (let i = 0; i < c; i++) ids[i] = docIds[r.indices[q * r.k + i]];
    out.set(queries[q].id, { docIds: ids, scores: r.scores.slice(q * r.k, q * r.k + c) });
  }
  return out;
}

/**
 * A dense retriever: encodes the corpus once with `encoder`, normalises the rows, and ranks each
 * query batch exactly by cosine similarity with {@link denseTopK}.
 */
export function createDenseRetriever(encoder: DenseEncoder, options: DenseRetrieverOptions = {}): Retriever {
  const blocks = {
    queryBlockRows: options.queryBlockRows ?? 256,
    docBlockRows: options.docBlockRows ?? 512,
    kernel: options.kernel ?? defaultDenseKernel(),
  };
  return {
    name: options.name ?? 'dense',
    describe(): RetrieverDescription {
      return {
        kind: 'dense',
        similarity: 'cosine (rows L2-normalised once, exact dot product)',
        kernel: blocks.kernel === 'wasm' ? 'wasm-simd (float32 accumulation)' : 'js (double accumulation)',
        ties: 'score as float32 descending, then docid descending by code point (trec_eval 9.0.8)',
        encoder: encoder.describe(),
      };
    },
    async index(docs: readonly Doc[], indexOptions: IndexOptions = {}): Promise<RetrieverIndex> {
      const docIds = docs.map((d) => d.id);
      const docIndex = validateDocIds(docIds);
      const raw = await encoder.encodeDocs(docs, indexOptions);
      validateMatrix(raw, 'document vectors');
      if (raw.rows !== docs.length) {
        throw new CorebError('VALIDATION', `document vectors have ${raw.rows} rows for ${docs.length} documents`);
      }
      const matrix = normalizeMatrix(raw);
      const tieRanks = createTieRanks(docIds);
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, searchOptions: SearchOptions = {}) {
          validateDepth(depth);
          const qraw = await encoder.encodeQueries(queries, searchOptions);
          validateMatrix(qraw, 'query vectors');
          if (qraw.rows !== queries.length) {
            throw new CorebError('VALIDATION', `query vectors have ${qraw.rows} rows for ${queries.length} queries`);
          }
          const exclude = queries.map((q) => resolveExcluded(searchOptions.exclude?.get(q.id), docIndex));
          searchOptions.progress?.start('dense search', queries.length);
          let reported = 0;
          const r = denseTopK(normalizeMatrix(qraw), matrix, depth, {
            ...blocks,
            tieRanks,
            exclude,
            signal: searchOptions.signal,
            onProgress: (done) => {
              searchOptions.progress?.tick(done - reported);
              reported = done;
            },
          });
          searchOptions.progress?.done();
          return toRankedLists(queries, r, docIds);
        },
      };
    },
  };
}
