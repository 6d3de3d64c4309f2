import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Program, ProgramResult, TestCase } from '../core/execution.js';
import type { JudgeBackend } from './backend.js';
import { renderJudgeSummary, runJudging, type JudgeRecord } from './judge-run.js';

/** A backend that "passes" programs whose code is `ok` and counts calls. */
function fakeJudge(settings: Record<string, unknown> = { comparator: 'tokens', jobs: 2 }): JudgeBackend & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    describe: () => settings,
    async judge(p: Program, tests: readonly TestCase[]): Promise<ProgramResult> {
      calls.push(p.id);
      const ok = p.code === 'ok';
      return {
        id: p.id,
        problemId: p.problemId,
        language: p.language,
        verdict: ok ? 'accepted' : 'wrong_answer',
        passed: ok,
        passRate: ok ? 1 : 0,
        testsPassed: ok ? tests.length : 0,
        testsTotal: tests.length,
        tests: tests.map(() => ({ verdict: ok ? 'accepted' : 'wrong_answer', runMs: 1, cpuMs: 1, memoryKb: 10, exitCode: 0 })),
        compileMs: 0,
        maxRunMs: 1,
        maxMemoryKb: 10,
        normalisations: [],
        comparator: 'tokens',
        sandboxed: true,
      };
    },
    stats: () => ({ compiles: 0, runs: calls.length }),
    async close() {},
  };
}

const testsByProblem = new Map<string, TestCase[]>([
  [
    'abc1_a',
    [
      { kind: 'stdin', input: '1', outputs: ['1'] },
      { kind: 'stdin', input: '2', outputs: ['2'] },
    ],
  ],
  ['abc2_a', []],
]);
const testsOf = (problemId: string): readonly TestCase[] | undefined => testsByProblem.get(problemId);
const programs: Program[] = [
  { id: 'a', problemId: 'abc1_a', language: 'python', code: 'ok' },
  { id: 'b', problemId: 'abc1_a', language: 'cpp', code: 'bad' },
  { id: 'c', problemId: 'zzz_a', language: 'go', code: 'ok' },
];

test('writes one snake_case record per program; unknown problems and problems without tests are counted', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'coreb-jr-')), 'out.jsonl');
  const judge = fakeJudge();
  const s = await runJudging({
    judge,
    testsOf,
    programs: [...programs, { id: 'd', problemId: 'abc2_a', language: 'ruby', code: 'ok' }],
    outFile: out,
  });
  assert.equal(s.judged, 2);
  assert.equal(s.missingProblem, 1);
  assert.equal(s.noTests, 1);
  assert.deepEqual(judge.calls.sort(), ['a', 'b']);
  const recs = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as JudgeRecord);
  assert.deepEqual(recs.map((r) => [r.id, r.verdict, r.tests_total]).sort(), [
    ['a', 'accepted', 2],
    ['b', 'wrong_answer', 2],
  ]);
  for (const k of ['problem_id', 'pass_rate', 'tests_passed', 'compile_ms', 'max_run_ms', 'max_memory_kb', 'normalisations', 'key']) {
    assert.ok(k in recs[0], k);
  }
  const table = renderJudgeSummary(s);
  assert.match(table, /^language\s+accepted\s+wrong_answer\s+total\s+pass%/);
  assert.match(table, /\nall\s+1\s+1\s+2\s+50\.0\n/);
});

