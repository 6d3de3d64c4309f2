import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discountTable, glibcLog2 } from './log2.js';

function ulpDistance(a: number, b: number): number {
  const v = new DataView(new ArrayBuffer(16));
  v.setFloat64(0, a);
  v.setFloat64(8, b);
  return Number(v.getBigUint64(0) - v.getBigUint64(8));
}

test('glibcLog2 equals Math.log2 below 1375 and differs by one ulp where V8 and glibc disagree', () => {
  for (let n = 1; n < 1375; n++) assert.equal(glibcLog2(n), Math.log2(n));
  assert.equal(Math.abs(ulpDistance(glibcLog2(1375), Math.log2(1375))), 1);
  assert.equal(Math.abs(ulpDistance(glibcLog2(1621), Math.log2(1621))), 1);
  // Exact powers of two stay exact.
  assert.equal(glibcLog2(1 << 20), 20);
});

test('the discount table holds log2(rank + 1) for 0-based ranks', () => {
  const d = discountTable(2000);
  assert.equal(d[0], 1);
  assert.equal(d[2], 2);
  assert.equal(d[1373], glibcLog2(1375));
});
