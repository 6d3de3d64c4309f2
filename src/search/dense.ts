/**
 * Exact dense retrieval: cosine similarity as a dot product of rows normalised once, computed in
 * cache-sized blocks of queries x documents, with one bounded heap per query (no corpus sorts).
 */
import { distModulePath } from '../core/package-files.js';
import type { Doc, Query } from '../core/dataset.js';
import { normalizeMatrix, normalizeRows, type Embedder, type EmbeddingMatrix } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import { nextTurn } from '../core/event-loop-turns.js';
import { withHeapHeadroom } from '../core/memory.js';
import type { IndexOptions, RankedList, Retriever, RetrieverDescription, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkAborted, rankDocIds, resolveExcluded, validateDepth } from './common.js';
import { createBlockKernel, scanRange, type DenseKernel, type ScanScratch } from './dense-scan.js';
import { normalizedStore, readBlock, storeOfMatrix, type DenseChunkSource, type DenseDtype, type DenseStore } from '../core/vector-store.js';
import { hasWasmSimd } from './dense-wasm.js';
import type { DenseStreamCommand, DenseStreamWorkerData, DenseWorkerData, DenseWorkerMessage } from './dense-worker.js';
import { createTopK, TopK, type TopKKeeper } from './top-k.js';
import { createOrtScorer, loadOrt } from './dense-ort.js';

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
   * sdot); `js` = scalar JavaScript, double accumulation rounded to float32 at the end. `ort` = one
   * onnxruntime SGEMM per block of up to 1,024 queries x 2^21 / queries documents (the package
   * onnxruntime-node, an optional dependency; MLAS uses AVX2/AVX-512), float32 accumulation in
   * MLAS's order, on `threads` onnxruntime threads; async only ({@link denseTopKParallel},
   * {@link denseTopKStreamed}).
   *
   * Default: in the async functions, `ort` for work of at least {@link ORT_AUTO_MIN_WORK}
   * multiply-adds when onnxruntime-node loads (about 5x less CPU than `wasm` on an AVX-512 CPU),
   * else `wasm` when the runtime has WebAssembly SIMD, else `js`; {@link denseTopK} (synchronous):
   * `wasm` or `js`. The result names the kernel that ran.
   *
   * Every kernel scores every pair (exact search) and breaks ties the same way (score as float32
   * descending, then docid descending). Each kernel's lists and scores are the same bit for bit
   * on any thread count, and a query's are the same alone or in any batch of queries (for `ort`,
   * on one machine: MLAS picks its code for the CPU). Kernels differ from one another in the last
   * bits of a score (another summation order), so near-equal documents may swap between them.
   */
  kernel?: DenseKernel;
  signal?: AbortSignal;
  /** Called after each query block with the number of queries finished. */
  onProgress?: (queriesDone: number) => void;
}

export type { DenseKernel } from './dense-scan.js';

/** The kernel {@link denseTopK} uses when none is asked for: `wasm` when WebAssembly SIMD is available, else `js`. */
export function defaultDenseKernel(): DenseKernel {
  return hasWasmSimd() ? 'wasm' : 'js';
}

/**
 * Multiply-adds (queries x documents x dim) from which the async searches pick `ort` by default:
 * 2^30, about 0.05 s of onnxruntime's SGEMM or 0.2 s of `wasm`, more than loading onnxruntime
 * (~0.1 s); smaller searches (a few thousand documents) stay on `wasm`.
 */
export const ORT_AUTO_MIN_WORK = 2 ** 30;

let ortLoad: Promise<string | undefined> | undefined;
let fallbackSaid = false;

/**
 * The kernel an async search uses when none is asked for (see {@link DenseTopKOptions.kernel}).
 * `onNote` is told once per process, when a large search falls back to `wasm` because
 * onnxruntime-node does not load, why and what that costs.
 */
export async function chooseDenseKernel(
  work: number,
  onNote?: (message: string) => void,
  /** Loads onnxruntime-node (tests pass a failing one; then nothing is cached). */
  load: () => Promise<unknown> = loadOrt,
): Promise<DenseKernel> {
  if (work < ORT_AUTO_MIN_WORK) return defaultDenseKernel();
  const attempt = (): Promise<string | undefined> =>
    load().then(
      () => undefined,
      (e: Error) => ((e.cause as Error | undefined)?.message ?? e.message).split('\n')[0],
    );
  const failure = await (load === loadOrt ? (ortLoad ??= attempt()) : attempt());
  if (failure === undefined) return 'ort';
  if (!fallbackSaid && onNote !== undefined) {
    fallbackSaid = true;
    onNote(
      `dense search: onnxruntime-node did not load (${failure}); searching with the ${defaultDenseKernel()} kernel, about 5x the CPU time of onnxruntime's SGEMM on an AVX-512 CPU (npm install onnxruntime-node to use it; kernel=wasm says this kernel is wanted)`,
    );
  }
  return defaultDenseKernel();
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
  /** Threads that scored (1 = the calling thread). */
  threads: number;
}

