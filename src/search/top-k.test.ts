import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareCodePoints } from '../core/ids.js';
import { createTieRanks, createTopK, TopK, TopKBatch } from './top-k.js';
import { compareTrec } from '../core/trec-order.js';
import { createUniform } from '../core/random.js';

test('TopK keeps the best k in trec order (float32 score desc, docid desc) for any push order', () => {
  const ids = Array.from({ length: 200 }, (_, i) => `d${i}`);
  // Scores collide in float32 (0.30000001 vs 0.30000002) and exactly (i % 7).
  const scores = ids.map((_, i) => (i % 3 === 0 ? 0.30000001 : i % 3 === 1 ? 0.30000002 : (i % 7) / 10));
  const expected = ids
    .map((id, i) => [id, Math.fround(scores[i])] as const)
    .sort((a, b) => b[1] - a[1] || compareCodePoints(b[0], a[0]))
    .slice(0, 37);
  let seed = 7;
  for (let round = 0; round < 5; round++) {
    const order = ids.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    const heap = new TopK(37, createTieRanks(ids));
    for (const i of order) heap.push(i, scores[i]);
    const docs = new Int32Array(37);
    const out = new Float32Array(37);
    assert.equal(heap.drainInto(docs, out), 37);
    assert.deepEqual(
      Array.from(docs, (d, i) => [ids[d], out[i]]),
      expected.map(([id, s]) => [id, s]),
    );
    assert.equal(heap.size, 0, 'drained');
  }
});

test('TopK threshold is -Infinity until full, then the worst kept score; NaN is ignored', () => {
  const heap = new TopK(2, createTieRanks(['a', 'b', 'c']));
  assert.equal(heap.threshold, -Infinity);
  heap.push(0, 0.5);
  heap.push(1, Number.NaN);
  assert.equal(heap.size, 1);
  heap.push(1, 0.25);
  assert.equal(heap.threshold, 0.25);
  heap.push(2, 0.75);
  assert.equal(heap.threshold, 0.5);
});

test('TopK drains past 64 pairs by a packed sort, in the same order and scores as the heap; any tie ranks still drain right', () => {
  const rng = createUniform(11);
  const n = 5000;
  // Scores with many float32 ties, negatives, zeros of both signs and extremes.
  const pool = [0, -0, 1, -1, 3.5, -2.25, 1e30, -1e30, 1e-40, Math.fround(0.1)];
  const scores = Array.from({ length: n }, () => (rng() < 0.5 ? pool[Math.floor(rng() * pool.length)] : (rng() - 0.5) * 10));
  const ids = Array.from({ length: n }, (_, i) => `doc${(i * 7919) % n}`);
  const permutation = createTieRanks(ids);
  const scrambled = Int32Array.from({ length: n }, (_, i) => (i * 31) % 97); // not a permutation: the heap's own drain
  for (const ties of [permutation, scrambled]) {
    for (const k of [10, 65, 1000, n]) {
      const h = new TopK(k, ties);
      for (let d = 0; d < n; d++) h.push(d, scores[d]);
      const docs = new Int32Array(k);
      const out = new Float32Array(k);
      const m = h.drainInto(docs, out);
      const expected = Array.from({ length: n }, (_, d) => d)
        .sort((a, b) => compareTrec(Math.fround(scores[a]), a, Math.fround(scores[b]), b, ties))
        .slice(0, k);
      assert.equal(m, Math.min(k, n));
      // Docs tied in score and tie rank (the scrambled ranks) may come in either order: compare scores, then ranks.
      assert.deepEqual(
        Array.from(out.subarray(0, m), (s) => s + 0),
        expected.map((d) => Math.fround(scores[d]) + 0),
        `k=${k} scores`,
      );
      assert.deepEqual(
        Array.from(docs.subarray(0, m), (d) => ties[d]),
        expected.map((d) => ties[d]),
        `k=${k} tie ranks`,
      );
      if (ties === permutation) assert.deepEqual(Array.from(docs.subarray(0, m)), expected, `k=${k} docs`);
      assert.equal(h.size, 0);
    }
  }
});

test('TopKBatch keeps what TopK keeps, in the same order, over streams with ties, thresholds and several sorts', () => {
  const rng = createUniform(5);
  const n = 20000;
  const ids = Array.from({ length: n }, (_, i) => `id${(i * 104729) % n}`);
  const ranks = createTieRanks(ids);
  for (const k of [65, 100, 1000, 6000]) {
    const heap = new TopK(k, ranks);
    const batch = createTopK(k, ranks);
    assert.ok(batch instanceof TopKBatch, 'a permutation of ranks past 64 gets the batch keeper');
    for (let round = 0; round < 2; round++) {
      for (let d = 0; d < n; d++) {
        // Rising scores (the bar must keep rising), with a tenth of exact ties.
        const s = rng() < 0.1 ? 0.5 : rng() + d / n;
        if (s >= batch.threshold) batch.push(d, s);
        heap.push(d, s);
      }
      assert.ok(batch.threshold > Number.NEGATIVE_INFINITY || k > n);
      const a = [new Int32Array(k), new Float32Array(k)] as const;
      const b = [new Int32Array(k), new Float32Array(k)] as const;
      const ma: number = heap.drainInto(a[0], a[1]);
      const mb: number = batch.drainInto(b[0], b[1]);
      assert.equal(mb, ma, `k=${k}`);
      assert.deepEqual(b[0], a[0], `k=${k} docs`);
      assert.deepEqual(b[1], a[1], `k=${k} scores`);
      assert.equal(batch.size, 0);
    }
  }
  assert.ok(createTopK(64, ranks) instanceof TopK, 'small k keeps the heap');
  assert.ok(
    createTopK(
      1000,
      Int32Array.from({ length: 10 }, () => 3),
    ) instanceof TopK,
    'ranks that are not a permutation keep the heap',
  );
});
