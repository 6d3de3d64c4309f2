/**
 * The local judge backend: builds each program once in a sandbox (the commands, caches and
 * limits come from the language modules in languages/), runs it on every test in fresh sandboxes from a worker pool
 * sized to the cores, and turns each outcome into a verdict value (verdict.ts, pure).
 */
import { availableParallelism, tmpdir } from 'node:os';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { processAlive } from '../core/process-alive.js';
import {
  EXEC_LANGUAGES,
  type ComparatorName,
  type Program,
  type ProgramResult,
  type TestCase,
  type ExecutionResult,
  type TestResult,
  type Verdict,
} from '../core/execution.js';
import type { JudgeBackend, JudgeCallOptions, JudgeStats } from './backend.js';
import { COMPARATOR_RULES_VERSION } from './compare.js';
import { judgeLanguage, type BuildContext, type LanguageState } from './languages/index.js';
import { requireTool, resolveRunLimits, type RunLimits } from './languages/tools.js';
import { checkFunctional } from './functional.js';
import { prepareSource, type NormalisationName, type PreparedSource } from './normalise.js';
import { OFFICIAL_CXX_FLAGS, OFFICIAL_HARNESS } from './official-harness.js';
import { createSlotPool, type SlotPool } from '../core/bounded-work.js';
import { detectTreeAccounting, type TreeAccounting, type TreeLimits, type TreeMechanism } from './process-tree.js';
import { buildRunHelper } from './run-helper.js';
import { buildKey, createBuildCache, type BuildCache } from './build-cache.js';
import { createProofFile, SEALING_VERSION } from './languages/sealing.js';
import { CXX_FLAGS } from './languages/cpp.js';
import { runProcess, runProcessInTree, type Mount, type ProcessLimits, type ProcessSpec, type SandboxConfig } from './sandbox.js';
import { releaseProcessHost, runHosted, shouldHostRuns } from './process-host.js';
import { classifyRun, createProgramResult } from './verdict.js';

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
  /** Per-language overrides of each language's default limits (`DEFAULT_LIMITS` for the built-in ones). */
  limits?: Partial<Record<string, Partial<RunLimits>>>;
  /** Wall-clock limit of one compilation, milliseconds; default 60000. */
  compileTimeoutMs?: number;
  /** Unprivileged uid/gid for sandboxed code when the judge runs as root; default 65534. */
  uid?: number;
  /**
   * How limits cover a run's whole process tree (see process-tree.ts): `auto` (default) picks
   * cgroup v2, else cgroup v1, else /proc polling; a named mechanism is required (SANDBOX error if
   * unavailable); `off` keeps per-process rlimits only (children escape them).
   */
  treeLimits?: TreeMechanism | 'auto' | 'off';
  /** Memory cap of one compilation's process tree, MiB; default 2048 (over it: `compile_error`). */
  compileMemoryMb?: number;
  /** Size of the shared Go build cache, MiB, past which it is emptied (at start and every 50 Go compiles); default 512. */
  goCacheMaxMb?: number;
  /**
   * Compile Java in warm compiler JVMs (languages/javac-server.ts) instead of one `javac` process per
   * program; same compiler and options, same verdicts, ~10x less compile time. Default true.
   */
  warmJavac?: boolean;
  /**
   * Built programs kept for reuse by later calls, MiB (0: each call builds and removes its program).
   * A call judging a program already built (same prepared source, language and flags) runs it without
   * compiling; the least recently used builds are removed past this size. Default 0; the exec
   * reranker keeps 1024 (it runs each candidate on many statements' samples).
   */
  keepBuildsMb?: number;
  /**
   * Source changes (normalise.ts): `coreb` (default) or `official`, the official CoREB harness's
   * (official-harness.ts), to re-judge a release the way its labels were made. Recorded in `describe()`.
   */
  normalise?: NormalisationName;
}

const STDERR_KEEP = 64 * 1024;

