import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, Query } from '../core/dataset.js';
import { normalizeMatrix, type EmbeddingMatrix } from '../core/embedding.js';
import { isCorebError } from '../core/errors.js';
import { createUniform } from '../core/random.js';
import { allocateStore, writeRows, type DenseChunkSource, type DenseDtype, type DenseStore } from '../core/vector-store.js';
import { loadOrt } from './dense-ort.js';
import {
  ORT_AUTO_MIN_WORK,
  chooseDenseKernel,
  createDenseRetriever,
  denseTopK,
  denseTopKParallel,
  denseTopKStreamed,
  type DenseEncoder,
  type DenseTopKResult,
} from './dense.js';
import { createTieRanks } from './top-k.js';

/** Small integers in [-2, 2]: every dot product is exact in float32 whatever the summation order, and many tie. */
function integers(rows: number, dim: number, seed: number, duplicateEvery = 0): EmbeddingMatrix {
  const r = createUniform(seed);
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < dim; j++) data[i * dim + j] = Math.floor(r() * 5) - 2;
    if (duplicateEvery > 0 && i % duplicateEvery === 1) data.copyWithin(i * dim, (i - 1) * dim, i * dim);
  }
  return { rows, dim, data };
}

/** Uniform floats in [-1, 1), rows normalised. */
function floats(rows: number, dim: number, seed: number): EmbeddingMatrix {
  const r = createUniform(seed);
  return normalizeMatrix({ rows, dim, data: Float32Array.from({ length: rows * dim }, () => r() * 2 - 1) });
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `d${(i * 7919) % 1000}x${i}`);

function hasTies(r: DenseTopKResult): boolean {
  for (let q = 0; q < r.counts.length; q++)
    for (let i = 1; i < r.counts[q]; i++) if (r.scores[q * r.k + i] === r.scores[q * r.k + i - 1]) return true;
  return false;
}

function sameResult(got: DenseTopKResult, ref: DenseTopKResult, what: string): void {
  assert.deepEqual(got.counts, ref.counts, what);
  assert.deepEqual(got.indices, ref.indices, what);
  assert.deepEqual(got.scores, ref.scores, what);
}

test('kernel ort ranks exactly like the wasm kernel when scores are exact: ties by docid, exclusions, chunked, row-mapped and float16 stores, threads', async () => {
  const nd = 700;
  const docs = integers(nd, 13, 1, 3);
  const queries = integers(29, 13, 2);
  const docIds = ids(nd);
  const tieRanks = createTieRanks(docIds);
  const exclude = Array.from({ length: 29 }, (_, q) => (q % 4 === 0 ? [q, q + 1, 2 * q] : undefined));
  const ref = denseTopK(queries, docs, 25, { tieRanks, exclude, kernel: 'wasm' });
  assert.ok(hasTies(ref), 'the data has tied scores inside the lists');
  for (const threads of [1, 2]) {
    const got = await denseTopKParallel(queries, docs, 25, { tieRanks, exclude, kernel: 'ort', threads });
    assert.equal(got.kernel, 'ort');
    assert.equal(got.threads, threads);
    sameResult(got, ref, `matrix, threads ${threads}`);
  }
  // Shared memory in chunks of 64 rows (a GEMM block never spans two), float16, a row map.
  for (const dtype of ['float32', 'float16'] as DenseDtype[]) {
    // Not normalised (integers in [-2, 2] are exact in float16 too).
    const store = allocateStore(nd, 13, dtype, 64 * 13 * (dtype === 'float16' ? 2 : 4));
    writeRows(store, 0, docs.data);
    assert.ok(store.chunks.length > 1);
    const r = await denseTopKParallel(queries, store, 25, { tieRanks, exclude, kernel: 'ort', threads: 1 });
    sameResult(r, denseTopK(queries, store, 25, { tieRanks, exclude, kernel: 'wasm' }), `${dtype} store`);
    const rowMap = Int32Array.from({ length: 300 }, (_, i) => nd - 1 - 2 * i);
    const mapped: DenseStore = { ...store, rows: 300, rowMap };
    const subRanks = createTieRanks(docIds.slice(0, 300));
    sameResult(
      await denseTopKParallel(queries, mapped, 25, { tieRanks: subRanks, kernel: 'ort', threads: 2 }),
      denseTopK(queries, mapped, 25, { tieRanks: subRanks, kernel: 'wasm' }),
      `${dtype} row-mapped store`,
    );
  }
});

