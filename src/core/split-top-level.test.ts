import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitTopLevel } from './split-top-level.js';

test('splitTopLevel: separators outside brackets and quotes only, empty parts kept', () => {
  assert.deepEqual(splitTopLevel('rrf:(a,b),c,,d'), ['rrf:(a,b)', 'c', '', 'd']);
  assert.deepEqual(splitTopLevel('Map<K, V> m, int[] n', { open: '<[({', close: '>])}' }), ['Map<K, V> m', ' int[] n']);
  assert.deepEqual(splitTopLevel("s = \"a,b\", t = [1,2]\nk = 'x\\',y'", { separators: ',\n', open: '[', close: ']', quotes: `"'` }), [
    's = "a,b"',
    ' t = [1,2]',
    "k = 'x\\',y'",
  ]);
});
