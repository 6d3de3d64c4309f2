/**
 * Judge throughput on the CoREB v202602 AtCoder programs (1050 programs in five languages, LiveCodeBench
 * v5 public tests, compiles included), side by side in one run:
 *   plain    — a plain subprocess harness, no sandbox: `g++ -O2 -std=c++17`, `javac`, `go build`,
 *              then one process per test with a wall-clock timer (what a user writes first);
 *   cold     — coreb's local judge in bubblewrap with one javac process per Java program;
 *   coreb    — coreb's local judge as shipped (warm Java compilers, Go built without symbol tables).
 * Prints programs/s (wall clock), the machine's CPU time over each configuration (user + nice + sys
 * from /proc/stat; run it on an idle machine), and whether `cold` and `coreb` gave identical verdicts.
 * Each judge run writes a fresh verdicts file (no resume), every configuration starts from the same
 * warm caches (precompiled header, Go build cache) after a warm-up pass over 20 programs.
 * Usage: node dist/bench/sandbox-throughput.js [--shared DIR] [--limit N] [--jobs N] [--configs plain,cold,coreb]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Program, TestCase } from '../src/core/execution.js';
import { createLcbTestLookup, loadLcbProblems } from '../src/dataset/lcb.js';
import { compareAny } from '../src/sandbox/compare.js';
import { runJudging, type JudgeRecord } from '../src/sandbox/judge-run.js';
import { createLocalJudge } from '../src/sandbox/local-judge.js';
import { prepareSource } from '../src/sandbox/normalise.js';
import { loadAtcoderData } from '../test/support/exec-data.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'sandbox-throughput',
  about: `judges the v202602 AtCoder programs (five languages, compiles included) with a plain subprocess
harness, coreb's judge with cold javac, and coreb's judge as shipped; prints programs/s, CPU seconds
and whether the two coreb configurations gave identical verdicts.`,
  options: [
    { name: 'shared', value: 'DIR', help: 'the shared data directory (default ../shared from the working directory)' },
    { name: 'limit', value: 'N', help: 'programs (default all 1050)' },
    { name: 'jobs', value: 'N', help: 'processes at once (default: available parallelism)' },
    { name: 'configs', value: 'LIST', help: 'comma-separated subset of plain,cold,coreb (default all)' },
  ],
});
const shared = args.get('shared') ?? join(process.cwd(), '..', 'shared');
const jobs = Number(args.get('jobs') ?? availableParallelism());
const configs = (args.get('configs') ?? 'plain,cold,coreb').split(',');
const data = loadAtcoderData(join(shared, 'data/coreb/release_v2602/code_corpus.jsonl'), join(shared, 'data/coreb/xlang_release_v2602.json'));
const problems = await loadLcbProblems(join(shared, 'data/lcb_v5_problems.jsonl'));
const testsOf = createLcbTestLookup(problems, 'public');
const limit = Number(args.get('limit') ?? data.programs.length);
// interleave languages so every configuration sees the same mix at every moment
const programs = [...data.programs].sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, limit);
const TIME_LIMIT_MS = 2000;

/**
 * CPU seconds (user + nice + system) of the whole machine so far, from /proc/stat: sandboxed
 * processes are reaped inside their pid namespaces, so this process's children counters miss them.
 * Meaningful on an otherwise idle machine (the load average is printed).
 */
function cpuSeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2]) / 100;
}

function run(
  argv: string[],
  cwd: string,
  stdin: string,
  timeoutMs: number,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const p = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    let timedOut = false;
    p.stdout.on('data', (d: Buffer) => {
      if (stdout.length < 1 << 24) stdout += d.toString('utf8');
    });
    const t = setTimeout(() => {
      timedOut = true;
      p.kill('SIGKILL');
    }, timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, timedOut });
    });
    p.on('error', () => {});
    p.stdin.on('error', () => {});
    p.stdin.end(stdin);
  });
}

/** The plain harness: compile once, one process per test, pass = every output matches (tokens). */
async function plainJudge(program: Program, tests: readonly TestCase[], goCache: string): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-plain-'));
  try {
    const prepared = prepareSource(program.language, program.code, 'stdin');
    writeFileSync(join(dir, prepared.fileName), prepared.text);
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: dir,
      TMPDIR: dir,
      LANG: 'C.UTF-8',
      GOCACHE: goCache,
      GO111MODULE: 'off',
      CGO_ENABLED: '0',
      GOFLAGS: '-buildvcs=false',
    };
    let exec: string[];
    const compile = async (argv: string[]): Promise<boolean> => (await run(argv, dir, '', 60000, env)).code === 0;
    if (program.language === 'cpp') {
      if (!(await compile(['g++', '-O2', '-std=c++17', '-DONLINE_JUDGE', '-o', 'prog', prepared.fileName]))) return false;
      exec = ['./prog'];
    } else if (program.language === 'java') {
      if (!(await compile(['javac', '-encoding', 'UTF-8', '-nowarn', '-d', 'out', prepared.fileName]))) return false;
      exec = ['java', '-Xmx512m', '-Xss64m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', 'out', prepared.mainClass ?? 'Main'];
    } else if (program.language === 'go') {
      if (!(await compile(['go', 'build', '-o', 'prog', prepared.fileName]))) return false;
      exec = ['./prog'];
    } else exec = [program.language === 'python' ? 'python3' : 'ruby', prepared.fileName];
    for (const t of tests) {
      const r = await run(exec, dir, t.input, 3 * TIME_LIMIT_MS + 1000, env);
      if (r.timedOut || r.code !== 0 || !compareAny('tokens', r.stdout, t.outputs, { tolerance: 1e-6 }).ok) return false;
    }
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const c0 = cpuSeconds();
  const t0 = performance.now();
  const value = await f();
  return { value, wall: (performance.now() - t0) / 1000, cpu: cpuSeconds() - c0 };
}

