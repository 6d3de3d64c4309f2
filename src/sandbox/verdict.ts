/**
 * Verdicts as pure functions of what a run produced: one sandboxed test run -> a `TestResult`, and
 * a program's build outcome and test results -> its `ProgramResult`. No processes, no files, so
 * every rule is testable without bubblewrap or a toolchain.
 */
import type { ComparatorName, ExecutionResult, Program, ProgramResult, TestCase, TestResult, Verdict } from '../core/execution.js';
import { compareAny, jsonEqual } from './compare.js';
import { findJudgeLanguage, judgeLanguage, judgeLanguageIds } from './languages/index.js';
import type { RunLimits } from './languages/tools.js';

/**
 * Out-of-memory messages on stderr: glibc's and the kernel's (`Cannot allocate memory`), the Go
 * runtime's (`out of memory`), and each judged language's own (`JudgeLanguage.outOfMemory`:
 * `MemoryError`, `std::bad_alloc`, ...). Any of them counts whatever the program's language (a
 * program may start another runtime).
 */
const ANY_OOM = /out of memory|Cannot allocate memory/;

function outOfMemory(stderr: string): boolean {
  if (ANY_OOM.test(stderr)) return true;
  for (const id of judgeLanguageIds()) if (findJudgeLanguage(id)?.outOfMemory?.test(stderr) === true) return true;
  return false;
}

/** What {@link classifyRun} needs besides the run and its test. */
export interface ClassifyOptions {
  /** The limits the run had (time and memory verdicts compare against them). */
  limits: RunLimits;
  /** The program's language: its module says whether peak RSS is held against `memoryLimitMb` (not Java's: -Xmx caps its heap). */
  language: string;
  comparator: ComparatorName;
  /** Tolerance of the `tokens` comparator (absolute or relative), also for functional JSON outputs. */
  tolerance: number;
  /** True when the judge was interrupted (the run is then a `sandbox_error`). Default false. */
  aborted?: boolean;
  /**
   * `program` tests: the run's proof token, which the sealed test program prints when it reaches its
   * end (languages/sealing.ts); exit 0 without it on a line of stdout is not a pass. Absent: exit
   * status alone (a test program without `main`).
   */
  completionToken?: string;
  /**
   * The run's proof file (random hex holding the token, languages/sealing.ts): a line of stdout
   * other than the token that is a piece of it (12 characters or more) shows the program read the
   * judge's descriptor, and the test is `wrong_answer`.
   */
  proofFile?: string;
}

/**
 * The last non-empty line of `s` that is not a stack frame (Java's `\tat …`, `... 3 more`), at most
 * 200 characters (the detail of an error verdict).
 */
export function lastLine(s: string): string {
  const lines = s.trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!/^\s+(?:at\s|\.\.\.\s+\d+\s+more)|^\s*$/.test(lines[i])) return lines[i].slice(0, 200);
  }
  return (lines[lines.length - 1] ?? '').slice(0, 200);
}

/**
 * The verdict of one test run, checked in this order: interrupted -> `sandbox_error`; stdout over
 * its cap -> `output_limit`; the process tree past its memory / CPU-time limit -> `memory_limit` /
 * `time_limit`; killed by the wall clock -> `time_limit`; no status after a death by signal (the
 * program killed the harness) -> `runtime_error`; no status otherwise -> `sandbox_error`;
 * SIGXCPU (exit 152) or CPU time over `timeLimitMs` -> `time_limit`; SIGXFSZ (153) ->
 * `output_limit`; an out-of-memory message with a non-zero exit, or peak RSS over `memoryLimitMb`
 * (not Java) -> `memory_limit`; other non-zero exits -> `runtime_error`; then the output: program
 * tests pass on exit 0, functional tests compare JSON (numbers within `tolerance` for `tokens`),
 * stdin tests use the comparator against any accepted output.
 */
