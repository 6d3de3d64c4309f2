import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codePointRanks } from './ids.js';
import { compareTrec, compareTrecIds, runScoreText, trecScore, trecSortKey, TREC_SORT_KEY_TIES } from './trec-order.js';
import { createUniform } from './random.js';

// Scores that differ as doubles but are equal as float32, ids whose UTF-16 and code-point orders differ.
const entries: Array<[string, number]> = [
  ['d1', 0.5],
  ['d2', 0.5 + 1e-12],
  ['\u{1F600}', 0.25],
  ['\uFF01', 0.25],
  ['d3', -0],
  ['d4', 0],
  ['d5', -1],
  ['d6', Infinity],
];
const ids = entries.map(([id]) => id);
const ranks = codePointRanks(ids);

test('trecScore rounds to float32 unless float64 (trec_eval 10) is asked', () => {
  assert.equal(trecScore(0.1), Math.fround(0.1));
  assert.equal(trecScore(0.1, true), 0.1);
  assert.equal(trecScore(0.5 + 1e-12), 0.5);
});

test('trec order: float32 score descending, ties by docid descending in code-point order', () => {
  const expected = ['d6', 'd2', 'd1', '\u{1F600}', '\uFF01', 'd4', 'd3', 'd5'];
  const byIds = [...entries].sort(([a, sa], [b, sb]) => compareTrecIds(trecScore(sa), a, trecScore(sb), b)).map(([id]) => id);
  assert.deepEqual(byIds, expected);
  const idx = entries.map((_, i) => i);
  const byRanks = [...idx].sort((i, j) => compareTrec(trecScore(entries[i][1]), i, trecScore(entries[j][1]), j, ranks)).map((i) => ids[i]);
  assert.deepEqual(byRanks, expected);
  const keys = Float64Array.from(idx, (i) => trecSortKey(entries[i][1], ranks[i]))
    .sort()
    .reverse();
  assert.deepEqual(
    [...keys].map((k) => ids[ranks.indexOf(k % TREC_SORT_KEY_TIES)]),
    expected,
  );
  assert.ok(compareTrec(trecScore(0.5 + 1e-12, true), 0, trecScore(0.5, true), 1, [0, 1]) < 0, 'float64 mode keeps the difference');
});

test('runScoreText: every float32 reads back as itself, in order; doubles are written exactly', () => {
  const f32 = new Float32Array(2);
  const u32 = new Uint32Array(f32.buffer);
  const rng = createUniform(7);
  let checked = 0;
  // Every exponent (subnormals and the largest included), each with its first, last and 400 random
  // mantissas, both signs: the text reads back as the same float32, and the next float32 up reads
  // back strictly larger (distinct values keep distinct texts in the same order).
  for (let exp = 0; exp < 255; exp++) {
    const mantissas = [0, 1, 0x7ffffe, 0x7fffff, ...Array.from({ length: 400 }, () => Math.floor(rng() * 0x800000))];
    for (const m of mantissas) {
      for (const sign of [0, 0x80000000]) {
        u32[0] = (sign | (exp << 23) | m) >>> 0;
        u32[1] = u32[0] + 1;
        const [a, b] = [f32[0], f32[1]];
        const ta = runScoreText(a, true);
        // (-0 is written 0, as before: trec order does not tell them apart)
        assert.ok(Math.fround(Number(ta)) === a, `0x${u32[0].toString(16)} ${ta}`);
        if (Number.isFinite(b)) assert.ok(sign === 0 ? Number(ta) < Number(runScoreText(b, true)) : Number(ta) > Number(runScoreText(b, true)), ta);
        checked++;
      }
    }
  }
  assert.ok(checked > 200_000);
  assert.equal(runScoreText(Math.fround(352.2552795410156), true), '352.25528');
  assert.equal(runScoreText(2.5, true), '2.5');
  assert.equal(runScoreText(Math.fround(123456780), true), '123456784');
  assert.equal(runScoreText(2 ** -10, true), '0.0009765625');
  assert.equal(runScoreText(100, true), '100');
  assert.equal(runScoreText(1e10, true), '1e+10');
  assert.equal(runScoreText(Math.fround(1.5e-7), true), '1.50000005e-7');
  assert.equal(runScoreText(-0, true), '0');
  assert.equal(runScoreText(352.2552795410156, false), '352.2552795410156');
  assert.equal(runScoreText(0.1 + 0.2, false), '0.30000000000000004');
  assert.equal(runScoreText(Number.NEGATIVE_INFINITY, true), '-Infinity');
});
