import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codePointRanks } from './ids.js';
import { compareTrec, compareTrecIds, trecScore, trecSortKey, TREC_SORT_KEY_TIES } from './trec-order.js';

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
