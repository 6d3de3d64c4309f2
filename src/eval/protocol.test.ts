import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import { MTEB_MEASURES, protocolMeasures, resolveProtocol, roundHalfEven } from './protocol.js';

test('coreb protocol: level 2, strict nDCG, anchors out, match negatives counted as zero unless excluded', () => {
  const p = resolveProtocol('coreb');
  assert.equal(p.relevanceLevel, 2);
  assert.equal(p.ndcg, 'strict');
  assert.equal(p.anchorExclusion, true);
  assert.equal(p.c2tMatchNegatives, 'zero', 'the published numbers count the negative pairs as 0');
  assert.equal(p.qrels, 'as-is');
  assert.equal(p.rankBy, 'overall');
  assert.equal(p.roundDigits, null);
  assert.equal(resolveProtocol('coreb', { c2tMatchNegatives: 'exclude' }).c2tMatchNegatives, 'exclude');
});

test('mteb protocol: rel-2 qrels only, anchors kept, level 1, MTEB cutoffs with hit rate, rounded except MRR', () => {
  const p = resolveProtocol('mteb');
  assert.deepEqual(
    [p.qrels, p.anchorExclusion, p.ignoreIdenticalIds, p.relevanceLevel, p.ndcg, p.mrr, p.rankBy, p.roundDigits],
    ['positives-only', false, false, 1, 'trec', 'mteb', 'taskMean', 5],
  );
  assert.deepEqual(p.unrounded, ['mrr@1', 'mrr@3', 'mrr@5', 'mrr@10', 'mrr@20', 'mrr@100', 'mrr@1000']);
  assert.equal(MTEB_MEASURES.length, 42);
  assert.ok(protocolMeasures(p).includes('hit@20') && protocolMeasures(p).includes('ndcg@1000'));
  assert.throws(
    () => resolveProtocol('mteb', { c2tMatchNegatives: 'zero' }),
    (e) => isCorebError(e, 'USAGE') && /mteb drops/.test(e.message),
  );
});

test('beir protocol: level 1, graded trec nDCG, identical ids ignored, 5-decimal rounding', () => {
  const p = resolveProtocol('beir');
  assert.deepEqual([p.relevanceLevel, p.ndcg, p.anchorExclusion, p.ignoreIdenticalIds, p.roundDigits], [1, 'trec', false, true, 5]);
  assert.throws(
    () => resolveProtocol('beir', { c2tMatchNegatives: 'zero' }),
    (e) => isCorebError(e, 'USAGE'),
  );
  assert.equal(p.rankBy, 'taskMean');
  assert.throws(
    () => resolveProtocol('trec'),
    (e) => isCorebError(e, 'USAGE') && /coreb, mteb, beir/.test(e.message),
  );
});

test('roundHalfEven matches Python round(x, 5): exact ties go to even, others to nearest', () => {
  assert.equal(roundHalfEven(0.015625, 5), 0.01562); // 1/64: exact tie, 2 is even
  assert.equal(roundHalfEven(0.046875, 5), 0.04688); // 3/64: exact tie, 8 is even
  assert.equal(roundHalfEven(0.123456, 5), 0.12346);
  assert.equal(roundHalfEven(0.3256449999, 5), 0.32564);
  assert.equal(roundHalfEven(1 / 3, 5), 0.33333);
});