/** The checked, resolved parameters shared by {@link denseTopK} and {@link denseTopKParallel}. */
interface Plan {
  Q: Float32Array;
  nq: number;
  /** Logical documents. */
  nd: number;
  dim: number;
  kk: number;
  capacity: number;
  tieRanks: Int32Array;
  qb: number;
  db: number;
  kernel: DenseKernel;
}

/** `docs` as a store (a float32 matrix wrapped without a copy). */
function toStore(docs: EmbeddingMatrix | DenseStore): DenseStore {
  return 'chunks' in docs ? docs : storeOfMatrix(docs);
}

function plan(queries: EmbeddingMatrix, docs: { rows: number; dim: number }, k: number, options: DenseTopKOptions): Plan {
  validateDepth(k);
  if (queries.dim !== docs.dim) {
    throw new CorebError('VALIDATION', `query vectors have dim ${queries.dim} but document vectors have dim ${docs.dim}; use one model for both`);
  }
  const nd = docs.rows;
  const kk = Math.min(k, Math.max(nd, 1));
  const tieRanks = options.tieRanks ?? Int32Array.from({ length: nd }, (_, i) => i);
  if (tieRanks.length !== nd) throw new CorebError('VALIDATION', `tieRanks has ${tieRanks.length} entries for ${nd} documents`);
  // Excluded documents are dropped after the heap, so each heap keeps that many extra entries.
  let maxExcluded = 0;
  for (const e of options.exclude ?? []) if (e !== undefined) maxExcluded = Math.max(maxExcluded, e.length);
  const kernel = options.kernel ?? defaultDenseKernel();
  if (kernel === 'wasm' && !hasWasmSimd()) {
    throw new CorebError('UNSUPPORTED', 'dense search: this runtime has no WebAssembly SIMD; use kernel "js"');
  }
  return {
    Q: queries.data,
    nq: queries.rows,
    nd,
    dim: docs.dim,
    kk,
    capacity: Math.min(kk + maxExcluded, Math.max(nd, 1)),
    tieRanks,
    qb: Math.max(1, Math.floor(options.queryBlockRows ?? 256)),
    db: Math.max(1, Math.floor(options.docBlockRows ?? 512)),
    kernel,
  };
}

/** Writes query q's drained heap (best first) into the result, skipping its excluded documents. */
class Output {
  readonly indices: Int32Array;
  readonly scores: Float32Array;
  readonly counts: Int32Array;
  private readonly excludedMask: Uint8Array;
  private readonly outDocs: Int32Array;
  private readonly outScores: Float32Array;

  constructor(
    private readonly p: Plan,
    private readonly exclude: DenseTopKOptions['exclude'],
  ) {
    this.indices = new Int32Array(p.nq * p.kk);
    this.scores = new Float32Array(p.nq * p.kk);
    this.counts = new Int32Array(p.nq);
    this.excludedMask = new Uint8Array(p.nd);
    this.outDocs = new Int32Array(p.capacity);
    this.outScores = new Float32Array(p.capacity);
  }

  take(q: number, h: TopKKeeper): void {
    const { kk } = this.p;
    const ex = this.exclude?.[q];
    if (ex !== undefined) for (const d of ex) this.excludedMask[d] = 1;
    const m = h.drainInto(this.outDocs, this.outScores);
    let c = 0;
    for (let i = 0; i < m && c < kk; i++) {
      if (this.excludedMask[this.outDocs[i]] === 1) continue;
      this.indices[q * kk + c] = this.outDocs[i];
      this.scores[q * kk + c] = this.outScores[i];
      c++;
    }
    this.counts[q] = c;
    if (ex !== undefined) for (const d of ex) this.excludedMask[d] = 0;
  }

  /** Merges the worker threads' per-query survivors into one heap per query and takes each. */
  takeMerged(results: ReadonlyArray<{ counts: Int32Array; indices: Int32Array; scores: Float32Array }>): void {
    const { nq, capacity, tieRanks } = this.p;
    const h = new TopK(capacity, tieRanks);
    for (let q = 0; q < nq; q++) {
      const base = q * capacity;
      for (const r of results) for (let i = 0; i < r.counts[q]; i++) h.push(r.indices[base + i], r.scores[base + i]);
      this.take(q, h);
    }
  }
}