interface Build {
  /** Set when the build failed (`compile_error` or `sandbox_error`). */
  verdict?: Verdict;
  /** Host directory with the source and build output. */
  dir: string;
  compileMs: number;
  output?: string;
  prepared: PreparedSource;
  /** The compile was stopped by a limit or the sandbox failed: the outcome says nothing lasting about the program. */
  transient?: boolean;
}

/** How every test of one build runs: resolved once per build, not per test. */
interface RunPlan {
  build: Build;
  language: string;
  limits: RunLimits;
  argv: string[];
}

/**
 * What a judge's steps share once it is set up: its sandbox settings, slot pool and counters, the
 * helpers that size limits and make work dirs, each language's state, and the judging settings.
 */
interface JudgeRuntime {
  sandbox: boolean;
  config: SandboxConfig;
  pool: SlotPool;
  stats: JudgeStats;
  /** Runs `start` (one process) while counting processes alive at once. */
  counted<T>(start: () => Promise<T> | T): Promise<T>;
  limitsFor(language: string): RunLimits;
  makeDir(prefix: string): string;
  stateOf(language: string): LanguageState | undefined;
  /**
   * Runs one sandboxed process under `tree` limits (when the judge has tree accounting): from the
   * process helper when this process is big (process-host.ts), else here.
   */
  exec(spec: Omit<ProcessSpec, 'tree'>, tree: TreeLimits): Promise<ExecutionResult>;
  /** Where a run sees the program directory. */
  progDir(dir: string): string;
  tree: TreeAccounting | undefined;
  comparator: ComparatorName;
  tolerance: number;
  stopEarly: boolean;
  normalise: NormalisationName;
  wallTimeFactor: number;
  compileTimeoutMs: number;
  compileMemoryMb: number;
  /** Host directory where each run's proof token is written and unlinked at once (sandbox.ts `secret`). */
  secretDir: string;
  /** Builds kept across calls (`keepBuildsMb` > 0). */
  builds: BuildCache<Build> | undefined;
}

/** Writes `prepared` into a fresh program dir and compiles it (a language run from source is checked only); a failed compile is the build's verdict. */
async function buildProgram(rt: JudgeRuntime, language: string, prepared: PreparedSource, signal?: AbortSignal): Promise<Build> {
  const { sandbox, pool, stats, counted, makeDir, stateOf, compileTimeoutMs, compileMemoryMb } = rt;
  const dir = makeDir('p-');
  writeFileSync(join(dir, prepared.fileName), prepared.text, { mode: 0o644 });
  for (const f of prepared.extraFiles ?? []) {
    // a file under a folder (a Go test's package under .gopath/src) gets its folders, traversable by the sandbox user
    if (f.name.includes('/')) mkdirSync(dirname(join(dir, f.name)), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, f.name), f.text, { mode: 0o644 });
  }
  const result: Build = { dir, compileMs: 0, prepared };
  const env: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: '/box', TMPDIR: '/box', LANG: 'C.UTF-8' };
  const box = sandbox ? '/box' : dir;
  if (!sandbox) {
    env.HOME = dir;
    env.TMPDIR = dir;
  }
  const mounts: Mount[] = [];
  const ctx: BuildContext = {
    box,
    fileName: prepared.fileName,
    source: prepared.text,
    extraFiles: prepared.extraFiles?.map((f) => f.name),
    sandbox,
    env,
    mounts,
    cxxFlags: prepared.cxxFlags,
    state: stateOf(language),
  };
  const argv = await judgeLanguage(language).compileArgv(ctx);
  if (argv === undefined) return result;
  if (ctx.state?.compile !== undefined) {
    const sources = [prepared.fileName, ...(prepared.extraFiles ?? []).map((f) => f.name)];
    const warm = await ctx.state.compile(dir, sources, compileTimeoutMs);
    if (warm !== undefined) {
      stats.compiles++;
      result.compileMs = warm.wallMs;
      if (warm.timedOut) {
        result.transient = true;
        result.verdict = 'compile_error';
        result.output = `compilation killed after ${compileTimeoutMs} ms\n`;
      } else if (warm.exitCode !== 0) {
        result.verdict = 'compile_error';
        result.output = warm.output.slice(0, 4000);
      }
      if (signal?.aborted === true) result.transient = true;
      return result;
    }
  }
  const r = await pool.run(async () => {
    stats.compiles++;
    return counted(() =>
      rt.exec(
        { argv, env, stdin: '', mounts, workDir: dir, limits: compileLimits(compileTimeoutMs), signal },
        { memoryMb: compileMemoryMb, pids: 512, cpuMs: compileTimeoutMs },
      ),
    );
  });
  result.compileMs = Math.round(r.wallMs);
  if (r.treeLimit !== undefined) {
    result.transient = true;
    result.verdict = 'compile_error';
    result.output =
      (r.treeLimit === 'memory'
        ? `compilation stopped: the compiler passed its memory cap of ${compileMemoryMb} MiB\n`
        : `compilation stopped: the compiler passed its CPU-time cap of ${compileTimeoutMs} ms\n`) + (r.stderr + r.stdout).slice(0, 4000);
  } else if (r.exitCode === null || (!r.timedOut && r.cpuMs < 0)) {
    result.transient = true;
    result.verdict = 'sandbox_error';
    result.output = r.stderr.slice(0, 4000);
  } else if (r.exitCode !== 0 || r.timedOut) {
    result.transient = r.timedOut;
    result.verdict = 'compile_error';
    result.output = (r.timedOut ? `compilation killed after ${compileTimeoutMs} ms\n` : '') + (r.stderr + r.stdout).slice(0, 4000);
  }
  if (signal?.aborted === true) result.transient = true;
  return result;
}

