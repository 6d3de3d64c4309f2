/**
 * The local judge backend: builds each program once in a sandbox (C++ against a precompiled
 * `<bits/stdc++.h>`), runs it on every test in fresh sandboxes from a worker pool sized to the cores,
 * and turns each outcome into a verdict value.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import {
  EXEC_LANGUAGES,
  type ComparatorName,
  type ExecLanguage,
  type ExecutionResult,
  type Program,
  type ProgramResult,
  type TestCase,
  type TestResult,
  type Verdict,
} from '../core/execution.js';
import type { JudgeBackend, JudgeCallOptions, JudgeStats } from './backend.js';
import { COMPARATOR_RULES_VERSION, compareAny, jsonEqual } from './compare.js';
import { DEFAULT_LIMITS, javaRunFlags, requireTool, type RunLimits } from './languages.js';
import { prepareSource, type PreparedSource } from './normalise.js';
import { createSlotPool } from './pool.js';
import { buildRunHelper } from './run-helper.js';
import { runProcess, type Mount, type ProcessLimits, type SandboxConfig } from './sandbox.js';

/** Options of {@link createLocalJudge}. */
export interface LocalJudgeOptions {
  /** Run in bubblewrap (default true). False runs untrusted code on the host: debugging only. */
  sandbox?: boolean;
  /** Directory for the helper binary, the precompiled header, the Go build cache and work dirs;
   * default `<os tmpdir>/coreb-judge`. Must be traversable by uid 65534. */
  cacheDir?: string;
  /** Sandboxed processes at once; default the number of cores (`os.availableParallelism()`). */
  jobs?: number;
  /** Output comparator; default `tokens`. */
  comparator?: ComparatorName;
  /** Numeric tolerance of the `tokens` comparator (absolute or relative); default 1e-6. */
  tolerance?: number;
  /** Stop at the first failing test (pass_rate then counts unrun tests as failed); default false. */
  stopEarly?: boolean;
  /** CPU-time limit per test for every language, milliseconds (overrides `limits`). */
  timeLimitMs?: number;
  /**
   * The wall-clock limit per test is `wallTimeFactor × timeLimitMs + 1000` ms; default 3. Time limits are
   * judged on CPU time, which a busy machine does not inflate; the wall clock catches sleepers.
   */
  wallTimeFactor?: number;
  /**
   * Memory limit per test for every language, MiB (overrides `limits`); the address-space limit moves
   * by the same amount, keeping each runtime's headroom.
   */
  memoryLimitMb?: number;
  /** Per-language overrides of {@link DEFAULT_LIMITS}. */
  limits?: Partial<Record<ExecLanguage, Partial<RunLimits>>>;
  /** Wall-clock limit of one compilation, milliseconds; default 60000. */
  compileTimeoutMs?: number;
  /** Unprivileged uid/gid for sandboxed code when the judge runs as root; default 65534. */
  uid?: number;
}

const STDERR_KEEP = 64 * 1024;

/**
 * g++ flags: C++17 at -O2 as the issue specifies, with `ONLINE_JUDGE` defined as Codeforces and
 * AtCoder do (programs guard `freopen("a.inp")` debugging code with it).
 */
export const CXX_FLAGS = ['-O2', '-std=c++17', '-DONLINE_JUDGE'] as const;
const OOM = /MemoryError|std::bad_alloc|OutOfMemoryError|out of memory|failed to allocate memory|NoMemoryError|Cannot allocate memory/;

interface Build {
  /** Set when the build failed (`compile_error` or `sandbox_error`). */
  verdict?: Verdict;
  /** Host directory with the source and build output. */
  dir: string;
  compileMs: number;
  output?: string;
  prepared: PreparedSource;
}

/** How every test of one build runs: resolved once per build, not per test. */
interface RunPlan {
  build: Build;
  language: ExecLanguage;
  limits: RunLimits;
  argv: string[];
}

interface Paths {
  prog: string;
  pch: string;
  gocache: string;
}

/**
 * Creates the local judge. Checks that bubblewrap works (a SANDBOX error with bwrap's message if
 * not; TOOLCHAIN naming the package if missing) and builds the `coreb-run` helper once.
 * @example
 * ```ts
 * import { createLocalJudge } from 'coreb';
 * const judge = await createLocalJudge({ timeLimitMs: 2000 });
 * try {
 *   const result = await judge.judge(
 *     { id: 'p1', problemId: 'sum', language: 'python', code: 'print(sum(map(int, input().split())))' },
 *     [{ kind: 'stdin', input: '1 2\n', outputs: ['3'] }],
 *   );
 *   console.log(result.verdict, result.passRate); // accepted 1
 * } finally {
 *   await judge.close();
 * }
 * ```
 */
