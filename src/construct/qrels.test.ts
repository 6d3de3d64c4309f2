import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCode2CodeQrels, createCode2TextQrels, createText2CodeQrels, resolveCrossLanguageTargets, type JudgedCandidate } from './qrels.js';

const c = (id: string, language: string, passed: boolean, problemId = 'p1', model = 'm1'): JudgedCandidate => ({
  id,
  problemId,
  language,
  model,
  passed,
});

// Problem p1: passing python (a) and java (b), failing python (c) and go (d); a passing cpp of
// another problem (z) must never be judged.
const pool = [c('a', 'python', true), c('b', 'java', true), c('c', 'python', false), c('d', 'go', false), c('z', 'cpp', true, 'p2')];

const labels = (rows: { docId: string; relevance: number }[]): string[] => rows.map((r) => `${r.docId}:${r.relevance}`);

test('t2c any: every passing solution of the problem is a positive, failed ones are hard negatives', () => {
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', pool, 'none')), ['a:2', 'b:2', 'c:1', 'd:1']);
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', pool, 'any')), ['a:2', 'b:2', 'c:1', 'd:1']);
});

test('t2c per language: only passing solutions in that language are positives', () => {
  // java: b is the only positive; failed c, d first, then correct-but-wrong-language a.
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', pool, 'java')), ['b:2', 'c:1', 'd:1', 'a:1']);
  // python: a; failed c and d; b fills the third slot.
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', pool, 'python')), ['a:2', 'c:1', 'd:1', 'b:1']);
});

test('t2c: a failing solution in the asked language is never a positive', () => {
  const rows = createText2CodeQrels('q', 'p1', pool, 'go');
  assert.equal(rows.filter((r) => r.relevance === 2).length, 0);
  assert.ok(rows.some((r) => r.docId === 'd' && r.relevance === 1));
});

test('t2c: hard negatives are capped, failed ones preferred over wrong-language correct ones', () => {
  const many = [...pool, c('e', 'ruby', false), c('f', 'cpp', false)];
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', many, 'java')), ['b:2', 'c:1', 'd:1', 'e:1']);
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', many, 'java', { maxHardNegatives: 1 })), ['b:2', 'c:1']);
  assert.deepEqual(labels(createText2CodeQrels('q', 'p1', many, 'java', { maxHardNegatives: 0 })), ['b:2']);
});

test('t2c: candidates of other problems stay unjudged', () => {
  const rows = createText2CodeQrels('q', 'p1', pool, 'cpp');
  assert.ok(!rows.some((r) => r.docId === 'z'));
  assert.equal(rows.filter((r) => r.relevance === 2).length, 0);
});

test('c2c: positives are passing targets in the target languages; the anchor is never judged', () => {
  const anchor = pool[1]; // java b
  const rows = createCode2CodeQrels('q', anchor, pool, ['python']);
  assert.deepEqual(labels(rows), ['a:2', 'c:1', 'd:1']);
  assert.ok(!rows.some((r) => r.docId === 'b'));
});

test('c2c: correct solutions outside the targets become hard negatives when failed ones run out', () => {
  const pool2 = [c('a', 'python', true), c('b', 'java', true), c('g', 'java', true), c('r', 'ruby', true), c('x', 'python', false)];
  assert.deepEqual(labels(createCode2CodeQrels('q', pool2[1], pool2, ['python', 'ruby'])), ['a:2', 'r:2', 'x:1', 'g:1']);
});

test('cross-language targets: later languages with a passing solution, each pair asked once', () => {
  const pool2 = [c('a', 'cpp', true), c('b', 'go', false), c('d', 'java', true), c('e', 'ruby', true), c('z', 'python', true, 'p2')];
  assert.deepEqual(resolveCrossLanguageTargets(pool2[0], pool2), ['java', 'ruby']);
  assert.deepEqual(resolveCrossLanguageTargets(pool2[2], pool2), ['ruby']);
  assert.deepEqual(resolveCrossLanguageTargets(pool2[3], pool2), []);
});

test('c2t: the original description is the positive and the four hard negatives are judged 1', () => {
  const hn = ['t_noise1', 't_noise2', 't_noise3', 't_noise4'];
  assert.deepEqual(labels(createCode2TextQrels('q', 't', hn)), ['t:2', 't_noise1:1', 't_noise2:1', 't_noise3:1', 't_noise4:1']);
  // a negative match pair has no positive at all
  assert.deepEqual(
    labels(createCode2TextQrels('q', null, hn)),
    hn.map((h) => `${h}:1`),
  );
});