test('kernel ort over several query and document blocks (1,030 queries, 20,000 documents) equals wasm on exact scores', async () => {
  const docs = integers(20_000, 5, 3, 2);
  const queries = integers(1030, 5, 4);
  const tieRanks = createTieRanks(ids(20_000));
  const ref = denseTopK(queries, docs, 10, { tieRanks, kernel: 'wasm' });
  let last = 0;
  const got = await denseTopKParallel(queries, docs, 10, { tieRanks, kernel: 'ort', threads: 1, onProgress: (d) => (last = d) });
  sameResult(got, ref, '1030 x 20000');
  assert.equal(last, 1030, 'progress reaches every query');
});

test('kernel ort on float data: the same top-k sets as wasm where scores are separated, scores within float32 rounding', async () => {
  const docs = floats(3000, 384, 5);
  const queries = floats(40, 384, 6);
  const tieRanks = createTieRanks(ids(3000));
  const ref = denseTopK(queries, docs, 50, { tieRanks, kernel: 'wasm' });
  const got = await denseTopKParallel(queries, docs, 50, { tieRanks, kernel: 'ort', threads: 2 });
  let compared = 0;
  for (let q = 0; q < 40; q++) {
    for (let i = 0; i < 50; i++) assert.ok(Math.abs(got.scores[q * 50 + i] - ref.scores[q * 50 + i]) < 1e-5, `query ${q} rank ${i}`);
    // The set of the first 49 is the same when the 50th and 51st scores are apart by more than rounding.
    const all = denseTopK(queries, docs, 51, { tieRanks, kernel: 'wasm' });
    if (all.scores[q * 51 + 49] - all.scores[q * 51 + 50] < 1e-5) continue;
    const set = (r: DenseTopKResult) => [...r.indices.subarray(q * 50, q * 50 + 50)].sort((a, b) => a - b);
    assert.deepEqual(set(got), set(ref), `query ${q}`);
    compared++;
  }
  assert.ok(compared > 30, `${compared} queries with separated scores compared`);
});

/** The rows of `m` (not normalised) stored as `dtype`, as a chunk source of `chunkRows` rows, in file order reversed. */
function reversedSource(m: EmbeddingMatrix, dtype: DenseDtype, chunkRows: number): DenseChunkSource {
  const store = allocateStore(m.rows, m.dim, dtype);
  writeRows(store, 0, m.data);
  const src = store.chunks[0];
  const dim = m.dim;
  return {
    rows: m.rows,
    dim,
    dtype,
    chunkRows,
    chunkCount: Math.ceil(m.rows / chunkRows),
    async readChunk(i, into, labels) {
      await new Promise((r) => setImmediate(r));
      let n = 0;
      for (let f = i * chunkRows; f < Math.min(m.rows, (i + 1) * chunkRows); f++) {
        const d = m.rows - 1 - f;
        into.set(src.subarray(d * dim, (d + 1) * dim) as never, n * dim);
        labels[n++] = d;
      }
      return n;
    },
  };
}

test('kernel ort streamed from chunks (float32 and float16, file order reversed) equals the in-memory wasm result on exact scores', async () => {
  const docs = integers(500, 9, 7, 2);
  const queries = integers(17, 9, 8);
  const tieRanks = createTieRanks(ids(500));
  const exclude = Array.from({ length: 17 }, (_, q) => (q % 2 === 0 ? [q * 3] : undefined));
  // Integers in [-2, 2] are exact in float16 too.
  const ref = denseTopK(queries, docs, 30, { tieRanks, exclude, kernel: 'wasm' });
  assert.ok(hasTies(ref));
  for (const dtype of ['float32', 'float16'] as DenseDtype[]) {
    for (const [chunkRows, threads] of [
      [37, 1],
      [500, 2],
    ] as const) {
      const got = await denseTopKStreamed(queries, reversedSource(docs, dtype, chunkRows), 30, { tieRanks, exclude, kernel: 'ort', threads });
      assert.equal(got.kernel, 'ort');
      sameResult(got, ref, `${dtype} chunk ${chunkRows} threads ${threads}`);
    }
  }
});

test('kernel ort: a missing onnxruntime-node names the option; the synchronous search refuses it; aborting stops it', async () => {
  await assert.rejects(loadOrt('onnxruntime-node-not-installed'), (e: unknown) => {
    assert.ok(isCorebError(e) && e.code === 'UNSUPPORTED');
    assert.match(e.message, /kernel=ort needs the optional package onnxruntime-node-not-installed/);
    return true;
  });
  const m = integers(10, 4, 9);
  assert.throws(
    () => denseTopK(m, m, 3, { kernel: 'ort' }),
    (e: unknown) => isCorebError(e) && e.code === 'UNSUPPORTED' && /async/.test(e.message),
  );
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(denseTopKParallel(m, m, 3, { kernel: 'ort', signal: ac.signal }), (e: unknown) => isCorebError(e) && e.code === 'INTERRUPTED');
});

