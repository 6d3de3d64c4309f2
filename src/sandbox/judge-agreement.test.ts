import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAgreement, renderAgreement } from './judge-agreement.js';

const judged = [
  { id: 'a', language: 'python', passed: true },
  { id: 'b', language: 'python', passed: false },
  { id: 'c', language: 'cpp', passed: true },
  { id: 'd', language: 'cpp', passed: false },
  { id: 'e', language: 'cpp', passed: true },
];
const reference = new Map([
  ['a', true],
  ['b', true],
  ['c', false],
  ['d', false],
]);

test('computeAgreement counts agreement and both kinds of disagreement per language, all last', () => {
  const rows = computeAgreement(judged, reference);
  assert.deepEqual(
    rows.map((r) => [r.language, r.n, r.agree, r.judgeOnly, r.referenceOnly, r.rate]),
    [
      ['cpp', 2, 1, 1, 0, 0.5],
      ['python', 2, 1, 0, 1, 0.5],
      ['all', 4, 2, 1, 1, 0.5],
    ],
  );
  assert.deepEqual(computeAgreement(judged, new Map()), [], 'programs without a reference label are left out');
});

test('renderAgreement puts one column group per reference, aligned, a missing language as -', () => {
  const table = renderAgreement({ x: computeAgreement(judged, reference), y: computeAgreement(judged.slice(0, 2), reference) });
  const lines = table.trimEnd().split('\n');
  assert.match(lines[0], /^language\s+n\s+agree x\s+judge\+ ref-\s+judge- ref\+\s+agree y\s+judge\+ ref-\s+judge- ref\+$/);
  assert.match(lines[1], /^-+( +-+)+$/, 'a rule under the header, as every coreb table has');
  assert.deepEqual(
    lines.slice(2).map((l) => l.split(/\s+/)),
    [
      ['cpp', '2', '50.0%', '1', '0', '-', '-', '-'],
      ['python', '2', '50.0%', '0', '1', '50.0%', '0', '1'],
      ['all', '4', '50.0%', '1', '1', '50.0%', '0', '1'],
    ],
  );
  assert.equal(new Set(lines.map((l) => l.length)).size, 1, 'every row has the same width');
});
