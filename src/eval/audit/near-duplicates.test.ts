import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findExactDuplicates, findNearDuplicates, jaccardSorted, minHashSignature, normalizeWhitespace, shingleHashes } from './near-duplicates.js';

test('exact duplicates compare whitespace-normalised text; empty texts are not duplicates', () => {
  assert.equal(normalizeWhitespace('  a\n\tb  c '), 'a b c');
  assert.deepEqual(findExactDuplicates(['x = 1\ny = 2', 'x = 1 y = 2', 'z', '  x  =  1\n\ny = 2 ', '', ' ']), [[0, 1, 3]]);
});

test('shingles and exact Jaccard', () => {
  assert.equal(shingleHashes('a b c d e f', 5).length, 2);
  assert.equal(shingleHashes('A b', 5).length, 1);
  assert.equal(shingleHashes('', 5).length, 0);
  const a = shingleHashes('one two three four five six seven', 5); // 3 shingles
  const b = shingleHashes('one two three four five six eight', 5); // shares 2 of them
  assert.equal(jaccardSorted(a, b), 2 / 4);
});

test('MinHash agreement estimates Jaccard', () => {
  const words = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const a = shingleHashes(words.join(' '), 1);
  const b = shingleHashes(
    words
      .slice(100)
      .concat(Array.from({ length: 100 }, (_, i) => `v${i}`))
      .join(' '),
    1,
  ); // J = 300/500
  const sa = minHashSignature(a, 400);
  const sb = minHashSignature(b, 400);
  let eq = 0;
  for (let i = 0; i < 400; i++) if (sa[i] === sb[i]) eq++;
  assert.ok(Math.abs(eq / 400 - 0.6) < 0.08, `estimate ${eq / 400}`);
});

test('LSH finds every pair at or above the threshold that brute force finds, and nothing below', () => {
  const base = Array.from({ length: 120 }, (_, i) => `tok${(i * 7919) % 503}`);
  const texts: string[] = [];
  for (let v = 0; v < 30; v++) {
    const t = [...base];
    for (let e = 0; e < v % 10; e++) t[(v * 13 + e * 29) % t.length] = `edit${v}_${e}`; // 0-9 edits
    texts.push(t.join(' '));
  }
  texts.push(base.join('\n')); // whitespace-only variant of text 0: exact, not near
  texts.push(Array.from({ length: 120 }, (_, i) => `other${i}`).join(' '));
  const sh = texts.map((t) => shingleHashes(t, 5));
  const brute = new Set<string>();
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      if (normalizeWhitespace(texts[i]) !== normalizeWhitespace(texts[j]) && jaccardSorted(sh[i], sh[j]) >= 0.8) brute.add(`${i},${j}`);
    }
  }
  const found = findNearDuplicates(texts, { threshold: 0.8 });
  assert.ok(brute.size > 20, `fixture has near pairs (${brute.size})`);
  assert.deepEqual(new Set(found.map((p) => `${p.i},${p.j}`)), brute);
  for (const p of found) assert.ok(p.jaccard >= 0.8 && p.i < p.j);
  assert.ok(!found.some((p) => p.i === texts.length - 1 || p.j === texts.length - 1));
});