test('a dense retriever with kernel ort ranks by cosine with docid ties and says so in its description', async () => {
  const vec: Record<string, number[]> = { a: [1, 0], b: [0, 1], c: [1, 1], d: [1, 0], q1: [1, 0], q2: [0, 1] };
  const encoder: DenseEncoder = {
    describe: () => ({ source: 'test' }),
    encodeDocs: async (docs: readonly Doc[]) => ({ rows: docs.length, dim: 2, data: Float32Array.from(docs.flatMap((d) => vec[d.id])) }),
    encodeQueries: async (qs: readonly Query[]) => ({ rows: qs.length, dim: 2, data: Float32Array.from(qs.flatMap((q) => vec[q.id])) }),
  };
  const r = createDenseRetriever(encoder, { kernel: 'ort', threads: 1 });
  assert.match(String(r.describe().kernel), /^ort/);
  const index = await r.index(['a', 'b', 'c', 'd'].map((id) => ({ id, text: id })));
  const lists = await index.search(
    ['q1', 'q2'].map((id) => ({ id, text: id })),
    3,
  );
  assert.deepEqual(
    ['q1', 'q2'].map((q) => lists.get(q)?.docIds),
    [
      ['d', 'a', 'c'],
      ['b', 'c', 'd'],
    ],
  );
});

test("kernel ort on float vectors: a query's list and scores are the same bit for bit on 1 or 2 threads and alone or in any batch (1, 2, 3, 300, 1,100 queries: two GEMM blocks)", async () => {
  const dim = 96;
  const docs = floats(3000, dim, 11);
  const queries = floats(1100, dim, 12);
  const full = await denseTopKParallel(queries, docs, 20, { kernel: 'ort', threads: 1 });
  sameResult(await denseTopKParallel(queries, docs, 20, { kernel: 'ort', threads: 2 }), full, '2 threads');
  for (const [first, count] of [
    [0, 1],
    [1029, 1],
    [5, 2],
    [7, 3],
    [700, 300],
  ] as const) {
    const part = { rows: count, dim, data: queries.data.slice(first * dim, (first + count) * dim) };
    for (const threads of [1, 2]) {
      const r = await denseTopKParallel(part, docs, 20, { kernel: 'ort', threads });
      assert.deepEqual(
        r.indices,
        full.indices.slice(first * 20, (first + count) * 20),
        `queries ${first}..${first + count - 1}, ${threads} thread(s)`,
      );
      assert.deepEqual(r.scores, full.scores.slice(first * 20, (first + count) * 20), `queries ${first}..${first + count - 1}, ${threads} thread(s)`);
    }
  }
});

test('the default kernel: ort for large searches when onnxruntime-node loads, wasm for small ones, and wasm with one note when it does not load', async () => {
  assert.equal(await chooseDenseKernel(1000 * 1000 * 384), 'wasm', 'a small search does not load onnxruntime');
  assert.equal(await chooseDenseKernel(ORT_AUTO_MIN_WORK), 'ort');
  const notes: string[] = [];
  const missing = () =>
    Promise.reject(new Error('kernel=ort needs onnxruntime-node', { cause: new Error("Cannot find package 'onnxruntime-node'") }));
  assert.equal(await chooseDenseKernel(ORT_AUTO_MIN_WORK, (m) => notes.push(m), missing), 'wasm');
  assert.equal(await chooseDenseKernel(ORT_AUTO_MIN_WORK, (m) => notes.push(m), missing), 'wasm');
  assert.equal(notes.length, 1, 'said once');
  assert.match(notes[0], /onnxruntime-node did not load \(Cannot find package 'onnxruntime-node'\); searching with the wasm kernel/);
  // A search large enough picks ort by itself, and says so in its result.
  const docs = floats(4096, 512, 5);
  const queries = floats(600, 512, 6);
  const r = await denseTopKParallel(queries, docs, 10, { threads: 1 });
  assert.equal(r.kernel, 'ort');
  sameSets(r, await denseTopKParallel(queries, docs, 10, { threads: 1, kernel: 'wasm' }));
});

function sameSets(a: DenseTopKResult, b: DenseTopKResult): void {
  let same = 0;
  for (let q = 0; q < a.counts.length; q++) {
    const s = new Set(a.indices.subarray(q * a.k, q * a.k + a.counts[q]));
    if (b.indices.subarray(q * b.k, q * b.k + b.counts[q]).every((d) => s.has(d))) same++;
  }
  assert.ok(same >= a.counts.length - 2, `${same} of ${a.counts.length} top-10 sets agree between ort and wasm`);
}
