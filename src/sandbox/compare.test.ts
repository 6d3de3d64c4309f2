import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalDecimal, compareAny, compareOutput, jsonEqual } from './compare.js';

test('exact: stripped lines, exact decimals (LiveCodeBench rule), no tolerance', () => {
  assert.equal(compareOutput('exact', '3\n', '3').ok, true);
  assert.equal(compareOutput('exact', '  1 2  \n3\n\n', '1 2\n3').ok, true);
  assert.equal(compareOutput('exact', '1.50\n', '1.5\n').ok, true);
  assert.equal(compareOutput('exact', '2.0 -0\n', '2 0\n').ok, true);
  assert.equal(compareOutput('exact', '0.3333333\n', '0.33333333\n').ok, false);
  assert.equal(compareOutput('exact', '1  2\n', '1 2\n').ok, true, 'whitespace inside a numeric line');
  assert.equal(compareOutput('exact', 'Yes\n', 'yes\n').ok, false);
  assert.equal(compareOutput('exact', '1\n2\n', '1 2\n').ok, false);
  assert.match(compareOutput('exact', '1\n2\n', '1\n3\n').detail ?? '', /line 2/);
});

test('canonicalDecimal makes equal decimals equal and rejects non-numbers', () => {
  assert.equal(canonicalDecimal('100'), canonicalDecimal('1e2'));
  assert.equal(canonicalDecimal('0.50'), canonicalDecimal('.5'));
  assert.equal(canonicalDecimal('-0.0'), canonicalDecimal('0'));
  assert.notEqual(canonicalDecimal('12'), canonicalDecimal('1.2'));
  assert.equal(canonicalDecimal('abc'), undefined);
  assert.equal(canonicalDecimal('.'), undefined);
});

test('tokens: whitespace-insensitive, numbers within 1e-6 absolute or relative', () => {
  assert.equal(compareOutput('tokens', '1 2\n3', '1\n2 3\n').ok, true);
  assert.equal(compareOutput('tokens', '0.3333333', '0.33333333').ok, true);
  assert.equal(compareOutput('tokens', '1000000.5', '1000000.0').ok, true, 'relative 5e-7');
  assert.equal(compareOutput('tokens', '0.001', '0.002').ok, false);
  assert.equal(compareOutput('tokens', '1.0', '1.0001', { tolerance: 1e-3 }).ok, true);
  assert.equal(compareOutput('tokens', 'Yes', 'YES').ok, false);
  assert.equal(compareOutput('tokens', '1 2', '1 2 3').ok, false);
});

test('tokens: an integer answer must be exact, even where a relative tolerance would accept it', () => {
  assert.equal(compareOutput('tokens', '7512862832', '7512862831').ok, false, 'off by one on a large count');
  assert.equal(compareOutput('tokens', '1000001', '1000000').ok, false);
  assert.equal(compareOutput('tokens', '007', '7').ok, true, 'same value');
  assert.equal(compareOutput('tokens', '7.0', '7').ok, true, 'same value written as a decimal');
  assert.equal(compareOutput('tokens', '7.0000001', '7').ok, false);
  assert.equal(compareOutput('tokens', '-0', '0').ok, true);
});

test('lines: right-stripped lines, trailing blank lines ignored, leading spaces kept', () => {
  assert.equal(compareOutput('lines', 'a b  \nc\n\n\n', 'a b\nc').ok, true);
  assert.equal(compareOutput('lines', ' a', 'a').ok, false);
  assert.equal(compareOutput('lines', 'a\n\nb', 'a\nb').ok, false);
});

test('several acceptable outputs: any one passes', () => {
  assert.equal(compareAny('tokens', '2 1', ['1 2', '2 1']).ok, true);
  assert.equal(compareAny('tokens', '3', ['1 2', '2 1']).ok, false);
});

test('jsonEqual: deep equality, tolerance only when asked', () => {
  assert.equal(jsonEqual([1, [2, { a: 3 }]], [1, [2, { a: 3 }]]), true);
  assert.equal(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
  assert.equal(jsonEqual([1, 2], [2, 1]), false);
  assert.equal(jsonEqual(0.1 + 0.2, 0.3), false);
  assert.equal(jsonEqual(0.1 + 0.2, 0.3, 1e-9), true);
  assert.equal(jsonEqual(true, 1), false);
  assert.equal(jsonEqual(null, {}), false);
});
