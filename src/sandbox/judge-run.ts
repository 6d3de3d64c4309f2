/**
 * Judging many programs into a resumable JSONL file: looks up each program's tests (the caller
 * decides where they come from, e.g. dataset's `createLcbTestLookup`), judges it with a
 * `JudgeBackend`, appends one line per program, and skips programs already judged with identical
 * code, tests and settings (keyed by a hash) when re-run.
 */
import { renderTable } from '../core/table.js';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { forEachBounded } from '../core/bounded-work.js';
import { CorebError } from '../core/errors.js';
import { processAlive } from '../core/process-alive.js';
import { VERDICTS, type BackendStamp, type LanguageId, type Program, type ProgramResult, type TestCase, type Verdict } from '../core/execution.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../core/progress.js';
import type { JudgeBackend } from './backend.js';

/** Options of {@link runJudging}. */
export interface JudgeRunOptions {
  judge: JudgeBackend;
  /**
   * The tests of a problem id: `undefined` when the problem is unknown (the program is counted in
   * `missingProblem`), empty when it has no tests (counted in `noTests`).
   */
  testsOf: (problemId: string) => readonly TestCase[] | undefined;
  programs: readonly Program[];
  /** Output JSONL; appended to, and read first to skip finished programs. */
  outFile: string;
  /** Programs in flight at once; default 2 × the judge's jobs (keeps every worker busy). */
  concurrency?: number;
  progress?: Progress;
  logger?: Logger;
  /** Aborting stops starting programs; finished lines stay, unfinished programs are not written. */
  signal?: AbortSignal;
  /**
   * A verdict cache shared by every run (content-addressed by {@link judgeKey}): a program judged
   * before with the same code, tests and judge settings is taken from it, not run again; new
   * verdicts are added to it, except `sandbox_error` (a failure of the judge, not of the program).
   */
  store?: VerdictStore;
}

/** A verdict cache for {@link runJudging} (see `openJsonFileStore` in cache/). */
export interface VerdictStore {
  get(key: string): JudgeRecord | undefined;
  put(record: JudgeRecord): void;
}

/** Counts of one run. */
export interface JudgeRunSummary {
  /** Programs judged now. */
  judged: number;
  /** Programs skipped because the output already had them with the same key. */
  resumed: number;
  /** Programs whose verdict came from the verdict cache ({@link JudgeRunOptions.store}). */
  fromStore: number;
  /** Programs whose problem `testsOf` does not know (not judged). */
  missingProblem: number;
  /** Programs whose problem has no tests (not judged). */
  noTests: number;
  /** Verdict counts per language over judged + resumed programs. */
  byLanguage: Record<string, Record<Verdict, number>>;
}

/** The snake_case JSONL record written per program (the `coreb exec` output contract). */
export interface JudgeRecord {
  id: string;
  problem_id: string;
  language: LanguageId;
  verdict: Verdict;
  passed: boolean;
  pass_rate: number;
  tests_passed: number;
  tests_total: number;
  tests: Array<{ verdict: Verdict; run_ms: number; cpu_ms: number; memory_kb: number; exit_code: number | null; detail?: string }>;
  compile_ms: number;
  max_run_ms: number;
  max_memory_kb: number;
  normalisations: string[];
  compile_output?: string;
  comparator: string;
  /** True only for coreb's own sandbox (false with --no-sandbox and for remote services). */
  sandboxed: boolean;
  /** Program tests: what the candidate's code does that a forged pass would do (recorded, not judged). */
  suspicions?: string[];
  /** The remote service that judged it, its version and what it could not honour (absent: the local judge). */
  backend?: BackendStamp;
  /** Hash of code, language, tests and judge settings; equal keys are not judged again. */
  key: string;
}

/** The output record of a result (wire names, snake_case). */
export function toJudgeRecord(r: ProgramResult, key: string): JudgeRecord {
  const rec: JudgeRecord = {
    id: r.id,
    problem_id: r.problemId,
    language: r.language,
    verdict: r.verdict,
    passed: r.passed,
    pass_rate: r.passRate,
    tests_passed: r.testsPassed,
    tests_total: r.testsTotal,
    tests: r.tests.map((t) => {
      const o: JudgeRecord['tests'][number] = {
        verdict: t.verdict,
        run_ms: t.runMs,
        cpu_ms: t.cpuMs,
        memory_kb: t.memoryKb,
        exit_code: t.exitCode,
      };
      if (t.detail !== undefined) o.detail = t.detail;
      return o;
    }),
    compile_ms: r.compileMs,
    max_run_ms: r.maxRunMs,
    max_memory_kb: r.maxMemoryKb,
    normalisations: r.normalisations,
    comparator: r.comparator,
    sandboxed: r.sandboxed,
    key,
  };
  if (r.compileOutput !== undefined) rec.compile_output = r.compileOutput;
  if (r.backend !== undefined) rec.backend = r.backend;
  if (r.suspicions !== undefined) rec.suspicions = r.suspicions;
  return rec;
}

