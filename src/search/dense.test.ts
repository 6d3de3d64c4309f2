import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, Query } from '../core/dataset.js';
import { normalizeMatrix, type EmbeddingMatrix } from '../core/embedding.js';
import { isCorebError } from '../core/errors.js';
import { compareCodePoints } from '../core/ids.js';
import type { DenseEncoder } from './dense.js';
import { createDenseRetriever, denseTopK, denseTopKParallel } from './dense.js';
import { isShared, normalizedStore, readRow } from '../core/vector-store.js';
import { createTieRanks } from './top-k.js';
import { createUniform } from '../core/random.js';

/** Deterministic uniform [0, 1) generator (mulberry32) so failures reproduce. */
const rng = createUniform;

/** A matrix of small integers in [-2, 2], so many dot products tie exactly; some rows duplicated. */
function tieHeavyMatrix(rows: number, dim: number, seed: number, duplicateEvery = 0): EmbeddingMatrix {
  const r = rng(seed);
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < dim; j++) data[i * dim + j] = Math.floor(r() * 5) - 2;
    if (duplicateEvery > 0 && i > 0 && i % duplicateEvery === 0) data.copyWithin(i * dim, (i - 1) * dim, i * dim);
  }
  return { rows, dim, data };
}

/** Dot product as the `js` kernel defines it: double sum in index order, rounded to float32. */
function dotJs(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let x = 0; x < a.length; x++) s += a[x] * b[x];
  return Math.fround(s);
}

/** Dot product as the `wasm` kernel defines it: four float32 lane sums, then (l0 + l1) + (l2 + l3). */
function dotWasm(a: Float32Array, b: Float32Array): number {
  const f = Math.fround;
  const lanes = [0, 0, 0, 0];
  for (let x = 0; x < a.length; x++) lanes[x % 4] = f(lanes[x % 4] + f(a[x] * b[x]));
  return f(f(lanes[0] + lanes[1]) + f(lanes[2] + lanes[3]));
}

const kernels = [
  ['js', dotJs],
  ['wasm', dotWasm],
] as const;

/** Reference: score every pair, then fully sort by (float32 score desc, docid desc by code point). */
function bruteForce(
  q: EmbeddingMatrix,
  d: EmbeddingMatrix,
  ids: string[],
  k: number,
  dot: (a: Float32Array, b: Float32Array) => number = dotJs,
): Array<Array<[string, number]>> {
  const out: Array<Array<[string, number]>> = [];
  const row = (m: EmbeddingMatrix, i: number) => m.data.subarray(i * m.dim, (i + 1) * m.dim);
  for (let i = 0; i < q.rows; i++) {
    const all: Array<[string, number]> = [];
    for (let j = 0; j < d.rows; j++) all.push([ids[j], dot(row(q, i), row(d, j))]);
    all.sort((a, b) => b[1] - a[1] || compareCodePoints(b[0], a[0]));
    out.push(all.slice(0, k));
  }
  return out;
}

function collect(r: ReturnType<typeof denseTopK>, ids: string[]): Array<Array<[string, number]>> {
  const out: Array<Array<[string, number]>> = [];
  for (let q = 0; q < r.counts.length; q++) {
    const row: Array<[string, number]> = [];
    for (let i = 0; i < r.counts[q]; i++) row.push([ids[r.indices[q * r.k + i]], r.scores[q * r.k + i]]);
    out.push(row);
  }
  return out;
}

const docIdsFor = (n: number) => Array.from({ length: n }, (_, i) => `d${(i * 7919) % 1000}x${i}`);

test('dense top-k equals a brute-force full sort on random data with many exact ties', () => {
  const docs = tieHeavyMatrix(300, 8, 1, 5);
  const queries = tieHeavyMatrix(37, 8, 2);
  const ids = docIdsFor(300);
  for (const [kernel] of kernels) {
    for (const k of [1, 10, 57, 300, 500]) {
      const r = denseTopK(queries, docs, k, { tieRanks: createTieRanks(ids), kernel });
      assert.equal(r.kernel, kernel);
      assert.deepEqual(collect(r, ids), bruteForce(queries, docs, ids, k), `${kernel} k=${k}`);
    }
  }
});

test('dense top-k on normalised float data equals the brute-force cosine ranking', () => {
  const r = rng(3);
  const mk = (rows: number, dim: number) => ({ rows, dim, data: Float32Array.from({ length: rows * dim }, () => r() * 2 - 1) });
  const docs = normalizeMatrix(mk(200, 33));
  const queries = normalizeMatrix(mk(9, 33));
  const ids = docIdsFor(200);
  for (const [kernel, dot] of kernels) {
    const got = collect(denseTopK(queries, docs, 20, { tieRanks: createTieRanks(ids), kernel }), ids);
    assert.deepEqual(got, bruteForce(queries, docs, ids, 20, dot), kernel);
    for (const row of got) assert.ok(row[0][1] <= 1 + 1e-6 && row[19][1] >= -1 - 1e-6);
  }
});

