/**
 * A judge backend on a remote execution service (SandboxFusion, Judge0, Piston): the same source
 * preparation (normalise.ts), output comparison and verdict rules (verdict.ts) as the local judge, so
 * only the place the program runs differs. Services compile per submission, so every test is one
 * compile-and-run; tests go out in batches of the service's size with at most `jobs` requests at
 * once; transient HTTP failures are retried with backoff (http.ts). Every verdict records the
 * service, its version and what of the limits it could not honour.
 */
import { SEALING_VERSION } from '../languages/sealing.js';
import { randomBytes } from 'node:crypto';
import {
  EXEC_LANGUAGES,
  type ComparatorName,
  type ExecutionResult,
  type Program,
  type ProgramResult,
  type TestCase,
  type TestResult,
  type Verdict,
} from '../../core/execution.js';
import type { JudgeBackend, JudgeCallOptions, JudgeStats } from '../backend.js';
import { COMPARATOR_RULES_VERSION } from '../compare.js';
import { checkFunctional } from '../functional.js';
import { findJudgeLanguage, judgeLanguage } from '../languages/index.js';
import { resolveRunLimits, type RunLimits } from '../languages/tools.js';
import { prepareSource, type NormalisationName, type PreparedSource } from '../normalise.js';
import { OFFICIAL_HARNESS } from '../official-harness.js';
import { createSlotPool } from '../../core/bounded-work.js';
import { CXX_FLAGS } from '../languages/cpp.js';
import { classifyRun, createProgramResult } from '../verdict.js';
import type { RemoteRun, RemoteService, RemoteSubmission, ServiceInfo } from './service.js';

/** Options of {@link createRemoteJudge}. */
export interface RemoteJudgeOptions {
  /** Requests in flight at once; default 4. */
  jobs?: number;
  /** Output comparator; default `tokens`. */
  comparator?: ComparatorName;
  /** Tolerance of `tokens`; default 1e-6. */
  tolerance?: number;
  /** Stop at the first failing test; default false. */
  stopEarly?: boolean;
  /** CPU-time limit per test, milliseconds, every language (default the local judge's, 6000). */
  timeLimitMs?: number;
  /** Memory limit per test, MiB, every language (default 512). */
  memoryLimitMb?: number;
  /** Compile limit, milliseconds; default 60000. */
  compileTimeoutMs?: number;
  /** Source changes; default `coreb` (see normalise.ts). */
  normalise?: NormalisationName;
}

/**
 * Creates a judge on `service`: asks it for its version and runtimes first (a CorebError `HTTP` when it
 * cannot be reached, `SANDBOX` when it answers but not as that API).
 */