export async function createLocalJudge(options: LocalJudgeOptions = {}): Promise<JudgeBackend> {
  const sandbox = options.sandbox ?? true;
  const cacheDir = options.cacheDir ?? join(tmpdir(), 'coreb-judge');
  const comparator = options.comparator ?? 'tokens';
  const tolerance = options.tolerance ?? 1e-6;
  const stopEarly = options.stopEarly ?? false;
  const compileTimeoutMs = options.compileTimeoutMs ?? 60000;
  const wallTimeFactor = options.wallTimeFactor ?? 3;
  const jobs = options.jobs ?? availableParallelism();
  const uid = options.uid ?? 65534;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const dropPrivileges = sandbox && isRoot;

  // Directories the judge creates are made world-traversable (the sandbox user must reach them);
  // an existing cache dir chosen by the user is left as it is.
  if (mkdirSync(cacheDir, { recursive: true, mode: 0o755 }) !== undefined) chmodSync(cacheDir, 0o755);
  const workRoot = join(cacheDir, 'work');
  if (mkdirSync(workRoot, { recursive: true, mode: 0o755 }) !== undefined) chmodSync(workRoot, 0o755);
  removeStaleWorkDirs(workRoot);
  const config: SandboxConfig = {
    enabled: sandbox,
    helperPath: buildRunHelper(cacheDir),
    bwrapPath: sandbox ? requireTool('bwrap', 'the sandbox') : '',
    dropPrivileges,
    uid: dropPrivileges ? uid : isRoot || typeof process.getuid !== 'function' ? uid : process.getuid(),
  };
  const pool = createSlotPool(jobs);
  const stats: JudgeStats = { compiles: 0, runs: 0 };
  let pchPromise: Promise<string> | undefined;
  let goCache: string | undefined;

  const limitsFor = (language: ExecLanguage): RunLimits => {
    const l = { ...DEFAULT_LIMITS[language], ...options.limits?.[language] };
    if (options.timeLimitMs !== undefined) l.timeLimitMs = options.timeLimitMs;
    if (options.memoryLimitMb !== undefined) {
      l.addressSpaceMb = Math.max(options.memoryLimitMb + 64, l.addressSpaceMb + options.memoryLimitMb - l.memoryLimitMb);
      l.memoryLimitMb = options.memoryLimitMb;
    }
    return l;
  };

  const makeDir = (prefix: string): string => {
    const d = mkdtempSync(join(workRoot, prefix));
    chmodSync(d, 0o755);
    if (dropPrivileges) chownSync(d, uid, uid);
    return d;
  };

  const selfCheck = await runProcess(config, {
    argv: ['/usr/bin/true'],
    env: {},
    stdin: '',
    mounts: [],
    workDir: sandbox ? undefined : workRoot,
    limits: { ...compileLimits(10000), workDirMb: 1 },
  });
  if (selfCheck.exitCode !== 0) {
    throw new CorebError(
      'SANDBOX',
      `the sandbox does not work on this machine (exit ${selfCheck.exitCode}): ${selfCheck.stderr.trim() || 'no message'}; ` +
        'bubblewrap needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, ' +
        `user.max_user_namespaces > 0) and a cache dir the sandbox user can reach (${cacheDir} and its parents ` +
        `must be traversable by uid ${uid}); run with --no-sandbox only on code you trust`,
    );
  }

  const ensurePch = (): Promise<string> => {
    pchPromise ??= Promise.resolve().then(() => buildPch(cacheDir, requireTool('gxx', 'C++')));
    return pchPromise;
  };
  const ensureGoCache = (): string => {
    if (goCache === undefined) {
      goCache = join(cacheDir, 'gocache');
      mkdirSync(goCache, { recursive: true, mode: 0o755 });
      if (dropPrivileges) chownSync(goCache, uid, uid);
    }
    return goCache;
  };

  const paths = (dir: string): Paths =>
    sandbox ? { prog: '/prog', pch: '/pch', gocache: '/gocache' } : { prog: dir, pch: '', gocache: ensureGoCache() };

  async function build(language: ExecLanguage, prepared: PreparedSource, signal?: AbortSignal): Promise<Build> {
    const dir = makeDir('p-');
    writeFileSync(join(dir, prepared.fileName), prepared.text, { mode: 0o644 });
    const result: Build = { dir, compileMs: 0, prepared };
    if (language === 'python' || language === 'ruby') {
      requireTool(language === 'python' ? 'python3' : 'ruby', language);
      return result;
    }
    const mounts: Mount[] = [];
    let argv: string[];
    const env: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: '/box', TMPDIR: '/box', LANG: 'C.UTF-8' };
    const box = sandbox ? '/box' : dir;
    if (!sandbox) {
      env.HOME = dir;
      env.TMPDIR = dir;
    }
    if (language === 'cpp') {
      const gxx = requireTool('gxx', 'C++');
      const pch = await ensurePch();
      if (sandbox) mounts.push({ src: pch, dest: '/pch' });
      argv = [gxx, ...CXX_FLAGS, `-I${sandbox ? '/pch' : pch}`, '-o', `${box}/prog`, `${box}/${prepared.fileName}`];
    } else if (language === 'go') {
      const go = requireTool('go', 'Go');
      const cache = ensureGoCache();
      if (sandbox) mounts.push({ src: cache, dest: '/gocache', writable: true });
      Object.assign(env, {
        GO111MODULE: 'off',
        CGO_ENABLED: '0',
        GOFLAGS: '-buildvcs=false',
        GOCACHE: paths(dir).gocache,
        GOPATH: `${box}/.gopath`,
        GOTOOLCHAIN: 'local',
      });
      argv = [go, 'build', '-o', `${box}/prog`, `${box}/${prepared.fileName}`];
    } else {
      const javac = requireTool('javac', 'Java');
      requireTool('java', 'Java');
      argv = [
        javac,
        '-J-Xmx512m',
        '-J-XX:+UseSerialGC',
        '-J-XX:TieredStopAtLevel=1',
        '-J-XX:ActiveProcessorCount=1',
        '-encoding',
        'UTF-8',
        '-nowarn',
        '-d',
        `${box}/out`,
        `${box}/${prepared.fileName}`,
      ];
    }
    const r = await pool.run(() => {
      stats.compiles++;
      return runProcess(config, { argv, env, stdin: '', mounts, workDir: dir, limits: compileLimits(compileTimeoutMs), signal });
    });
    result.compileMs = Math.round(r.wallMs);
    if (r.exitCode === null || (!r.timedOut && r.cpuMs < 0)) {
      result.verdict = 'sandbox_error';
      result.output = r.stderr.slice(0, 4000);
    } else if (r.exitCode !== 0 || r.timedOut) {
      result.verdict = 'compile_error';
      result.output = (r.timedOut ? `compilation killed after ${compileTimeoutMs} ms\n` : '') + (r.stderr + r.stdout).slice(0, 4000);
    }
    return result;
  }

  function runArgv(language: ExecLanguage, b: Build, p: Paths, limits: RunLimits): string[] {
    switch (language) {
      case 'python':
        return [requireTool('python3', 'Python'), `${p.prog}/${b.prepared.fileName}`];
      case 'ruby':
        return [requireTool('ruby', 'Ruby'), `${p.prog}/${b.prepared.fileName}`];
      case 'cpp':
      case 'go':
        return [`${p.prog}/prog`];
      case 'java':
        return [requireTool('java', 'Java'), ...javaRunFlags(limits.memoryLimitMb), '-cp', `${p.prog}/out`, b.prepared.mainClass ?? 'Main'];
    }
  }

  function planRuns(language: ExecLanguage, b: Build): RunPlan {
    const limits = limitsFor(language);
    return { build: b, language, limits, argv: runArgv(language, b, paths(b.dir), limits) };
  }

  async function runTest(plan: RunPlan, test: TestCase, signal?: AbortSignal): Promise<TestResult> {
    const { build: b, limits } = plan;
    const runDir = sandbox ? undefined : makeDir('r-');
    const env: Record<string, string> = {
      PATH: '/usr/bin:/bin',
      HOME: runDir ?? '/box',
      TMPDIR: runDir ?? '/tmp',
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONIOENCODING: 'utf-8',
    };
    const plimits: ProcessLimits = {
      wallMs: Math.round(limits.timeLimitMs * wallTimeFactor + 1000),
      cpuS: Math.ceil(limits.timeLimitMs / 1000) + 1,
      addressSpaceMb: limits.addressSpaceMb,
      processes: limits.processes,
      fileSizeMb: limits.workDirMb,
      openFiles: 256,
      stackMb: Math.min(256, Math.floor(limits.addressSpaceMb / 4)),
      workDirMb: limits.workDirMb,
      stdoutBytes: limits.outputLimitBytes,
      stderrBytes: STDERR_KEEP,
    };
    try {
      const r = await pool.run(() => {
        stats.runs++;
        return runProcess(config, {
          argv: plan.argv,
          env,
          stdin: test.kind === 'program' ? '' : test.input,
          mounts: sandbox ? [{ src: b.dir, dest: '/prog' }] : [],
          workDir: runDir,
          limits: plimits,
          signal,
        });
      });
      return classify(r, test, limits, plan.language, signal);
    } finally {
      if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
    }
  }

  function classify(r: ExecutionResult, test: TestCase, limits: RunLimits, language: ExecLanguage, signal?: AbortSignal): TestResult {
    const base = { runMs: Math.round(r.wallMs), cpuMs: Math.round(r.cpuMs), memoryKb: r.memoryKb, exitCode: r.exitCode };
    const v = (verdict: Verdict, detail?: string): TestResult => (detail === undefined ? { verdict, ...base } : { verdict, ...base, detail });
    if (signal?.aborted) return v('sandbox_error', 'interrupted');
    if (r.stdoutTruncated) return v('output_limit', `more than ${limits.outputLimitBytes} bytes of output`);
    if (r.timedOut) return v('time_limit', `killed after ${Math.round(r.wallMs)} ms wall-clock`);
    if (r.exitCode === null || r.cpuMs < 0) return v('sandbox_error', lastLine(r.stderr) || 'the sandbox did not report a status');
    if (r.exitCode === 152 || r.cpuMs > limits.timeLimitMs) return v('time_limit', `CPU time ${Math.round(r.cpuMs)} ms`);
    if (r.exitCode === 153) return v('output_limit', 'file size limit exceeded');
    const rssLimited = language !== 'java' && r.memoryKb > limits.memoryLimitMb * 1024;
    if ((r.exitCode !== 0 && OOM.test(r.stderr)) || rssLimited) {
      return v('memory_limit', rssLimited ? `peak memory ${r.memoryKb} KiB` : lastLine(r.stderr));
    }
    if (r.exitCode !== 0) return v('runtime_error', `exit ${r.exitCode}${r.stderr ? ': ' + lastLine(r.stderr) : ''}`);
    if (test.kind === 'program') return v('accepted');
    if (test.kind === 'functional') {
      let got: unknown;
      try {
        got = JSON.parse(r.stdout);
      } catch {
        return v('wrong_answer', 'output is not JSON');
      }
      for (const o of test.outputs) {
        let want: unknown;
        try {
          want = JSON.parse(o);
        } catch {
          want = o;
        }
        if (jsonEqual(got, want, comparator === 'tokens' ? tolerance : undefined)) return v('accepted');
      }
      return v('wrong_answer', `got ${r.stdout.slice(0, 60)}`);
    }
    const c = compareAny(comparator, r.stdout, test.outputs, { tolerance });
    return c.ok ? v('accepted') : v('wrong_answer', c.detail);
  }

  async function judge(program: Program, tests: readonly TestCase[], call: JudgeCallOptions = {}): Promise<ProgramResult> {
    const { signal } = call;
    const normalisations = new Set<string>();
    const builds: Build[] = [];
    const results: TestResult[] = [];
    let compileMs = 0;
    let compileOutput: string | undefined;
    let failedBuild: Verdict | undefined;
    try {
      const programKind = tests.length > 0 && tests[0].kind === 'program';
      if (!programKind) {
        const kind = tests[0]?.kind ?? 'stdin';
        if (kind === 'functional' && program.language !== 'python') {
          failedBuild = 'sandbox_error';
          compileOutput = `functional (LeetCode-style) tests run for python only, not ${program.language}`;
        }
        const prepared = prepareSource(program.language, program.code, kind, tests[0]?.funcName ?? '');
        prepared.normalisations.forEach((n) => normalisations.add(n));
        if (failedBuild === undefined) {
          const b = await build(program.language, prepared, signal);
          builds.push(b);
          compileMs = b.compileMs;
          if (b.verdict !== undefined) {
            failedBuild = b.verdict;
            compileOutput = b.output;
          } else {
            const plan = planRuns(program.language, b);
            if (stopEarly) {
              for (const t of tests) {
                const r = await runTest(plan, t, signal);
                results.push(r);
                if (r.verdict !== 'accepted') break;
              }
            } else {
              results.push(...(await Promise.all(tests.map((t) => runTest(plan, t, signal)))));
            }
          }
        }
      } else {
        for (const t of tests) {
          const prepared = prepareSource(program.language, program.code, 'program', t.input);
          prepared.normalisations.forEach((n) => normalisations.add(n));
          const b = await build(program.language, prepared, signal);
          builds.push(b);
          compileMs += b.compileMs;
          if (b.verdict !== undefined) {
            failedBuild = b.verdict;
            compileOutput = b.output;
            break;
          }
          const r = await runTest(planRuns(program.language, b), t, signal);
          results.push(r);
          if (stopEarly && r.verdict !== 'accepted') break;
        }
      }
    } finally {
      for (const b of builds) rmSync(b.dir, { recursive: true, force: true });
    }
    const testsPassed = results.filter((r) => r.verdict === 'accepted').length;
    const firstBad = results.find((r) => r.verdict !== 'accepted');
    const verdict: Verdict = failedBuild ?? firstBad?.verdict ?? (tests.length === 0 ? 'sandbox_error' : 'accepted');
    const mem = results.map((r) => r.memoryKb);
    const out: ProgramResult = {
      id: program.id,
      problemId: program.problemId,
      language: program.language,
      verdict,
      passed: verdict === 'accepted',
      passRate: tests.length === 0 ? 0 : testsPassed / tests.length,
      testsPassed,
      testsTotal: tests.length,
      tests: results,
      compileMs,
      maxRunMs: results.reduce((m, r) => Math.max(m, r.runMs), 0),
      maxMemoryKb: mem.length === 0 ? -1 : Math.max(...mem),
      normalisations: [...normalisations],
      comparator,
      sandboxed: sandbox,
    };
    if (compileOutput !== undefined) out.compileOutput = compileOutput;
    return out;
  }

  return {
    describe: () => ({
      backend: 'local-bubblewrap',
      sandboxed: sandbox,
      comparator,
      comparatorRules: COMPARATOR_RULES_VERSION,
      tolerance,
      stopEarly,
      wallTimeFactor,
      jobs: pool.size,
      compileTimeoutMs,
      cxxFlags: CXX_FLAGS,
      limits: Object.fromEntries(EXEC_LANGUAGES.map((l) => [l, limitsFor(l)])),
    }),
    judge,
    stats: () => ({ ...stats }),
    async close() {
      // work dirs are removed after each program; the cache (helper, PCH, Go cache) is kept for reuse
    },
  };
}