/** The build of `prepared`, made now and removed when the call is done. */
async function buildForCall(
  rt: JudgeRuntime,
  language: string,
  prepared: PreparedSource,
  signal: AbortSignal | undefined,
  done: Array<() => void>,
): Promise<Build> {
  const b = await buildProgram(rt, language, prepared, signal);
  done.push(() => rmSync(b.dir, { recursive: true, force: true }));
  return b;
}

/**
 * The build of `prepared`: made now and removed when the call is done, or, with a build cache,
 * the kept one (no compile: `compileMs` 0) or one made now and kept for later calls.
 */
async function buildOnce(
  rt: JudgeRuntime,
  language: string,
  prepared: PreparedSource,
  signal: AbortSignal | undefined,
  done: Array<() => void>,
): Promise<Build> {
  if (rt.builds === undefined) return buildForCall(rt, language, prepared, signal, done);
  const key = buildKey([
    language,
    prepared.fileName,
    prepared.text,
    prepared.extraFiles ?? [],
    prepared.cxxFlags ?? null,
    prepared.mainClass ?? null,
  ]);
  const got = await rt.builds.acquire(
    key,
    () => buildProgram(rt, language, prepared, signal),
    (b) => b.transient !== true,
  );
  done.push(got.release);
  return got.made ? got.build : { ...got.build, compileMs: 0 };
}

/** The command and limits every test of a built program runs with. */
function planRuns(rt: JudgeRuntime, language: string, b: Build): RunPlan {
  const limits = rt.limitsFor(language);
  return { build: b, language, limits, argv: judgeLanguage(language).runArgv(rt.progDir(b.dir), b.prepared, limits) };
}

