import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvalResults, QueryResult, RetrieverResult } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { compareResults, pairValues, renderCompareTable, significantWins } from './compare.js';
import { createRng, pairedTTest } from './significance.js';

const group = (v: number) => ({
  queries: 1,
  metrics: { 'ndcg@10': v },
  diagnostics: { intrusionRate: null, intrusionEligible: 0, hardNegativesTop10: 0, ndcgRecallGap10: 0 },
});

/** A retriever whose per-query ndcg@10 is `f(i)` for 40 t2c and 30 c2t queries. */
function retriever(name: string, f: (i: number, task: string) => number, perQuery = true): RetrieverResult {
  const pq: Record<string, QueryResult> = {};
  for (const [task, n] of [
    ['text2code', 40],
    ['code2text', 30],
  ] as const) {
    for (let i = 0; i < n; i++) {
      pq[`${task}-${i}`] = { task, metrics: { 'ndcg@10': f(i, task) }, hnIntrusion: null, hardNegativesTop10: 0 };
    }
  }
  return {
    name,
    spec: name,
    description: {},
    overall: group(0),
    taskMean: group(0),
    tasks: {
      text2code: { ...group(0), missingQueries: 0, excludedQueries: 0, zeroedQueries: 0, emptyQueries: [], missingQueryIds: [] },
      code2text: { ...group(0), missingQueries: 0, excludedQueries: 0, zeroedQueries: 0, emptyQueries: [], missingQueryIds: [] },
    },
    subtasks: {},
    languages: {},
    subQueryTypes: {},
    ...(perQuery ? { perQuery: pq } : {}),
    timings: { indexMs: 0, searchMs: 0, evaluateMs: 0, totalMs: 0 },
  };
}

function results(retrievers: RetrieverResult[]): EvalResults {
  return {
    schema: 'coreb.eval-results/2',
    coreb: { version: 't' },
    createdAt: '',
    dataset: { kind: 'coreb-release', dir: '/d', split: 's', files: [], sha256: '', counts: {} },
    protocol: {} as EvalResults['protocol'],
    measures: ['ndcg@10'],
    options: { depth: 10, tasks: [], subtasks: null },
    retrievers,
    timings: { loadMs: 0, totalMs: 0 },
  };
}

const rng = createRng(11);
const noise = Array.from({ length: 40 }, () => rng() / 2 ** 32);
const base = retriever('base', (i) => noise[i] * 0.8);
const better = retriever('better', (i, t) => Math.min(1, noise[i] * 0.8 + (t === 'text2code' ? 0.1 : 0) + (i % 3 === 0 ? -0.02 : 0.01)));
const same = retriever('same', (i) => noise[i] * 0.8 + (i % 2 === 0 ? 0.01 : -0.01));

test('compare: one entry per retriever x scope x test, Holm within each test, deltas from the pairs', async () => {
  const r = await compareResults(results([base, better, same]), { permutations: 2000, bootstrapSamples: 2000 });
  assert.equal(r.baseline, 'base');
  assert.equal(r.measure, 'ndcg@10');
  assert.equal(r.comparisons.length, 2 * 3 * 3);
  for (const c of r.comparisons) {
    assert.deepEqual(Object.keys(c).sort(), ['ci', 'delta', 'measure', 'pHolm', 'pValue', 'queries', 'retriever', 'scope', 'test'].sort());
    assert.ok(c.pHolm >= c.pValue && c.pHolm <= 1);
    assert.equal(c.queries, c.scope === 'overall' ? 70 : c.scope === 'text2code' ? 40 : 30);
    assert.equal(c.ci === null, c.test === 'randomization');
  }
  const t2c = r.comparisons.find((c) => c.retriever === 'better' && c.scope === 'text2code' && c.test === 't-test')!;
  const pv = pairValues(better, base, 'ndcg@10', 'text2code');
  assert.equal(t2c.pValue, pairedTTest(pv.a, pv.b).pValue);
  assert.ok(t2c.delta > 0.09 && t2c.pHolm < 0.001);
  // The six t-tests: Holm multiplies the smallest p by 6.
  const tt = r.comparisons.filter((c) => c.test === 't-test');
  const minP = Math.min(...tt.map((c) => c.pValue));
  assert.equal(tt.find((c) => c.pValue === minP)!.pHolm, Math.min(1, 6 * minP));
  const sameOverall = r.comparisons.find((c) => c.retriever === 'same' && c.scope === 'overall' && c.test === 'randomization')!;
  assert.ok(sameOverall.pValue > 0.05, `no real difference: p ${sameOverall.pValue}`);
  assert.match(renderCompareTable(r), /better\s+text2code\s+t-test\s+40\s+\+0\.\d{4}/);
});

test('compare: bad baseline, measure and missing per-query values are clear errors', async () => {
  await assert.rejects(
    () => compareResults(results([base, better]), { baseline: 'nope' }),
    (e: unknown) => e instanceof CorebError && e.code === 'USAGE' && /nope.*retrievers: base, better/.test(e.message),
  );
  await assert.rejects(() => compareResults(results([base, better]), { measure: 'map@7' }), /measures: ndcg@10/);
  await assert.rejects(() => compareResults(results([base, retriever('x', () => 0, false)])), /no per-query values.*--no-per-query/);
  await assert.rejects(() => compareResults(results([base])), /at least two/);
});

test('significantWins: ranx-style marks only for significant, higher means', async () => {
  const wins = await significantWins([base, better, same], { measure: 'ndcg@10', scope: 'text2code', permutations: 2000 });
  assert.deepEqual([...wins.get('better')!].sort(), ['base', 'same']);
  assert.deepEqual([...wins.get('base')!], []);
  assert.deepEqual([...wins.get('same')!], []);
});