export async function createRemoteJudge(service: RemoteService, options: RemoteJudgeOptions = {}): Promise<JudgeBackend> {
  const comparator = options.comparator ?? 'tokens';
  const tolerance = options.tolerance ?? 1e-6;
  const stopEarly = options.stopEarly ?? false;
  const compileTimeoutMs = options.compileTimeoutMs ?? 60000;
  const normalise = options.normalise ?? 'coreb';
  const pool = createSlotPool(options.jobs ?? 4);
  const info: ServiceInfo = await service.info();
  const stats: JudgeStats = { compiles: 0, runs: 0, peakProcesses: 0 };
  let alive = 0;

  const limitsFor = (language: string): RunLimits => resolveRunLimits(judgeLanguage(language).limits, language, options);

  const submission = (language: string, program: Program, prepared: PreparedSource, test: TestCase): RemoteSubmission => ({
    language,
    fileName: prepared.fileName,
    text: prepared.text,
    extraFiles: prepared.extraFiles ?? [],
    mainClass: prepared.mainClass,
    stdin: test.kind === 'program' ? '' : test.input,
    limits: limitsFor(program.language),
    compileTimeoutMs,
    cxxFlags: prepared.cxxFlags ?? CXX_FLAGS,
  });

  /** Sends `subs` in batches through the pool; results in order. */
  const send = async (subs: RemoteSubmission[], signal?: AbortSignal): Promise<RemoteRun[]> => {
    const batches: RemoteSubmission[][] = [];
    for (let i = 0; i < subs.length; i += service.batchSize) batches.push(subs.slice(i, i + service.batchSize));
    const out = await Promise.all(
      batches.map((b) =>
        pool.run(async () => {
          stats.peakProcesses = Math.max(stats.peakProcesses ?? 0, ++alive);
          try {
            stats.compiles += b.filter((s) => judgeLanguage(s.language).compiled === true).length;
            stats.runs += b.length;
            return await service.run(b, signal);
          } finally {
            alive--;
          }
        }),
      ),
    );
    return out.flat();
  };

  const toTest = (run: RemoteRun, test: TestCase, language: string, token: string | undefined, aborted: boolean): TestResult => {
    const base = { runMs: Math.max(0, Math.round(run.wallMs)), cpuMs: Math.round(run.cpuMs), memoryKb: run.memoryKb, exitCode: run.exitCode };
    const limits = limitsFor(language);
    const fixed = (verdict: Verdict, detail: string): TestResult => ({ verdict, ...base, detail });
    if (aborted) return fixed('sandbox_error', 'interrupted');
    switch (run.outcome) {
      case 'time_limit':
        return fixed('time_limit', run.detail ?? 'time limit');
      case 'memory_limit':
        return fixed('memory_limit', run.detail ?? 'memory limit');
      case 'output_limit':
        return fixed('output_limit', run.detail ?? 'output limit');
      case 'judge_error':
        return fixed('sandbox_error', `${service.name}: ${run.detail ?? 'internal error'}`);
      case 'compile_error':
        return fixed('compile_error', run.detail ?? 'compile error');
      default: {
        if (run.stdout.length > limits.outputLimitBytes) return fixed('output_limit', `more than ${limits.outputLimitBytes} bytes of output`);
        const r: ExecutionResult = {
          exitCode: run.exitCode ?? (run.outcome === 'runtime_error' ? 1 : 0),
          stdout: run.stdout,
          stderr: run.stderr,
          stdoutTruncated: false,
          timedOut: false,
          wallMs: Math.max(0, run.wallMs),
          cpuMs: Math.max(0, run.cpuMs),
          memoryKb: run.memoryKb,
        };
        if (run.outcome === 'runtime_error' && r.exitCode === 0) r.exitCode = 1;
        const t = classifyRun(r, test, { limits, language, comparator, tolerance, ...(token !== undefined ? { completionToken: token } : {}) });
        return { ...t, cpuMs: Math.round(run.cpuMs) };
      }
    }
  };

  async function judge(program: Program, tests: readonly TestCase[], call: JudgeCallOptions = {}): Promise<ProgramResult> {
    const { signal } = call;
    const normalisations = new Set<string>();
    const suspicions = new Set<string>();
    const results: TestResult[] = [];
    let failedBuild: Verdict | undefined;
    let compileOutput: string | undefined;
    const unhonoured = new Set<string>();
    const programKind = tests.length > 0 && tests[0].kind === 'program';
    const kind = tests[0]?.kind ?? 'stdin';
    const refusal = kind === 'functional' ? checkFunctional(program.language, program.code, tests[0]?.funcName ?? '') : undefined;
    const language = findJudgeLanguage(program.language) !== undefined ? program.language : undefined;
    const runtime = language === undefined ? undefined : info.runtimes[language];
    if (refusal !== undefined) {
      failedBuild = refusal.verdict;
      compileOutput = refusal.reason;
    } else if (runtime === undefined || language === undefined) {
      failedBuild = 'sandbox_error';
      compileOutput = `${service.name} at ${service.url} has no ${program.language} runtime (it has ${Object.keys(info.runtimes).join(', ') || 'none'})`;
    } else {
      // One prepared source per test for program tests (each has its own test program and token).
      const items = tests.map((t) => {
        const token = programKind ? `coreb-done-${randomBytes(12).toString('hex')}` : undefined;
        const prepared = prepareSource(program.language, program.code, t.kind, t.kind === 'program' ? t.input : (t.funcName ?? ''), {
          normalise,
          ...(token !== undefined ? { proof: { channel: 'literal', token } as const } : {}),
        });
        return { test: t, token: prepared.proofToken, prepared, sub: submission(language, program, prepared, t) };
      });
      const first = items[0];
      const refused = first === undefined ? undefined : service.refuse(first.sub);
      for (const it of items) {
        it.prepared.normalisations.forEach((n) => normalisations.add(n));
        it.prepared.suspicions?.forEach((n) => suspicions.add(n));
      }
      if (refused !== undefined) {
        failedBuild = 'sandbox_error';
        compileOutput = `${service.name}: ${refused}`;
      } else {
        const groups = stopEarly ? items.map((i) => [i]) : [items];
        for (const group of groups) {
          const runs = await send(
            group.map((g) => g.sub),
            signal,
          );
          let stop = false;
          for (let i = 0; i < group.length; i++) {
            const run = runs[i];
            if (run.outcome === 'compile_error') {
              failedBuild = 'compile_error';
              compileOutput = (run.compileOutput ?? run.detail ?? '').slice(0, 4000);
              stop = true;
              break;
            }
            const t = toTest(run, group[i].test, program.language, group[i].token, signal?.aborted === true);
            results.push(t);
            if (stopEarly && t.verdict !== 'accepted') stop = true;
          }
          if (stop) break;
        }
        if (failedBuild !== undefined) results.length = 0;
      }
      // After the runs: a service may learn its instance's caps from the first answers.
      for (const it of items) service.unhonoured(it.sub).forEach((u) => unhonoured.add(u));
    }
    const r = createProgramResult(program, {
      testsTotal: tests.length,
      results,
      failedBuild,
      compileMs: 0,
      compileOutput,
      normalisations: [...normalisations],
      comparator,
      // coreb cannot know how a remote service isolates code: only its own sandbox is recorded as one
      sandboxed: false,
      ...(suspicions.size > 0 ? { suspicions: [...suspicions] } : {}),
    });
    r.backend = { name: service.name, version: info.version, ...(runtime !== undefined ? { runtime } : {}), unhonoured: [...unhonoured] };
    return r;
  }

  return {
    describe: () => ({
      backend: service.name,
      url: service.url,
      version: info.version,
      runtimes: info.runtimes,
      comparator,
      comparatorRules: COMPARATOR_RULES_VERSION,
      programTestSealing: SEALING_VERSION,
      tolerance,
      stopEarly,
      jobs: pool.size,
      compileTimeoutMs,
      limits: Object.fromEntries(EXEC_LANGUAGES.map((l) => [l, limitsFor(l)])),
      ...(normalise === 'official' ? { normalise, officialHarness: OFFICIAL_HARNESS } : {}),
    }),
    judge,
    stats: () => ({ ...stats }),
    async close() {
      // nothing held: every request is complete when judge() resolves
    },
  };
}