/** Runs one test of a built program in a fresh sandbox from the pool and turns the outcome into a verdict. */
async function runTest(rt: JudgeRuntime, plan: RunPlan, test: TestCase, signal?: AbortSignal): Promise<TestResult> {
  const { sandbox, pool, stats, counted, makeDir, tree, wallTimeFactor, comparator, tolerance } = rt;
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
  // A sealed program test's proof token: fresh per run, given on a descriptor only the test's end reads.
  const proofFd = test.kind === 'program' ? b.prepared.proofFd : undefined;
  const proof = proofFd === undefined ? undefined : createProofFile(proofFd.offset);
  const treeMemoryMb = limits.memoryLimitMb + judgeLanguage(plan.language).treeAllowanceMb;
  // With the tree accounted, resident memory is limited, not address space (threads reserve
  // much more than they touch); /proc polling keeps a generous address-space backstop.
  const addressSpaceMb =
    tree === undefined ? limits.addressSpaceMb : tree.mechanism === 'proc' ? Math.max(limits.addressSpaceMb, 4 * treeMemoryMb) : 0;
  const plimits: ProcessLimits = {
    wallMs: Math.round(limits.timeLimitMs * wallTimeFactor + 1000),
    cpuS: Math.ceil(limits.timeLimitMs / 1000) + 1,
    addressSpaceMb,
    processes: limits.processes,
    fileSizeMb: limits.workDirMb,
    openFiles: 256,
    stackMb: Math.min(256, Math.floor(limits.addressSpaceMb / 4)),
    workDirMb: limits.workDirMb,
    stdoutBytes: limits.outputLimitBytes,
    stderrBytes: STDERR_KEEP,
  };
  try {
    const r = await pool.run(async () => {
      stats.runs++;
      return counted(() =>
        rt.exec(
          {
            argv: plan.argv,
            env,
            stdin: test.kind === 'program' ? '' : test.input,
            mounts: sandbox ? [{ src: b.dir, dest: '/prog' }] : [],
            workDir: runDir,
            limits: plimits,
            signal,
            ...(proof !== undefined && proofFd !== undefined ? { secret: { text: proof.file, fd: proofFd.fd, dir: rt.secretDir } } : {}),
          },
          { memoryMb: treeMemoryMb, pids: limits.processes, cpuMs: limits.timeLimitMs },
        ),
      );
    });
    return classifyRun(r, test, {
      limits,
      language: plan.language,
      comparator,
      tolerance,
      aborted: signal?.aborted === true,
      ...(proof !== undefined ? { completionToken: proof.token, proofFile: proof.file } : {}),
    });
  } finally {
    if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
  }
}

/**
 * Judges one program: stdin and functional tests build it once and run every test (all at once, or
 * in order stopping at the first failure); program tests build it with each test program appended.
 */
async function judgeProgram(rt: JudgeRuntime, program: Program, tests: readonly TestCase[], call: JudgeCallOptions = {}): Promise<ProgramResult> {
  const { sandbox, normalise, stopEarly, comparator } = rt;
  const { signal } = call;
  const normalisations = new Set<string>();
  const suspicions = new Set<string>();
  /** What to do with each build when the call is done: remove it, or hand it back to the build cache. */
  const done: Array<() => void> = [];
  const results: TestResult[] = [];
  let compileMs = 0;
  let compileOutput: string | undefined;
  let failedBuild: Verdict | undefined;
  try {
    const programKind = tests.length > 0 && tests[0].kind === 'program';
    if (!programKind) {
      const kind = tests[0]?.kind ?? 'stdin';
      const refusal = kind === 'functional' ? checkFunctional(program.language, program.code, tests[0]?.funcName ?? '') : undefined;
      if (refusal !== undefined) {
        failedBuild = refusal.verdict;
        compileOutput = refusal.reason;
      }
      const prepared = prepareSource(program.language, program.code, kind, tests[0]?.funcName ?? '', { normalise });
      prepared.normalisations.forEach((n) => normalisations.add(n));
      if (failedBuild === undefined) {
        const b = await buildOnce(rt, program.language, prepared, signal, done);
        compileMs = b.compileMs;
        if (b.verdict !== undefined) {
          failedBuild = b.verdict;
          compileOutput = b.output;
        } else {
          const plan = planRuns(rt, program.language, b);
          if (stopEarly) {
            for (const t of tests) {
              const r = await runTest(rt, plan, t, signal);
              results.push(r);
              if (r.verdict !== 'accepted') break;
            }
          } else {
            results.push(...(await Promise.all(tests.map((t) => runTest(rt, plan, t, signal)))));
          }
        }
      }
    } else {
      for (const t of tests) {
        const prepared = prepareSource(program.language, program.code, 'program', t.input, { normalise });
        prepared.normalisations.forEach((n) => normalisations.add(n));
        prepared.suspicions?.forEach((n) => suspicions.add(n));
        const b = await buildForCall(rt, program.language, prepared, signal, done);
        compileMs += b.compileMs;
        if (b.verdict !== undefined) {
          failedBuild = b.verdict;
          compileOutput = b.output;
          break;
        }
        const r = await runTest(rt, planRuns(rt, program.language, b), t, signal);
        results.push(r);
        if (stopEarly && r.verdict !== 'accepted') break;
      }
    }
  } finally {
    for (const d of done) d();
  }
  return createProgramResult(program, {
    testsTotal: tests.length,
    results,
    failedBuild,
    compileMs,
    compileOutput,
    normalisations: [...normalisations],
    comparator,
    sandboxed: sandbox,
    ...(suspicions.size > 0 ? { suspicions: [...suspicions] } : {}),
  });
}

