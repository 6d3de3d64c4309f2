/**
 * Worker thread of parallel dense search (see `denseTopKParallel`): claims (query block, document
 * range) tasks from a shared counter until none are left, keeps one bounded heap per query, and
 * posts every query's survivors back. Reads the queries and document vectors from shared memory.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockKernel, scanRange, type DenseKernel } from './dense-scan.js';
import type { DenseStore } from '../core/vector-store.js';
import { TopK } from './top-k.js';

/** What the parent passes as `workerData`. */
export interface DenseWorkerData {
  queries: Float32Array;
  nq: number;
  store: DenseStore;
  tieRanks: Int32Array;
  capacity: number;
  kernel: DenseKernel;
  queryBlockRows: number;
  docBlockRows: number;
  /** Documents per task. */
  taskRows: number;
  /** Shared task counter (index 0). */
  counter: Int32Array;
}

/** Messages to the parent. */
export type DenseWorkerMessage =
  | { type: 'task' }
  | { type: 'done'; indices: Int32Array; scores: Float32Array; counts: Int32Array }
  | { type: 'error'; message: string; code?: string };

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
    const indices = new Int32Array(nq * capacity);
    const scores = new Float32Array(nq * capacity);
    const counts = new Int32Array(nq);
    for (let q = 0; q < nq; q++) {
      const h = heaps[q];
      if (h !== undefined) counts[q] = h.drainInto(indices.subarray(q * capacity), scores.subarray(q * capacity));
    }
    port.postMessage({ type: 'done', indices, scores, counts } satisfies DenseWorkerMessage, [indices.buffer, scores.buffer, counts.buffer]);
  } catch (e) {
    const err = e as { message?: string; code?: string };
    port.postMessage({ type: 'error', message: String(err.message ?? e), ...(typeof err.code === 'string' ? { code: err.code } : {}) });
  }
}

run(workerData as DenseWorkerData);
