/**
 * The inner loop of exact dense search, shared by the calling thread and the worker threads: a
 * block of queries against a range of documents, in cache-sized document blocks, each score offered
 * to its query's bounded heap. Scores do not depend on how the work is cut: every (query, document)
 * dot product is the same sum in the same order whatever the blocks, ranges or threads.
 */
import { CorebError } from '../core/errors.js';
import { createWasmDotKernel } from './dense-wasm.js';
import { readBlock, type DenseStore } from '../core/vector-store.js';
import type { TopKKeeper } from './top-k.js';

/**
 * A dot-product kernel name: `wasm` (WebAssembly SIMD, float32 accumulation), `js` (double), or
 * `ort` (onnxruntime SGEMM; only through `denseTopKParallel` / `denseTopKStreamed`, which are async).
 */
export type DenseKernel = 'wasm' | 'js' | 'ort';

/**
 * Scores a block of query rows against a block of document rows: `out[i * stride + j]` is the
 * float32 score of query row i with document row j (valid until the next call).
 */
export interface BlockKernel {
  readonly name: DenseKernel;
  scores(queries: Float32Array, nq: number, docs: Float32Array, nd: number, dim: number): { out: Float32Array; stride: number };
}

/**
 * The scalar JavaScript kernel: each score summed in double over the float32 inputs, in index
 * order, rounded to float32 once. Four queries x two documents per pass share each load.
 */
function createJsKernel(): BlockKernel {
  let out = new Float32Array(0);
  return {
    name: 'js',
    scores(Q, nq, D, nd, dim) {
      if (out.length < nq * nd) out = new Float32Array(nq * nd);
      const o = out;
      let q = 0;
      for (; q + 3 < nq; q += 4) {
        const a0 = q * dim;
        const a1 = a0 + dim;
        const a2 = a1 + dim;
        const a3 = a2 + dim;
        const r0 = q * nd;
        const r1 = r0 + nd;
        const r2 = r1 + nd;
        const r3 = r2 + nd;
        let d = 0;
        for (; d + 1 < nd; d += 2) {
          const x0 = d * dim;
          const y0 = x0 + dim;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          let t0 = 0;
          let t1 = 0;
          let t2 = 0;
          let t3 = 0;
          for (let j = 0; j < dim; j++) {
            const x = D[x0 + j];
            const y = D[y0 + j];
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
          o[r0 + d] = s0;
          o[r1 + d] = s1;
          o[r2 + d] = s2;
          o[r3 + d] = s3;
          o[r0 + d + 1] = t0;
          o[r1 + d + 1] = t1;
          o[r2 + d + 1] = t2;
          o[r3 + d + 1] = t3;
        }
        for (; d < nd; d++) {
          const x0 = d * dim;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          for (let j = 0; j < dim; j++) {
            const x = D[x0 + j];
            s0 += Q[a0 + j] * x;
            s1 += Q[a1 + j] * x;
            s2 += Q[a2 + j] * x;
            s3 += Q[a3 + j] * x;
          }
          o[r0 + d] = s0;
          o[r1 + d] = s1;
          o[r2 + d] = s2;
          o[r3 + d] = s3;
        }
      }
      for (; q < nq; q++) {
        const a = q * dim;
        for (let d = 0; d < nd; d++) {
          const x0 = d * dim;
          let s = 0;
          for (let j = 0; j < dim; j++) s += Q[a + j] * D[x0 + j];
          o[q * nd + d] = s;
        }
      }
      return { out: o, stride: nd };
    },
  };
}

/**
 * A kernel instance (each holds its own scratch memory; one per thread).
 * @throws CorebError `UNSUPPORTED` when `wasm` is asked for and the runtime lacks WebAssembly SIMD.
 */
export function createBlockKernel(kind: DenseKernel): BlockKernel {
  if (kind === 'js') return createJsKernel();
  if (kind === 'ort') throw new CorebError('UNSUPPORTED', 'dense search: kernel "ort" is async; use denseTopKParallel or denseTopKStreamed');
  const wasm = createWasmDotKernel();
  if (wasm === undefined) throw new CorebError('UNSUPPORTED', 'dense search: this runtime has no WebAssembly SIMD; use kernel "js"');
  return { name: 'wasm', scores: (q, nq, d, nd, dim) => wasm.scores(q, nq, d, nd, dim) };
}

/** Reusable buffers of one {@link scanRange} caller. */
export interface ScanScratch {
  kernel: BlockKernel;
  /** Float32 rows of one document block (for float16 or mapped stores). */
  block: Float32Array;
}

/**
 * Offers every document of `[d0, d1)` (logical indices) to the heaps of queries `[q0, q1)`:
 * `heaps[q - heapBase]` is query q's heap, `Q` holds all query rows (`dim` floats each). Documents
 * go through the kernel `docBlockRows` at a time. With `labels`, store row `d` is offered to the
 * heaps as document `labels[d]` (a streamed chunk: its rows' logical indices).
 */
export function scanRange(
  Q: Float32Array,
  q0: number,
  q1: number,
  store: DenseStore,
  d0: number,
  d1: number,
  heaps: readonly TopKKeeper[],
  heapBase: number,
  docBlockRows: number,
  scratch: ScanScratch,
  labels?: Int32Array,
): void {
  const dim = store.dim;
  const queries = Q.subarray(q0 * dim, q1 * dim);
  if (scratch.block.length < docBlockRows * dim) scratch.block = new Float32Array(docBlockRows * dim);
  for (let b0 = d0; b0 < d1; b0 += docBlockRows) {
    const b1 = Math.min(d1, b0 + docBlockRows);
    const w = b1 - b0;
    const docs = readBlock(store, b0, b1, scratch.block);
    const { out, stride } = scratch.kernel.scores(queries, q1 - q0, docs, w, dim);
    for (let q = q0; q < q1; q++) {
      const h = heaps[q - heapBase];
      const o = (q - q0) * stride;
      let bar = h.threshold;
      for (let i = 0; i < w; i++) {
        const v = out[o + i];
        if (v >= bar) {
          h.push(labels === undefined ? b0 + i : labels[b0 + i], v);
          bar = h.threshold;
        }
      }
    }
  }
}
