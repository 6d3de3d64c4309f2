import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createColumns } from './columns.js';
import { evaluateColumns } from './evaluate.js';
import { parseMeasures } from './measures.js';
import { formatFixed4, renderTrec } from './trec-format.js';

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

test('the fast path agrees with correctly rounded toFixed on many values in [0, 1]', () => {
  // toFixed is exact (it rounds the exact binary value; ties cannot occur except at odd multiples of 1/32).
  for (let i = 0; i <= 200000; i++) {
    for (const x of [i / 200000, i / 199999, Math.fround(i / 77777) % 1, (i * 0.00005) % 1]) {
      if (Number.isInteger(x * 32) && (x * 32) % 2 !== 0) continue;
      assert.equal(formatFixed4(x), x.toFixed(4), String(x));
    }
  }
  assert.equal(formatFixed4(0.99995), (0.99995).toFixed(4));
  assert.equal(formatFixed4(1.5), '1.5000');
});

test("relstring: the first N labels as trec_eval prints them: digits, '>' above 9, '-' not judged, '.' a negative label; per query only", () => {
  const qrels = new Map([
    [
      'q1',
      new Map([
        ['a', 2],
        ['b', 12],
        ['c', -1],
        ['d', 0],
      ]),
    ],
  ]);
  const run = new Map([
    [
      'q1',
      new Map([
        ['a', 5],
        ['b', 4],
        ['x', 3],
        ['c', 2],
        ['d', 1],
      ]),
    ],
  ]);
  const cols = createColumns(qrels, run);
  const full = renderTrec(evaluateColumns(cols.qrels, cols.run, { specs: parseMeasures(['relstring', 'P.5']) }), { perQuery: true });
  assert.equal(full, "P_5                   \tq1\t0.4000\nrelstring             \tq1\t'2>-.0'\nP_5                   \tall\t0.4000\n");
  const three = renderTrec(evaluateColumns(cols.qrels, cols.run, { specs: parseMeasures(['relstring.3']) }), { perQuery: true });
  assert.equal(three, "relstring_3           \tq1\t'2>-'\n");
  assert.throws(() => parseMeasures(['relstring.3,5']), /relstring takes one length/);
  assert.ok(!parseMeasures(['all']).some((m) => m.family === 'relstring'), 'not a number: not in `all`');
});
