/**
 * `coreb exec` end to end: the built CLI judges authored fixtures (public JSON tests plus
 * LiveCodeBench-compressed private tests) in the sandbox, writes JSONL and a table, and resumes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { cliPath, runCli } from '../support/cli.js';
import { tempDir, testCacheDir, toolchainSkipReason } from '../support/judge.js';

const skip = toolchainSkipReason(['python', 'cpp']) ?? false;

/** LiveCodeBench's private-test encoding, built by hand: base64(zlib(pickle protocol 4 of a JSON str)). */
function lcbCompressed(tests: unknown): string {
  const body = Buffer.from(JSON.stringify(tests), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return deflateSync(Buffer.concat([Buffer.from([0x80, 4, 0x58]), len, body, Buffer.from([0x94, 0x2e])])).toString('base64');
}

function fixtures(): { dir: string; problems: string; candidates: string; out: string } {
  const dir = tempDir('coreb-e2e-exec-');
  const problems = join(dir, 'problems.jsonl');
  const candidates = join(dir, 'candidates.jsonl');
  const rows = [
    {
      question_id: 'abc900_a',
      question_title: 'Add',
      question_content: 'Print A+B.',
      platform: 'atcoder',
      public_test_cases: JSON.stringify([{ input: '1 2\n', output: '3\n', testtype: 'stdin' }]),
      private_test_cases: lcbCompressed([
        { input: '10 20\n', output: '30\n', testtype: 'stdin' },
        { input: '7 -7\n', output: '0\n', testtype: 'stdin' },
      ]),
      metadata: '{}',
    },
  ];
  writeFileSync(problems, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const progs = [
    { id: 'py-ok', problem_id: 'lcb_abc900_a', language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' },
    { id: 'py-wa', problem_id: 'abc900_a', language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b if b > 0 else 1)\n' },
    { id: 'cpp-ok', problem_id: 'lcb_abc900_a', language: 'cpp', code: 'using namespace std;\nint main(){long a,b;cin>>a>>b;cout<<a+b<<"\\n";}\n' },
    { id: 'cpp-ce', problem_id: 'lcb_abc900_a', language: 'cpp', code: 'int main(){return 0;}\n\nmain();\n' },
    { id: 'orphan', problem_id: 'lcb_abc999_z', language: 'python', code: 'print(1)' },
  ];
  writeFileSync(candidates, progs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { dir, problems, candidates, out: join(dir, 'out.jsonl') };
}

const env = { ...process.env, COREB_JUDGE_CACHE: testCacheDir };

test('coreb exec judges, writes the JSONL contract and a table, then resumes', { skip }, () => {
  const f = fixtures();
  const args = ['exec', '--problems', f.problems, '--candidates', f.candidates, '--out', f.out, '--jobs', '2'];
  const r = runCli(args, { env });
  assert.equal(r.status, 0, r.stderr);
  const recs = readFileSync(f.out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const byId = new Map(recs.map((x) => [x.id, x]));
  assert.equal(recs.length, 4);
  assert.equal(byId.get('py-ok')!.verdict, 'accepted');
  assert.equal(byId.get('py-ok')!.tests_total, 3, 'public + decoded private tests');
  assert.equal(byId.get('py-wa')!.verdict, 'wrong_answer');
  assert.equal(byId.get('py-wa')!.pass_rate, 2 / 3);
  assert.equal(byId.get('cpp-ok')!.verdict, 'accepted');
  assert.equal(byId.get('cpp-ce')!.verdict, 'compile_error');
  for (const k of [
    'id',
    'problem_id',
    'language',
    'verdict',
    'passed',
    'pass_rate',
    'tests_passed',
    'tests_total',
    'tests',
    'compile_ms',
    'max_run_ms',
    'max_memory_kb',
    'normalisations',
  ]) {
    assert.ok(k in recs[0], `field ${k}`);
  }
  assert.match(r.stdout, /language\s+accepted/);
  assert.match(r.stdout, /judged 4, resumed 0, no problem 1/);
  assert.match(r.stderr, /abc999_z/);

  const again = runCli(args, { env });
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /judged 0, resumed 4/);
  assert.equal(readFileSync(f.out, 'utf8').trim().split('\n').length, 4);

  const exact = runCli([...args, '--comparator', 'exact', '--tests', 'public'], { env });
  assert.equal(exact.status, 0, exact.stderr);
  assert.match(exact.stdout, /judged 4, resumed 0/);
});

test('coreb exec judges MBCPP-style program tests: an honest C++ program whose test main ends in return 0; passes, forged ones do not', {
  skip,
}, () => {
  const dir = tempDir('coreb-e2e-exec-program-');
  const problems = join(dir, 'problems.jsonl');
  const candidates = join(dir, 'candidates.jsonl');
  const out = join(dir, 'out.jsonl');
  // MBXP's C++ test programs (MBCPP) end their main with `return 0;`
  const testProgram = '#include <cassert>\nint main() {\n  assert(add(2, 3) == 5);\n  assert(add(-1, 1) == 0);\n  return 0;\n}\n';
  writeFileSync(
    problems,
    `${JSON.stringify({ question_id: 'mbcpp_1', question_title: 'Add', question_content: 'Add two integers.', platform: 'mbxp', public_test_cases: JSON.stringify([{ input: testProgram, output: '', testtype: 'program' }]), private_test_cases: '[]', metadata: '{}' })}\n`,
  );
  const progs = [
    { id: 'honest', problem_id: 'mbcpp_1', language: 'cpp', code: 'int add(int a, int b) { return a + b; }\n' },
    { id: 'wrong', problem_id: 'mbcpp_1', language: 'cpp', code: 'int add(int a, int b) { return a * b; }\n' },
    { id: 'ndebug', problem_id: 'mbcpp_1', language: 'cpp', code: '#define NDEBUG\nint add(int a, int b) { return 0; }\n' },
    {
      id: 'env-token',
      problem_id: 'mbcpp_1',
      language: 'cpp',
      code: '#include <cstdio>\n#include <cstdlib>\nstruct T { T() { const char* t = std::getenv("COREB_TESTS_DONE"); std::printf("\\n%s\\n", t ? t : ""); std::fflush(stdout); std::_Exit(0); } } t;\nint add(int a, int b) { return 0; }\n',
    },
  ];
  writeFileSync(candidates, progs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const r = runCli(['exec', '--problems', problems, '--candidates', candidates, '--out', out, '--jobs', '2'], { env });
  assert.equal(r.status, 0, r.stderr);
  const byId = new Map(
    readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; verdict: string; suspicions?: string[] })
      .map((x) => [x.id, x]),
  );
  assert.equal(byId.get('honest')?.verdict, 'accepted');
  assert.equal(byId.get('wrong')?.verdict, 'runtime_error');
  assert.equal(byId.get('ndebug')?.verdict, 'runtime_error');
  assert.equal(byId.get('env-token')?.verdict, 'wrong_answer');
  assert.ok(byId.get('env-token')?.suspicions?.includes('reads its environment'));
  assert.ok(byId.get('ndebug')?.suspicions?.some((s) => s.includes('NDEBUG')));
});

test('coreb exec --no-sandbox warns loudly and marks results', { skip: toolchainSkipReason(['python'], false) ?? false }, () => {
  const f = fixtures();
  const one = join(f.dir, 'one.jsonl');
  writeFileSync(one, readFileSync(f.candidates, 'utf8').split('\n')[0] + '\n');
  const r = runCli(['exec', '--problems', f.problems, '--candidates', one, '--out', f.out, '--no-sandbox'], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /WARNING: --no-sandbox/);
  assert.match(r.stderr, /DIRECTLY ON THIS MACHINE/);
  const rec = JSON.parse(readFileSync(f.out, 'utf8').trim()) as Record<string, unknown>;
  assert.equal(rec.sandboxed, false);
  assert.equal(rec.verdict, 'accepted');
});

test('coreb exec usage errors name the option and exit 2', () => {
  const r = runCli(['exec', '--problems', 'p.jsonl']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--candidates FILE is required/);
  const c = runCli(['exec', '--problems', 'p', '--candidates', 'c', '--out', 'o', '--comparator', 'fuzzy']);
  assert.equal(c.status, 2);
  assert.match(c.stderr, /--comparator must be one of exact, tokens, lines/);
});

function processesWith(marker: string): number {
  let n = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(marker)) n++;
    } catch {
      // ended while we looked
    }
  }
  return n;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  test(`${signal} stops coreb exec within 2 s (exit 130, no sandbox left running), finished programs kept`, { skip }, async () => {
    const f = fixtures();
    const marker = `7${process.pid}${Date.now() % 100000}`;
    const progs = [
      { id: 'fast', problem_id: 'abc900_a', language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' },
      ...Array.from({ length: 4 }, (_, i) => ({
        id: `slow${i}`,
        problem_id: 'abc900_a',
        language: 'python',
        code: `import os\nos.execv('/usr/bin/sleep', ['sleep', '${marker}${i}'])\n`,
      })),
    ];
    writeFileSync(f.candidates, progs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const args = [cliPath, 'exec', '--problems', f.problems, '--candidates', f.candidates, '--out', f.out, '--jobs', '2', '--timeout-ms', '60000'];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
    const deadline = Date.now() + 20000;
    const fastDone = (): boolean => {
      try {
        return readFileSync(f.out, 'utf8').includes('"id":"fast"');
      } catch {
        return false;
      }
    };
    while ((processesWith(marker) === 0 || !fastDone()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(processesWith(marker) > 0, 'slow programs never started');
    const sentAt = performance.now();
    child.kill(signal);
    const code = await exited;
    const exitMs = performance.now() - sentAt;
    assert.equal(code, 130, stderr);
    assert.ok(exitMs < 2000, `exited ${Math.round(exitMs)} ms after ${signal}`);
    assert.match(stderr, /interrupted|re-run/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(processesWith(marker), 0, 'sandboxed programs survived the interrupted judge');
    const lines = readFileSync(f.out, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    for (const l of lines) assert.equal((JSON.parse(l) as { verdict: string }).verdict === 'sandbox_error', false);
    assert.ok(
      lines.some((l) => (JSON.parse(l) as { id: string }).id === 'fast'),
      'finished programs are kept',
    );
  });

test('coreb exec --explain-limits names the tree-limit mechanism of this machine', () => {
  const r = runCli(['exec', '--explain-limits']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^tree limits: (cgroup2|cgroup1|proc)\n/);
  assert.match(r.stdout, /python\s+CPU 6000 ms \(whole tree\), memory 512 MiB/);
  assert.match(r.stdout, /\none-core hold: (cpu\.max|cpu\.cfs_quota_us|none) /);
  // /proc polling cannot hold a run to one core
  assert.match(runCli(['exec', '--explain-limits', '--tree-limits', 'proc']).stdout, /\none-core hold: none \(/);
  const off = runCli(['exec', '--explain-limits', '--tree-limits', 'off']);
  assert.match(off.stdout, /children and orphans escape/);
  const bad = runCli(['exec', '--explain-limits', '--tree-limits', 'cgroup3']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--tree-limits must be one of auto, cgroup2, cgroup1, proc, off/);
});