/**
 * Exact top-k by dot product of every query row with every document row (inputs already normalised
 * when cosine is wanted; use {@link normalizeMatrix} or {@link normalizedStore}), on the calling
 * thread. `docs` is a float32 matrix or a {@link DenseStore} (float32 or float16, chunked, maybe
 * row-mapped). Working memory is one heap of `k` entries per query of the current query block,
 * independent of the corpus size; the output is `rows x k`. Results do not depend on the block
 * sizes (nor on threads, see {@link denseTopKParallel}): each score is the same sum in the same
 * order, and the heap order is total (float32 score desc, then tie rank desc).
 * Scores: the `js` kernel accumulates in double over the float32 inputs, then rounds to float32;
 * the `wasm` kernel accumulates in float32 (see {@link DenseTopKOptions.kernel}). float16 values
 * are decoded exactly to float32 first.
 */
export function denseTopK(queries: EmbeddingMatrix, docs: EmbeddingMatrix | DenseStore, k: number, options: DenseTopKOptions = {}): DenseTopKResult {
  const store = toStore(docs);
  const p = plan(queries, store, k, options);
  const { nq, qb } = p;
  const out = new Output(p, options.exclude);
  const heaps: TopK[] = [];
  for (let i = 0; i < Math.min(qb, nq); i++) heaps.push(new TopK(p.capacity, p.tieRanks));
  const scratch: ScanScratch = { kernel: createBlockKernel(p.kernel), block: new Float32Array(0) };
  for (let q0 = 0; q0 < nq; q0 += qb) {
    checkAborted(options.signal);
    const q1 = Math.min(nq, q0 + qb);
    scanRange(p.Q, q0, q1, store, 0, store.rows, heaps, q0, p.db, scratch);
    for (let q = q0; q < q1; q++) out.take(q, heaps[q - q0]);
    options.onProgress?.(q1);
  }
  return { k: p.kk, indices: out.indices, scores: out.scores, counts: out.counts, kernel: p.kernel, threads: 1 };
}

/** Options of {@link denseTopKParallel}. */
export interface DenseTopKParallelOptions extends DenseTopKOptions {
  /**
   * Worker threads. Default: `os.availableParallelism()`. With 1, or when the work is small (fewer
   * than {@link PARALLEL_MIN_WORK} multiply-adds), the calling thread does it all.
   */
  threads?: number;
  /** Multiply-adds below which the calling thread works alone. Default {@link PARALLEL_MIN_WORK}. */
  minWork?: number;
  /** Told once per process why a large search without `kernel` did not use `ort` (see {@link chooseDenseKernel}). */
  onNote?: (message: string) => void;
  /**
   * Called as tasks finish with the approximate number of queries finished (threads work on
   * several query blocks at once, so this is the finished share of the work times the queries).
   */
  onProgress?: (queriesDone: number) => void;
}

/** Multiply-adds (queries x documents x dim) below which threads cost more than they save: 2^26. */
export const PARALLEL_MIN_WORK = 1 << 26;

/** `data` itself when it is in shared memory, else a shared copy. */
function shared<T extends Float32Array | Int32Array>(data: T): T {
  if (data.buffer instanceof SharedArrayBuffer) return data;
  const copy = new (data.constructor as { new (b: SharedArrayBuffer): T })(new SharedArrayBuffer(data.byteLength));
  copy.set(data as never);
  return copy;
}

/**
 * {@link denseTopK} on worker threads: the documents are cut into ranges, each (query block, range)
 * is a task the threads claim from a shared counter (a slow thread does fewer), each thread keeps a
 * heap per query, and the heaps are merged in the same total order, so the result is identical to
 * {@link denseTopK}'s, bit for bit. The document vectors are read in place when the store is in
 * shared memory ({@link allocateStore}, {@link normalizedStore}); a store that is not is copied
 * into shared memory once for the call. Aborting `signal` terminates the threads.
 */
