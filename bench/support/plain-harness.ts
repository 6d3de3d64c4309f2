/**
 * The plain subprocess harness of `bench/sandbox-throughput.ts`, run as a small process of its own
 * (`node plain-harness.js JOB.json OUT.json`): compile once (the judge's g++ flags against its
 * precompiled header, `javac`, `go build` with a warm cache), one process per test with a wall-clock
 * timer, pass = every output matches (tokens). A process of its own because starting processes from
 * the bench, which holds LiveCodeBench's tests (hundreds of MB), costs each fork that much more
 * kernel time: the floor is what a small harness pays.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Program, TestCase } from '../../src/core/execution.js';
import { compareAny } from '../../src/sandbox/compare.js';
import { CXX_FLAGS } from '../../src/sandbox/languages/cpp.js';
import { prepareSource } from '../../src/sandbox/normalise.js';

/** What the harness is given: the programs with their tests, processes at once, the caches and the time limit. */
export interface PlainJob {
  items: Array<{ program: Program; tests: TestCase[] }>;
  jobs: number;
  goCache: string;
  pch: string;
  timeLimitMs: number;
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
async function plainJudge(program: Program, tests: readonly TestCase[], goCache: string, pch: string, TIME_LIMIT_MS: number): Promise<boolean> {
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
      // The judge's flags against the judge's precompiled <bits/stdc++.h> (the same header cache both sides).
      if (!(await compile(['g++', ...CXX_FLAGS, `-I${pch}`, '-o', 'prog', prepared.fileName]))) return false;
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

const [jobFile, outFile] = process.argv.slice(2);
if (jobFile !== undefined && outFile !== undefined) {
  const job = JSON.parse(readFileSync(jobFile, 'utf8')) as PlainJob;
  const out: Record<string, boolean> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: job.jobs }, async () => {
      while (next < job.items.length) {
        const { program, tests } = job.items[next++];
        out[program.id] = await plainJudge(program, tests, job.goCache, job.pch, job.timeLimitMs);
      }
    }),
  );
  writeFileSync(outFile, JSON.stringify(out));
}
