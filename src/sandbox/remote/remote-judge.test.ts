/**
 * The three remote judge backends (SandboxFusion, Judge0, Piston) through loopback servers speaking
 * their documented APIs and running the programs for real: every verdict of the judge's own tests in
 * the five languages, program tests with early exits, functional tests, the backend stamp on every
 * verdict, what cannot be honoured, retries, authentication, and service errors kept apart from
 * program failures. Needs the five toolchains (no sandbox): skips naming packages without them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExecLanguage, Program, TestCase } from '../../core/execution.js';
import { startJudge0, startPiston, startSandboxFusion, type LoopbackService } from '../../../test/support/judge-services.js';
import { toolchainSkipReason } from '../../../test/support/judge.js';
import type { JudgeBackend } from '../backend.js';
import { createJudge, parseJudgeSpec } from '../judge-spec.js';

const ALL: ExecLanguage[] = ['python', 'cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(ALL, false) ?? false;

const SUM: TestCase[] = [
  { kind: 'stdin', input: '1 2\n', outputs: ['3\n'] },
  { kind: 'stdin', input: '40 2\n', outputs: ['42'] },
];
const SOLUTIONS: Record<ExecLanguage, string> = {
  python: 'a, b = map(int, input().split())\nprint(a + b)\n',
  cpp: 'using namespace std;\nint main() { long long a, b; cin >> a >> b; cout << a + b << endl; }\n',
  java: 'import java.util.*;\npublic class Main {\n  public static void main(String[] x) { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); }\n}\n',
  go: 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }\n',
  ruby: 'a, b = gets.split.map(&:to_i)\nputs a + b\n',
};
const prog = (id: string, language: ExecLanguage, code: string): Program => ({ id, problemId: 'sum', language, code });
const PROGRAM_TEST: TestCase[] = [{ kind: 'program', input: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0\n', outputs: [] }];

/** The judge's verdict tests, run against one backend. */
function verdictSuite(kind: 'sandboxfusion' | 'judge0' | 'piston', start: () => Promise<LoopbackService>, env: Record<string, string> = {}): void {
  describe(`${kind} through its loopback server`, { skip }, () => {
    let svc: LoopbackService;
    let judge: JudgeBackend;
    before(async () => {
      svc = await start();
      // 3 s: Ruby starts in ~0.65 s of CPU alone, and four programs share two cores in the full suite (1 s flaked).
      judge = await createJudge(parseJudgeSpec(`${kind}:${svc.url}`), { env, remote: { jobs: 4, timeLimitMs: 3000, memoryLimitMb: 256 } });
    });
    after(async () => {
      await judge?.close();
      await svc?.close();
    });

    test('all five languages pass; every verdict carries the backend, its version and what it could not honour', async () => {
      const results = await Promise.all(ALL.map((l) => judge.judge(prog(`ok-${l}`, l, SOLUTIONS[l]), SUM)));
      for (const r of results) {
        assert.equal(r.verdict, 'accepted', `${r.language}: ${r.compileOutput ?? JSON.stringify(r.tests)}`);
        assert.equal(r.testsPassed, 2);
        assert.equal(r.backend?.name, kind);
        assert.ok((r.backend?.version ?? '') !== '', 'a version is recorded');
        assert.ok(r.backend?.runtime !== undefined, 'the runtime is recorded');
      }
      assert.ok(
        results.every((r) => (r.backend?.unhonoured.length ?? 0) > 0),
        'each service says what it does not enforce',
      );
      const d = judge.describe();
      assert.equal(d.backend, kind);
      assert.equal(d.url, svc.url);
    });

    test('wrong answer, runtime error, compile error, time and memory limits', async () => {
      const [wa, re, ce, tle, mle] = await Promise.all([
        judge.judge(prog('wa', 'python', 'a, b = map(int, input().split())\nprint(a - b)\n'), SUM),
        judge.judge(prog('re', 'python', 'raise SystemExit(3)\n'), SUM),
        judge.judge(prog('ce', 'cpp', 'int main() { return undefined_name; }\n'), SUM),
        // A program that never ends (sleeping, so the wait costs no CPU of the run's).
        judge.judge(prog('tle', 'python', 'import time\ntime.sleep(60)\n'), SUM.slice(0, 1)),
        judge.judge(prog('mle', 'python', 'x = bytearray(900 * 1024 * 1024)\nprint(len(x))\n'), SUM.slice(0, 1)),
      ]);
      assert.equal(wa.verdict, 'wrong_answer');
      assert.equal(re.verdict, 'runtime_error');
      assert.equal(re.tests[0].exitCode, 3);
      assert.equal(ce.verdict, 'compile_error');
      assert.match(ce.compileOutput ?? '', /undefined_name/);
      assert.equal(tle.verdict, 'time_limit');
      assert.equal(mle.verdict, 'memory_limit', JSON.stringify(mle.tests));
    });

    test('program tests: an early exit with status 0 is not a pass, the honest program is', async () => {
      const honest = await judge.judge(prog('h', 'python', 'def add(a, b):\n    return a + b\n'), PROGRAM_TEST);
      const exits = await judge.judge(prog('x', 'python', 'import os\nos._exit(0)\ndef add(a, b):\n    return 0\n'), PROGRAM_TEST);
      const cppExit = await judge.judge(
        prog('cx', 'cpp', '#include <cstdlib>\nstruct E { E() { std::_Exit(0); } } e;\nint add(int a, int b) { return 0; }\n'),
        [{ kind: 'program', input: '#include <cassert>\nint main() { assert(add(2, 3) == 5); return 0; }\n', outputs: [] }],
      );
      assert.equal(honest.verdict, 'accepted', JSON.stringify(honest.tests));
      assert.equal(exits.verdict, 'wrong_answer');
      assert.match(exits.tests[0].detail ?? '', /early exit/);
      assert.equal(cppExit.verdict, 'wrong_answer');
    });

    test('functional tests call Solution with JSON arguments', async () => {
      const r = await judge.judge(
        {
          id: 'f',
          problemId: 'two',
          language: 'python',
          code: 'class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i\n',
        },
        [{ kind: 'functional', input: '[2, 7, 11, 15]\n9', outputs: ['[0, 1]'], funcName: 'twoSum' }],
      );
      assert.equal(r.verdict, 'accepted', JSON.stringify(r));
    });
  });
}

