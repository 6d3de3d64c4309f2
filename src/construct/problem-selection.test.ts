import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { LcbProblem } from '../dataset/lcb.js';
import { tempDir } from '../../test/support/judge.js';
import { projectRoot } from '../../test/support/shared.js';
import { loadExcludedProblems, parseSelectionDate, sameStatement, selectProblems, statementFingerprint } from './problem-selection.js';

const STATEMENT =
  'Alice has N boxes. The i-th box holds A_i apples. Find the largest sum of K consecutive boxes.\n' +
  'Constraints: 1 <= K <= N <= 200000, 1 <= A_i <= 1000000000.\nSample Input 1\n5 2\n3 1 4 1 5\nSample Output 1\n6\nSample Input 2\n3 3\n10 20 30\nSample Output 2\n60';
/** The same problem rewritten: every entity renamed, the numbers kept. */
const REWRITE =
  'Marcus owns N crates. Crate i stores A_i oranges. Report the greatest total of K consecutive crates.\n' +
  'Constraints: 1 <= K <= N <= 200000, 1 <= A_i <= 1000000000.\nSample Input 1\n5 2\n3 1 4 1 5\nSample Output 1\n6\nSample Input 2\n3 3\n10 20 30\nSample Output 2\n60';
/** Another problem with the same wording and other numbers. */
const OTHER =
  'Alice has N boxes. The i-th box holds A_i apples. Find the largest sum of K consecutive boxes.\n' +
  'Constraints: 1 <= K <= N <= 50, 1 <= A_i <= 99.\nSample Input 1\n4 3\n7 7 8 2\nSample Output 1\n22\nSample Input 2\n2 1\n9 4\nSample Output 2\n9';

function problem(id: string, content: string, contestDate?: string): LcbProblem {
  return {
    questionId: id,
    title: id,
    content,
    platform: 'atcoder',
    publicTests: [],
    privateTests: [],
    metadata: {},
    ...(contestDate ? { contestDate } : {}),
  };
}

test('near-duplicate statements: a rewrite that keeps the numbers is the same problem; the same words with other numbers are not', () => {
  assert.ok(sameStatement(statementFingerprint(STATEMENT), statementFingerprint(REWRITE)));
  assert.ok(!sameStatement(statementFingerprint(STATEMENT), statementFingerprint(OTHER)));
  // Too few numbers to decide: never a near-duplicate.
  assert.ok(!sameStatement(statementFingerprint('Print 1 2.'), statementFingerprint('Print 1 2.')));
});

test('contest-date window: inclusive at both ends, whole days; a problem without a date is dropped when a window is asked', () => {
  const ps = [
    problem('a', 'x', '2025-01-03T00:00:00'),
    problem('b', 'x', '2025-01-31T23:00:00'),
    problem('c', 'x', '2025-02-01T00:00:00'),
    problem('d', 'x'),
  ];
  const { kept, dropped } = selectProblems(ps, { from: '2025-01-03', to: '2025-01-31' });
  assert.deepEqual(
    kept.map((p) => p.questionId),
    ['a', 'b'],
  );
  assert.deepEqual(dropped, [
    { id: 'lcb_c', reason: 'contest 2025-02-01 after --to 2025-01-31' },
    { id: 'lcb_d', reason: 'no contest_date (a date window was asked for)' },
  ]);
  assert.deepEqual(
    selectProblems(ps, {}).kept.map((p) => p.questionId),
    ['a', 'b', 'c', 'd'],
  );
  assert.equal(parseSelectionDate('--from', '2025-01-03T12:00:00Z'), '2025-01-03');
  assert.throws(() => parseSelectionDate('--to', 'soon'), /--to must be an ISO date/);
});

test('--exclude-release: problems a release holds go by id, a republished statement by near-duplicate, the rest stay', async () => {
  const dir = join(tempDir('coreb-selection-'), 'release');
  cpSync(join(projectRoot, 'data', 'coreb-mini', 'release'), dir, { recursive: true });
  const ex = await loadExcludedProblems([dir]);
  assert.equal(ex.sources[0].problems, 24);
  assert.equal(ex.sources[0].statements, 24);
  const [first] = [...ex.ids.keys()];
  const ps = [problem(first.replace(/^lcb_/, ''), 'anything'), problem('fresh_1', STATEMENT), problem('fresh_2', REWRITE)];
  const withTwin = { ...ex, statements: [...ex.statements, { id: 'lcb_old', dir: 'older', fingerprint: statementFingerprint(STATEMENT) }] };
  const { kept, dropped } = selectProblems(ps, { exclude: withTwin });
  assert.deepEqual(
    kept.map((p) => p.questionId),
    [],
  );
  assert.deepEqual(
    dropped.map((d) => d.reason),
    [`already in ${dir}`, 'near-duplicate statement of lcb_old in older', 'near-duplicate statement of lcb_old in older'],
  );
  assert.deepEqual(
    selectProblems([problem('fresh_3', OTHER)], { exclude: withTwin }).kept.map((p) => p.questionId),
    ['fresh_3'],
  );
});
