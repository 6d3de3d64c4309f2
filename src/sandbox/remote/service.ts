/**
 * The seam between coreb's remote judge (remote-judge.ts) and one execution service's wire API
 * (SandboxFusion, Judge0, Piston): a service compiles and runs one source file with one stdin and
 * reports what happened; the judge prepares sources, compares outputs and turns outcomes into
 * verdicts exactly as the local judge does (verdict.ts).
 */
import { CorebError } from '../../core/errors.js';
import type { RunLimits } from '../languages/tools.js';

/** One compile-and-run request. */
export interface RemoteSubmission {
  /** The judged language's id (`cpp`; its names on each service are in its module's `remote`). */
  language: string;
  /** The main source file's name (e.g. `main.cpp`, `Main.java`) and text, as the local judge would write them. */
  fileName: string;
  text: string;
  /** Other source files beside it (functional drivers in Go and Ruby). */
  extraFiles: ReadonlyArray<{ name: string; text: string }>;
  /** Java: the class to run. */
  mainClass?: string;
  /** Standard input of the run. */
  stdin: string;
  /** Per-run limits: CPU time (ms), memory (MiB), output (bytes). */
  limits: RunLimits;
  /** Wall-clock limit of the compile, milliseconds. */
  compileTimeoutMs: number;
  /** C++ compiler flags asked for. */
  cxxFlags: readonly string[];
}

/**
 * What the service reported. `ran`: the program started and ended by itself (any exit status; the
 * judge classifies it); the other outcomes are the service's own findings. `judge_error` is the
 * service failing (an internal error, an unsupported request), never the program's fault.
 */
export interface RemoteRun {
  outcome: 'ran' | 'compile_error' | 'time_limit' | 'memory_limit' | 'output_limit' | 'runtime_error' | 'judge_error';
  /** Exit status (128 + signal when killed by one); null when unknown. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Compiler output, for `compile_error`. */
  compileOutput?: string;
  /** Wall-clock time of the run, milliseconds (-1 unknown). */
  wallMs: number;
  /** CPU time of the run, milliseconds (-1 unknown). */
  cpuMs: number;
  /** Peak memory of the run, KiB (-1 unknown). */
  memoryKb: number;
  /** The service's words for a non-`ran` outcome. */
  detail?: string;
}

/** A service's identity, as recorded with every verdict. */
export interface ServiceInfo {
  /** The service's version (from its about/runtimes endpoint), or `unknown`. */
  version: string;
  /** The language version the service runs for each language it has (absent: it has none). */
  runtimes: Partial<Record<string, string>>;
}

/** One remote execution service. */
export interface RemoteService {
  /** `sandboxfusion`, `judge0` or `piston`. */
  readonly name: string;
  /** The base URL (never with credentials). */
  readonly url: string;
  /** Most submissions sent in one request (Judge0's batch API takes 20; the others one). */
  readonly batchSize: number;
  /** Asks the service who it is and what it runs. */
  info(signal?: AbortSignal): Promise<ServiceInfo>;
  /**
   * What of `sub` the service cannot honour, in words (e.g. a CPU-time limit it only enforces as
   * wall-clock time, compiler flags it does not take); recorded with each verdict.
   */
  unhonoured(sub: RemoteSubmission): string[];
  /** Why the service cannot run `sub` at all (then the verdict is `sandbox_error`), or undefined. */
  refuse(sub: RemoteSubmission): string | undefined;
  /** Runs submissions (at most `batchSize`); one result each, in order. Rejects only when the service cannot be reached. */
  run(subs: readonly RemoteSubmission[], signal?: AbortSignal): Promise<RemoteRun[]>;
}

/** A run with the service's judgement of a failure (shared by the three services' mappers). */
export function failedRun(outcome: RemoteRun['outcome'], detail: string, partial: Partial<RemoteRun> = {}): RemoteRun {
  return { exitCode: null, stdout: '', stderr: '', wallMs: -1, cpuMs: -1, memoryKb: -1, ...partial, outcome, detail };
}

/** The wall-clock limit sent for a CPU-time limit (the local judge's rule: 3x + 1 s). */
export function wallLimitMs(cpuMs: number): number {
  return 3 * cpuMs + 1000;
}

/** A CorebError for a service answering, but not as its API documents. */
export function protocolError(service: string, what: string): CorebError {
  return new CorebError('SANDBOX', `${service}: unexpected answer: ${what}; is the URL that service's API root?`);
}
