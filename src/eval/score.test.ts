import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Qrels, Query } from '../core/dataset.js';
import type { RankedList } from '../core/retrieval.js';
import { aggregateGroups, aggregateQueries } from './aggregate.js';
import { resolveProtocol, roundHalfEven } from './protocol.js';
import { MEASURE_KEYS, scoreTask } from './score.js';

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: got ${actual}, expected ${expected}`);

function list(...pairs: Array<[string, number]>): RankedList {
  return { docIds: pairs.map((p) => p[0]), scores: Float64Array.from(pairs.map((p) => p[1])) };
}

function qrels(entries: Record<string, Record<string, number>>): Qrels {
  return new Map(Object.entries(entries).map(([q, m]) => [q, new Map(Object.entries(m))]));
}

// One code-to-code query: its anchor `a` ranks first (as it always does: it IS the query),
// then a hard negative h (label 1), then the positive p (label 2).
const c2cQuery: Query = { id: 'q1', text: 'code', task: 'code2code', subtask: 'c2c_cross_lang', language: 'java', anchorId: 'a' };
const c2cQrels = qrels({ q1: { p: 2, h: 1 } });
const c2cLists = new Map([['q1', list(['a', 0.99], ['h', 0.8], ['p', 0.7])]]);

test('coreb protocol removes the c2c anchor before ranking: the hard negative becomes rank 1', () => {
  const r = scoreTask({
    task: 'code2code',
    queries: [c2cQuery],
    qrels: c2cQrels,
    lists: c2cLists,
    protocol: resolveProtocol('coreb'),
    excludeAnchors: true,
  });
  const m = r.perQuery.get('q1')!.metrics;
  // Ranking [h, p]: strict nDCG zeroes h, so DCG@10 = 2/log2(3), IDCG = 2/log2(2).
  close(m['ndcg@10'], 1 / Math.log2(3), 'ndcg@10');
  close(m['ndcg@1'], 0, 'ndcg@1');
  close(m['recall@1'], 0, 'recall@1');
  close(m['recall@10'], 1, 'recall@10');
  close(m['mrr@10'], 1 / 2, 'mrr@10');
  close(m['map@10'], 1 / 2, 'map@10');
  close(m['p@3'], 1 / 3, 'p@3');
  assert.equal(r.perQuery.get('q1')!.hardNegativesTop10, 1);
  assert.equal(r.perQuery.get('q1')!.hnIntrusion, 1, 'h above the only positive');
});

test('without anchor exclusion the anchor wastes rank 1 (what a naive runner reports)', () => {
  const r = scoreTask({
    task: 'code2code',
    queries: [c2cQuery],
    qrels: c2cQrels,
    lists: c2cLists,
    protocol: resolveProtocol('coreb'),
    excludeAnchors: false,
  });
  const m = r.perQuery.get('q1')!.metrics;
  close(m['ndcg@10'], 2 / Math.log2(4) / 2, 'ndcg@10 with p at rank 3');
  close(m['mrr@10'], 1 / 3, 'mrr@10');
});

test('strict vs trec nDCG: beir protocol gives the hard negative graded gain 1 and counts it as relevant', () => {
  const beir = scoreTask({ task: 'code2code', queries: [c2cQuery], qrels: c2cQrels, lists: c2cLists, protocol: resolveProtocol('beir') });
  const m = beir.perQuery.get('q1')!.metrics;
  // Ranking [a, h, p] (BEIR knows no anchors): DCG = 1/log2(3) + 2/log2(4); IDCG = 2/log2(2) + 1/log2(3).
  close(m['ndcg@10'], (1 / Math.log2(3) + 2 / 2) / (2 + 1 / Math.log2(3)), 'trec ndcg@10');
  close(m['recall@10'], 1, 'level 1 recall counts h and p');
  close(m['mrr@10'], 1 / 2, 'BEIR mrr: h at rank 2 counts (label > 0)');
  close(m['p@3'], 2 / 3, 'level 1 P@3');
  // The same ranking under coreb semantics but without anchor exclusion: strict gain for p only.
  const coreb = scoreTask({ task: 'code2code', queries: [c2cQuery], qrels: c2cQrels, lists: c2cLists, protocol: resolveProtocol('coreb') });
  close(coreb.perQuery.get('q1')!.metrics['ndcg@10'], 0.5, 'strict ndcg@10');
});

test('beir protocol drops documents whose id equals the query id (ignore_identical_ids)', () => {
  const q: Query = { id: 'x', text: 't' };
  const r = scoreTask({
    task: 'beir',
    queries: [q],
    qrels: qrels({ x: { d: 1 } }),
    lists: new Map([['x', list(['x', 5], ['d', 1])]]),
    protocol: resolveProtocol('beir'),
  });
  close(r.perQuery.get('x')!.metrics['ndcg@1'], 1, 'd is rank 1 once x is dropped');
});

// c2t_match: m1 is a positive pair (its text t1 has label 2), m2 a negative pair (only label-1 texts).
const matchQueries: Query[] = [
  { id: 'm1', text: 'code', task: 'code2text', subtask: 'c2t_match', language: 'python' },
  { id: 'm2', text: 'code', task: 'code2text', subtask: 'c2t_match', language: 'python' },
];
const matchQrels = qrels({ m1: { t1: 2, n1: 1 }, m2: { n2: 1 } });
const matchLists = new Map([
  ['m1', list(['t1', 3], ['n1', 2])],
  ['m2', list(['n2', 3], ['t9', 2])],
]);

test('c2t_match negatives count as zero by default and are excluded with the option', () => {
  const zero = scoreTask({ task: 'code2text', queries: matchQueries, qrels: matchQrels, lists: matchLists, protocol: resolveProtocol('coreb') });
  assert.equal(zero.excluded, 0);
  assert.equal(zero.zeroed, 1);
  close(zero.perQuery.get('m2')!.metrics['ndcg@10'], 0, 'strict nDCG of a query with only hard negatives');
  close(aggregateQueries(zero.perQuery.values()).metrics['ndcg@10'], 0.5, 'the negative pulls the mean to 0.5');
  const ex = scoreTask({
    task: 'code2text',
    queries: matchQueries,
    qrels: matchQrels,
    lists: matchLists,
    protocol: resolveProtocol('coreb', { c2tMatchNegatives: 'exclude' }),
  });
  assert.equal(ex.excluded, 1);
  assert.equal(ex.zeroed, 0);
  assert.deepEqual([...ex.perQuery.keys()], ['m1']);
  close(aggregateQueries(ex.perQuery.values()).metrics['ndcg@10'], 1, 'only the positive pair');
  // Under beir they are ordinary queries: n2 (label 1) is relevant at level 1.
  const beir = scoreTask({ task: 'code2text', queries: matchQueries, qrels: matchQrels, lists: matchLists, protocol: resolveProtocol('beir') });
  close(beir.perQuery.get('m2')!.metrics['ndcg@1'], 1, 'beir counts the hard negative');
});

test('mteb: qrels reduced to rel-2 documents, queries without one dropped, anchor kept, MTEB MRR in retrieval order', () => {
  const mteb = resolveProtocol('mteb');
  const r = scoreTask({ task: 'code2text', queries: matchQueries, qrels: matchQrels, lists: matchLists, protocol: mteb });
  assert.equal(r.excluded, 1, 'the negative pair has no rel-2 document');
  assert.deepEqual([...r.perQuery.keys()], ['m1']);
  // m1: t1 (2) at rank 1, n1 (1) at rank 2; n1 is dropped from the qrels, so nDCG@3 is 1, P@3 1/3.
  close(r.perQuery.get('m1')!.metrics['ndcg@3'], 1, 'n1 is not a relevant document any more');
  close(r.perQuery.get('m1')!.metrics['p@3'], 1 / 3, 'P@3 divides by 3');
  close(r.perQuery.get('m1')!.metrics['hit@1'], 1, 'hit rate at 1');
  // Anchor kept: q1's anchor a sits at rank 1, the positive p at 2.
  const c = scoreTask({
    task: 'code2code',
    queries: [c2cQuery],
    qrels: qrels({ q1: { p: 2, f: 1 } }),
    lists: new Map([['q1', list(['a', 9], ['f', 8], ['p', 7])]]),
    protocol: mteb,
    excludeAnchors: false,
  });
  close(c.perQuery.get('q1')!.metrics['mrr@10'], 1 / 3, 'anchor and the failed solution stay ahead of p');
  close(c.perQuery.get('q1')!.metrics['hit@1'], 0, 'no hit at 1');
  close(c.perQuery.get('q1')!.metrics['recall@3'], 1, 'recall@3');
  // MTEB's MRR sorts double scores stably: equal scores keep retrieval order (trec would put z before p).
  const q: Query = { id: 't', text: 't' };
  const tie = scoreTask({
    task: 'text2code',
    queries: [q],
    qrels: qrels({ t: { p: 2 } }),
    lists: new Map([['t', list(['p', 1], ['z', 1])]]),
    protocol: mteb,
  });
  close(tie.perQuery.get('t')!.metrics['mrr@10'], 1, 'retrieval order');
  close(tie.perQuery.get('t')!.metrics['ndcg@1'], 0, 'pytrec_eval order: z (docid descending) first');
});

test('queries without a ranked list are missing; an empty list scores 0 and stays in the population', () => {
  const qs: Query[] = [
    ...matchQueries.slice(0, 1),
    { id: 'm3', text: 'c', subtask: 'c2t_match' },
    { id: 'm4', text: 'c' },
    { id: 'nolabels', text: 'c' },
  ];
  const lists = new Map([...matchLists, ['m4', list()]]);
  const r = scoreTask({
    task: 'code2text',
    queries: qs,
    qrels: qrels({ m1: { t1: 2 }, m3: { t3: 2 }, m4: { t1: 2 } }),
    lists,
    protocol: resolveProtocol('coreb'),
  });
  assert.equal(r.missing, 1);
  assert.deepEqual(r.missingIds, ['m3']);
  assert.deepEqual(r.emptyIds, ['m4']);
  assert.deepEqual([...r.perQuery.keys()], ['m1', 'm4']);
  assert.equal(r.perQuery.get('m4')!.metrics['recall@100'], 0);
  close(aggregateQueries(r.perQuery.values()).metrics['ndcg@10'], 0.5, 'the empty list averages in as 0');
});

test('overall pools queries (query-weighted); the task mean weighs each task once', () => {
  const t2c: Query[] = ['a', 'b', 'c'].map((id) => ({ id, text: id, task: 'text2code' as const }));
  const hit = scoreTask({
    task: 'text2code',
    queries: t2c,
    qrels: qrels({ a: { d: 2 }, b: { d: 2 }, c: { d: 2 } }),
    lists: new Map(t2c.map((q) => [q.id, list(['d', 1])])),
    protocol: resolveProtocol('coreb'),
  });
  const miss = scoreTask({
    task: 'code2code',
    queries: [c2cQuery],
    qrels: qrels({ q1: { p: 2 } }),
    lists: new Map([['q1', list(['x', 1])]]),
    protocol: resolveProtocol('coreb'),
  });
  const all = new Map([...hit.perQuery, ...miss.perQuery]);
  const groups = [aggregateQueries(hit.perQuery.values()), aggregateQueries(miss.perQuery.values())];
  close(aggregateQueries(all.values()).metrics['ndcg@10'], 3 / 4, 'query-weighted');
  close(aggregateGroups(groups).metrics['ndcg@10'], 1 / 2, 'task mean');
  assert.equal(aggregateGroups(groups).queries, 4);
  // Rounding protocols round the task means first, then their mean; MTEB leaves MRR unrounded.
  const mteb = resolveProtocol('mteb');
  const g = (x: number) => ({
    queries: 1,
    metrics: { 'ndcg@10': x, 'mrr@10': x },
    diagnostics: { intrusionRate: null, intrusionEligible: 0, hardNegativesTop10: 0, ndcgRecallGap10: 0 },
  });
  const m = aggregateGroups([g(1 / 3), g(0.123456789)], mteb);
  assert.equal(m.metrics['ndcg@10'], roundHalfEven((1 / 3 + 0.123456789) / 2, 5));
  assert.equal(m.metrics['mrr@10'], (1 / 3 + 0.123456789) / 2);
});

test('intrusion rate counts only queries with both a positive and a hard negative in the top 10', () => {
  const qs: Query[] = ['a', 'b', 'c'].map((id) => ({ id, text: id }));
  const r = scoreTask({
    task: 'text2code',
    queries: qs,
    qrels: qrels({ a: { p: 2, h: 1 }, b: { p: 2, h: 1 }, c: { p: 2, h: 1 } }),
    lists: new Map([
      ['a', list(['h', 2], ['p', 1])], // intrusion
      ['b', list(['p', 2], ['h', 1])], // no intrusion
      ['c', list(['h', 2], ['x', 1])], // no positive in the top 10: not eligible
    ]),
    protocol: resolveProtocol('coreb'),
  });
  const g = aggregateQueries(r.perQuery.values());
  assert.equal(g.diagnostics.intrusionEligible, 2);
  close(g.diagnostics.intrusionRate!, 1 / 2, 'intrusion rate');
  close(g.diagnostics.hardNegativesTop10, 1, 'one hard negative per query');
  close(g.diagnostics.ndcgRecallGap10, g.metrics['ndcg@10'] - g.metrics['recall@10'], 'gap');
});

test('every eval measure maps to its trec_eval result key', () => {
  assert.deepEqual(MEASURE_KEYS, {
    'ndcg@1': 'ndcg_cut_1',
    'ndcg@3': 'ndcg_cut_3',
    'ndcg@5': 'ndcg_cut_5',
    'ndcg@10': 'ndcg_cut_10',
    'map@10': 'map_cut_10',
    'map@100': 'map_cut_100',
    'recall@1': 'recall_1',
    'recall@3': 'recall_3',
    'recall@5': 'recall_5',
    'recall@10': 'recall_10',
    'recall@100': 'recall_100',
    'mrr@10': 'recip_rank_cut_10',
    'p@1': 'P_1',
    'p@3': 'P_3',
    'p@5': 'P_5',
    'p@10': 'P_10',
  });
});

test('lists are scored as deep as the measures read: the same values as the whole list, ties at the cut and anchors included', () => {
  // 1,000 documents; ranks 95-110 share one float32 score (a tie across the read depth of 100) as
  // doubles a run file keeps, listed by the double: trec order breaks the tie by docid instead, so
  // the documents trec_eval reads at rank 100 are not the list's. Relevant documents at rank 3, in the tie
  // (t0103: 104th in the list, 100th in trec order) and 700 (beyond every cutoff but an uncut measure's).
  const ids = Array.from({ length: 1000 }, (_, i) =>
    i < 94 || i >= 110 ? `d${String(999 - i).padStart(4, '0')}` : `t${String(i).padStart(4, '0')}`,
  );
  const scores = Float64Array.from(ids, (_, i) => (i < 94 ? 1 - i / 1000 : i < 110 ? 0.5 + (110 - i) * 1e-12 : 0.4 - i / 10000));
  const q: Query = { id: 'q', text: 't', task: 'code2code', anchorId: ids[0] };
  const labels = { [ids[2]]: 2, [ids[103]]: 2, [ids[699]]: 2, [ids[5]]: 1 };
  const input = {
    task: 'code2code',
    queries: [q],
    qrels: qrels({ q: labels }),
    lists: new Map([['q', { docIds: ids, scores }]]),
    excludeAnchors: true,
  };
  const cut = scoreTask({ ...input, protocol: resolveProtocol('coreb') }).perQuery.get('q')!;
  // `map` reads the whole list, so the same protocol with it scores every document.
  const whole = scoreTask({ ...input, protocol: { ...resolveProtocol('coreb'), extraMeasures: ['map'] } }).perQuery.get('q')!;
  for (const [label, value] of Object.entries(cut.metrics)) assert.equal(value, whole.metrics[label], label);
  assert.ok(cut.metrics['recall@100'] > 0 && cut.metrics['recall@100'] < 1, 'the tie and the deep document decide recall@100');
  assert.equal(whole.metrics.map > 0, true);
  assert.equal(cut.hardNegativesTop10, whole.hardNegativesTop10);
  assert.equal(cut.hardNegativesTop10, 1);
});
