import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Qrels, Run } from '../core/dataset.js';
import { isCorebError } from '../core/errors.js';
import { evaluate, measurePreset } from './evaluate.js';

function maps(entries: Record<string, Record<string, number>>): Map<string, Map<string, number>> {
  return new Map(Object.entries(entries).map(([q, m]) => [q, new Map(Object.entries(m))]));
}

// q1: graded labels, an unretrieved relevant doc (d4), an unjudged tie (d5/d6: d6 ranks first).
const qrels: Qrels = maps({ q1: { d1: 2, d2: 1, d3: 0, d4: 2 } });
const run: Run = maps({ q1: { d1: 0.9, d2: 0.8, d3: 0.7, d5: 0.6, d6: 0.6 } });

test('binary measures at level 1 follow the trec_eval definitions', () => {
  const ev = evaluate(qrels, run, { measures: ['P.1,2,5', 'recall.5', 'map', 'recip_rank', 'Rprec', 'num_ret', 'num_rel', 'num_rel_ret'] });
  const q = ev.perQuery.get('q1');
  assert.ok(q);
  assert.equal(q.P_1, 1);
  assert.equal(q.P_2, 1);
  assert.equal(q.P_5, 2 / 5);
  assert.equal(q.recall_5, 2 / 3); // d4 is relevant but not retrieved
  assert.equal(q.map, (1 / 1 + 2 / 2) / 3);
  assert.equal(q.recip_rank, 1);
  assert.equal(q.Rprec, 2 / 3);
  assert.equal(q.num_ret, 5);
  assert.equal(q.num_rel, 3);
  assert.equal(q.num_rel_ret, 2);
});

test('P@k divides by k even when fewer docs are retrieved', () => {
  const ev = evaluate(qrels, run, { measures: ['P.10'] });
  assert.equal(ev.perQuery.get('q1')?.P_10, 2 / 10);
});

test('relevance level 2 makes label-1 docs non-relevant for binary measures', () => {
  const ev = evaluate(qrels, run, { measures: ['P.5', 'map', 'recall.5', 'map_cut.1'], relevanceLevel: 2 });
  const q = ev.perQuery.get('q1');
  assert.equal(q?.P_5, 1 / 5);
  assert.equal(q?.map, 1 / 2);
  assert.equal(q?.recall_5, 1 / 2);
  assert.equal(q?.map_cut_1, 1 / 2); // AP@k divides by all relevant docs, not min(k, R)
});

test('nDCG uses linear gains and ignores the level in trec mode; strict mode zeroes labels below it', () => {
  const dcg = 2 / Math.log2(2) + 1 / Math.log2(3);
  const idcg = 2 / Math.log2(2) + 2 / Math.log2(3) + 1 / Math.log2(4);
  for (const level of [1, 2]) {
    const ev = evaluate(qrels, run, { measures: ['ndcg', 'ndcg_cut.2'], relevanceLevel: level });
    assert.equal(ev.perQuery.get('q1')?.ndcg, dcg / idcg);
    assert.equal(ev.perQuery.get('q1')?.ndcg_cut_2, dcg / (2 / Math.log2(2) + 2 / Math.log2(3)));
  }
  const strict = evaluate(qrels, run, { measures: ['ndcg'], relevanceLevel: 2, ndcg: 'strict' });
  assert.equal(strict.perQuery.get('q1')?.ndcg, 2 / Math.log2(2) / (2 / Math.log2(2) + 2 / Math.log2(3)));
});

test('score ties break by docid descending; float32 rounding creates ties that doubles do not', () => {
  const q = maps({ t: { a: 1 } });
  const r = maps({ t: { a: 0.30000002, b: 0.30000001 } });
  // As doubles a ranks first; as float32 both are 0.3 and b > a by docid, so a is second.
  assert.equal(evaluate(q, r, { measures: ['recip_rank'], scores: 'float64' }).perQuery.get('t')?.recip_rank, 1);
  assert.equal(evaluate(q, r, { measures: ['recip_rank'] }).perQuery.get('t')?.recip_rank, 1 / 2);
});

test('docid ties compare code points (UTF-8 bytes), not UTF-16 units', () => {
  // U+1F600 > U+FF21 by code point, but its UTF-16 lead surrogate 0xD83D < 0xFF21.
  const q = maps({ t: { 'x\uFF21': 1 } });
  const r = maps({ t: { 'x\uFF21': 1, 'x\u{1F600}': 1 } });
  assert.equal(evaluate(q, r, { measures: ['recip_rank'] }).perQuery.get('t')?.recip_rank, 1 / 2);
  const nums = maps({ t: { '10': 1 } });
  const numRun = maps({ t: { '1': 0, '10': 0, '9': 0, '2': 0 } });
  // strcmp descending: 9, 2, 10, 1
  assert.equal(evaluate(nums, numRun, { measures: ['recip_rank'] }).perQuery.get('t')?.recip_rank, 1 / 3);
});

