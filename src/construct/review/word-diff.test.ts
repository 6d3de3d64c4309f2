/** Word diff: hand-checked edit scripts, spacing kept, both texts recoverable, the edit bound. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffWords, type DiffSegment } from './word-diff.js';

const side = (d: DiffSegment[], keep: 'del' | 'ins'): string =>
  d
    .filter((s) => s.op === 'eq' || s.op === keep)
    .map((s) => s.text)
    .join('')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');

test('a renamed entity is one deletion and one insertion between kept words', () => {
  const d = diffWords('Alice has N integers. Print their sum.', 'Marcus has N integers. Print their sum.');
  assert.deepEqual(d, [
    { op: 'del', text: 'Alice ' },
    { op: 'ins', text: 'Marcus ' },
    { op: 'eq', text: 'has N integers. Print their sum.' },
  ]);
});

test('insertions and deletions in the middle; equal texts are one eq run; empty sides', () => {
  assert.deepEqual(diffWords('a b c d', 'a x b d'), [
    { op: 'eq', text: 'a ' },
    { op: 'ins', text: 'x ' },
    { op: 'eq', text: 'b ' },
    { op: 'del', text: 'c ' },
    { op: 'eq', text: 'd' },
  ]);
  assert.deepEqual(diffWords('same  words\nhere', 'same words here'), [{ op: 'eq', text: 'same words here' }]);
  assert.deepEqual(diffWords('', 'new text'), [{ op: 'ins', text: 'new text' }]);
  assert.deepEqual(diffWords('old', ''), [{ op: 'del', text: 'old' }]);
});

test('the script is minimal (LCS length) and both texts are recoverable on random inputs', () => {
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const lcs = (x: string[], y: string[]): number => {
    const t = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
    for (let i = 1; i <= x.length; i++)
      for (let j = 1; j <= y.length; j++) t[i][j] = x[i - 1] === y[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
    return t[x.length][y.length];
  };
  for (let round = 0; round < 200; round++) {
    const x = Array.from({ length: rnd(15) }, () => 'abcde'[rnd(5)]);
    const y = Array.from({ length: rnd(15) }, () => 'abcde'[rnd(5)]);
    const d = diffWords(x.join(' '), y.join(' '));
    assert.equal(side(d, 'del'), x.join(' '));
    assert.equal(side(d, 'ins'), y.join(' '));
    const kept = d
      .filter((s) => s.op === 'eq')
      .map((s) => s.text.split(/\s+/).filter(Boolean).length)
      .reduce((p, q) => p + q, 0);
    assert.equal(kept, lcs(x, y), `${x.join('')} -> ${y.join('')}`);
  }
});

test('past maxEdits the middle is reported as replaced, prefix and suffix still kept', () => {
  const d = diffWords('start a b c d end', 'start w x y z end', { maxEdits: 3 });
  assert.deepEqual(d, [
    { op: 'eq', text: 'start ' },
    { op: 'del', text: 'a b c d ' },
    { op: 'ins', text: 'w x y z ' },
    { op: 'eq', text: 'end' },
  ]);
});
