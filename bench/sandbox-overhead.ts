/**
 * Sandbox cost, against a bare spawn as the reference:
 *   1. overhead per process: median wall time of `true` and `python3 -c pass`, bare `spawn` vs the
 *      full sandbox (uid drop + bwrap + coreb-run) - target <= 8 ms on a quiet machine;
 *   2. sandboxed Python runs per second at full parallelism (target >= 100 on 2 cores);
 *   3. compile counts: judging N programs x M tests compiles exactly N times.
 * Usage: node dist/bench/sandbox-overhead.js [--runs 200] [--jobs N] [--cache-dir DIR]
 */
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecLanguage, TestCase } from '../src/core/execution.js';
import { buildRunHelper } from '../src/sandbox/run-helper.js';
import { createLocalJudge } from '../src/sandbox/local-judge.js';
import { findTool } from '../src/sandbox/languages/tools.js';
import { runProcess, type ProcessLimits, type SandboxConfig } from '../src/sandbox/sandbox.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'sandbox-overhead',
  about: `sandbox cost against a bare spawn as the reference: overhead per process (median wall time of
true and python3 -c pass, bare spawn vs the full sandbox; target <= 8 ms on a quiet machine),
sandboxed Python runs per second at full parallelism (target >= 100 on 2 cores), and compile counts
(judging N programs x M tests compiles exactly N times).`,
  options: [
    { name: 'runs', value: 'N', help: 'processes timed per command (default 200)' },
    { name: 'jobs', value: 'N', help: 'sandboxed runs at once (default: available parallelism)' },
    { name: 'cache-dir', value: 'DIR', help: 'compile cache of the judge (default $TMPDIR/coreb-judge)' },
  ],
});
const values = { runs: args.get('runs') ?? '200', jobs: args.get('jobs'), 'cache-dir': args.get('cache-dir') };
const runs = Number(values.runs);
const jobs = Number(values.jobs ?? availableParallelism());
const cacheDir = values['cache-dir'] ?? join(tmpdir(), 'coreb-judge');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function bare(argv: string[]): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const c = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    c.stdin.end();
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', reject);
    c.on('close', () => resolve(performance.now() - t0));
  });
}

const limits: ProcessLimits = {
  wallMs: 10000,
  cpuS: 10,
  addressSpaceMb: 1024,
  processes: 64,
  fileSizeMb: 64,
  openFiles: 256,
  stackMb: 256,
  workDirMb: 64,
  stdoutBytes: 1 << 20,
  stderrBytes: 1 << 16,
};
const isRoot = process.getuid?.() === 0;
const config: SandboxConfig = {
  enabled: true,
  helperPath: buildRunHelper(cacheDir),
  bwrapPath: findTool('bwrap') ?? '/usr/bin/bwrap',
  dropPrivileges: isRoot,
  uid: isRoot ? 65534 : (process.getuid?.() ?? 65534),
};
async function boxed(argv: string[]): Promise<number> {
  const r = await runProcess(config, { argv, env: { PATH: '/usr/bin' }, stdin: '', mounts: [], limits });
  if (r.exitCode !== 0) throw new Error(`sandboxed ${argv.join(' ')} failed: ${r.stderr}`);
  return r.wallMs;
}

console.log(`sandbox-overhead: ${runs} runs each, load average ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores`);
const python = findTool('python3') ?? '/usr/bin/python3';
for (const argv of [['/usr/bin/true'], [python, '-c', 'pass']]) {
  const b: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < runs; i++) {
    b.push(await bare(argv));
    s.push(await boxed(argv));
  }
  const mb = median(b);
  const ms = median(s);
  console.log(
    `  ${argv.join(' ').padEnd(24)} bare median ${mb.toFixed(2)} ms, sandboxed ${ms.toFixed(2)} ms: overhead ${(ms - mb).toFixed(2)} ms/process (x${(ms / mb).toFixed(2)}; target <= 8 ms)`,
  );
}

const judge = await createLocalJudge({ cacheDir, jobs });
const tests: TestCase[] = Array.from({ length: runs }, (_, i) => ({ kind: 'stdin', input: `${i} ${i}\n`, outputs: [`${2 * i}\n`] }));
const t0 = performance.now();
const r = await judge.judge({ id: 'rate', problemId: 'rate', language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' }, tests);
const secs = (performance.now() - t0) / 1000;
console.log(
  `  sandboxed python runs/s at ${jobs} jobs: ${(runs / secs).toFixed(1)} (${runs} runs in ${secs.toFixed(2)} s, ${r.testsPassed}/${r.testsTotal} accepted; target >= 100 on 2 cores)`,
);

const programs = 4;
const perProgram = 5;
const codes: Record<ExecLanguage, string> = {
  cpp: 'int main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}',
  go: 'package main\nimport "fmt"\nfunc main(){var a,b int;fmt.Scan(&a,&b);fmt.Println(a+b)}',
  java: 'import java.util.*;\npublic class Main{public static void main(String[] x){Scanner s=new Scanner(System.in);System.out.println(s.nextLong()+s.nextLong());}}',
  python: '',
  ruby: '',
};
for (const language of ['cpp', 'go', 'java'] as const) {
  const before = judge.stats();
  const t1 = performance.now();
  const res = await Promise.all(
    Array.from({ length: programs }, (_, i) =>
      judge.judge({ id: `${language}-${i}`, problemId: 'sum', language, code: codes[language] + `\n// variant ${i}\n` }, tests.slice(0, perProgram)),
    ),
  );
  const after = judge.stats();
  const ok = res.every((x) => x.passed);
  console.log(
    `  ${language.padEnd(4)} ${programs} programs x ${perProgram} tests: ${after.compiles - before.compiles} compiles, ${after.runs - before.runs} runs` +
      ` (expected ${programs} and ${programs * perProgram}); median compile ${median(res.map((x) => x.compileMs))} ms; all accepted: ${ok}` +
      ` (${((performance.now() - t1) / 1000).toFixed(1)} s)`,
  );
}