verdictSuite('sandboxfusion', () => startSandboxFusion());
verdictSuite('judge0', () => startJudge0({ authToken: 'sekret-0' }), { COREB_JUDGE0_API_KEY: 'sekret-0' });
verdictSuite('piston', () => startPiston({ runTimeoutCapMs: 3000 }));

describe('service behaviour', { skip }, () => {
  test('SandboxFusion: 503s are retried with backoff; Java whose class is not Main is a judge error, not a program failure', async () => {
    const svc = await startSandboxFusion({ failFirst: 2 });
    try {
      const judge = await createJudge(parseJudgeSpec(`sandboxfusion:${svc.url}`), {});
      const r = await judge.judge(prog('p', 'python', SOLUTIONS.python), SUM.slice(0, 1));
      assert.equal(r.verdict, 'accepted');
      assert.equal(svc.requests.get('POST /run_code'), 3, 'two 503s, then the answer');
      const j = await judge.judge(prog('j', 'java', SOLUTIONS.java.replace('class Main', 'class Adder')), SUM.slice(0, 1));
      assert.equal(j.verdict, 'sandbox_error');
      assert.match(j.compileOutput ?? '', /Main\.java/);
    } finally {
      await svc.close();
    }
  });

  test('Judge0: the API key is sent as X-Auth-Token, never recorded; without it the judge is refused at start', async () => {
    const svc = await startJudge0({ authToken: 'sekret-0' });
    try {
      await assert.rejects(createJudge(parseJudgeSpec(`judge0:${svc.url}`), { env: {} }), /refused \(HTTP 401/);
      const judge = await createJudge(parseJudgeSpec(`judge0:${svc.url},key-env=MY_J0`), { env: { MY_J0: 'sekret-0' } });
      const r = await judge.judge(prog('p', 'cpp', SOLUTIONS.cpp), SUM);
      assert.equal(r.verdict, 'accepted');
      assert.ok(svc.headers.some((h) => h['x-auth-token'] === 'sekret-0'));
      assert.ok(!JSON.stringify([judge.describe(), r]).includes('sekret'), 'the key is in no description or verdict');
      assert.equal(svc.requests.get('POST /submissions/batch'), 1, 'both tests in one batch');
      assert.ok((svc.requests.get('GET /submissions/batch') ?? 0) >= 2, 'polled until done');
      assert.match(String(judge.describe().runtimes && (judge.describe().runtimes as Record<string, string>).cpp), /GCC 9\.2\.0/, 'the newest GCC');
    } finally {
      await svc.close();
    }
  });

  test('Piston: a run_timeout above the instance cap is clamped from its 400 message and recorded', async () => {
    const svc = await startPiston({ runTimeoutCapMs: 2500 });
    try {
      const judge = await createJudge(parseJudgeSpec(`piston:${svc.url}`), { remote: { timeLimitMs: 2000 } });
      const r = await judge.judge(prog('p', 'python', SOLUTIONS.python), SUM);
      assert.equal(r.verdict, 'accepted');
      assert.ok(
        r.backend?.unhonoured.some((u) => /run_timeout cap of 2500 ms/.test(u)),
        JSON.stringify(r.backend),
      );
      assert.equal(r.backend?.runtime, 'python 3.12.0', 'the newest python');
    } finally {
      await svc.close();
    }
  });

  test('an unreachable service is an HTTP error naming it; a wrong API root a SANDBOX error', async () => {
    await assert.rejects(
      createJudge(parseJudgeSpec('piston:http://127.0.0.1:9'), {}),
      (e: Error & { code?: string }) => e.code === 'HTTP' && /piston GET \/api\/v2\/runtimes failed/.test(e.message),
    );
    const svc = await startJudge0();
    try {
      await assert.rejects(createJudge(parseJudgeSpec(`sandboxfusion:${svc.url}`), {}), /sandboxfusion: unexpected answer/);
    } finally {
      await svc.close();
    }
  });
});

test('judge specs: kinds, key-env, and refusals', () => {
  assert.deepEqual(parseJudgeSpec('local'), { kind: 'local' });
  assert.deepEqual(parseJudgeSpec('judge0:https://judge0-ce.p.rapidapi.com,key-env=RAPID'), {
    kind: 'judge0',
    url: 'https://judge0-ce.p.rapidapi.com',
    keyEnv: 'RAPID',
  });
  assert.equal(parseJudgeSpec('piston:http://h:2000/').keyEnv, 'COREB_PISTON_API_KEY');
  assert.throws(() => parseJudgeSpec('remote:http://x'), /unknown judge `remote`/);
  assert.throws(() => parseJudgeSpec('judge0:nope'), /not a URL/);
  assert.throws(() => parseJudgeSpec('judge0:http://u:p@h'), /no credentials in the URL/);
  assert.throws(() => parseJudgeSpec('piston:http://h,keyenv=X'), /unknown option/);
});
