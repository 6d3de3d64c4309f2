import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCorebError } from '../core/errors.js';
import { measureKeys, measureLabel, parseMeasures } from './measures.js';

test('trec_eval names, @ names and bare-number continuation', () => {
  assert.deepEqual(measureKeys(parseMeasures(['ndcg_cut.1,3,recall.10'])), ['recall_10', 'ndcg_cut_1', 'ndcg_cut_3']);
  assert.deepEqual(measureKeys(parseMeasures(['ndcg@10', 'map@10', 'recall@100', 'P@5', 'mrr@10'])), [
    'recip_rank_cut_10',
    'P_5',
    'recall_100',
    'ndcg_cut_10',
    'map_cut_10',
  ]);
  assert.deepEqual(measureKeys(parseMeasures(['map_cut.10,100', 'map_cut_5'])), ['map_cut_5', 'map_cut_10', 'map_cut_100']);
});

test('cutoffs merge as a set, sort numerically, and defaults apply only to bare names', () => {
  assert.deepEqual(parseMeasures(['P.10,5', 'P.5']), [{ family: 'P', params: [5, 10] }]);
  assert.deepEqual(parseMeasures(['P'])[0].params, [5, 10, 15, 20, 30, 100, 200, 500, 1000]);
  assert.deepEqual(parseMeasures(['P', 'P.3'])[0].params, [3]);
  assert.deepEqual(parseMeasures(['success'])[0].params, [1, 5, 10]);
});

test('all covers every measure at the documented cutoffs, in trec_eval print order', () => {
  const keys = measureKeys(parseMeasures(['all']));
  assert.equal(keys[0], 'runid');
  assert.equal(keys[1], 'num_q');
  for (const k of [
    'ndcg_cut_1',
    'ndcg_cut_1000',
    'P_3',
    'recall_500',
    'map_cut_15',
    'success_1000',
    'recip_rank_cut_30',
    'ndcg',
    'map',
    'bpref',
    'Rprec',
    'gm_map',
    'iprec_at_recall_0.50',
  ]) {
    assert.ok(keys.includes(k), k);
  }
  assert.ok(!keys.some((k) => k.startsWith('mrr_beir')), 'BEIR MRR is opt-in');
  assert.ok(keys.indexOf('map') < keys.indexOf('P_1') && keys.indexOf('P_1') < keys.indexOf('ndcg_cut_1'));
});

test('unknown names and bad cutoffs are MEASURE errors', () => {
  for (const bad of [['nope'], ['ndcg_cut.0'], ['P.x'], ['map.5'], ['5'], ['ndcg@-1'], []]) {
    assert.throws(
      () => parseMeasures(bad),
      (e) => isCorebError(e, 'MEASURE'),
      JSON.stringify(bad),
    );
  }
});

test('measureLabel gives ndcg@10-style labels', () => {
  assert.equal(measureLabel('ndcg_cut_10'), 'ndcg@10');
  assert.equal(measureLabel('map_cut_100'), 'map@100');
  assert.equal(measureLabel('recip_rank_cut_10'), 'mrr@10');
  assert.equal(measureLabel('recall_5'), 'recall@5');
  assert.equal(measureLabel('P_5'), 'P@5');
  assert.equal(measureLabel('map'), 'map');
});
