/**
 * Judge throughput on the CoREB v202602 AtCoder programs (1050 programs in five languages, LiveCodeBench
 * v5 public tests, compiles included), side by side in one run:
 *   plain    — a plain subprocess harness, no sandbox: `g++ -O2 -std=c++17` against the same
 *              precompiled `<bits/stdc++.h>` the judge uses, `javac`, `go build` with a Go build cache
 *              warmed as the judge's is, then one process per test with a wall-clock timer (the floor:
 *              what a careful user writes without isolation);
 *   cold     — coreb's local judge in bubblewrap with one javac process per Java program;
 *   coreb    — coreb's local judge as shipped (warm Java compilers, Go built without symbol tables).
 * Prints programs/s (wall clock), the CPU time of each configuration's processes (process
 * accounting: the bench, compilers, bwrap and the sandboxed programs, nothing else on the machine;
 * without root and the Debian package acct, the machine's CPU from /proc/stat), and whether `cold`
 * and `coreb` gave identical verdicts. Each judge run writes a fresh verdicts file (no resume); every
 * configuration starts from warm caches (the judge's precompiled header, which the plain harness
 * compiles against too, and a Go build cache each) after a warm-up pass over 20 programs.
 * `--by-language` runs each configuration on each language's programs apart and prints CPU per
 * program against the plain harness's (the target: coreb within 1.2x of it in every language).
 * Usage: node dist/bench/sandbox-throughput.js [--shared DIR] [--limit N] [--jobs N] [--configs plain,cold,coreb] [--by-language]
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Program } from '../src/core/execution.js';
import { createLcbTestLookup, loadLcbProblems } from '../src/dataset/lcb.js';
import { runJudging, type JudgeRecord } from '../src/sandbox/judge-run.js';
import { createLocalJudge } from '../src/sandbox/local-judge.js';
import { buildPch } from '../src/sandbox/languages/cpp.js';
import { requireTool } from '../src/sandbox/languages/tools.js';
import { tableLines } from '../src/core/table.js';
import { openTreeCpuMeter, reexecAsSubreaper } from './support/process-tree.js';
import type { PlainJob } from './support/plain-harness.js';
import { fileURLToPath } from 'node:url';
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
    { name: 'by-language', help: "each configuration on each language's programs apart: CPU per program against the plain harness" },
  ],
});
// Process accounting charges a process to the tree through its parents: as a child subreaper the
// bench gets every process whose parent ends first (bubblewrap's inner one), not init. The options
// are read first, so a refused one costs nothing and leaves nothing behind.
{
  const d = mkdtempSync(join(tmpdir(), 'coreb-subreaper-'));
  let status: number | undefined;
  try {
    status = reexecAsSubreaper(d);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
  if (status !== undefined) process.exit(status);
}
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

async function judgeWith(warmJavac: boolean, list: readonly Program[]): Promise<Map<string, JudgeRecord>> {
  const judge = await createLocalJudge({ timeLimitMs: TIME_LIMIT_MS, comparator: 'tokens', jobs, warmJavac, cacheDir: judgeCache });
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
// One judge cache for every configuration (precompiled header, Go build cache, javac server
// class); the plain harness compiles against the same precompiled header and warms its own Go cache.
const work = mkdtempSync(join(tmpdir(), 'coreb-throughput-'));
// The sandbox user must reach the judge's cache below it.
chmodSync(work, 0o755);
const judgeCache = join(work, 'judge');
const plainGoCache = join(work, 'plain-go');
const meter = openTreeCpuMeter(work);
console.log(`CPU: ${meter.source}`);
// warm-up: precompiled header, Go build caches, javac server class, page cache
const warmUp = withTests.slice(0, 20);
await judgeWith(true, warmUp);
const pch = buildPch(judgeCache, requireTool('gxx', 'C++'));
await plainAll(warmUp);

/** The plain harness (support/plain-harness.ts, a small process of its own) over `list`: passed or not, by program id. */
async function plainAll(list: readonly Program[]): Promise<Map<string, boolean>> {
  const job: PlainJob = {
    items: list.map((program) => ({ program, tests: [...(testsOf(program.problemId) ?? [])] })),
    jobs,
    goCache: plainGoCache,
    pch,
    timeLimitMs: TIME_LIMIT_MS,
  };
  const jobFile = join(work, 'plain-job.json');
  const outFile = join(work, 'plain-out.json');
  writeFileSync(jobFile, JSON.stringify(job));
  const harness = fileURLToPath(new URL('./support/plain-harness.js', import.meta.url));
  await new Promise<void>((resolve, reject) => {
    const p = spawn(process.execPath, [harness, jobFile, outFile], { stdio: 'inherit' });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the plain harness exited ${code}`))));
  });
  return new Map(Object.entries(JSON.parse(readFileSync(outFile, 'utf8')) as Record<string, boolean>));
}

const NAMES: Record<string, string> = {
  plain: 'plain subprocess (no sandbox)',
  cold: 'coreb judge, cold javac',
  coreb: 'coreb judge (warm javac, go -s -w)',
};
const rows: string[][] = [];
const results = new Map<string, Map<string, JudgeRecord>>();
let plainPassed: Map<string, boolean> | undefined;
const perLanguage: string[][] = [];
if (args.has('by-language')) {
  for (const language of [...byLang.keys()].sort()) {
    const list = withTests.filter((p) => p.language === language);
    const cpuOf = new Map<string, number>();
    for (const c of configs) {
      const r = c === 'plain' ? await meter.measure(() => plainAll(list)) : await meter.measure(() => judgeWith(c === 'coreb', list));
      cpuOf.set(c, r.cpu / list.length);
      console.log(
        `  ${language} ${NAMES[c]}: ${(r.cpu / list.length).toFixed(3)} CPU s per program (the machine's: ${(r.machineCpu / list.length).toFixed(3)}), ${r.wall.toFixed(1)} s wall`,
      );
    }
    const plain = cpuOf.get('plain');
    perLanguage.push([
      language,
      String(list.length),
      ...configs.map((c) => cpuOf.get(c)!.toFixed(3)),
      ...configs.filter((c) => c !== 'plain').map((c) => (plain === undefined ? '-' : `${(cpuOf.get(c)! / plain).toFixed(2)}x`)),
    ]);
  }
  const others = configs.filter((c) => c !== 'plain');
  console.log(
    `\n${tableLines({ header: ['language', 'programs', ...configs.map((c) => `${c} CPU s/program`), ...others.map((c) => `${c} / plain`)], rows: perLanguage }).join('\n')}`,
  );
} else {
  for (const c of configs) {
    if (c === 'plain') {
      const r = await meter.measure(() => plainAll(withTests));
      plainPassed = r.value;
      rows.push([NAMES.plain, (withTests.length / r.wall).toFixed(2), r.wall.toFixed(1), r.cpu.toFixed(1)]);
    } else {
      const r = await meter.measure(() => judgeWith(c === 'coreb', withTests));
      results.set(c, r.value);
      rows.push([NAMES[c], (withTests.length / r.wall).toFixed(2), r.wall.toFixed(1), r.cpu.toFixed(1)]);
    }
    const last = rows[rows.length - 1];
    console.log(`  ${last[0]}: ${last[1]} programs/s, ${last[2]} s wall, ${last[3]} CPU s`);
  }
  console.log(tableLines({ header: ['configuration', 'programs/s', 'wall s', 'CPU s'], rows }).join('\n'));
}
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
rmSync(work, { recursive: true, force: true });
