import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closestName, editDistance } from './suggest.js';

test('editDistance counts inserts, deletes and substitutions', () => {
  assert.equal(editDistance('format', 'format'), 0);
  assert.equal(editDistance('formt', 'format'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
});

test('closestName suggests typos, not unrelated words', () => {
  const opts = ['format', 'layout', 'input', 'split', 'retriever', 'overwrite'];
  assert.equal(closestName('formt', opts), 'format');
  assert.equal(closestName('retreiver', opts), 'retriever');
  assert.equal(closestName('over', opts), 'overwrite');
  assert.equal(closestName('zzzzzzzz', opts), undefined);
});
