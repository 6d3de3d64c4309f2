import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Leaderboard, LeaderboardRow } from './leaderboard.js';
import { paretoChart, placeParetoLabels } from './leaderboard-site.js';

function board(rows: Array<[string, number | null, number]>): Leaderboard {
  return {
    dataset: 'release_v2602',
    datasetSha256: 'a'.repeat(64),
    protocol: 'coreb',
    family: 'retrieval',
    label: 'release_v2602',
    protocolKey: 'k',
    measure: 'ndcg@10',
    rankBy: 'overall',
    tasks: [],
    extraMeasures: [],
    notes: [],
    rows: rows.map(
      ([retriever, parameters, overall], i): LeaderboardRow => ({
        rank: i + 1,
        letter: String.fromCharCode(97 + i),
        retriever,
        overall,
        taskMean: overall,
        tasks: {},
        queries: 10,
        measures: {},
        significantlyBetterThan: {},
        ...(parameters === null ? {} : { model: { parameters } as LeaderboardRow['model'] & object }),
      }),
    ),
  };
}

test('no Pareto chart for a board whose rows have no parameter count above 0 (BM25 alone): a note says why instead', () => {
  assert.equal(paretoChart(board([['bm25', 0, 0.41]])), null);
  assert.equal(
    paretoChart(
      board([
        ['bm25', 0, 0.41],
        ['api-model', null, 0.5],
      ]),
    ),
    null,
  );
  const chart = paretoChart(
    board([
      ['bm25', 0, 0.41],
      ['e5-small', 33e6, 0.45],
    ]),
  );
  assert.ok(chart !== null);
  assert.match(chart.alt, /e5-small: 33M parameters, 0\.4500 \(frontier\)/);
});

test('Pareto labels never overlap each other or a point; a label without a free place is left out, and the text alternative says so', () => {
  // Two models of nearly the same size and score (their labels collided in the hand-drawn chart).
  const points = [
    { retriever: 'model-alpha-base', x: 200, y: 100 },
    { retriever: 'model-alpha-base-v2', x: 203, y: 104 },
    { retriever: 'other', x: 400, y: 250 },
  ];
  const placed = placeParetoLabels(points);
  const boxes = points.flatMap((p) => {
    const l = placed.get(p.retriever);
    if (l === null || l === undefined) return [];
    const w = p.retriever.length * 6.3;
    const x0 = l.align === 'left' ? p.x + l.dx : l.align === 'right' ? p.x + l.dx - w : p.x - w / 2;
    return [[x0, p.y + l.dy - 10, x0 + w, p.y + l.dy + 2] as const];
  });
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      assert.ok(!(a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]), `labels ${i} and ${j} overlap`);
    }
  assert.ok(boxes.length >= 2);
  const crowded = Array.from({ length: 30 }, (_, i): [string, number, number] => [`m${i}`, 1e8 + i * 1e5, 0.5 + i * 1e-4]);
  const chart = paretoChart(board(crowded));
  assert.ok(chart !== null);
  assert.match(chart.alt, /\d+ label\(s\) left out where they would overlap \(see the table\)/);
  assert.equal(chart.table.rows.length, 30, 'the table lists every point');
});
