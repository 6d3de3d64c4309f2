import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatFixed4 } from './trec-format.js';

test('exact ties at 4 decimals round half to even like glibc printf', () => {
  assert.equal(formatFixed4(0.03125), '0.0312'); // toFixed would give 0.0313
  assert.equal(formatFixed4(0.15625), '0.1562');
  assert.equal(formatFixed4(0.09375), '0.0938'); // 937.5 -> 938 (even)
  assert.equal(formatFixed4(0.96875), '0.9688');
});

test('other values are correctly rounded to 4 decimals', () => {
  assert.equal(formatFixed4(1), '1.0000');
  assert.equal(formatFixed4(0), '0.0000');
  assert.equal(formatFixed4(2 / 3), '0.6667');
  assert.equal(formatFixed4(0.00005), '0.0001'); // 0.00005 as a double is slightly above the tie
  assert.equal(formatFixed4(0.5), '0.5000');
});