/** The resume key: sha256 of the program, its tests and the judge's description (settings). */
export function judgeKey(program: Program, tests: readonly TestCase[], settings: Record<string, unknown>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([program.id, program.problemId, program.language, program.code]));
  h.update(JSON.stringify(tests));
  h.update(JSON.stringify(settings));
  return h.digest('hex').slice(0, 32);
}

/**
 * Reads finished records of `file` by key; blank lines are skipped, and a torn last line (a killed
 * run) is cut from the file at its exact byte offset.
 */
function readFinished(file: string): Map<string, JudgeRecord> {
  const done = new Map<string, JudgeRecord>();
  if (!existsSync(file)) return done;
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  // Character offset of the end of the last good line (blank lines included, so a cut is exact).
  let good = 0;
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    const start = at;
    at += lines[i].length + 1;
    if (lines[i].trim() === '') {
      if (start === good) good = Math.min(at, text.length);
      continue;
    }
    try {
      const rec = JSON.parse(lines[i]) as JudgeRecord;
      if (typeof rec.key === 'string') done.set(rec.key, rec);
      good = Math.min(at, text.length);
    } catch {
      if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim() !== '')) {
        throw new CorebError('PARSE', `malformed JSON in the middle of the output file; move it away or fix line ${i + 1}`, {
          file,
          line: i + 1,
        });
      }
      writeFileSync(file, text.slice(0, good));
    }
  }
  return done;
}

/**
 * Takes `<file>.lock` (created exclusively, holding our pid) so two runs never append to one
 * output; a lock whose process is gone (a killed run) is taken over.
 * @returns the release function.
 * @throws CorebError `IO` naming the file and the pid of the run holding it.
 */
function lockOutput(file: string): () => void {
  const lock = `${file}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CorebError('IO', `cannot create the lock ${lock} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
          file,
          cause: e,
        });
      }
      let holder = Number.NaN;
      try {
        holder = Number.parseInt(readFileSync(lock, 'utf8'), 10);
      } catch {
        // removed meanwhile: try again
      }
      if (Number.isInteger(holder) && processAlive(holder)) {
        throw new CorebError(
          'IO',
          `another coreb exec (pid ${holder}) is writing it; wait for it to finish or give another --out (remove ${lock} if that process is not coreb)`,
          { file },
        );
      }
      rmSync(lock, { force: true });
    }
  }
  throw new CorebError('IO', `cannot take the lock ${lock}: another run keeps re-creating it`, { file });
}

function emptyCounts(): Record<Verdict, number> {
  return Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
}

/**
 * Judges `programs` against their problems' tests (from `testsOf`) and appends one
 * {@link JudgeRecord} per program to `outFile`.
 * @throws CorebError `INTERRUPTED` when `signal` aborts (the file holds every finished program).
 */
export async function runJudging(options: JudgeRunOptions): Promise<JudgeRunSummary> {
  const progress = options.progress ?? silentProgress;
  const logger = options.logger ?? silentLogger;
  const settings = options.judge.describe();
  const concurrency = options.concurrency ?? Math.max(1, 2 * Number(settings.jobs ?? 1));
  const summary: JudgeRunSummary = { judged: 0, resumed: 0, fromStore: 0, missingProblem: 0, noTests: 0, byLanguage: {} };
  const { jobs: _jobs, ...keySettings } = settings;
  const unlock = lockOutput(options.outFile);
  try {
    return await judgeUnlocked(options, summary, keySettings, concurrency, progress, logger);
  } finally {
    unlock();
  }
}

