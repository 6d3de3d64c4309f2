import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import { resolveEvalProtocol, roundHalfEven } from './protocol.js';

test('coreb protocol: level 2, strict nDCG, anchors out, match negatives excluded unless zero', () => {
  const p = resolveEvalProtocol('coreb');
  assert.equal(p.relevanceLevel, 2);
  assert.equal(p.ndcg, 'strict');
  assert.equal(p.anchorExclusion, true);
  assert.equal(p.c2tMatchNegatives, 'exclude');
  assert.equal(p.overall, 'query-weighted');
  assert.equal(p.roundDigits, null);
  assert.equal(resolveEvalProtocol('coreb', { c2tMatchNegatives: 'zero' }).c2tMatchNegatives, 'zero');
});

test('beir protocol: level 1, graded trec nDCG, identical ids ignored, 5-decimal rounding', () => {
  const p = resolveEvalProtocol('beir');
  assert.deepEqual([p.relevanceLevel, p.ndcg, p.anchorExclusion, p.ignoreIdenticalIds, p.roundDigits], [1, 'trec', false, true, 5]);
  assert.throws(() => resolveEvalProtocol('beir', { c2tMatchNegatives: 'zero' }), (e) => isCorebError(e, 'USAGE'));
  assert.throws(() => resolveEvalProtocol('mteb'), (e) => isCorebError(e, 'USAGE') && /coreb, beir/.test(e.message));
});

test('roundHalfEven matches Python round(x, 5): exact ties go to even, others to nearest', () => {
  assert.equal(roundHalfEven(0.015625, 5), 0.01562); // 1/64: exact tie, 2 is even
  assert.equal(roundHalfEven(0.046875, 5), 0.04688); // 3/64: exact tie, 8 is even
  assert.equal(roundHalfEven(0.123456, 5), 0.12346);
  assert.equal(roundHalfEven(0.3256449999, 5), 0.32564);
  assert.equal(roundHalfEven(1 / 3, 5), 0.33333);
});