function compileLimits(wallMs: number): ProcessLimits {
  return {
    wallMs,
    cpuS: Math.ceil(wallMs / 1000),
    addressSpaceMb: 8192,
    processes: 512,
    fileSizeMb: 512,
    openFiles: 4096,
    stackMb: 0,
    workDirMb: 512,
    stdoutBytes: 1024 * 1024,
    stderrBytes: STDERR_KEEP,
  };
}

/** Work dirs older than this were left by a judge that was killed; they are removed at start. */
const STALE_WORK_DIR_MS = 6 * 3600 * 1000;

function removeStaleWorkDirs(workRoot: string): void {
  const now = Date.now();
  for (const name of readdirSync(workRoot)) {
    const p = join(workRoot, name);
    try {
      if (now - statSync(p).mtimeMs > STALE_WORK_DIR_MS) rmSync(p, { recursive: true, force: true });
    } catch {
      // removed by a concurrent judge
    }
  }
}

function lastLine(s: string): string {
  const lines = s.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 200);
}

/**
 * Builds the precompiled `<bits/stdc++.h>` (with {@link CXX_FLAGS}) into `cacheDir/pch-<hash>/bits/` once
 * and returns that directory; programs compiled with `-I<dir>` then pick it up for
 * `#include <bits/stdc++.h>` (~0.2 s instead of ~0.9 s per compile).
 */
export function buildPch(cacheDir: string, gxx: string): string {
  const version = spawnSync(gxx, ['-dumpfullversion'], { encoding: 'utf8' }).stdout.trim();
  const key = createHash('sha256').update(`${gxx} ${version} ${CXX_FLAGS.join(' ')}`).digest('hex').slice(0, 12);
  const dir = join(cacheDir, `pch-${key}`);
  if (existsSync(join(dir, 'bits', 'stdc++.h.gch'))) return dir;
  const tmp = mkdtempSync(join(cacheDir, 'pch-tmp-'));
  mkdirSync(join(tmp, 'bits'), { recursive: true });
  const header = join(tmp, 'bits', 'stdc++.h');
  writeFileSync(header, '#include_next <bits/stdc++.h>\n');
  const r = spawnSync(gxx, [...CXX_FLAGS, '-w', '-x', 'c++-header', header, '-o', header + '.gch'], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new CorebError('TOOLCHAIN', `cannot build the C++ precompiled header with ${gxx}: ${r.stderr || r.error?.message}`);
  }
  chmodSync(tmp, 0o755);
  chmodSync(join(tmp, 'bits'), 0o755);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}
