import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choose, hash32, sampleSeeded } from './seeded-choice.js';

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

test('sampleSeeded draws n distinct items, reproducibly, and keeps everything when n is not smaller', () => {
  const items = Array.from({ length: 30 }, (_, i) => `q${i}`);
  const a = sampleSeeded(items, 7, 42, 't2c_search_python');
  assert.equal(a.length, 7);
  assert.equal(new Set(a).size, 7);
  assert.ok(a.every((x) => items.includes(x)));
  assert.deepEqual(sampleSeeded(items, 7, 42, 't2c_search_python'), a);
  assert.notDeepEqual(sampleSeeded(items, 7, 42, 't2c_search_go'), a, 'the label matters');
  assert.notDeepEqual(sampleSeeded(items, 7, 43, 't2c_search_python'), a, 'the seed matters');
  assert.deepEqual(sampleSeeded(items, 30, 42, 'x'), items);
  assert.deepEqual(sampleSeeded(items, 99, 42, 'x'), items);
  assert.deepEqual(sampleSeeded(items, 0, 42, 'x'), []);
  // Every item is reachable as the first draw.
  const firsts = new Set(Array.from({ length: 400 }, (_, i) => sampleSeeded(items, 1, i, 'x')[0]));
  assert.equal(firsts.size, 30);
});