async function judgeWith(warmJavac: boolean, list: readonly Program[]): Promise<Map<string, JudgeRecord>> {
  const judge = await createLocalJudge({ timeLimitMs: TIME_LIMIT_MS, comparator: 'tokens', jobs, warmJavac });
  const dir = mkdtempSync(join(tmpdir(), 'coreb-throughput-'));
  try {
    const outFile = join(dir, 'verdicts.jsonl');
    await runJudging({ judge, testsOf, programs: list, outFile });
    const recs = readFileSync(outFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JudgeRecord);
    return new Map(recs.map((r) => [r.id, r]));
  } finally {
    await judge.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const withTests = programs.filter((p) => (testsOf(p.problemId)?.length ?? 0) > 0);
const byLang = new Map<string, number>();
for (const p of withTests) byLang.set(p.language, (byLang.get(p.language) ?? 0) + 1);
console.log(
  `sandbox-throughput: ${withTests.length} v202602 AtCoder programs (${[...byLang].map(([l, n]) => `${l} ${n}`).join(', ')}), ` +
    `LCB v5 public tests, ${TIME_LIMIT_MS} ms, ${jobs} job(s), ${availableParallelism()} core(s), load ${(await import('node:os')).loadavg()[0].toFixed(2)}`,
);
// warm-up: precompiled header, Go build cache, javac server class, page cache
await judgeWith(true, withTests.slice(0, 20));

const rows: string[][] = [];
const head = ['configuration', 'programs/s', 'wall s', 'machine CPU s'];
const show = (r: string[]): void => {
  rows.push(r);
  console.log(`  ${r[0]}: ${r[1]} programs/s, ${r[2]} s wall, ${r[3]} machine CPU s`);
};
const results = new Map<string, Map<string, JudgeRecord>>();
let plainPassed: Map<string, boolean> | undefined;
for (const c of configs) {
  if (c === 'plain') {
    const goCache = mkdtempSync(join(tmpdir(), 'coreb-plain-go-'));
    const r = await timed(async () => {
      const out = new Map<string, boolean>();
      let next = 0;
      await Promise.all(
        Array.from({ length: jobs }, async () => {
          while (next < withTests.length) {
            const p = withTests[next++];
            out.set(p.id, await plainJudge(p, testsOf(p.problemId) ?? [], goCache));
          }
        }),
      );
      return out;
    });
    rmSync(goCache, { recursive: true, force: true });
    plainPassed = r.value;
    show(['plain subprocess (no sandbox)', (withTests.length / r.wall).toFixed(2), r.wall.toFixed(1), r.cpu.toFixed(1)]);
  } else {
    const r = await timed(() => judgeWith(c === 'coreb', withTests));
    results.set(c, r.value);
    rows.push([
      c === 'coreb' ? 'coreb judge (warm javac, go -s -w)' : 'coreb judge, cold javac',
      (withTests.length / r.wall).toFixed(2),
      r.wall.toFixed(1),
      r.cpu.toFixed(1),
    ]);
  }
}
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const fmt = (r: string[]): string => r.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
console.log([fmt(head), ...rows.map(fmt)].join('\n'));
const cold = results.get('cold');
const warm = results.get('coreb');
if (cold !== undefined && warm !== undefined) {
  const differ = [...warm.values()].filter((r) => cold.get(r.id)?.verdict !== r.verdict || cold.get(r.id)?.tests_passed !== r.tests_passed);
  console.log(`verdicts cold vs shipped: ${differ.length === 0 ? 'identical' : `${differ.length} differ`} on ${warm.size} programs`);
  for (const d of differ.slice(0, 10)) console.log(`  ${d.id} ${d.language}: cold ${cold.get(d.id)?.verdict}, shipped ${d.verdict}`);
}
for (const [name, recs] of results) {
  // where the time goes: compile wall time and test-run CPU time per language, and time-limit runs
  const per = new Map<string, { compileS: number; runCpuS: number; runs: number; timeLimits: number }>();
  for (const r of recs.values()) {
    const x = per.get(r.language) ?? { compileS: 0, runCpuS: 0, runs: 0, timeLimits: 0 };
    x.compileS += r.compile_ms / 1000;
    for (const t of r.tests) {
      x.runs++;
      x.runCpuS += Math.max(0, t.cpu_ms) / 1000;
      if (t.verdict === 'time_limit') x.timeLimits++;
    }
    per.set(r.language, x);
  }
  console.log(
    `${name}: ${[...per].map(([l, x]) => `${l} compile ${x.compileS.toFixed(0)} s, ${x.runs} runs ${x.runCpuS.toFixed(0)} CPU s (${x.timeLimits} time limits)`).join('; ')}`,
  );
}
if (plainPassed !== undefined && warm !== undefined) {
  const agree = [...warm.values()].filter((r) => plainPassed.get(r.id) === r.passed).length;
  console.log(`passed agrees with the plain harness on ${agree} of ${warm.size} programs`);
}