test('the anchor is removed before ranking and later docs move up', () => {
  const q = maps({ c: { y: 2 } });
  const r = maps({ c: { anchor: 0.99, x: 0.5, y: 0.4 } });
  const plain = evaluate(q, r, { measures: ['recip_rank', 'num_ret'] });
  assert.equal(plain.perQuery.get('c')?.recip_rank, 1 / 3);
  const anchored = evaluate(q, r, { measures: ['recip_rank', 'num_ret'], anchors: new Map([['c', 'anchor']]) });
  assert.equal(anchored.perQuery.get('c')?.recip_rank, 1 / 2);
  assert.equal(anchored.perQuery.get('c')?.num_ret, 2);
  assert.equal(anchored.semantics.anchors, true);
});

test('MRR@k in trec order is RR when the first relevant doc is within k, else 0', () => {
  const q = maps({ t: { b: 1 } });
  const r = maps({ t: { a: 0.9, b: 0.5 } });
  const ev = evaluate(q, r, { measures: ['mrr@1,2', 'mrr'] });
  assert.deepEqual(ev.perQuery.get('t'), { recip_rank: 1 / 2, recip_rank_cut_1: 0, recip_rank_cut_2: 1 / 2 });
});

test('BEIR-style MRR keeps file order for ties and divides by all qrels queries', () => {
  const q = maps({ t: { a: 1 }, lost: { z: 1 } });
  const r = maps({ t: { a: 1, z: 1 } });
  const ev = evaluate(q, r, { measures: ['mrr_beir@10', 'recip_rank'] });
  assert.equal(ev.perQuery.get('t')?.recip_rank, 1 / 2); // trec: z before a
  assert.equal(ev.perQuery.get('t')?.mrr_beir_10, 1); // BEIR: a (first in the file) first
  assert.equal(ev.aggregate.mrr_beir_10, 1 / 2); // the qrels-only query counts 0
});

test('population: run ∩ qrels by default, every qrels query with complete', () => {
  const q = maps({ a: { d: 1 }, b: { d: 1 }, missing: { d: 1 } });
  const r = maps({ a: { d: 1 }, b: { e: 1 }, runonly: { d: 1 } });
  const ev = evaluate(q, r, { measures: ['map', 'num_q'] });
  assert.deepEqual([...ev.perQuery.keys()], ['a', 'b']);
  assert.equal(ev.aggregate.map, 1 / 2);
  assert.equal(ev.aggregate.num_q, 2);
  assert.deepEqual(ev.missingQueryIds, ['missing']);
  const full = evaluate(q, r, { measures: ['map', 'num_q'], complete: true });
  assert.equal(full.aggregate.map, 1 / 3);
  assert.equal(full.aggregate.num_q, 3);
  assert.equal(full.semantics.population, 'all-qrels');
});

test('a query with no relevant docs is still counted, with 0', () => {
  const q = maps({ a: { d: 1 }, none: { d: 0 } });
  const r = maps({ a: { d: 1 }, none: { d: 1 } });
  const ev = evaluate(q, r, { measures: ['map', 'ndcg', 'P.1'] });
  assert.deepEqual(ev.perQuery.get('none'), { map: 0, ndcg: 0, P_1: 0 });
  assert.equal(ev.aggregate.map, 1 / 2);
});

test('an empty run query is evaluated with every measure 0', () => {
  const ev = evaluate(maps({ a: { d: 2 } }), maps({ a: {} }), { measures: ['all'] });
  const q = ev.perQuery.get('a');
  assert.ok(q);
  assert.equal(q.num_rel, 1);
  for (const [k, v] of Object.entries(q)) if (k !== 'num_rel') assert.equal(v, 0, k);
});

test('gm_map is the geometric mean of AP with a 1e-5 floor', () => {
  const q = maps({ a: { d: 1 }, b: { d: 1 } });
  const r = maps({ a: { d: 1 }, b: { x: 1, d: 0 } });
  const ev = evaluate(q, r, { measures: ['gm_map'] });
  assert.ok(Math.abs(ev.aggregate.gm_map - Math.sqrt(1 * 0.5)) < 1e-15);
});

test('bpref counts judged non-relevant docs above each relevant one', () => {
  // ranking: r1 (rel), u (not judged: skipped), n1 (judged 0), r2 (rel); R = 2, N = 1.
  const q = maps({ t: { n1: 0, r1: 1, r2: 1 } });
  const r = maps({ t: { r1: 4, u: 3, n1: 2, r2: 1 } });
  const ev = evaluate(q, r, { measures: ['bpref'] });
  assert.equal(ev.perQuery.get('t')?.bpref, (1 + (1 - 1 / 1)) / 2);
});

test('NaN scores and fractional labels are rejected; protocol coreb is level 2 strict', () => {
  assert.throws(
    () => evaluate(maps({ a: { d: 1 } }), maps({ a: { d: NaN } }), { measures: ['map'] }),
    (e) => isCorebError(e, 'VALIDATION'),
  );
  assert.throws(
    () => evaluate(maps({ a: { d: 1.5 } }), maps({ a: { d: 1 } }), { measures: ['map'] }),
    (e) => isCorebError(e, 'VALIDATION'),
  );
  assert.throws(
    () => evaluate(maps({ a: { d: 1 } }), maps({ a: { d: 1 } }), { measures: ['map'], relevanceLevel: 0 }),
    (e) => isCorebError(e, 'USAGE'),
  );
  assert.deepEqual(measurePreset('coreb'), { relevanceLevel: 2, ndcg: 'strict' });
  assert.deepEqual(measurePreset('trec'), { relevanceLevel: 1, ndcg: 'trec' });
});