test('re-running skips programs judged with the same inputs and settings; changes are re-judged', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'coreb-jr-')), 'out.jsonl');
  await runJudging({ judge: fakeJudge(), testsOf, programs, outFile: out });
  const again = fakeJudge({ comparator: 'tokens', jobs: 8 });
  const s = await runJudging({ judge: again, testsOf, programs, outFile: out });
  assert.deepEqual(again.calls, [], '--jobs alone does not invalidate');
  assert.equal(s.resumed, 2);
  assert.equal(s.byLanguage.python.accepted, 1);
  const changed = fakeJudge({ comparator: 'exact', jobs: 2 });
  await runJudging({
    judge: changed,
    testsOf,
    programs: [
      { ...programs[0], code: 'ok' },
      { ...programs[1], code: 'ok' },
    ],
    outFile: out,
  });
  assert.deepEqual(changed.calls.sort(), ['a', 'b']);
  const edited = fakeJudge({ comparator: 'exact', jobs: 2 });
  await runJudging({
    judge: edited,
    testsOf,
    programs: [
      { ...programs[0], code: 'ok' },
      { ...programs[1], code: 'ok2' },
    ],
    outFile: out,
  });
  assert.deepEqual(edited.calls, ['b']);
});

test('a torn last line (killed run) is dropped and that program judged again', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'coreb-jr-')), 'out.jsonl');
  await runJudging({ judge: fakeJudge(), testsOf, programs: programs.slice(0, 1), outFile: out });
  appendFileSync(out, '{"id":"b","problem_id":"abc1_a","verd');
  const j = fakeJudge();
  const s = await runJudging({ judge: j, testsOf, programs, outFile: out });
  assert.deepEqual(j.calls, ['b']);
  assert.equal(s.resumed, 1);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  assert.equal(lines.length, 2);
  lines.forEach((l) => JSON.parse(l));
});

test('an aborted run throws INTERRUPTED and keeps only finished programs', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'coreb-jr-')), 'out.jsonl');
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(runJudging({ judge: fakeJudge(), testsOf, programs, outFile: out, signal: ac.signal }), { code: 'INTERRUPTED' });
  assert.equal(readFileSync(out, 'utf8'), '');
});

test('resume tolerates blank lines: a torn line after them is cut exactly, nothing is judged twice', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'coreb-jr-')), 'out.jsonl');
  const more: Program[] = [...programs, { id: 'e', problemId: 'abc1_a', language: 'python', code: 'ok' }];
  await runJudging({ judge: fakeJudge(), testsOf, programs: programs.slice(0, 1), outFile: out });
  // A blank line between records (an edited file), then a torn line from a killed run.
  appendFileSync(out, '\n');
  await runJudging({ judge: fakeJudge(), testsOf, programs: programs.slice(0, 2), outFile: out });
  appendFileSync(out, '   \n{"id":"e","problem_id":"abc1_a","verd');
  const j = fakeJudge();
  const s = await runJudging({ judge: j, testsOf, programs: more, outFile: out });
  assert.deepEqual(j.calls, ['e']);
  assert.equal(s.resumed, 2);
  const lines = readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as JudgeRecord).id),
    ['a', 'b', 'e'],
  );
  const third = fakeJudge();
  const again = await runJudging({ judge: third, testsOf, programs: more, outFile: out });
  assert.deepEqual(third.calls, []);
  assert.equal(again.resumed, 3);
});

test('two runs on one output: the second is refused while the first holds the lock; a stale lock is taken over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-jr-'));
  const out = join(dir, 'out.jsonl');
  const slow = fakeJudge();
  const inner = slow.judge.bind(slow);
  slow.judge = async (p, t) => {
    await new Promise((r) => setTimeout(r, 200));
    return inner(p, t);
  };
  const first = runJudging({ judge: slow, testsOf, programs, outFile: out });
  await new Promise((r) => setTimeout(r, 50));
  const second = fakeJudge();
  await assert.rejects(runJudging({ judge: second, testsOf, programs, outFile: out }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'IO');
    assert.match(e.message, /out\.jsonl.*another coreb exec \(pid \d+\) is writing it/);
    return true;
  });
  await first;
  assert.deepEqual(second.calls, []);
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 2, 'each program judged once');
  // A lock left by a killed run (its pid no longer exists) does not block the next run.
  writeFileSync(`${out}.lock`, '999999999\n');
  const third = fakeJudge();
  const s = await runJudging({ judge: third, testsOf, programs, outFile: out });
  assert.equal(s.resumed, 2);
  assert.equal(existsSync(`${out}.lock`), false, 'the lock is released');
});
