import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import { IdTable } from './id-table.js';
import { DuplicateEntry, EntryLines, groupByQuery, lineOfEntry, planGroups } from './trec-group.js';
import { DocBytes, scanQrels, scanRun, withFinalNewline } from './trec-scan.js';

test('planGroups: contiguous queries need no permutation; scattered ones keep file order per query', () => {
  const text = withFinalNewline(Buffer.from('a Q0 x 1 1 t\na Q0 y 2 1 t\nb Q0 x 1 1 t\n'));
  const contiguous = planGroups(scanRun(text, 'r', new IdTable(), false));
  assert.deepEqual([...contiguous.offsets], [0, 2, 3]);
  assert.equal(contiguous.perm, undefined);
  const scattered = scanRun(
    withFinalNewline(Buffer.from('a Q0 x 1 1 t\nb Q0 x 1 1 t\na Q0 y 2 1 t\nb Q0 z 2 1 t\na Q0 z 3 1 t\n')),
    'r',
    new IdTable(),
    false,
  );
  const plan = planGroups(scattered);
  assert.deepEqual([...plan.offsets], [0, 3, 5]);
  assert.deepEqual([...(plan.perm ?? [])], [0, 2, 4, 1, 3]);
});

test('groupByQuery reorders docs and numbers and names both lines of a duplicate', () => {
  const docs = new IdTable();
  const buf = Buffer.from('a 0 x 2\nb 0 x 1\n\na 0 y 0\n');
  const g = groupByQuery(scanQrels(buf, 'q', docs), docs, 'qrels line');
  assert.deepEqual([...g.offsets], [0, 2, 3]);
  assert.deepEqual(
    [...g.docs].map((d) => docs.strings[d]),
    ['x', 'y', 'x'],
  );
  assert.deepEqual([...g.nums], [2, 0, 1]);
  const dup = Buffer.from('a 0 x 2\nb 0 x 1\n\na 0 x 0\n');
  const d2 = new IdTable();
  assert.throws(
    () => groupByQuery(scanQrels(dup, 'q.txt', d2), d2, 'qrels line'),
    (e) => {
      if (!(e instanceof DuplicateEntry)) return false;
      const lines = new EntryLines([e.entry, e.firstEntry]);
      lines.scan(dup.subarray(0, 8));
      lines.scan(dup.subarray(8));
      const err = e.toError('q.txt', lines);
      return (
        isCorebError(err, 'VALIDATION') && err.message.startsWith('q.txt:4: duplicate qrels line for query `a` and document `x` (first on line 1)')
      );
    },
  );
  assert.equal(lineOfEntry(dup, 2), 4, 'blank lines count as lines, not entries');
});

test('DocBytes: strcmp of copied docids, hashes and decoding', () => {
  const pool = new DocBytes();
  const buf = Buffer.from('ab abc b \u00e9 a\n');
  const ab = pool.add(buf, 0, 2);
  const abc = pool.add(buf, 3, 6);
  const b = pool.add(buf, 7, 8);
  const e = pool.add(buf, 9, 11);
  const a = pool.add(buf, 12, 13);
  assert.ok(pool.compare(ab, abc) < 0, 'a prefix sorts first');
  assert.ok(pool.compare(b, a) > 0, 'b > a');
  assert.ok(pool.compare(a, b) < 0);
  assert.ok(pool.compare(e, b) > 0, 'UTF-8 bytes of \u00e9 (0xc3) sort after ASCII');
  assert.equal(pool.compare(ab, ab), 0);
  assert.equal(pool.toString(e), '\u00e9');
  assert.equal(pool.toString(abc), 'abc');
  assert.equal(pool.hash(abc), pool.hash(pool.add(Buffer.from('abc'), 0, 3)));
});