export async function denseTopKParallel(
  queries: EmbeddingMatrix,
  docs: EmbeddingMatrix | DenseStore,
  k: number,
  options: DenseTopKParallelOptions = {},
): Promise<DenseTopKResult> {
  const own = toStore(docs);
  const kernel = options.kernel ?? (await chooseDenseKernel(queries.rows * own.rows * own.dim, options.onNote));
  const p = plan(queries, own, k, { ...options, kernel });
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  if (p.kernel === 'ort') return denseTopKOrt(p, own, threads, options);
  const work = p.nq * p.nd * p.dim;
  if (threads === 1 || work < (options.minWork ?? PARALLEL_MIN_WORK) || p.nq === 0 || p.nd === 0) return denseTopK(queries, docs, k, options);
  checkAborted(options.signal);
  const store: DenseStore = {
    ...own,
    chunks: own.chunks.map((c) => (c.buffer instanceof SharedArrayBuffer ? c : c instanceof Float32Array ? shared(c) : sharedU16(c))),
    ...(own.rowMap !== undefined ? { rowMap: shared(own.rowMap) } : {}),
  };
  // About 4 tasks per thread and query block, each a whole number of document blocks.
  const per = Math.ceil(store.rows / (threads * 4));
  const taskRows = Math.max(p.db, Math.ceil(per / p.db) * p.db);
  const docTasks = Math.ceil(store.rows / taskRows);
  const totalTasks = docTasks * Math.ceil(p.nq / p.qb);
  const data: DenseWorkerData = {
    queries: shared(p.Q.subarray(0, p.nq * store.dim)),
    nq: p.nq,
    store,
    tieRanks: shared(p.tieRanks),
    capacity: p.capacity,
    kernel: p.kernel,
    queryBlockRows: p.qb,
    docBlockRows: p.db,
    taskRows,
    counter: new Int32Array(new SharedArrayBuffer(4)),
  };
  const n = Math.min(threads, totalTasks);
  const workers = Array.from({ length: n }, () => new Worker(distModulePath('search/dense-worker.js'), { workerData: data }));
  const results: Array<Extract<DenseWorkerMessage, { type: 'done' }>> = [];
  let tasksDone = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new CorebError('INTERRUPTED', 'search interrupted', { cause: options.signal?.reason }));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      let pending = n;
      for (const w of workers) {
        w.on('message', (m: DenseWorkerMessage) => {
          if (m.type === 'task') {
            tasksDone++;
            options.onProgress?.(Math.floor((p.nq * tasksDone) / totalTasks));
          } else if (m.type === 'error') {
            reject(new CorebError(m.code === 'UNSUPPORTED' ? 'UNSUPPORTED' : 'INTERNAL', `dense search worker: ${m.message}`));
          } else if (m.type === 'done') {
            results.push(m);
            if (--pending === 0) {
              options.signal?.removeEventListener('abort', onAbort);
              resolve();
            }
          }
        });
        w.on('error', (e) => reject(new CorebError('INTERNAL', `dense search worker failed: ${e.message}`, { cause: e })));
        w.on('exit', (code) => {
          if (code !== 0) reject(new CorebError('INTERNAL', `dense search worker exited with code ${code}`));
        });
      }
    });
  } finally {
    for (const w of workers) void w.terminate();
  }
  const out = new Output(p, options.exclude);
  out.takeMerged(results);
  return { k: p.kk, indices: out.indices, scores: out.scores, counts: out.counts, kernel: p.kernel, threads: n };
}

/** A Uint16Array in shared memory (itself when it already is). */
function sharedU16(c: Uint16Array): Uint16Array {
  const copy = new Uint16Array(new SharedArrayBuffer(c.byteLength));
  copy.set(c);
  return copy;
}

/** Queries per `ort` GEMM. */
const ORT_QUERY_ROWS = 1024;
/** Scores per `ort` GEMM output (8 MB of float32): documents per block = this / query rows (2,048 for 1,000 queries). */
const ORT_BLOCK_SCORES = 1 << 21;

/**
 * The `ort` kernel's state for one search: the onnxruntime session, one heap per query, and
 * `score`, which offers a block of float32 document rows to every heap (query blocks of
 * {@link ORT_QUERY_ROWS}, one GEMM each, its output scanned in the same order as `scanRange`).
 */
async function createOrtSearch(p: Plan, threads: number) {
  const scorer = await createOrtScorer(threads);
  const heaps = Array.from({ length: p.nq }, () => createTopK(p.capacity, p.tieRanks));
  const qb = Math.min(Math.max(p.nq, 1), ORT_QUERY_ROWS);
  // Also at most 2^22 floats (16 MB) of documents per block (a float16 block is decoded into scratch).
  const db = Math.max(256, Math.floor(Math.min(ORT_BLOCK_SCORES / qb, (1 << 22) / p.dim) / 256) * 256);
  return {
    db,
    heaps,
    scorer,
    /** Offers rows `[0, w)` of `docs` as documents `base + i` (or `labels[base + i]`). */
    async score(docs: Float32Array, w: number, base: number, labels?: Int32Array): Promise<void> {
      for (let q0 = 0; q0 < p.nq; q0 += qb) {
        const q1 = Math.min(p.nq, q0 + qb);
        const out = await scorer.scores(p.Q.subarray(q0 * p.dim, q1 * p.dim), q1 - q0, docs, w, p.dim);
        for (let q = q0; q < q1; q++) {
          const h = heaps[q];
          const o = (q - q0) * w;
          let bar = h.threshold;
          for (let i = 0; i < w; i++) {
            const v = out[o + i];
            if (v >= bar) {
              h.push(labels === undefined ? base + i : labels[base + i], v);
              bar = h.threshold;
            }
          }
        }
      }
    },
  };
}

