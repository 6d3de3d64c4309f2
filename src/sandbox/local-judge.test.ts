/**
 * The local judge on real toolchains: the five languages, every verdict, compile-once, stop-early,
 * `program` and `functional` tests. Skips (naming packages) without toolchains unless
 * COREB_REQUIRE_TOOLCHAINS=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExecLanguage, TestCase } from '../core/execution.js';
import { createTestJudge, toolchainSkipReason } from '../../test/support/judge.js';
import type { JudgeBackend } from './backend.js';

const ALL: ExecLanguage[] = ['python', 'cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(ALL);
const made = skip === undefined ? await createTestJudge({ timeLimitMs: 2000, wallTimeFactor: 2 }) : skip;
const judge: JudgeBackend | undefined = typeof made === 'string' ? undefined : made;
const skipReason = typeof made === 'string' ? made : false;

const SUM: TestCase[] = [
  { kind: 'stdin', input: '1 2\n', outputs: ['3\n'] },
  { kind: 'stdin', input: '40 2\n', outputs: ['42'] },
  { kind: 'stdin', input: '-5 5\n', outputs: ['0\n'] },
];

const SOLUTIONS: Record<ExecLanguage, string> = {
  python: 'a, b = map(int, input().split())\nprint(a + b)\n',
  cpp: 'using namespace std;\nint main() { long long a, b; cin >> a >> b; cout << a + b << endl; }\n',
  java: 'import java.util.*;\npublic class Adder {\n  static class Pair { }\n  public static void main(String[] x) { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); }\n}\n',
  go: 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }\n',
  ruby: 'a, b = gets.split.map(&:to_i)\nputs a + b\n',
};

test('all five languages compile once and pass every test', { skip: skipReason }, async () => {
  const before = judge!.stats();
  const results = await Promise.all(
    ALL.map((language) => judge!.judge({ id: language, problemId: 'sum', language, code: SOLUTIONS[language] }, SUM)),
  );
  for (const r of results) {
    assert.equal(r.verdict, 'accepted', `${r.language}: ${JSON.stringify(r)}`);
    assert.equal(r.passRate, 1);
    assert.equal(r.testsPassed, 3);
    assert.equal(r.tests.length, 3);
    assert.equal(r.sandboxed, true);
  }
  const after = judge!.stats();
  assert.equal(after.compiles - before.compiles, 3, 'one compile each for cpp, java, go');
  assert.equal(after.runs - before.runs, 15);
  assert.ok(results.find((r) => r.language === 'cpp')!.normalisations.some((n) => n.includes('bits/stdc++.h')));
  assert.ok(results.find((r) => r.language === 'java')!.normalisations.some((n) => n.includes('Adder.java')));
});

test('exact pass_rate counts every test; stop-early stops at the first failure', { skip: skipReason }, async () => {
  const code = 'a, b = map(int, input().split())\nprint(a + b if a != 40 else 0)\n';
  const r = await judge!.judge({ id: 'half', problemId: 'sum', language: 'python', code }, SUM);
  assert.equal(r.verdict, 'wrong_answer');
  assert.equal(r.testsPassed, 2);
  assert.equal(r.passRate, 2 / 3);
  assert.deepEqual(
    r.tests.map((t) => t.verdict),
    ['accepted', 'wrong_answer', 'accepted'],
  );
  const early = await createTestJudge({ stopEarly: true });
  assert.ok(typeof early !== 'string');
  const e = await early.judge({ id: 'half', problemId: 'sum', language: 'python', code }, SUM);
  assert.equal(e.tests.length, 2);
  assert.equal(e.testsTotal, 3);
  assert.equal(e.passRate, 1 / 3);
});

test('compile errors, runtime errors and the stray trailing main(); of CoREB C++ snippets', { skip: skipReason }, async () => {
  const stray = 'using namespace std;\nint main() { cout << 3 << endl; return 0; }\n\nmain();\n';
  const [ce, javaCe, re, rb] = await Promise.all([
    judge!.judge({ id: 'ce', problemId: 'sum', language: 'cpp', code: stray }, SUM),
    judge!.judge({ id: 'jce', problemId: 'sum', language: 'java', code: 'public class Main { int x = ; }' }, SUM),
    judge!.judge({ id: 're', problemId: 'sum', language: 'python', code: 'raise SystemExit(3)' }, SUM),
    judge!.judge({ id: 'rb', problemId: 'sum', language: 'ruby', code: 'def f(n) = f(n + 1)\nf(0)\n' }, SUM.slice(0, 1)),
  ]);
  assert.equal(ce.verdict, 'compile_error');
  assert.equal(ce.tests.length, 0);
  assert.equal(ce.passRate, 0);
  assert.match(ce.compileOutput ?? '', /main/);
  assert.equal(javaCe.verdict, 'compile_error');
  assert.equal(re.verdict, 'runtime_error');
  assert.equal(re.tests[0].exitCode, 3);
  assert.notEqual(rb.verdict, 'accepted');
});

test('program tests (HumanEval-X style): pass means exit 0, one build per test program', { skip: skipReason }, async () => {
  const tests: TestCase[] = [
    { kind: 'program', input: 'assert add(2, 3) == 5\n', outputs: [] },
    { kind: 'program', input: 'assert add(2, 2) == 5\n', outputs: [] },
  ];
  const r = await judge!.judge({ id: 'p', problemId: 'add', language: 'python', code: 'def add(a, b):\n    return a + b\n' }, tests);
  assert.deepEqual(
    r.tests.map((t) => t.verdict),
    ['accepted', 'runtime_error'],
  );
  const cpp = await judge!.judge(
    { id: 'pc', problemId: 'add', language: 'cpp', code: '#include <cassert>\nint add(int a, int b) { return a + b; }\n' },
    [{ kind: 'program', input: 'int main() { assert(add(2, 3) == 5); }\n', outputs: [] }],
  );
  assert.equal(cpp.verdict, 'accepted', JSON.stringify(cpp));
});

test('functional tests (LiveCodeBench LeetCode style) call Solution with JSON arguments', { skip: skipReason }, async () => {
  const code =
    'class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i\n';
  const tests: TestCase[] = [
    { kind: 'functional', input: '[2, 7, 11, 15]\n9', outputs: ['[0, 1]'], funcName: 'twoSum' },
    { kind: 'functional', input: '[3, 2, 4]\n6', outputs: ['[1, 2]'], funcName: 'twoSum' },
    { kind: 'functional', input: '[3, 3]\n6', outputs: ['[1, 0]'], funcName: 'twoSum' },
  ];
  const r = await judge!.judge({ id: 'f', problemId: 'two-sum', language: 'python', code }, tests);
  assert.deepEqual(
    r.tests.map((t) => t.verdict),
    ['accepted', 'accepted', 'wrong_answer'],
  );
  const java = await judge!.judge({ id: 'fj', problemId: 'two-sum', language: 'java', code: 'class Solution {}' }, tests);
  // other languages get a driver (functional.test.ts); a program without the method is a compile_error
  assert.equal(java.verdict, 'compile_error');
  assert.match(java.compileOutput ?? '', /defines no method of class Solution named twoSum/);
});

test('float output: tokens passes within 1e-6 where exact fails', { skip: skipReason }, async () => {
  const exact = await createTestJudge({ comparator: 'exact' });
  assert.ok(typeof exact !== 'string');
  const code = 'print(1/3)\n';
  const tests: TestCase[] = [{ kind: 'stdin', input: '', outputs: ['0.333333333'] }];
  const a = await judge!.judge({ id: 'fl', problemId: 'f', language: 'python', code }, tests);
  const b = await exact.judge({ id: 'fl', problemId: 'f', language: 'python', code }, tests);
  assert.equal(a.verdict, 'accepted');
  assert.equal(a.comparator, 'tokens');
  assert.equal(b.verdict, 'wrong_answer');
  assert.equal(b.comparator, 'exact');
});

test('limits are configurable: a 150 MB program passes at the default, fails at --memory-mb 64', { skip: skipReason }, async () => {
  const code = 'x = bytearray(150 * 1024 * 1024)\nprint(len(x) > 0)\n';
  const tests: TestCase[] = [{ kind: 'stdin', input: '', outputs: ['True'] }];
  const small = await createTestJudge({ memoryLimitMb: 64 });
  assert.ok(typeof small !== 'string');
  const a = await judge!.judge({ id: 'm', problemId: 'm', language: 'python', code }, tests);
  const b = await small.judge({ id: 'm', problemId: 'm', language: 'python', code }, tests);
  assert.equal(a.verdict, 'accepted', JSON.stringify(a.tests));
  assert.ok(a.maxMemoryKb > 150 * 1024, `peak ${a.maxMemoryKb} KiB`);
  assert.equal(b.verdict, 'memory_limit', JSON.stringify(b.tests));
  assert.equal((small.describe().limits as Record<string, { memoryLimitMb: number }>).python.memoryLimitMb, 64);
});

test('compiles count against jobs: with jobs 1 no compile overlaps a run (or another compile)', { skip: skipReason }, async () => {
  const programs = [1, 2, 3].map((k) => ({
    id: `j${k}`,
    problemId: 'sum',
    language: 'cpp' as const,
    code: `using namespace std;\nint main() { long long a, b; cin >> a >> b; cout << a + b + ${k} - ${k} << endl; }\n`,
  }));
  const peak = async (jobs: number): Promise<{ peak: number; compiles: number; runs: number }> => {
    const j = await createTestJudge({ jobs });
    assert.ok(typeof j !== 'string', String(j));
    const rs = await Promise.all([
      ...programs.map((p) => j.judge(p, SUM)),
      j.judge({ id: 'jg', problemId: 'sum', language: 'go', code: SOLUTIONS.go }, SUM),
      j.judge({ id: 'jp', problemId: 'sum', language: 'python', code: SOLUTIONS.python }, SUM),
    ]);
    for (const r of rs) assert.equal(r.verdict, 'accepted', JSON.stringify(r));
    const s = j.stats();
    await j.close();
    return { peak: s.peakProcesses ?? -1, compiles: s.compiles, runs: s.runs };
  };
  const one = await peak(1);
  assert.deepEqual(one, { peak: 1, compiles: 4, runs: 15 });
  // the same work with 3 jobs overlaps (so the count above can fail)
  const three = await peak(3);
  assert.ok(three.peak > 1 && three.peak <= 3, JSON.stringify(three));
});

test('Java compiles in warm compiler JVMs give the verdicts and diagnostics of cold javac', { skip: skipReason }, async () => {
  const programs = [
    { id: 'ok', problemId: 'sum', language: 'java' as const, code: SOLUTIONS.java },
    { id: 'ce', problemId: 'sum', language: 'java' as const, code: 'public class Main { public static void main(String[] a) { int x = "s"; } }\n' },
    {
      id: 're',
      problemId: 'sum',
      language: 'java' as const,
      code: 'public class Main { public static void main(String[] a) { throw new RuntimeException("boom"); } }\n',
    },
    {
      id: 'wa',
      problemId: 'sum',
      language: 'java' as const,
      code: 'public class Main { public static void main(String[] a) { System.out.println(0); } }\n',
    },
  ];
  const cold = await createTestJudge({ timeLimitMs: 2000, warmJavac: false });
  assert.ok(typeof cold !== 'string');
  const coldResults = await Promise.all(programs.map((p) => cold.judge(p, SUM)));
  assert.equal(cold.stats().warmCompiles, undefined);
  await cold.close();
  const warmResults = await Promise.all(programs.map((p) => judge!.judge(p, SUM)));
  assert.deepEqual(
    warmResults.map((r) => [r.id, r.verdict, r.testsPassed]),
    coldResults.map((r) => [r.id, r.verdict, r.testsPassed]),
  );
  assert.deepEqual(
    warmResults.map((r) => r.verdict),
    ['accepted', 'compile_error', 'runtime_error', 'wrong_answer'],
  );
  assert.match(warmResults[1].compileOutput ?? '', /incompatible types/);
  assert.ok((judge!.stats().warmCompiles ?? 0) >= 4, `warm compiles ${judge!.stats().warmCompiles}`);
});

test("a sandboxed program's CPU time is charged to the process that judged it (its RUSAGE_CHILDREN)", { skip: skipReason }, async () => {
  // bubblewrap's outer process exits without waiting for the sandbox's first process; without the
  // helper reaping it, `time coreb exec` and a test runner's total left the program's CPU out.
  const childrenCpu = (): number => {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  };
  const burn = 'import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6:\n    pass\nprint(3)\n';
  const before = childrenCpu();
  const r = await judge!.judge({ id: 'burn', problemId: 'sum', language: 'python', code: burn }, SUM.slice(0, 1));
  assert.equal(r.verdict, 'accepted', JSON.stringify(r));
  const charged = childrenCpu() - before;
  assert.ok(charged >= 0.5, `children CPU grew by ${charged.toFixed(2)} s for a program that used ${r.tests[0]?.cpuMs} ms`);
});

test('a program stopped at the time limit is charged too: the helper stops the sandbox and reaps it, not killed with it', {
  skip: skipReason,
}, async () => {
  // The judge used to SIGKILL the helper's process group at the limit: the sandbox's processes then
  // died with nobody waiting for them in coreb's tree, and their ~2 s of CPU went uncounted.
  const childrenCpu = (): number => {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  };
  const before = childrenCpu();
  const r = await judge!.judge({ id: 'spin', problemId: 'sum', language: 'python', code: 'while True:\n    pass\n' }, SUM.slice(0, 1));
  assert.equal(r.verdict, 'time_limit', JSON.stringify(r));
  const charged = childrenCpu() - before;
  assert.ok(charged >= 1.5, `children CPU grew by ${charged.toFixed(2)} s for a program stopped after ${r.tests[0]?.cpuMs} ms of CPU`);
});
