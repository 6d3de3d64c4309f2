import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/random.js';
import { duplicateQueryTexts, sharedRankingNdcg10 } from './label-findings.js';

/** nDCG@10 of one ranking for one query's gains. */
function ndcg(ranking: readonly string[], gains: ReadonlyMap<string, number>): number {
  const ideal = [...gains.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  if (ideal === 0) return 0;
  return ranking.slice(0, 10).reduce((s, d, i) => s + (gains.get(d) ?? 0) / Math.log2(i + 2), 0) / ideal;
}

function* permutations<T>(xs: T[]): Generator<T[]> {
  if (xs.length <= 1) {
    yield xs;
    return;
  }
  for (let i = 0; i < xs.length; i++) for (const p of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) yield [xs[i], ...p];
}

test('the shared ranking is the best one ranking for a group: its summed nDCG@10 equals the maximum over all orders', () => {
  const u = createRng(7);
  const docs = ['a', 'b', 'c', 'd', 'e', 'f'];
  for (let trial = 0; trial < 40; trial++) {
    const members = Array.from({ length: 2 + (u() % 3) }, () => {
      const g = new Map<string, number>();
      for (const d of docs) if (u() % 3 === 0) g.set(d, 1 + (u() % 2));
      return g;
    });
    const ours = sharedRankingNdcg10(members).reduce((s, x) => s + x, 0);
    let best = 0;
    for (const p of permutations(docs))
      best = Math.max(
        best,
        members.reduce((s, g) => s + ndcg(p, g), 0),
      );
    assert.ok(Math.abs(ours - best) < 1e-12, `trial ${trial}: ${ours} vs brute force ${best}`);
  }
});

test('duplicate query texts: only groups whose qrels differ conflict; the ceiling counts the others as 1 and queries without a positive as 0', () => {
  const queries = [
    { id: 'q1', text: 'sort a list', subtask: 'any' },
    { id: 'q2', text: 'sort a list', subtask: 'python' },
    { id: 'q3', text: 'reverse a list', subtask: 'any' },
    { id: 'q4', text: 'reverse a list', subtask: 'python' },
    { id: 'q5', text: 'no answer', subtask: 'any' },
  ];
  const qrels = new Map([
    // q1 accepts c1, q2 only c2 (its language): no one ranking is perfect for both.
    ['q1', new Map([['c1', 2]])],
    [
      'q2',
      new Map([
        ['c2', 2],
        ['c1', 1],
      ]),
    ],
    // q3 and q4 agree.
    ['q3', new Map([['c3', 2]])],
    ['q4', new Map([['c3', 2]])],
    ['q5', new Map([['c1', 1]])],
  ]);
  const d = duplicateQueryTexts({ queries, qrels }, { ndcg: 'strict', relevanceLevel: 2 });
  assert.deepEqual([d.groups, d.queries, d.conflictingGroups, d.conflictingQueries], [2, 4, 1, 2]);
  // A best shared ranking (c1, c2: equal weights, ids break the tie): q1 scores 1, q2 1/log2(3).
  assert.equal(d.bySubtask.python.ceilingNdcg10, (1 / Math.log2(3) + 1) / 2);
  assert.deepEqual(d.bySubtask.any, { queries: 3, conflicting: 1, ceilingNdcg10: 2 / 3 });
  assert.equal(d.ceilingNdcg10, (1 + 1 / Math.log2(3) + 1 + 1 + 0) / 5);
});
