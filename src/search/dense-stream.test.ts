import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeMatrix, type EmbeddingMatrix } from '../core/embedding.js';
import { isCorebError } from '../core/errors.js';
import { createUniform } from '../core/random.js';
import { normalizedStore, type DenseChunkSource, type DenseDtype, type DenseStore } from '../core/vector-store.js';
import { denseTopK, denseTopKStreamed, type DenseKernel, type DenseTopKResult } from './dense.js';
import { createTieRanks } from './top-k.js';

/** Small integers in [-2, 2] (many exact ties); every second row a copy of the one before. */
function tieHeavy(rows: number, dim: number, seed: number): EmbeddingMatrix {
  const r = createUniform(seed);
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows; i++) {
    if (i % 2 === 1) data.copyWithin(i * dim, (i - 1) * dim, i * dim);
    else for (let j = 0; j < dim; j++) data[i * dim + j] = Math.floor(r() * 5) - 2;
  }
  return { rows, dim, data };
}

/**
 * A chunk source over a store held in memory (the stand-in for a file), `chunkRows` per chunk:
 * file row f is logical row `labelOf[f]` (default f; -1: not in the corpus).
 */
function memorySource(store: DenseStore, chunkRows: number, labelOf?: Int32Array): DenseChunkSource & { reads: number } {
  const order = labelOf ?? Int32Array.from({ length: store.rows }, (_, i) => i);
  const dim = store.dim;
  const src = store.chunks[0];
  const source = {
    rows: store.rows,
    dim,
    dtype: store.dtype,
    chunkRows,
    chunkCount: Math.ceil(order.length / chunkRows),
    reads: 0,
    async readChunk(i: number, into: Float32Array | Uint16Array, labels: Int32Array) {
      source.reads++;
      await new Promise((r) => setImmediate(r));
      let n = 0;
      for (let f = i * chunkRows; f < Math.min(order.length, (i + 1) * chunkRows); f++) {
        const d = order[f];
        if (d < 0) continue;
        into.set(src.subarray(f * dim, (f + 1) * dim) as never, n * dim);
        labels[n++] = d;
      }
      return n;
    },
  };
  return source;
}

function docIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `d${(i * 7919) % 1000}`);
}

/** True when some query's list holds two equal scores next to each other. */
function hasTies(r: DenseTopKResult, nq: number): boolean {
  for (let q = 0; q < nq; q++) for (let i = 1; i < r.counts[q]; i++) if (r.scores[q * r.k + i] === r.scores[q * r.k + i - 1]) return true;
  return false;
}

test('streamed dense top-k equals the in-memory search bit for bit: chunks splitting ties, a partial last chunk, file order, threads, float16', async () => {
  const nd = 203; // 203 = 7 x 29, and 203 % 16 = 11: a partial last chunk
  const queries = normalizeMatrix(tieHeavy(37, 12, 5));
  const raw = tieHeavy(nd, 12, 9);
  const ids = docIds(nd);
  const tieRanks = createTieRanks(ids);
  const reversed = Int32Array.from({ length: nd }, (_, i) => nd - 1 - i);
  const exclude = Array.from({ length: 37 }, (_, q) => (q % 3 === 0 ? [q, q + 1] : undefined));
  for (const dtype of ['float32', 'float16'] as DenseDtype[]) {
    const store = normalizedStore(raw, dtype);
    // The same rows stored last to first.
    const reversedFile = normalizedStore(
      { ...raw, data: Float32Array.from({ length: nd * 12 }, (_, i) => raw.data[(nd - 1 - Math.floor(i / 12)) * 12 + (i % 12)]) },
      dtype,
    );
    for (const kernel of ['wasm', 'js'] as DenseKernel[]) {
      const ref = denseTopK(queries, store, 20, { tieRanks, kernel, exclude, docBlockRows: 8 });
      assert.ok(hasTies(ref, 37), 'the data has tied scores inside the lists');
      // Odd chunk sizes put a row and its copy (the same score) in different chunks.
      for (const [chunkRows, order, threads] of [
        [7, undefined, 1],
        [16, undefined, 1],
        [16, reversed, 1],
        [1, undefined, 1],
        [nd, undefined, 1],
        [7, undefined, 3],
        [16, reversed, 2],
      ] as const) {
        const source = memorySource(order === undefined ? store : reversedFile, chunkRows, order);
        const got = await denseTopKStreamed(queries, source, 20, {
          tieRanks,
          kernel,
          exclude,
          threads,
          minWork: 0,
          docBlockRows: 8,
          queryBlockRows: 5,
        });
        const what = `${dtype} ${kernel} chunk ${chunkRows} ${order ? 'reversed' : 'in order'} threads ${threads}`;
        assert.equal(got.threads, threads, what);
        assert.equal(source.reads, Math.ceil(nd / chunkRows), `${what}: each chunk read once`);
        assert.deepEqual(got.counts, ref.counts, what);
        assert.deepEqual(got.indices, ref.indices, what);
        assert.deepEqual(got.scores, ref.scores, what);
      }
    }
  }
});