/**
 * {@link denseTopKParallel} with the `ort` kernel: document blocks scored by onnxruntime's SGEMM
 * on `threads` threads. float32 blocks are passed in place (a block never spans two chunks);
 * float16 or row-mapped blocks are decoded into one block of scratch.
 */
async function denseTopKOrt(p: Plan, store: DenseStore, threads: number, options: DenseTopKParallelOptions): Promise<DenseTopKResult> {
  return withHeapHeadroom(() => denseTopKOrtRun(p, store, threads, options));
}

async function denseTopKOrtRun(p: Plan, store: DenseStore, threads: number, options: DenseTopKParallelOptions): Promise<DenseTopKResult> {
  checkAborted(options.signal);
  const s = await createOrtSearch(p, threads);
  const direct = store.dtype === 'float32' && store.rowMap === undefined;
  const scratch = new Float32Array(direct ? 0 : Math.min(s.db, store.rows) * p.dim);
  const cr = store.chunkRows;
  try {
    if (p.nq > 0) {
      for (let b0 = 0; b0 < store.rows; ) {
        checkAborted(options.signal);
        const b1 = Math.min(store.rows, b0 + s.db, direct ? (Math.floor(b0 / cr) + 1) * cr : Number.POSITIVE_INFINITY);
        await s.score(readBlock(store, b0, b1, scratch), b1 - b0, b0);
        options.onProgress?.(Math.floor((p.nq * b1) / store.rows));
        b0 = b1;
      }
    }
  } finally {
    await s.scorer.release();
  }
  const out = new Output(p, options.exclude);
  for (let q = 0; q < p.nq; q++) out.take(q, s.heaps[q]);
  return { k: p.kk, indices: out.indices, scores: out.scores, counts: out.counts, kernel: 'ort', threads };
}

/** Options of {@link denseTopKStreamed}. */
export interface DenseTopKStreamedOptions extends DenseTopKParallelOptions {
  /**
   * On the calling thread (one thread, or small work): milliseconds of scoring between two turns
   * given to the event loop (so a signal handler runs and the next chunk's read completes). Default 50.
   */
  yieldMs?: number;
  /** Called after each chunk with the number of chunks scored. */
  onChunk?: (chunksDone: number) => void;
}

/** `p` with a handler attached, so a rejection nobody awaited yet is not reported as unhandled. */
function held<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

function interrupted(signal: AbortSignal | undefined): CorebError {
  return new CorebError('INTERRUPTED', 'search interrupted', { cause: signal?.reason });
}

/**
 * {@link denseTopKParallel} over documents read chunk by chunk from `source` (e.g. a `.npy` file
 * larger than memory, `openNpyChunks`): memory holds two chunks (one scored while the next is
 * read), the queries and one heap of `k` entries per query, whatever the corpus size. Every
 * (query, document) score is the same float32 sum as in memory and the heap order is total (score,
 * then tie rank), so the result is identical, bit for bit, to {@link denseTopK} over the same
 * vectors held in memory, for any chunk size or thread count. With threads, worker threads score
 * each chunk in shared memory while the calling thread reads the next; on the calling thread the
 * scoring gives the event loop a turn every `yieldMs`. Aborting `signal` stops it (threads
 * terminated, `INTERRUPTED`) within a read or a turn.
 * @throws CorebError `INTERRUPTED` when `signal` aborts; the source's errors (`IO` naming the file).
 */
