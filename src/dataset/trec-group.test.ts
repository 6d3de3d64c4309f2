import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import { IdTable } from './id-table.js';
import { compareDocAt, docAt, groupByQuery, lineOfEntry, planGroups } from './trec-group.js';
import { scanQrels, scanRun, withFinalNewline } from './trec-scan.js';

test('planGroups: contiguous queries need no permutation; scattered ones keep file order per query', () => {
  const text = withFinalNewline(Buffer.from('a Q0 x 1 1 t\na Q0 y 2 1 t\nb Q0 x 1 1 t\n'));
  const contiguous = planGroups(scanRun(text, 'r', new IdTable(), false));
  assert.deepEqual([...contiguous.offsets], [0, 2, 3]);
  assert.equal(contiguous.perm, undefined);
  const scattered = scanRun(withFinalNewline(Buffer.from('a Q0 x 1 1 t\nb Q0 x 1 1 t\na Q0 y 2 1 t\nb Q0 z 2 1 t\na Q0 z 3 1 t\n')), 'r', new IdTable(), false);
  const plan = planGroups(scattered);
  assert.deepEqual([...plan.offsets], [0, 3, 5]);
  assert.deepEqual([...(plan.perm ?? [])], [0, 2, 4, 1, 3]);
});

test('groupByQuery reorders docs and numbers and names both lines of a duplicate', () => {
  const docs = new IdTable();
  const buf = Buffer.from('a 0 x 2\nb 0 x 1\n\na 0 y 0\n');
  const g = groupByQuery(scanQrels(buf, 'q', docs), docs, 'q', 'qrels line', buf);
  assert.deepEqual([...g.offsets], [0, 2, 3]);
  assert.deepEqual([...g.docs].map((d) => docs.strings[d]), ['x', 'y', 'x']);
  assert.deepEqual([...g.nums], [2, 0, 1]);
  const dup = Buffer.from('a 0 x 2\nb 0 x 1\n\na 0 x 0\n');
  const d2 = new IdTable();
  assert.throws(
    () => groupByQuery(scanQrels(dup, 'q.txt', d2), d2, 'q.txt', 'qrels line', dup),
    (e) => isCorebError(e, 'VALIDATION') && e.message.startsWith('q.txt:4: duplicate qrels line for query `a` and document `x` (first on line 1)'),
  );
  assert.equal(lineOfEntry(dup, 2), 4, 'blank lines count as lines, not entries');
});

test('compareDocAt is strcmp of the docids at two offsets; docAt decodes one', () => {
  const buf = Buffer.from('ab abc b \u00e9 a\n');
  assert.ok(compareDocAt(buf, 0, 3) < 0, 'a prefix sorts first');
  assert.ok(compareDocAt(buf, 7, 12) > 0, 'b > a');
  assert.ok(compareDocAt(buf, 12, 7) < 0);
  assert.ok(compareDocAt(buf, 9, 7) > 0, 'UTF-8 bytes of é (0xc3) sort after ASCII');
  assert.equal(compareDocAt(buf, 0, 0), 0);
  assert.equal(docAt(buf, 9), '\u00e9');
  assert.equal(docAt(buf, 3), 'abc');
});