/** {@link runJudging} once the output is locked. */
async function judgeUnlocked(
  options: JudgeRunOptions,
  summary: JudgeRunSummary,
  keySettings: Record<string, unknown>,
  concurrency: number,
  progress: Progress,
  logger: Logger,
): Promise<JudgeRunSummary> {
  const { judge, testsOf, programs, outFile, signal } = options;
  const count = (language: string, verdict: Verdict): void => {
    (summary.byLanguage[language] ??= emptyCounts())[verdict]++;
  };
  const finished = readFinished(outFile);
  const todo: Array<{ program: Program; tests: readonly TestCase[]; key: string }> = [];
  const missing = new Set<string>();
  for (const program of programs) {
    const tests = testsOf(program.problemId);
    if (tests === undefined) {
      summary.missingProblem++;
      missing.add(program.problemId);
      continue;
    }
    if (tests.length === 0) {
      summary.noTests++;
      continue;
    }
    const key = judgeKey(program, tests, keySettings);
    const prev = finished.get(key);
    if (prev !== undefined) {
      summary.resumed++;
      count(prev.language, prev.verdict);
      continue;
    }
    todo.push({ program, tests, key });
  }
  if (missing.size > 0) {
    logger.warn(
      `${summary.missingProblem} program(s) skipped: problem not in the problems file (${[...missing].slice(0, 5).join(', ')}` +
        `${missing.size > 5 ? ', …' : ''})`,
    );
  }
  if (summary.resumed > 0) logger.info(`resuming: ${summary.resumed} program(s) already judged in ${outFile}`);
  const fh = await open(outFile, 'a');
  const write = async (rec: JudgeRecord): Promise<void> => {
    await fh.write(JSON.stringify(rec) + '\n').catch((e: unknown) => {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new CorebError(
        'IO',
        `cannot write the output (${code}${code === 'ENOSPC' ? ': no space left on the device' : ''}); the programs judged so far are kept, re-run to resume`,
        { file: outFile, cause: e },
      );
    });
  };
  // Verdicts already paid for by another run (the cache): journaled here, not run again.
  const store = options.store;
  const toRun = store === undefined ? todo : [];
  if (store !== undefined) {
    for (const item of todo) {
      const hit = store.get(item.key);
      if (hit === undefined) {
        toRun.push(item);
        continue;
      }
      await write(hit);
      summary.fromStore++;
      count(hit.language, hit.verdict);
    }
    if (summary.fromStore > 0)
      logger.info(`${summary.fromStore} program(s) taken from the verdict cache (judged before with the same code, tests and settings)`);
  }
  progress.start('judging', toRun.length);
  try {
    await forEachBounded(
      toRun,
      concurrency,
      async (item) => {
        const r = await judge.judge(item.program, item.tests, { signal });
        if (signal?.aborted) return;
        const rec = toJudgeRecord(r, item.key);
        await write(rec);
        if (store !== undefined && rec.verdict !== 'sandbox_error') store.put(rec);
        summary.judged++;
        count(r.language, r.verdict);
        progress.tick();
      },
      signal,
    );
  } finally {
    progress.done();
    await fh.close();
  }
  if (signal?.aborted) {
    throw new CorebError('INTERRUPTED', `judging interrupted after ${summary.judged} program(s); re-run the same command to resume`);
  }
  return summary;
}

/** Renders the verdict counts per language as a fixed-width table (a total row and column included). */
export function renderJudgeSummary(summary: JudgeRunSummary): string {
  const langs = Object.keys(summary.byLanguage).sort();
  const used = VERDICTS.filter((v) => langs.some((l) => summary.byLanguage[l][v] > 0));
  const head = ['language', ...used, 'total', 'pass%'];
  const rows: string[][] = [];
  const total = emptyCounts();
  for (const l of langs) {
    const c = summary.byLanguage[l];
    const n = VERDICTS.reduce((s, v) => s + c[v], 0);
    VERDICTS.forEach((v) => (total[v] += c[v]));
    rows.push([l, ...used.map((v) => String(c[v])), String(n), n ? ((100 * c.accepted) / n).toFixed(1) : '-']);
  }
  const n = VERDICTS.reduce((s, v) => s + total[v], 0);
  rows.push(['all', ...used.map((v) => String(total[v])), String(n), n ? ((100 * total.accepted) / n).toFixed(1) : '-']);
  return renderTable({ header: head, rows });
}

/**
 * The records of a `coreb exec` output, the last one per program id (a re-run with other settings
 * appends newer verdicts). Blank lines and a torn last line are skipped.
 * @throws CorebError `NOT_FOUND` when the file is missing, `PARSE` (file, line) on a malformed line
 * before the last, `VALIDATION` when a line is not a verdict record.
 */
export function readJudgeRecords(file: string): JudgeRecord[] {
  if (!existsSync(file)) throw new CorebError('NOT_FOUND', 'no such verdicts file (the JSONL a coreb exec run writes)', { file });
  const lines = readFileSync(file, 'utf8').split('\n');
  const byId = new Map<string, JudgeRecord>();
  const last = lines.reduce((at, l, i) => (l.trim() === '' ? at : i), -1);
  lines.forEach((l, i) => {
    if (l.trim() === '') return;
    let rec: JudgeRecord;
    try {
      rec = JSON.parse(l) as JudgeRecord;
    } catch {
      if (i === last) return;
      throw new CorebError('PARSE', 'malformed JSON', { file, line: i + 1 });
    }
    if (typeof rec?.id !== 'string' || typeof rec.passed !== 'boolean' || typeof rec.language !== 'string') {
      throw new CorebError('VALIDATION', 'not a coreb exec verdict record: expected id (string), language (string), passed (boolean)', {
        file,
        line: i + 1,
      });
    }
    byId.set(rec.id, rec);
  });
  return [...byId.values()];
}
