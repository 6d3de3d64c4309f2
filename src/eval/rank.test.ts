import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankTrec, topHardNegatives } from './rank.js';

test('rankTrec orders by float32 score, ties by docid descending, and drops ids', () => {
  const run = new Map([
    ['d1', 0.5],
    ['d10', 0.5],
    ['d2', 0.30000001],
    ['d3', 0.30000002], // equal to d2 in float32: tie broken by docid, d3 > d2
    ['anchor', 9],
  ]);
  assert.deepEqual(rankTrec(run, new Set(['anchor'])), ['d10', 'd1', 'd3', 'd2']);
  assert.deepEqual(rankTrec(run)[0], 'anchor');
});

test('rankTrec with k selects exactly the first k of the full trec order', () => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let trial = 0; trial < 50; trial++) {
    const run = new Map<string, number>();
    const n = 1 + Math.floor(rand() * 60);
    // Few distinct scores, so most comparisons are ties broken by docid.
    for (let i = 0; i < n; i++) run.set(`d${Math.floor(rand() * 1000)}`, Math.floor(rand() * 5) / 4);
    const full = rankTrec(run);
    for (const k of [0, 1, 3, 10, 100]) assert.deepEqual(rankTrec(run, undefined, k), full.slice(0, k));
  }
});

test('topHardNegatives counts label-1 docs in the top k and flags a hard negative above every positive', () => {
  const labels = new Map([
    ['p1', 2],
    ['p2', 2],
    ['h1', 1],
    ['h2', 1],
  ]);
  assert.deepEqual(topHardNegatives(['x', 'h1', 'p1', 'h2'], labels), { hardNegatives: 2, intrusion: 1 });
  assert.deepEqual(topHardNegatives(['p2', 'h1', 'p1'], labels), { hardNegatives: 1, intrusion: 0 });
  // No positive in the top k: not eligible for the intrusion rate.
  assert.deepEqual(topHardNegatives(['h1', 'x'], labels), { hardNegatives: 1, intrusion: null });
  // The hard negative at rank 3 falls outside k = 2.
  assert.deepEqual(topHardNegatives(['p1', 'x', 'h1'], labels, 2), { hardNegatives: 0, intrusion: null });
});