test('memory-bounded chunking gives identical results for any block sizes', () => {
  const r = rng(6);
  const docs = tieHeavyMatrix(257, 13, 4, 3);
  for (let i = 0; i < docs.data.length; i += 3) docs.data[i] = Math.fround(r() - 0.5);
  const queries = tieHeavyMatrix(23, 13, 5);
  const tieRanks = createTieRanks(docIdsFor(257));
  const exclude = [[0, 5], undefined, [256]];
  for (const [kernel] of kernels) {
    const ref = denseTopK(queries, docs, 25, { tieRanks, exclude, kernel, queryBlockRows: 1000, docBlockRows: 100000 });
    for (const [qb, db] of [
      [1, 1],
      [3, 7],
      [4, 64],
      [5, 256],
      [64, 512],
    ]) {
      const r = denseTopK(queries, docs, 25, { tieRanks, exclude, kernel, queryBlockRows: qb, docBlockRows: db });
      assert.deepEqual(r.indices, ref.indices, `${kernel} blocks ${qb}x${db}`);
      assert.deepEqual(r.scores, ref.scores, `${kernel} blocks ${qb}x${db}`);
      assert.deepEqual(r.counts, ref.counts);
    }
    assert.ok(!Array.from(ref.indices.subarray(0, ref.counts[0])).includes(5), 'excluded row never returned');
    assert.equal(ref.counts[0], 25, 'exclusions do not shorten the list');
    const all = denseTopK(queries, docs, 257, { tieRanks, exclude, kernel });
    assert.deepEqual([all.counts[0], all.counts[1], all.counts[2]], [255, 257, 256], 'only the excluded rows are missing');
    const top = denseTopK(queries, docs, 2, { tieRanks, kernel });
    const firstTwo = Array.from(top.indices.subarray(0, 2));
    const skipTop = denseTopK(queries, docs, 2, { tieRanks, kernel, exclude: [firstTwo] });
    assert.equal(skipTop.counts[0], 2);
    assert.deepEqual(
      Array.from(skipTop.indices.subarray(0, 2)),
      Array.from(denseTopK(queries, docs, 4, { tieRanks, kernel }).indices.subarray(2, 4)),
    );
  }
});

/** An encoder over fixed vectors looked up by id. */
function fixedEncoder(vectors: Record<string, number[]>): DenseEncoder {
  const pack = (ids: string[]): EmbeddingMatrix => {
    const dim = vectors[ids[0]]?.length ?? 1;
    return { rows: ids.length, dim, data: Float32Array.from(ids.flatMap((id) => vectors[id])) };
  };
  return {
    describe: () => ({ source: 'test' }),
    encodeDocs: async (docs: readonly Doc[]) => pack(docs.map((d) => d.id)),
    encodeQueries: async (qs: readonly Query[]) => pack(qs.map((q) => q.id)),
  };
}

test('dense retriever ranks by cosine, breaks ties by docid, honours exclusions and depth', async () => {
  const vectors = { a: [1, 0], b: [2, 0], c: [0, 1], d: [1, 1], q1: [5, 0], q2: [0, 3] };
  const r = createDenseRetriever(fixedEncoder(vectors));
  assert.equal(r.describe().kind, 'dense');
  const docs = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id }));
  const index = await r.index(docs);
  const run = await index.search(
    [
      { id: 'q1', text: '' },
      { id: 'q2', text: '' },
    ],
    3,
    {
      exclude: new Map([['q2', ['c']]]),
    },
  );
  // a and b are both at cosine 1 with q1: docid descending puts b first.
  assert.deepEqual(run.get('q1')?.docIds, ['b', 'a', 'd']);
  assert.deepEqual(run.get('q2')?.docIds, ['d', 'b', 'a']);
  assert.ok(Math.abs((run.get('q2')?.scores[0] ?? 0) - Math.SQRT1_2) < 1e-6);
});

test('dense search rejects mismatched dimensions and non-finite vectors', async () => {
  const bad = createDenseRetriever(fixedEncoder({ a: [1, Number.NaN] }));
  await assert.rejects(bad.index([{ id: 'a', text: '' }]), (e) => isCorebError(e, 'VALIDATION'));
  assert.throws(
    () => denseTopK({ rows: 1, dim: 2, data: new Float32Array(2) }, { rows: 1, dim: 3, data: new Float32Array(3) }, 1),
    (e) => isCorebError(e, 'VALIDATION'),
  );
});

