import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FNV_OFFSET, FNV_PRIME, IdTable } from './id-table.js';

/** FNV-1a of `bytes[start, end)`, as the scanners compute it while tokenising. */
function fnv(bytes: Buffer, start = 0, end = bytes.length): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h;
}

test('FNV-1a constants give the reference 32-bit hashes', () => {
  // Reference values of FNV-1a 32 (offset 2166136261, prime 16777619).
  assert.equal(fnv(Buffer.from('')) >>> 0, 0x811c9dc5);
  assert.equal(fnv(Buffer.from('a')) >>> 0, 0xe40c292c);
  assert.equal(fnv(Buffer.from('foobar')) >>> 0, 0xbf9cf968);
});

test('byte interning: first-seen ids, slices of a larger buffer, strings decoded once', () => {
  const t = new IdTable();
  const buf = Buffer.from('q1 d\u00e9 q1 d2 d\u00e9');
  assert.equal(t.internBytes(buf, 0, 2), 0);
  assert.equal(t.internBytes(buf, 3, 6), 1);
  assert.equal(t.internBytes(buf, 7, 9), 0);
  assert.equal(t.internHashed(buf, 10, 12, fnv(buf, 10, 12)), 2);
  assert.equal(t.internBytes(buf, 13, buf.length), 1);
  assert.deepEqual(t.strings, ['q1', 'd\u00e9', 'd2']);
  assert.equal(t.size, 3);
  assert.equal(t.hashOf(2), fnv(Buffer.from('d2')));
  assert.ok(t.equalsBytes(1, buf, 3, 6));
  assert.ok(!t.equalsBytes(1, buf, 10, 12));
});

test('lookupHashed finds interned ids and never adds one; get and intern agree with the bytes', () => {
  const t = new IdTable();
  for (let i = 0; i < 5000; i++) t.intern(`doc${i}`);
  const probe = (s: string): number => {
    const b = Buffer.from(s);
    return t.lookupHashed(b, 0, b.length, fnv(b));
  };
  assert.equal(probe('doc0'), 0);
  assert.equal(probe('doc4999'), 4999);
  assert.equal(probe('doc5000'), -1);
  assert.equal(probe(''), -1);
  assert.equal(t.size, 5000);
  t.intern('doc5000');
  assert.equal(probe('doc5000'), 5000, 'the absent-id filter is rebuilt after growth');
  assert.equal(t.get('doc123'), 123);
  assert.equal(t.get('nope'), -1);
});
