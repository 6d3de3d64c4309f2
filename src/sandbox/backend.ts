/**
 * The `JudgeBackend` interface: what callers (bench, construct, the CLI) use to judge programs, so a
 * remote judge service can be added later without touching them. The local bubblewrap backend
 * (`createLocalJudge`) is the default.
 */
import type { Program, ProgramResult, TestCase } from '../core/execution.js';

/** Counters a backend keeps (for benchmarks and reports). */
export interface JudgeStats {
  /** Compiler invocations (one per compiled program and test-program build). */
  compiles: number;
  /** Test runs (sandboxed processes running a program). */
  runs: number;
  /**
   * Most sandboxed processes (compiles, test runs, the precompiled-header build) alive at once,
   * counted around each process, not by the worker pool; at most the judge's `jobs`.
   */
  peakProcesses?: number;
  /** Of `compiles`, those done by a warm compiler process (the local judge's Java servers). */
  warmCompiles?: number;
  /** Builds served from the local judge's kept builds (`keepBuildsMb`) instead of compiling. */
  buildsReused?: number;
  /** Of the local judge's processes, those started by its process helper (the judge's process was big: process-host.ts). */
  hostedRuns?: number;
}

/** Per-call options of {@link JudgeBackend.judge}. */
export interface JudgeCallOptions {
  /** Aborting kills running processes; the call then resolves with `sandbox_error` results. */
  signal?: AbortSignal;
}

/** A judge: compiles a program once, runs it on every test, returns verdicts as values. */
export interface JudgeBackend {
  /** Secret-free JSON describing the backend and its settings (recorded with results). */
  describe(): Record<string, unknown>;
  /** Judges `program` on `tests`. Never rejects because of the program; rejects for setup failures. */
  judge(program: Program, tests: readonly TestCase[], options?: JudgeCallOptions): Promise<ProgramResult>;
  /** Counters since creation. */
  stats(): JudgeStats;
  /** Releases resources (temporary directories). */
  close(): Promise<void>;
}