export async function denseTopKStreamed(
  queries: EmbeddingMatrix,
  source: DenseChunkSource,
  k: number,
  options: DenseTopKStreamedOptions = {},
): Promise<DenseTopKResult> {
  const kernel = options.kernel ?? (await chooseDenseKernel(queries.rows * source.rows * source.dim, options.onNote));
  const p = plan(queries, source, k, { ...options, kernel });
  const { signal } = options;
  checkAborted(signal);
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const work = p.nq * p.nd * p.dim;
  const parallel = threads > 1 && work >= (options.minWork ?? PARALLEL_MIN_WORK) && p.nq > 0 && p.nd > 0;
  const cr = source.chunkRows;
  // onnxruntime-node takes plain ArrayBuffers only; worker threads need shared ones.
  const ort = p.kernel === 'ort';
  const mem = (bytes: number) => (ort ? new ArrayBuffer(bytes) : new SharedArrayBuffer(bytes));
  const slot = () => ({
    data: source.dtype === 'float16' ? new Uint16Array(mem(cr * p.dim * 2)) : new Float32Array(mem(cr * p.dim * 4)),
    labels: new Int32Array(mem(cr * 4)),
  });
  const slots = [slot(), slot()];
  const read = (c: number) => held(source.readChunk(c, slots[c % 2].data, slots[c % 2].labels, signal));
  const out = new Output(p, options.exclude);
  const n = source.chunkCount;
  const progress = (c: number) => {
    options.onChunk?.(c);
    options.onProgress?.(Math.floor((p.nq * c) / n));
  };
  if (ort) return withHeapHeadroom(() => streamOrt());
  async function streamOrt(): Promise<DenseTopKResult> {
    // One pass over the file; each chunk is cut into GEMM blocks (float16 decoded per block).
    const o = await createOrtSearch(p, threads);
    const scratch = new Float32Array(source.dtype === 'float16' ? Math.min(o.db, cr) * p.dim : 0);
    try {
      let next = n > 0 && p.nq > 0 ? read(0) : undefined;
      for (let c = 0; next !== undefined; c++) {
        const rows = await next;
        next = c + 1 < n ? read(c + 1) : undefined;
        const s = slots[c % 2];
        const store: DenseStore = { rows, dim: p.dim, dtype: source.dtype, chunkRows: cr, chunks: [s.data] };
        for (let d0 = 0; d0 < rows; d0 += o.db) {
          if (signal?.aborted) throw interrupted(signal);
          const d1 = Math.min(rows, d0 + o.db);
          await o.score(readBlock(store, d0, d1, scratch), d1 - d0, d0, s.labels);
        }
        progress(c + 1);
      }
    } finally {
      await o.scorer.release();
    }
    for (let q = 0; q < p.nq; q++) out.take(q, o.heaps[q]);
    return { k: p.kk, indices: out.indices, scores: out.scores, counts: out.counts, kernel: 'ort', threads };
  }
  if (!parallel) {
    const yieldMs = options.yieldMs ?? 50;
    const heaps = Array.from({ length: p.nq }, () => createTopK(p.capacity, p.tieRanks));
    const scratch: ScanScratch = { kernel: createBlockKernel(p.kernel), block: new Float32Array(0) };
    // Rows scored between two clock checks: about 25 ms of a 256-query block at dim 384.
    const step = p.db * 4;
    let last = performance.now();
    let next = n > 0 ? read(0) : undefined;
    for (let c = 0; c < n; c++) {
      const rows = await (next as Promise<number>);
      next = c + 1 < n ? read(c + 1) : undefined;
      const s = slots[c % 2];
      const store: DenseStore = { rows, dim: p.dim, dtype: source.dtype, chunkRows: cr, chunks: [s.data] };
      for (let q0 = 0; q0 < p.nq; q0 += p.qb) {
        const q1 = Math.min(p.nq, q0 + p.qb);
        for (let d0 = 0; d0 < rows; d0 += step) {
          scanRange(p.Q, q0, q1, store, d0, Math.min(rows, d0 + step), heaps, 0, p.db, scratch, s.labels);
          if (performance.now() - last >= yieldMs) {
            await nextTurn();
            if (signal?.aborted) throw interrupted(signal);
            last = performance.now();
          }
        }
      }
      progress(c + 1);
    }
    for (let q = 0; q < p.nq; q++) out.take(q, heaps[q]);
    return { k: p.kk, indices: out.indices, scores: out.scores, counts: out.counts, kernel: p.kernel, threads: 1 };
  }
  const per = Math.ceil(cr / (threads * 4));
  const data: DenseStreamWorkerData = {
    stream: true,
    queries: shared(p.Q.subarray(0, p.nq * p.dim)),
    nq: p.nq,
    dim: p.dim,
    dtype: source.dtype,
    chunkRows: cr,
    slots,
    tieRanks: shared(p.tieRanks),
    capacity: p.capacity,
    kernel: p.kernel,
    queryBlockRows: p.qb,
    docBlockRows: p.db,
    taskRows: Math.max(p.db, Math.ceil(per / p.db) * p.db),
    counter: new Int32Array(new SharedArrayBuffer(4)),
  };
  const workers = Array.from({ length: threads }, () => new Worker(distModulePath('search/dense-worker.js'), { workerData: data }));
  const results: Array<Extract<DenseWorkerMessage, { type: 'done' }>> = [];
  // The step being awaited: `remaining` workers still to answer `expect`.
  let waiting: { expect: 'chunkDone' | 'done'; remaining: number; resolve: () => void; reject: (e: Error) => void } | undefined;
  let failure: Error | undefined;
  const fail = (e: Error) => {
    failure ??= e;
    waiting?.reject(failure);
    waiting = undefined;
  };
  const all = (expect: 'chunkDone' | 'done', command: DenseStreamCommand) =>
    new Promise<void>((resolve, reject) => {
      if (failure !== undefined) return reject(failure);
      waiting = { expect, remaining: workers.length, resolve, reject };
      for (const w of workers) w.postMessage(command);
    });
  const onAbort = () => fail(interrupted(signal));
  signal?.addEventListener('abort', onAbort, { once: true });
  for (const w of workers) {
    w.on('message', (m: DenseWorkerMessage) => {
      if (m.type === 'task') return;
      if (m.type === 'error') return fail(new CorebError(m.code === 'UNSUPPORTED' ? 'UNSUPPORTED' : 'INTERNAL', `dense search worker: ${m.message}`));
      if (m.type === 'done') results.push(m);
      if (waiting !== undefined && waiting.expect === m.type && --waiting.remaining === 0) {
        const w = waiting;
        waiting = undefined;
        w.resolve();
      }
    });
    w.on('error', (e) => fail(new CorebError('INTERNAL', `dense search worker failed: ${e.message}`, { cause: e })));
    w.on('exit', (code) => {
      if (code !== 0) fail(new CorebError('INTERNAL', `dense search worker exited with code ${code}`));
    });
  }
  try {
    let next = n > 0 ? read(0) : undefined;
    for (let c = 0; c < n; c++) {
      const rows = await (next as Promise<number>);
      if (failure !== undefined) throw failure;
      Atomics.store(data.counter, 0, 0);
      const scored = held(all('chunkDone', { type: 'chunk', slot: c % 2, rows }));
      // The next chunk is read into the other slot while the threads score this one.
      next = c + 1 < n ? read(c + 1) : undefined;
      await scored;
      progress(c + 1);
    }
    await all('done', { type: 'finish' });
  } finally {
    signal?.removeEventListener('abort', onAbort);
    for (const w of workers) void w.terminate();
  }
  out.takeMerged(results);
  return { k: p.kk, indices: out.indices, scores: out.scores, counts: out.counts, kernel: p.kernel, threads: workers.length };
}