export function classifyRun(r: ExecutionResult, test: TestCase, options: ClassifyOptions): TestResult {
  const { limits, language, comparator, tolerance } = options;
  const base = { runMs: Math.round(r.wallMs), cpuMs: Math.round(r.cpuMs), memoryKb: r.memoryKb, exitCode: r.exitCode };
  const v = (verdict: Verdict, detail?: string): TestResult => (detail === undefined ? { verdict, ...base } : { verdict, ...base, detail });
  if (options.aborted === true) return v('sandbox_error', 'interrupted');
  if (r.stdoutTruncated) return v('output_limit', `more than ${limits.outputLimitBytes} bytes of output`);
  if (r.treeLimit === 'memory') return v('memory_limit', `the process tree's memory passed its limit (peak ${r.memoryKb} KiB)`);
  if (r.treeLimit === 'time') return v('time_limit', `CPU time of the process tree ${Math.round(r.cpuMs)} ms`);
  if (r.timedOut) return v('time_limit', `killed after ${Math.round(r.wallMs)} ms wall-clock`);
  if (r.exitCode !== null && r.exitCode >= 128 && r.cpuMs < 0) {
    // The sandbox ran but its in-box harness died by a signal before reporting: the program killed it.
    return v('runtime_error', `the program killed the judge's harness (exit ${r.exitCode})`);
  }
  if (r.exitCode === null || r.cpuMs < 0) return v('sandbox_error', lastLine(r.stderr) || 'the sandbox did not report a status');
  if (r.exitCode === 152 || r.cpuMs > limits.timeLimitMs) return v('time_limit', `CPU time ${Math.round(r.cpuMs)} ms`);
  if (r.exitCode === 153) return v('output_limit', 'file size limit exceeded');
  const rssLimited = judgeLanguage(language).residentMemoryIsLimit && r.memoryKb > limits.memoryLimitMb * 1024;
  if ((r.exitCode !== 0 && outOfMemory(r.stderr)) || rssLimited) {
    return v('memory_limit', rssLimited ? `peak memory ${r.memoryKb} KiB` : lastLine(r.stderr));
  }
  if (r.exitCode !== 0) {
    // a program test's runner may report its failure on stdout (go test's `--- FAIL`)
    const why = lastLine(r.stderr) || (test.kind === 'program' ? lastLine(r.stdout) : '');
    return v('runtime_error', `exit ${r.exitCode}${why ? `: ${why}` : ''}`);
  }
  if (test.kind === 'program') {
    const lines = r.stdout.split('\n');
    const file = options.proofFile;
    if (file !== undefined && lines.some((l) => l.trim() !== options.completionToken && l.trim().length >= 12 && file.includes(l.trim()))) {
      return v('wrong_answer', "stdout shows part of the judge's proof file: the program read the descriptor meant for the test's end");
    }
    if (options.completionToken !== undefined && !lines.includes(options.completionToken)) {
      return v('wrong_answer', 'exit status 0 before the test program reached its end (no proof token on stdout): an early exit is not a pass');
    }
    return v('accepted');
  }
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

/** How a program's judging went, as {@link createProgramResult} summarises it. */
export interface ProgramOutcome {
  /** Number of tests of the problem (all count, also those not run after a stop-early). */
  testsTotal: number;
  /** Results of the tests that ran, in test order. */
  results: readonly TestResult[];
  /** The failed build's verdict (`compile_error`, `sandbox_error`), if the build failed. */
  failedBuild?: Verdict;
  /** Compile time, milliseconds (summed over builds of program tests). */
  compileMs: number;
  /** Compiler output (capped) of the failed build. */
  compileOutput?: string;
  /** Source changes the judge made, in words. */
  normalisations: readonly string[];
  comparator: ComparatorName;
  sandboxed: boolean;
  /** What the candidate's code does that a forged pass would do (program tests), in words. */
  suspicions?: readonly string[];
}

/**
 * The program's result: its verdict is the failed build's, else the first non-accepted test's,
 * else `accepted` (`sandbox_error` when there are no tests); `passRate` counts every test of the
 * problem (unrun ones fail); `maxMemoryKb` is -1 when no test ran.
 */
export function createProgramResult(program: Program, outcome: ProgramOutcome): ProgramResult {
  const { results, testsTotal } = outcome;
  const testsPassed = results.filter((r) => r.verdict === 'accepted').length;
  const firstBad = results.find((r) => r.verdict !== 'accepted');
  const verdict: Verdict = outcome.failedBuild ?? firstBad?.verdict ?? (testsTotal === 0 ? 'sandbox_error' : 'accepted');
  const mem = results.map((r) => r.memoryKb);
  const out: ProgramResult = {
    id: program.id,
    problemId: program.problemId,
    language: program.language,
    verdict,
    passed: verdict === 'accepted',
    passRate: testsTotal === 0 ? 0 : testsPassed / testsTotal,
    testsPassed,
    testsTotal,
    tests: [...results],
    compileMs: outcome.compileMs,
    maxRunMs: results.reduce((m, r) => Math.max(m, r.runMs), 0),
    maxMemoryKb: mem.length === 0 ? -1 : Math.max(...mem),
    normalisations: [...outcome.normalisations],
    comparator: outcome.comparator,
    sandboxed: outcome.sandboxed,
  };
  if (outcome.compileOutput !== undefined) out.compileOutput = outcome.compileOutput;
  if (outcome.suspicions !== undefined && outcome.suspicions.length > 0) out.suspicions = [...outcome.suspicions];
  return out;
}