test('parallel dense top-k (worker threads) equals the single-thread result bit for bit', async () => {
  const r = rng(11);
  const docs = tieHeavyMatrix(1037, 24, 7, 4);
  for (let i = 0; i < docs.data.length; i += 5) docs.data[i] = Math.fround(r() - 0.5);
  const queries = tieHeavyMatrix(61, 24, 8);
  const ids = docIdsFor(1037);
  const tieRanks = createTieRanks(ids);
  const exclude = [[0, 5, 1036], undefined, [3]];
  for (const [kernel, dot] of kernels) {
    const ref = denseTopK(queries, docs, 30, { tieRanks, exclude, kernel });
    for (const [threads, qb, db] of [
      [2, 256, 512],
      [3, 7, 33],
      [2, 64, 1],
    ]) {
      let progress = 0;
      const got = await denseTopKParallel(queries, docs, 30, {
        tieRanks,
        exclude,
        kernel,
        threads,
        minWork: 0,
        queryBlockRows: qb,
        docBlockRows: db,
        onProgress: (n) => {
          progress = n;
        },
      });
      assert.equal(got.threads > 1, true, `${kernel}: ran on threads`);
      assert.deepEqual(got.indices, ref.indices, `${kernel} threads ${threads} blocks ${qb}x${db}`);
      assert.deepEqual(got.scores, ref.scores);
      assert.deepEqual(got.counts, ref.counts);
      assert.equal(progress, 61);
    }
    const noEx = await denseTopKParallel(queries, docs, 30, { tieRanks, kernel, threads: 2, minWork: 0 });
    assert.deepEqual(collect(noEx, ids), bruteForce(queries, docs, ids, 30, dot), kernel);
  }
});

test('a chunked, row-mapped or float16 store ranks like the float32 matrix it holds', async () => {
  const r = rng(12);
  const raw = { rows: 700, dim: 19, data: Float32Array.from({ length: 700 * 19 }, () => r() * 2 - 1) };
  const queries = normalizeMatrix({ rows: 13, dim: 19, data: Float32Array.from({ length: 13 * 19 }, () => r() * 2 - 1) });
  const ids = docIdsFor(700);
  const tieRanks = createTieRanks(ids);
  const dense = normalizeMatrix(raw);
  const ref = denseTopK(queries, dense, 25, { tieRanks });
  // Chunks of 64 rows: the same values in 11 shared buffers.
  const chunked = normalizedStore(raw, 'float32', 64 * 19 * 4);
  assert.equal(chunked.chunks.length, 11);
  assert.ok(isShared(chunked));
  const viaChunks = await denseTopKParallel(queries, chunked, 25, { tieRanks, threads: 2, minWork: 0, docBlockRows: 50 });
  assert.deepEqual(viaChunks.indices, ref.indices);
  assert.deepEqual(viaChunks.scores, ref.scores);
  // A row map selecting every other row, reversed, equals a packed copy of those rows.
  const pick = Array.from({ length: 350 }, (_, i) => 699 - 2 * i);
  const packed = { rows: 350, dim: 19, data: new Float32Array(350 * 19) };
  pick.forEach((row, i) => packed.data.set(dense.data.subarray(row * 19, (row + 1) * 19), i * 19));
  const subTies = createTieRanks(pick.map((i) => ids[i]));
  const mapped = { ...chunked, rows: 350, rowMap: Int32Array.from(pick) };
  const a = denseTopK(queries, packed, 25, { tieRanks: subTies });
  const b = await denseTopKParallel(queries, mapped, 25, { tieRanks: subTies, threads: 2, minWork: 0 });
  assert.deepEqual(b.indices, a.indices);
  assert.deepEqual(b.scores, a.scores);
  // float16: scores are the float32 dot products of the decoded float16 values.
  const half = normalizedStore(raw, 'float16');
  assert.equal(half.dtype, 'float16');
  const decoded = { rows: 700, dim: 19, data: new Float32Array(700 * 19) };
  for (let i = 0; i < 700; i++) decoded.data.set(readRow(half, i), i * 19);
  for (let i = 0; i < decoded.data.length; i++) assert.ok(Math.abs(decoded.data[i] - dense.data[i]) <= 2 ** -11 * Math.abs(dense.data[i]) + 2 ** -25);
  const h1 = await denseTopKParallel(queries, half, 25, { tieRanks, threads: 2, minWork: 0 });
  const h2 = denseTopK(queries, decoded, 25, { tieRanks });
  assert.deepEqual(h1.indices, h2.indices);
  assert.deepEqual(h1.scores, h2.scores);
});

test('parallel dense search stops when aborted', async () => {
  const docs = tieHeavyMatrix(4000, 64, 9);
  const queries = tieHeavyMatrix(200, 64, 10);
  const ac = new AbortController();
  const p = denseTopKParallel(queries, docs, 10, { threads: 2, minWork: 0, signal: ac.signal, queryBlockRows: 4, docBlockRows: 64 });
  ac.abort();
  await assert.rejects(p, (e) => isCorebError(e, 'INTERRUPTED'));
});