/** Produces the vectors of a dense retriever: a live embedder, a file of precomputed vectors, ... */
export interface DenseEncoder {
  /** Secret-free description (model, dimensions, source file...). */
  describe(): Record<string, unknown>;
  /** One row per document, in order. */
  encodeDocs(docs: readonly Doc[], options: IndexOptions): Promise<EmbeddingMatrix>;
  /** One row per query, in order. */
  encodeQueries(queries: readonly Query[], options: SearchOptions): Promise<EmbeddingMatrix>;
  /**
   * Optional: the document vectors already L2-normalised, as a store whose logical rows are `docs`
   * in order (usually through `rowMap` into a larger store), so the retriever uses them without a
   * copy, or as a chunk source read at each search ({@link denseTopKStreamed}: vectors larger than
   * memory). When present the retriever calls it instead of {@link encodeDocs}.
   */
  docStore?(docs: readonly Doc[], options: IndexOptions): Promise<DenseStore | DenseChunkSource>;
  /**
   * True when {@link encodeDocs} returns a new matrix nothing else holds: the retriever may then
   * normalise it in place and keep it (no copy) when it lies in shared memory.
   */
  readonly freshDocs?: boolean;
}

/**
 * Adapts an {@link Embedder} to a {@link DenseEncoder}: documents are embedded as
 * `title + "\n" + text` (just `text` without a title) with role `document`, queries with role
 * `query`, both with the task so the embedder can pick its instruction template.
 */
