import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvalResults, GroupResult, RetrieverResult } from '../core/eval-results.js';
import { formatMetric, renderResults } from './render-results.js';

function group(ndcg10: number, queries = 10): GroupResult {
  const metrics: Record<string, number> = {};
  for (const m of ['ndcg@1', 'ndcg@10', 'map@10', 'recall@10', 'recall@100', 'mrr@10', 'p@1']) metrics[m] = ndcg10;
  return { queries, metrics, diagnostics: { intrusionRate: null, intrusionEligible: 0, hardNegativesTop10: 0.5, ndcgRecallGap10: 0 } };
}

function retriever(name: string, ndcg10: number): RetrieverResult {
  return {
    name,
    spec: name,
    description: { kind: name },
    overall: group(ndcg10, 20),
    taskMean: group(1 - ndcg10, 20),
    tasks: {
      text2code: { ...group(ndcg10), missingQueries: 0, excludedQueries: 0, zeroedQueries: 0, emptyQueries: ['q9'], missingQueryIds: [] },
      code2text: { ...group(ndcg10, 12), missingQueries: 0, excludedQueries: 0, zeroedQueries: 3, emptyQueries: [], missingQueryIds: [] },
      code2code: { ...group(ndcg10), missingQueries: 2, excludedQueries: 0, zeroedQueries: 0, emptyQueries: [], missingQueryIds: ['a', 'b'] },
    },
    subtasks: { c2c_cross_lang: { task: 'code2code', ...group(ndcg10) } },
    languages: { code2code: { java: group(ndcg10) } },
    subQueryTypes: {},
    timings: { indexMs: 1, searchMs: 1, evaluateMs: 1, totalMs: 1234 },
  };
}

const results = {
  schema: 'coreb.eval-results/2',
  coreb: { version: 't' },
  createdAt: '2026-01-01T00:00:00Z',
  dataset: { kind: 'coreb-release', dir: '/d', split: 'release_x', files: [], sha256: 'ab'.repeat(32), counts: {} },
  protocol: {
    name: 'coreb',
    relevanceLevel: 2,
    ndcg: 'strict',
    scores: 'float32',
    ties: 'score-desc,docid-desc-utf8',
    anchorExclusion: true,
    ignoreIdenticalIds: false,
    qrels: 'as-is',
    c2tMatchNegatives: 'zero',
    population: 'run-and-qrels',
    mrr: 'trec',
    rankBy: 'overall',
    roundDigits: null,
    unrounded: [],
  },
  measures: [],
  options: { depth: 1000, tasks: [], subtasks: null },
  retrievers: [retriever('weak', 0.25), retriever('strong', 0.75)],
  timings: { loadMs: 0, totalMs: 0 },
} satisfies EvalResults;

test('the leaderboard ranks retrievers by overall nDCG@10, shows the task mean and states the protocol and population', () => {
  const text = renderResults(results);
  assert.match(text, /protocol coreb: relevance level 2, nDCG strict, c2c anchors excluded, c2t_match negatives counted as 0/);
  const rows = text.split('\n').filter((l) => /^[12]\s{2}/.test(l));
  assert.match(rows[0], /^1\s+strong\s+0\.7500\s+0\.7500\s+0\.7500\s+0\.7500\s+0\.2500\s+0\.7500/, 'overall measures, then the task mean');
  assert.match(rows[1], /^2\s+weak\s+0\.2500/);
  assert.match(text, /task-mean ndcg@10/);
  assert.match(
    text,
    /population: t2c 10 \(incl\. 1 with an empty list scored 0\), c2t 12 \(incl\. 3 c2t_match negatives scored 0\), c2c 10 \(2 missing from the run\) queries/,
  );
  assert.match(text, /code2code: 2 queries missing from the run/);
  assert.match(text, /^task mean\s+20\s+0\.2500/m);
  assert.doesNotMatch(text, /per subtask/, 'subtask tables are opt-in in table format');
});

test('markdown output has GitHub tables with right-aligned numbers and the subtask tables', () => {
  const md = renderResults(results, { format: 'markdown' });
  assert.match(
    md,
    /^\| # \| retriever \| ndcg@10 \| recall@10 \| map@10 \| mrr@10 \| task-mean ndcg@10 \| t2c ndcg@10 \| c2t ndcg@10 \| c2c ndcg@10 \| queries \| time \|$/m,
  );
  assert.match(md, /^\|---\|---\|---:\|---:\|/m);
  assert.match(md, /^\| 1 \| strong \| 0\.7500 \|/m);
  assert.match(md, /### strong: per subtask/);
});

test('under a protocol ranked by the task mean, the task mean decides the order', () => {
  const byMean = { ...results, protocol: { ...results.protocol, rankBy: 'taskMean' as const } };
  const rows = renderResults(byMean)
    .split('\n')
    .filter((l) => /^[12]\s{2}/.test(l));
  assert.match(rows[0], /^1\s+weak\s/, 'weak has the higher task mean (0.75)');
  assert.match(renderResults(byMean), /ranked by the task mean/);
});

test('formatMetric prints 4 decimals and a dash for missing values', () => {
  assert.equal(formatMetric(0.123456), '0.1235');
  assert.equal(formatMetric(null), '-');
  assert.equal(formatMetric(undefined), '-');
});
