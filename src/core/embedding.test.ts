import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeMatrix, normalizeRows } from './embedding.js';

test('normalizeRows scales each row to unit length in place and keeps zero rows zero', () => {
  const data = Float32Array.from([3, 4, 0, 0, 0, -2]);
  normalizeRows(data, 2);
  assert.deepEqual([...data], [Math.fround(0.6), Math.fround(0.8), 0, 0, 0, -1]);
  const wide = Float32Array.from([1, 2, 2, 1e-3, 0, 0]);
  normalizeRows(wide, 3);
  assert.deepEqual([...wide], [Math.fround(1 / 3), Math.fround(2 / 3), Math.fround(2 / 3), 1, 0, 0]);
});

test('normalizeMatrix makes unit rows, keeps zero rows, and leaves its input untouched', () => {
  const m = { rows: 2, dim: 2, data: Float32Array.from([3, 4, 0, 0]) };
  const n = normalizeMatrix(m);
  assert.deepEqual([...n.data], [Math.fround(0.6), Math.fround(0.8), 0, 0]);
  assert.deepEqual([n.rows, n.dim], [2, 2]);
  assert.deepEqual([...m.data], [3, 4, 0, 0]);
});