test('a streamed subset (rows of the file not in the corpus) ranks like the in-memory subset', async () => {
  const all = normalizedStore(tieHeavy(90, 8, 3));
  const queries = normalizeMatrix(tieHeavy(11, 8, 4));
  // The corpus: every third file row, as logical rows in reverse.
  const corpusRows: number[] = [];
  for (let f = 0; f < 90; f += 3) corpusRows.unshift(f);
  const ids = docIds(corpusRows.length);
  const tieRanks = createTieRanks(ids);
  const mapped: DenseStore = { ...all, rows: corpusRows.length, rowMap: Int32Array.from(corpusRows) };
  const ref = denseTopK(queries, mapped, 9, { tieRanks });
  const fileOrder = new Int32Array(90).fill(-1);
  corpusRows.forEach((f, i) => {
    fileOrder[f] = i;
  });
  const viaFile = memorySource(all, 10, fileOrder);
  const got = await denseTopKStreamed(queries, { ...viaFile, rows: corpusRows.length }, 9, { tieRanks, threads: 2, minWork: 0 });
  assert.deepEqual(got.indices, ref.indices);
  assert.deepEqual(got.scores, ref.scores);
});

test('streamed search stops when aborted, on the calling thread and on worker threads', async () => {
  const store = normalizedStore(tieHeavy(400, 16, 1));
  const queries = normalizeMatrix(tieHeavy(50, 16, 2));
  for (const threads of [1, 2]) {
    const ac = new AbortController();
    const source = memorySource(store, 10);
    const p = denseTopKStreamed(queries, source, 5, {
      threads,
      minWork: 0,
      signal: ac.signal,
      yieldMs: 0,
      onChunk: (c) => {
        if (c === 3) ac.abort(new Error('SIGINT'));
      },
    });
    await assert.rejects(p, (e) => isCorebError(e, 'INTERRUPTED'), `threads ${threads}`);
    assert.ok(source.reads <= 5, `threads ${threads}: stopped after ${source.reads} of 40 chunks`);
  }
  // The event loop gets turns while one chunk (10 query blocks) is scored on the calling thread.
  const big = memorySource(store, 400);
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await denseTopKStreamed(queries, big, 5, { threads: 1, yieldMs: 0, queryBlockRows: 5 });
  running = false;
  assert.ok(turns >= 10, `the event loop had ${turns} turns during the search`);
  turns = 0;
  running = true;
  setImmediate(tick);
  denseTopK(queries, store, 5, { queryBlockRows: 5 });
  running = false;
  assert.equal(turns, 0, 'the in-memory search gives none (the check can fail)');
});

test('a failing read rejects the streamed search with its error', async () => {
  const store = normalizedStore(tieHeavy(100, 8, 1));
  const queries = normalizeMatrix(tieHeavy(5, 8, 2));
  for (const threads of [1, 2]) {
    const source = memorySource(store, 10);
    const read = source.readChunk;
    source.readChunk = async (i, into, labels) => {
      if (i === 4) throw new Error('disk on fire');
      return read(i, into, labels);
    };
    await assert.rejects(denseTopKStreamed(queries, source, 5, { threads, minWork: 0 }), /disk on fire/);
  }
});