/**
 * Creates the local judge. Checks that bubblewrap works (a SANDBOX error with bwrap's message if
 * not; TOOLCHAIN naming the package if missing) and builds the `coreb-run` helper once.
 * @example
 * ```ts
 * import { judge as judging } from 'coreb';
 * const judge = await judging.createLocalJudge({ timeLimitMs: 2000 });
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
  const normalise = options.normalise ?? 'coreb';
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
  const treeOption = options.treeLimits ?? 'auto';
  const tree: TreeAccounting | undefined =
    treeOption === 'off' ? undefined : detectTreeAccounting(treeOption === 'auto' ? {} : { mechanism: treeOption });
  if (tree === undefined && treeOption !== 'off') {
    throw new CorebError(
      'SANDBOX',
      `tree limits \`${treeOption}\` are not available on this machine (needs root and that cgroup hierarchy); use auto`,
    );
  }
  const compileMemoryMb = options.compileMemoryMb ?? 2048;
  const pool = createSlotPool(jobs);
  const stats: JudgeStats = { compiles: 0, runs: 0, peakProcesses: 0 };
  let alive = 0;
  /** Runs `start` (one process) while counting processes alive at once. */
  const counted = async <T>(start: () => Promise<T> | T): Promise<T> => {
    stats.peakProcesses = Math.max(stats.peakProcesses ?? 0, ++alive);
    try {
      return await start();
    } finally {
      alive--;
    }
  };
  const limitsFor = (language: string): RunLimits => resolveRunLimits(judgeLanguage(language).limits, language, options);

  const makeDir = (prefix: string): string => {
    // The judge's pid in the name: a later judge removes the dirs of one that was killed.
    const d = mkdtempSync(join(workRoot, `${prefix}${process.pid}-`));
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

  /** Each language's per-judge state (caches, warm compilers), made on its first program. */
  const states = new Map<string, LanguageState | undefined>();
  const stateOf = (language: string): LanguageState | undefined => {
    if (!states.has(language)) {
      states.set(
        language,
        judgeLanguage(language).createState?.({
          cacheDir,
          workRoot,
          sandboxConfig: config,
          giveToSandboxUser: (dir) => {
            if (dropPrivileges) chownSync(dir, uid, uid);
          },
          runInSlot: (fn) => pool.run(() => counted(fn)),
          options: { goCacheMaxMb: options.goCacheMaxMb, warmJavac: options.warmJavac, jobs },
        }),
      );
    }
    return states.get(language);
  };

  /** Where a run sees the program directory. */
  const progDir = (dir: string): string => (sandbox ? '/prog' : dir);

  const exec = async (spec: Omit<ProcessSpec, 'tree'>, limits: TreeLimits): Promise<ExecutionResult> => {
    if (shouldHostRuns()) {
      stats.hostedRuns = (stats.hostedRuns ?? 0) + 1;
      const { signal, ...rest } = spec;
      return runHosted({ config, spec: rest, ...(tree !== undefined ? { tree: { mechanism: tree.mechanism, limits } } : {}) }, signal);
    }
    return runProcessInTree(config, spec, tree === undefined ? undefined : { accounting: tree, limits });
  };

  const rt: JudgeRuntime = {
    sandbox,
    config,
    pool,
    stats,
    counted,
    limitsFor,
    makeDir,
    stateOf,
    exec,
    progDir,
    tree,
    comparator,
    tolerance,
    stopEarly,
    normalise,
    wallTimeFactor,
    compileTimeoutMs,
    compileMemoryMb,
    secretDir: workRoot,
    builds: (options.keepBuildsMb ?? 0) > 0 ? createBuildCache<Build>((options.keepBuildsMb ?? 0) * 1024 * 1024) : undefined,
  };

  return {
    describe: () => ({
      backend: 'local-bubblewrap',
      sandboxed: sandbox,
      comparator,
      comparatorRules: COMPARATOR_RULES_VERSION,
      programTestSealing: SEALING_VERSION,
      tolerance,
      stopEarly,
      wallTimeFactor,
      jobs: pool.size,
      compileTimeoutMs,
      cxxFlags: normalise === 'official' ? OFFICIAL_CXX_FLAGS : CXX_FLAGS,
      ...(normalise === 'official' ? { normalise, officialHarness: OFFICIAL_HARNESS } : {}),
      limits: Object.fromEntries(EXEC_LANGUAGES.map((l) => [l, limitsFor(l)])),
      treeLimits: tree?.mechanism ?? 'off',
      compileMemoryMb,
    }),
    judge: (program, tests, call) => judgeProgram(rt, program, tests, call),
    stats: () =>
      Object.assign(
        { ...stats },
        ...[...states.values()].map((st) => st?.stats?.() ?? {}),
        rt.builds !== undefined ? { buildsReused: rt.builds.stats().hits } : {},
      ),
    async close() {
      // work dirs and kept builds are removed; the cache (helper, PCH, Go cache) is kept for reuse
      rt.builds?.clear();
      for (const st of states.values()) st?.close?.();
      tree?.close();
      // the process helper's runs are charged to this process once it is reaped here
      await releaseProcessHost();
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

/** Work dirs without a writer's pid in their name (made by older coreb versions) older than this are removed at start. */
const STALE_WORK_DIR_MS = 6 * 3600 * 1000;

/** `p-<pid>-XXXXXX` / `r-<pid>-XXXXXX`: a build or run dir and the pid of the judge that made it. */
const WORK_DIR_NAME = /^[a-z]+-(\d+)-/;

/**
 * Removes the work dirs of judges that are gone (killed before their cleanup ran): a dir whose
 * writer's pid is not alive, and an old-style dir (no pid) older than {@link STALE_WORK_DIR_MS}.
 * Dirs of live judges (other processes sharing the cache) are left alone.
 * @returns how many were removed.
 */
export function removeStaleWorkDirs(workRoot: string): number {
  const now = Date.now();
  let removed = 0;
  for (const name of readdirSync(workRoot)) {
    const p = join(workRoot, name);
    try {
      const m = WORK_DIR_NAME.exec(name);
      const stale = m !== null ? Number(m[1]) !== process.pid && !processAlive(Number(m[1])) : now - statSync(p).mtimeMs > STALE_WORK_DIR_MS;
      if (!stale) continue;
      rmSync(p, { recursive: true, force: true });
      removed++;
    } catch {
      // removed by a concurrent judge
    }
  }
  return removed;
}
