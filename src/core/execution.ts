/**
 * The shapes of program execution that the sandbox produces and every other area reads: test cases,
 * verdicts, per-test and per-program results. Plain data only; no I/O here.
 */

/** Languages the execution judge runs (the five CoREB languages). */
export const EXEC_LANGUAGES = ['python', 'cpp', 'java', 'go', 'ruby'] as const;
/** A language the judge can run. */
export type ExecLanguage = (typeof EXEC_LANGUAGES)[number];

/**
 * The language of a program: one of the five built-in {@link ExecLanguage}s or the id of a language
 * module registered with the judge (`registerJudgeLanguage`); the judge refuses ids it does not know.
 */
export type LanguageId = ExecLanguage | (string & {});

/** True when `l` is one of the five built-in languages. */
export function isExecLanguage(l: string | undefined): l is ExecLanguage {
  return l !== undefined && (EXEC_LANGUAGES as readonly string[]).includes(l);
}

/**
 * Verdicts, per test and per program. A failing solution is a value, never an exception.
 * `sandbox_error` means the judge itself could not run the program (not the program's fault).
 */
export const VERDICTS = [
  'accepted',
  'wrong_answer',
  'time_limit',
  'memory_limit',
  'runtime_error',
  'compile_error',
  'output_limit',
  'sandbox_error',
] as const;
/** A judge verdict. */
export type Verdict = (typeof VERDICTS)[number];

/**
 * Test kinds: `stdin` feeds `input` and compares stdout; `functional` calls a method of
 * `class Solution` with the JSON-decoded lines of `input` and compares the JSON result (LiveCodeBench
 * LeetCode style); `program` appends `input` (a test program) to the candidate and passes on exit 0.
 */
export const TEST_KINDS = ['stdin', 'functional', 'program'] as const;
/** A test kind. */
export type TestKind = (typeof TEST_KINDS)[number];

/** Output comparison rules (chosen per run and recorded with every result). */
export const COMPARATORS = ['exact', 'tokens', 'lines'] as const;
/** An output comparison rule. */
export type ComparatorName = (typeof COMPARATORS)[number];

/** One test of a problem. */
export interface TestCase {
  kind: TestKind;
  /** stdin text (`stdin`), newline-separated JSON arguments (`functional`) or test program (`program`). */
  input: string;
  /** Acceptable outputs; any one matching passes. Empty for `program` tests. */
  outputs: string[];
  /** Method to call for `functional` tests (LiveCodeBench `metadata.func_name`). */
  funcName?: string;
}

/** A program to judge. */
export interface Program {
  /** Caller's id of the program (e.g. a CoREB `code_id`). */
  id: string;
  /** Problem the program solves. */
  problemId: string;
  /** The language id (a built-in one or a registered module's). */
  language: LanguageId;
  /** Source code as given. */
  code: string;
}

/** Raw outcome of one sandboxed process. */
export interface ExecutionResult {
  /** Exit status (128 + signal when killed by a signal, as shells report it); null if never started. */
  exitCode: number | null;
  /** Captured stdout (capped; see `stdoutTruncated`). */
  stdout: string;
  /** Captured stderr (capped). */
  stderr: string;
  /** True when stdout passed its cap and the process was killed for it. */
  stdoutTruncated: boolean;
  /** True when the judge's wall-clock timer killed the sandbox. */
  timedOut: boolean;
  /** Wall-clock time of the process, milliseconds. */
  wallMs: number;
  /** CPU time (user + system) of the program, milliseconds; -1 when not measured. */
  cpuMs: number;
  /** Peak resident memory of the program, KiB; -1 when not measured. */
  memoryKb: number;
  /**
   * Set when a limit on the whole process tree (every descendant, orphans included) stopped the
   * run: `time` for its total CPU time, `memory` for its total resident memory.
   */
  treeLimit?: 'time' | 'memory';
}

/** Result of one test. */
export interface TestResult {
  verdict: Verdict;
  /** Wall-clock run time, milliseconds. */
  runMs: number;
  /** CPU time, milliseconds (-1 unknown). */
  cpuMs: number;
  /** Peak resident memory, KiB (-1 unknown). */
  memoryKb: number;
  /** Exit status of the run (128 + signal when killed); null when it never started. */
  exitCode: number | null;
  /** Short human-readable reason for a non-accepted verdict (e.g. the first differing token). */
  detail?: string;
}

/** Result of judging one program on all (or, with stop-early, the first failing) tests. */
export interface ProgramResult {
  id: string;
  problemId: string;
  language: LanguageId;
  /** The failed build's verdict, else the first non-accepted test's, else `accepted` (`sandbox_error` with no tests). */
  verdict: Verdict;
  /** True when every test was accepted. */
  passed: boolean;
  /** `testsPassed / testsTotal` (0 when there are no tests). */
  passRate: number;
  testsPassed: number;
  /** Number of tests of the problem (all are counted, even when stopped early). */
  testsTotal: number;
  /** Per-test results, in test order (fewer than `testsTotal` when stopped early). */
  tests: TestResult[];
  /** Compile time, milliseconds (0 for interpreted languages). */
  compileMs: number;
  /** Longest wall-clock run over the tests, milliseconds (0 when no test ran). */
  maxRunMs: number;
  /** Peak memory over tests, KiB (-1 unknown). */
  maxMemoryKb: number;
  /** Source changes the judge made, in words (e.g. `cpp: added #include <bits/stdc++.h>`). */
  normalisations: string[];
  /** Compiler output (capped) when compilation failed. */
  compileOutput?: string;
  /** Comparator used. */
  comparator: ComparatorName;
  /** False when run with `--no-sandbox`, and for remote services (coreb cannot know how they isolate code). */
  sandboxed: boolean;
  /**
   * `program` tests: what the candidate's code does that a program written to forge a pass would do
   * (reads its environment or /proc, redefines equality or a check, hooks exit), in words. Recorded,
   * not judged: the sealed test decides the verdict (docs/exec.md "Threat model").
   */
  suspicions?: string[];
  /** Set when a remote service judged the program (absent: the local judge). */
  backend?: BackendStamp;
}

/** Where a remote verdict was made, recorded with it (`backend` in `coreb exec` output). */
export interface BackendStamp {
  /** The service (`sandboxfusion`, `judge0`, `piston`). */
  name: string;
  /** Its version as it reported it. */
  version: string;
  /** The language version it ran. */
  runtime?: string;
  /** What of coreb's limits and flags it could not honour for this program, in words. */
  unhonoured: string[];
}
