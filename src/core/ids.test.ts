import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codePointOrder, codePointRanks, compareCodePoints, firstDuplicate, indexInOrder, Interner } from './ids.js';

test('compareCodePoints orders like strcmp on UTF-8 bytes, including astral vs BMP private use', () => {
  assert.ok(compareCodePoints('d1', 'd10') < 0, 'a proper prefix is smaller');
  assert.ok(compareCodePoints('_x', 'a') < 0 && compareCodePoints('Z', '_x') < 0);
  // U+1F600 (surrogate pair) is above U+FF21 in code point order, below it in UTF-16 units.
  assert.ok('\u{1F600}' < '\uFF21', 'JS string order disagrees here');
  assert.ok(compareCodePoints('\u{1F600}', '\uFF21') > 0);
  assert.ok(compareCodePoints('\u{1F600}', '\uE000') > 0);
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  const words = ['d10', 'd9', 'd1', 'd100', 'D9', 'Z', '_x', 'a', '09', '\u{1F600}', '\uFF21', 'é'];
  const byBytes = [...words].sort((a, b) => Buffer.compare(bytes(a), bytes(b)));
  assert.deepEqual([...words].sort(compareCodePoints), byBytes);
});

test('codePointRanks gives rank 0 to the smallest string', () => {
  assert.deepEqual([...codePointRanks(['b', 'a', 'c'])], [1, 0, 2]);
});

test('Interner assigns dense ids in first-seen order', () => {
  const it = new Interner();
  assert.equal(it.intern('x'), 0);
  assert.equal(it.intern('y'), 1);
  assert.equal(it.intern('x'), 0);
  assert.equal(it.get('z'), -1);
  assert.deepEqual(it.strings, ['x', 'y']);
});

test('codePointRanks orders like UTF-8 bytes with and without astral ids, duplicates in input order', () => {
  const byBytes = (ids: string[]) => {
    const order = Array.from(ids.keys()).sort((i, j) => Buffer.compare(Buffer.from(ids[i]), Buffer.from(ids[j])) || i - j);
    const ranks = new Array<number>(ids.length);
    order.forEach((i, r) => (ranks[i] = r));
    return ranks;
  };
  const plain = ['d10', 'd9', 'd1', 'd100', 'D9', 'Z', '_x', 'a', '09', '\uFF21', 'é', '\uE000'];
  assert.deepEqual([...codePointRanks(plain)], byBytes(plain));
  const astral = [...plain, '\u{1F600}', 'x\u{10000}'];
  assert.deepEqual([...codePointRanks(astral)], byBytes(astral));
  const dup = ['b', 'a', 'b', 'c', 'a'];
  assert.deepEqual([...codePointRanks(dup)], byBytes(dup));
});

test('codePointOrder: the radix order equals a code-point comparison sort (astral, U+E000..U+FFFF, prefixes, duplicates, a million-scale shape)', () => {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const alphabet = ['a', 'b', 'z', '0', '9', '_', 'é', '\uE000', '\uFFFD', '😀', '𝔸', '\uD7FF', ' '];
  for (const size of [0, 1, 2, 47, 48, 49, 500, 5000]) {
    const strings: string[] = [];
    for (let i = 0; i < size; i++) {
      // Shared prefixes make deep buckets; a tenth are repeats of an earlier string.
      if (i > 0 && rand(10) === 0) strings.push(strings[rand(i)]);
      else {
        let s = rand(3) === 0 ? 'doc_000' : '';
        const len = rand(6);
        for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
        strings.push(s);
      }
    }
    const expected = Array.from(strings.keys()).sort((i, j) => compareCodePoints(strings[i], strings[j]) || i - j);
    assert.deepEqual(Array.from(codePointOrder(strings)), expected, `size ${size}`);
    const ranks = codePointRanks(strings);
    expected.forEach((i, r) => assert.equal(ranks[i], r));
    const dup = firstDuplicate(strings, codePointOrder(strings));
    const seen = new Map<string, number>();
    let want: [number, number] | undefined;
    strings.forEach((s, i) => {
      const f = seen.get(s);
      if (f !== undefined && want === undefined) want = [f, i];
      if (f === undefined) seen.set(s, i);
    });
    if (want === undefined) assert.equal(dup, undefined);
    else assert.equal(dup?.[1], want[1], 'the second occurrence found first in input order');
  }
});

test('indexInOrder finds every id by binary search over the code-point order, the first of equal ids, and -1 for an absent one', () => {
  const ids = ['b', 'a', '\u{1F600}x', '\uE000', 'ab', '', 'a', 'doc10', 'doc9', 'doc1'];
  const order = codePointOrder(ids);
  for (let i = 0; i < ids.length; i++) assert.equal(indexInOrder(ids, order, ids[i]), ids.indexOf(ids[i]), ids[i]);
  for (const missing of ['c', 'aa', '\u{1F600}', '\uE001', 'doc', 'doc100', ' ']) assert.equal(indexInOrder(ids, order, missing), -1, missing);
  assert.equal(indexInOrder([], new Int32Array(0), 'a'), -1);
  const many = Array.from({ length: 5000 }, (_, i) => `d${(i * 7919) % 5000}`);
  const manyOrder = codePointOrder(many);
  for (let i = 0; i < many.length; i += 37) assert.equal(indexInOrder(many, manyOrder, many[i]), i);
});
