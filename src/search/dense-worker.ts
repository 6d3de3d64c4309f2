/**
 * Worker thread of parallel dense search (see `denseTopKParallel`): claims (query block, document
 * range) tasks from a shared counter until none are left, keeps one bounded heap per query, and
 * posts every query's survivors back. Reads the queries and document vectors from shared memory.
 * In stream mode (`denseTopKStreamed`) the documents arrive chunk by chunk in shared slots: the
 * parent posts `chunk`, the threads claim that chunk's tasks, each answers `chunkDone`, and
 * `finish` makes them post their heaps.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockKernel, scanRange, type DenseKernel, type ScanScratch } from './dense-scan.js';
import type { DenseDtype, DenseStore } from '../core/vector-store.js';
import { TopK } from './top-k.js';

/** What both modes pass as `workerData`: the queries, the heaps' shape and the task split. */
interface DenseWorkerCommon {
  queries: Float32Array;
  nq: number;
  tieRanks: Int32Array;
  capacity: number;
  kernel: DenseKernel;
  queryBlockRows: number;
  docBlockRows: number;
  /** Documents per task. */
  taskRows: number;
  /** Shared task counter (index 0); in stream mode reset by the parent before each chunk. */
  counter: Int32Array;
}

/** What the parent passes as `workerData`. */
export interface DenseWorkerData extends DenseWorkerCommon {
  store: DenseStore;
}

/** What the parent passes as `workerData` in stream mode. */
export interface DenseStreamWorkerData extends DenseWorkerCommon {
  stream: true;
  dim: number;
  dtype: DenseDtype;
  /** Rows a slot holds at most. */
  chunkRows: number;
  /** Shared chunk buffers (float32, or float16 bit patterns) and their rows' logical indices. */
  slots: Array<{ data: Float32Array | Uint16Array; labels: Int32Array }>;
}

/** Messages from the parent in stream mode. */
export type DenseStreamCommand = { type: 'chunk'; slot: number; rows: number } | { type: 'finish' };

/** Messages to the parent. */
export type DenseWorkerMessage =
  | { type: 'task' }
  | { type: 'chunkDone' }
  | { type: 'done'; indices: Int32Array; scores: Float32Array; counts: Int32Array }
  | { type: 'error'; message: string; code?: string };

/** Posts every query's heap, best first (`capacity` slots per query), transferring the buffers. */
function postHeaps(port: NonNullable<typeof parentPort>, heaps: ReadonlyArray<TopK | undefined>, nq: number, capacity: number): void {
  const indices = new Int32Array(nq * capacity);
  const scores = new Float32Array(nq * capacity);
  const counts = new Int32Array(nq);
  for (let q = 0; q < nq; q++) {
    const h = heaps[q];
    if (h !== undefined) counts[q] = h.drainInto(indices.subarray(q * capacity), scores.subarray(q * capacity));
  }
  port.postMessage({ type: 'done', indices, scores, counts } satisfies DenseWorkerMessage, [indices.buffer, scores.buffer, counts.buffer]);
}

function postError(port: NonNullable<typeof parentPort>, e: unknown): void {
  const err = e as { message?: string; code?: string };
  port.postMessage({ type: 'error', message: String(err.message ?? e), ...(typeof err.code === 'string' ? { code: err.code } : {}) });
}

function runStream(data: DenseStreamWorkerData): void {
  const port = parentPort;
  if (port === null) return;
  const { queries, nq, dim, dtype, chunkRows, slots, tieRanks, capacity, queryBlockRows: qb, docBlockRows, taskRows, counter } = data;
  const heaps: Array<TopK | undefined> = new Array(nq);
  const queryBlocks = Math.ceil(nq / qb);
  let scratch: ScanScratch | undefined;
  port.on('message', (m: DenseStreamCommand) => {
    try {
      if (m.type === 'finish') {
        postHeaps(port, heaps, nq, capacity);
        port.close();
        return;
      }
      scratch ??= { kernel: createBlockKernel(data.kernel), block: new Float32Array(0) };
      const slot = slots[m.slot];
      const store: DenseStore = { rows: m.rows, dim, dtype, chunkRows, chunks: [slot.data] };
      const docTasks = Math.ceil(m.rows / taskRows);
      const total = docTasks * queryBlocks;
      for (;;) {
        const t = Atomics.add(counter, 0, 1);
        if (t >= total) break;
        const q0 = Math.floor(t / docTasks) * qb;
        const q1 = Math.min(nq, q0 + qb);
        for (let q = q0; q < q1; q++) if (heaps[q] === undefined) heaps[q] = new TopK(capacity, tieRanks);
        const d0 = (t % docTasks) * taskRows;
        scanRange(queries, q0, q1, store, d0, Math.min(m.rows, d0 + taskRows), heaps as TopK[], 0, docBlockRows, scratch, slot.labels);
        port.postMessage({ type: 'task' } satisfies DenseWorkerMessage);
      }
      port.postMessage({ type: 'chunkDone' } satisfies DenseWorkerMessage);
    } catch (e) {
      postError(port, e);
    }
  });
}

function run(data: DenseWorkerData): void {
  const port = parentPort;
  if (port === null) return;
  try {
    const { queries, nq, store, tieRanks, capacity, queryBlockRows: qb, docBlockRows, taskRows, counter } = data;
    const docTasks = Math.ceil(store.rows / taskRows);
    const queryBlocks = Math.ceil(nq / qb);
    const total = docTasks * queryBlocks;
    const heaps: Array<TopK | undefined> = new Array(nq);
    const scratch = { kernel: createBlockKernel(data.kernel), block: new Float32Array(0) };
    for (;;) {
      const t = Atomics.add(counter, 0, 1);
      if (t >= total) break;
      const qBlock = Math.floor(t / docTasks);
      const q0 = qBlock * qb;
      const q1 = Math.min(nq, q0 + qb);
      for (let q = q0; q < q1; q++) if (heaps[q] === undefined) heaps[q] = new TopK(capacity, tieRanks);
      const d0 = (t % docTasks) * taskRows;
      scanRange(queries, q0, q1, store, d0, Math.min(store.rows, d0 + taskRows), heaps as TopK[], 0, docBlockRows, scratch);
      port.postMessage({ type: 'task' } satisfies DenseWorkerMessage);
    }
    postHeaps(port, heaps, nq, capacity);
  } catch (e) {
    postError(port, e);
  }
}

const data = workerData as DenseWorkerData | DenseStreamWorkerData;
if ('stream' in data) runStream(data);
else run(data);