export function createEmbedderEncoder(embedder: Embedder): DenseEncoder {
  return {
    freshDocs: true,
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
  /** See {@link DenseTopKOptions.kernel}. Default: chosen per search ({@link chooseDenseKernel}). */
  kernel?: DenseKernel;
  /** See {@link DenseTopKParallelOptions.onNote}. */
  onNote?: (message: string) => void;
  /** See {@link DenseTopKParallelOptions.threads}. Default: all cores. */
  threads?: number;
  /**
   * Storage of the document vectors: `float16` halves the memory (values rounded after
   * normalisation; scores still accumulated in float32). Default `float32`. Vectors an encoder
   * hands over as a store ({@link DenseEncoder.docStore}) keep the encoder's dtype.
   */
  dtype?: DenseDtype;
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
 * The normalised document vectors of `docs` as a store, with one copy of the matrix: the
 * encoder's own store ({@link DenseEncoder.docStore}); a fresh shared float32 matrix normalised in
 * place; else a normalised copy ({@link normalizedStore}), the encoder's matrix then dropped.
 */
async function indexVectors(encoder: DenseEncoder, docs: readonly Doc[], o: IndexOptions, dtype: DenseDtype): Promise<DenseStore | DenseChunkSource> {
  if (encoder.docStore !== undefined) {
    const store = await encoder.docStore(docs, o);
    if (store.rows !== docs.length) throw new CorebError('VALIDATION', `document vectors have ${store.rows} rows for ${docs.length} documents`);
    return store;
  }
  const raw = await encoder.encodeDocs(docs, o);
  validateMatrix(raw, 'document vectors');
  if (raw.rows !== docs.length) {
    throw new CorebError('VALIDATION', `document vectors have ${raw.rows} rows for ${docs.length} documents`);
  }
  if (dtype === 'float32' && encoder.freshDocs === true && raw.data.buffer instanceof SharedArrayBuffer) {
    normalizeRows(raw.data, raw.dim);
    return storeOfMatrix(raw);
  }
  return normalizedStore(raw, dtype);
}

/**
 * A dense retriever: encodes the corpus once with `encoder`, normalises the rows, and ranks each
 * query batch exactly by cosine similarity with {@link denseTopK} ({@link denseTopKStreamed} when
 * the encoder hands over a chunk source: one pass over the file per search call).
 */
export function createDenseRetriever(encoder: DenseEncoder, options: DenseRetrieverOptions = {}): Retriever {
  const blocks = {
    queryBlockRows: options.queryBlockRows ?? 256,
    docBlockRows: options.docBlockRows ?? 512,
    ...(options.kernel !== undefined ? { kernel: options.kernel } : {}),
    ...(options.onNote !== undefined ? { onNote: options.onNote } : {}),
  };
  // The kernels that ran (the default is chosen per search, by its size).
  const ran = new Set<DenseKernel>();
  const kernelName = (k: DenseKernel): string =>
    k === 'wasm'
      ? 'wasm-simd (float32 accumulation)'
      : k === 'ort'
        ? 'ort (onnxruntime SGEMM, float32 accumulation in its own order)'
        : 'js (double accumulation)';
  return {
    name: options.name ?? 'dense',
    describe(): RetrieverDescription {
      return {
        kind: 'dense',
        similarity: 'cosine (rows L2-normalised once, exact dot product)',
        kernel:
          ran.size > 0
            ? [...ran].map(kernelName).join(' and ')
            : options.kernel !== undefined
              ? kernelName(options.kernel)
              : `chosen per search: ${kernelName('ort')} from 2^30 multiply-adds when onnxruntime-node loads, else ${kernelName(defaultDenseKernel())}`,
        ...(options.dtype === 'float16' ? { storage: 'float16 (rounded after normalisation)' } : {}),
        ties: 'score as float32 descending, then docid descending by code point (trec_eval 9.0.8)',
        encoder: encoder.describe(),
      };
    },
    async index(docs: readonly Doc[], indexOptions: IndexOptions = {}): Promise<RetrieverIndex> {
      const docIds = docs.map((d) => d.id);
      const { tieRanks, positionOf } = rankDocIds(docIds);
      const matrix = await indexVectors(encoder, docs, indexOptions, options.dtype ?? 'float32');
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, searchOptions: SearchOptions = {}) {
          validateDepth(depth);
          const qraw = await encoder.encodeQueries(queries, searchOptions);
          validateMatrix(qraw, 'query vectors');
          if (qraw.rows !== queries.length) {
            throw new CorebError('VALIDATION', `query vectors have ${qraw.rows} rows for ${queries.length} queries`);
          }
          const exclude =
            searchOptions.exclude === undefined ? [] : queries.map((q) => resolveExcluded(searchOptions.exclude?.get(q.id), positionOf));
          searchOptions.progress?.start('dense search', queries.length);
          let reported = 0;
          const run: DenseTopKParallelOptions = {
            ...blocks,
            ...(options.threads !== undefined ? { threads: options.threads } : {}),
            tieRanks,
            exclude,
            signal: searchOptions.signal,
            onProgress: (done) => {
              searchOptions.progress?.tick(done - reported);
              reported = done;
            },
          };
          const qn = normalizeMatrix(qraw);
          // A chunk source (vectors larger than the memory budget) is read through once per search.
          const r = 'readChunk' in matrix ? await denseTopKStreamed(qn, matrix, depth, run) : await denseTopKParallel(qn, matrix, depth, run);
          ran.add(r.kernel);
          searchOptions.progress?.done();
          return toRankedLists(queries, r, docIds);
        },
      };
    },
  };
}
