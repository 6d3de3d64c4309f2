import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choose, hash32 } from './seeded-choice.js';

test('hash32 is 32-bit FNV-1a (reference values for ASCII)', () => {
  assert.equal(hash32(''), 0x811c9dc5);
  assert.equal(hash32('a'), 0xe40c292c);
  assert.equal(hash32('foobar'), 0xbf9cf968);
});

test('choose is deterministic, in range, and depends on seed and label only', () => {
  const picks = Array.from({ length: 200 }, (_, i) => choose(2602, `c2t:cm_${i}:python`, 7));
  assert.ok(picks.every((x) => Number.isInteger(x) && x >= 0 && x < 7));
  assert.deepEqual(
    picks,
    Array.from({ length: 200 }, (_, i) => choose(2602, `c2t:cm_${i}:python`, 7)),
  );
  assert.equal(new Set(picks).size, 7, 'every index is reachable');
  assert.notDeepEqual(
    picks,
    Array.from({ length: 200 }, (_, i) => choose(2603, `c2t:cm_${i}:python`, 7)),
    'the seed matters',
  );
  assert.equal(choose(1, 'x', 1), 0);
});
