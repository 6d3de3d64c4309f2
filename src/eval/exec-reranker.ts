/**
 * The execution-aware reranker (`--reranker exec`): a problem statement carries worked examples,
 * and a program either reproduces them or not. Text-to-code runs each candidate program on the
 * query statement's samples; code-to-text runs the query program on each candidate statement's
 * samples; candidates that reproduce more samples rise, ties keep the first stage's order. It reads
 * texts and languages only: never qrels, verdicts or `meta_*` fields. Every run is journaled by
 * content, so a second identical run executes nothing.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { openRunJournal, type RunJournal } from '../cache/run-journal.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import type { Doc, Query, TaskName } from '../core/dataset.js';
import { forEachBounded } from '../core/bounded-work.js';
import { CorebError } from '../core/errors.js';
import { isExecLanguage, type ExecLanguage, type Program, type TestCase, type Verdict } from '../core/execution.js';
import { silentLogger, type Logger, type Progress } from '../core/progress.js';
import type { RerankOptions, RerankPair } from '../core/rerank.js';
import { parseStatementSamples, type StatementSample } from '../dataset/statement-samples.js';
import type { JudgeBackend } from '../sandbox/backend.js';
import { findCallTarget } from '../sandbox/call-target.js';
import { findJudgeLanguage } from '../sandbox/languages/index.js';
import { createBm25Index, type Bm25Index } from '../search/bm25.js';
import { createJudge, parseJudgeSpec } from '../sandbox/judge-spec.js';
import type { NormalisationName } from '../sandbox/normalise.js';
import type { SpecReranker } from './spec-reranker.js';

/** Settings of an `exec` reranker spec (`exec?timeoutMs=2000&judge=local&screen=true`). */
export interface ExecRerankerSettings {
  /** Where programs run: a `--judge` spec (`local`, `piston:URL`, …). Default `local`. */
  judge: string;
  /** CPU-time limit per sample run, milliseconds. Default 2000. */
  timeoutMs: number;
  /** Memory limit per run, MiB. Default 512. */
  memoryMb: number;
  /** Source changes of the judge (`coreb` or `official`). Default `coreb`. */
  normalise: NormalisationName;
  /**
   * Screening: a (program, statement) pair runs its first sample alone, and the rest only when that
   * one was reproduced (most candidates fail the first sample; this saves most runs, at one more
   * build for the pairs that go on). Default true. `false` runs every sample at once.
   */
  screen: boolean;
  /**
   * Sandboxed processes at once (local judge; default {@link EXEC_JOBS_PER_CORE} per core) or requests
   * in flight (remote; default the judge's).
   */
  jobs?: number;
  /**
   * Borrowed samples: `text` (default): a text-to-code query stating no example takes the samples
   * of the statement BM25 ranks first for it in the release's statement corpus (among its top 3,
   * the first with samples); `all`: also a code-to-code anchor takes those of the best-ranked of its
   * top 10 statements whose samples it reproduces (off by default: CoREB's code-to-code positives
   * are one model's passing programs in the target languages, and every passing program of the
   * problem rises; v202602 c2c nDCG@10 0.6963 -> 0.6890); `none`. Needs the statement corpus (the
   * code-to-text corpus, given by coreb eval); without it, such queries are passed through.
   */
  borrow: 'text' | 'all' | 'none';
}

/** Built programs the exec reranker's local judge keeps for reuse, MiB (see LocalJudgeOptions.keepBuildsMb). */
export const EXEC_KEEP_BUILDS_MB = 1024;

/**
 * Sandboxed processes at once per core for the local judge (`jobs` unset). Sample runs are short:
 * most of a run's wall time is starting it (namespaces, cgroup, interpreter), and with one process per
 * core the cores idle between runs (measured on v202602, t2c canonical + c2t full retro Python, depth 16,
 * 2 cores: 166 s at 2 processes, 138 s at 4; same verdicts). Limits are CPU time, so sharing a core
 * changes no verdict.
 */
export const EXEC_JOBS_PER_CORE = 2;

/** Statements searched for a text query's borrowed samples. */
export const BORROW_STATEMENTS = 3;
/** Statements a code-to-code anchor is run on to find the one whose samples it reproduces. */
export const BORROW_ANCHOR_STATEMENTS = 10;

/** Defaults of {@link ExecRerankerSettings}. */
export const EXEC_RERANKER_DEFAULTS: Readonly<ExecRerankerSettings> = {
  borrow: 'text',
  judge: 'local',
  timeoutMs: 2000,
  memoryMb: 512,
  normalise: 'coreb',
  screen: true,
};

/** The score formula, recorded in every description. */
export const EXEC_SCORE_FORMULA =
  'score = r/m + 0.001 * (k - i)/(k + 1): r of the m samples reproduced (with screening, 0 when the first sample is not), i the 0-based first-stage rank among the k candidates; so candidates order by reproduced share, then by the first stage (exact to k = 10,000 under float32 scores). Candidates with nothing to run score r/m = 0.';

/**
 * Parses `exec[?judge=..&timeoutMs=..&memoryMb=..&normalise=coreb|official&screen=true|false&jobs=N]`.
 * @throws CorebError `USAGE` naming the bad key or value.
 */
export function parseExecRerankerSpec(spec: string): ExecRerankerSettings {
  const t = spec.trim();
  if (t !== 'exec' && !t.startsWith('exec?'))
    throw new CorebError('USAGE', `reranker \`${spec}\` is not an exec spec (exec[?timeoutMs=2000&judge=local])`);
  const out: ExecRerankerSettings = { ...EXEC_RERANKER_DEFAULTS };
  const valid = 'judge, timeoutMs, memoryMb, normalise, screen, borrow, jobs';
  for (const [key, value] of new URLSearchParams(t.slice(5))) {
    const int = (min: number): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < min)
        throw new CorebError('USAGE', `reranker \`${spec}\`: ${key} must be an integer >= ${min}, got \`${value}\``);
      return n;
    };
    if (key === 'judge') {
      parseJudgeSpec(value);
      out.judge = value;
    } else if (key === 'timeoutMs') out.timeoutMs = int(1);
    else if (key === 'memoryMb') out.memoryMb = int(16);
    else if (key === 'jobs') out.jobs = int(1);
    else if (key === 'normalise') {
      if (value !== 'coreb' && value !== 'official')
        throw new CorebError('USAGE', `reranker \`${spec}\`: normalise must be coreb or official, got \`${value}\``);
      out.normalise = value;
    } else if (key === 'screen') {
      if (value !== 'true' && value !== 'false')
        throw new CorebError('USAGE', `reranker \`${spec}\`: screen must be true or false, got \`${value}\``);
      out.screen = value === 'true';
    } else if (key === 'borrow') {
      if (value !== 'text' && value !== 'all' && value !== 'none')
        throw new CorebError('USAGE', `reranker \`${spec}\`: borrow must be text, all or none, got \`${value}\``);
      out.borrow = value;
    } else throw new CorebError('USAGE', `reranker \`${spec}\`: unknown parameter \`${key}\`; valid: ${valid}`);
  }
  return out;
}

/** What an exec rerank did and cost (the `execution` block of a reranked result). */
export type ExecRerankReport = {
  /** Queries seen, per task. */
  queries: Record<string, number>;
  /** Queries passed through in first-stage order, by reason. */
  passedThrough: { noSamples: number; code2code: number; noRunnableLanguage: number };
  /** Queries that ran on borrowed samples (see ExecRerankerSettings.borrow), per task. */
  borrowed: { text2code: number; code2code: number };
  /** Queries whose candidates were executed (or read from the journal). */
  executedQueries: number;
  /** (program, statement) pairs with samples to run. */
  pairs: number;
  /** Candidates with nothing runnable: a statement without samples (c2t), no function matching a call example, a language the judge does not run. */
  unrunnable: number;
  /** Pairs that reproduced every sample. */
  allReproduced: number;
  /** Sample runs asked for, read from the journal, and executed now. */
  runs: { requested: number; cached: number; executed: number };
  /** Judge calls made (one build per program variant and screening round). */
  judgeCalls: number;
  /** Compiler invocations, from the judge's counters. */
  compiles: number;
  /** Judge calls that ran a kept build instead of compiling (local judge), from the judge's counters. */
  buildsReused: number;
  /** CPU seconds of the executed runs; wall seconds of the compiles. */
  cpuSeconds: number;
  compileSeconds: number;
  /** Verdicts of the executed runs. */
  verdicts: Partial<Record<Verdict, number>>;
};

function emptyReport(): ExecRerankReport {
  return {
    queries: {},
    passedThrough: { noSamples: 0, code2code: 0, noRunnableLanguage: 0 },
    borrowed: { text2code: 0, code2code: 0 },
    executedQueries: 0,
    pairs: 0,
    unrunnable: 0,
    allReproduced: 0,
    runs: { requested: 0, cached: 0, executed: 0 },
    judgeCalls: 0,
    compiles: 0,
    buildsReused: 0,
    cpuSeconds: 0,
    compileSeconds: 0,
    verdicts: {},
  };
}

/** An exec reranker: a {@link SpecReranker} that also reports what it ran. */
export interface ExecReranker extends SpecReranker {
  /** Totals since creation. */
  report(): ExecRerankReport;
  /** Gives the statement corpus borrowed samples come from (see {@link ExecRerankerSettings.borrow}). */
  useStatements(docs: readonly Doc[]): void;
}

/** What {@link createExecReranker} needs. */
export interface ExecRerankerContext {
  judge: JudgeBackend;
  /** Content-keyed runs; default none (every run executes). */
  journal?: RunJournal;
  settings?: ExecRerankerSettings;
  logger?: Logger;
}

/** One (program, statement) pair to run: a candidate of one query. */
interface Job {
  /** Index into the score array (or, for a code-to-code anchor's probe, into its statements). */
  pair: number;
  variant: Variant;
  tests: TestCase[];
  /** Samples reproduced so far. */
  reproduced: number;
  /** True once a sample failed: under screening, its later samples are not run. */
  stopped: boolean;
}

/** A program prepared for one test kind (and, for calls, one method): built once per round. */
interface Variant {
  key: string;
  program: Program;
}

function sha(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** The tests of `samples` for a program, or undefined when it has no function a call example can reach. */
function testsFor(language: ExecLanguage, code: string, samples: readonly StatementSample[]): { tests: TestCase[]; funcName?: string } | undefined {
  const first = samples[0];
  if (first.kind === 'stdin') {
    return { tests: samples.filter((s) => s.kind === 'stdin').map((s) => ({ kind: 'stdin' as const, input: s.input, outputs: [s.output] })) };
  }
  const funcName = findCallTarget(
    language,
    code,
    first.args.map((a) => a.name),
  );
  if (funcName === undefined) return undefined;
  const tests = samples
    .filter((s) => s.kind === 'call' && s.args.length === first.args.length)
    .map((s) => ({
      kind: 'functional' as const,
      input: (s as Extract<StatementSample, { kind: 'call' }>).args.map((a) => a.json).join('\n'),
      outputs: [s.output],
      funcName,
    }));
  return { tests, funcName };
}

/**
 * Creates the exec reranker on `judge`. Its `score(pairs, {task})` needs each pair's `records`
 * (rerankLists sets them): text2code and code2text are executed, code2code is passed through
 * unless `borrow=all`.
 */
export function createExecReranker(ctx: ExecRerankerContext): ExecReranker {
  const rt = newRuntime(ctx);
  const { judge } = rt;
  return {
    id: 'exec',
    identity: () => execIdentity(rt),
    describe: () => ({ ...execIdentity(rt), judge: judge.describe() }),
    instruction: () => '',
    score: (pairs, options) => scoreExec(rt, pairs, options),
    counters: () => ({ ...rt.counters }),
    report: () => ({ ...structuredClone(rt.report), compiles: judge.stats().compiles, buildsReused: judge.stats().buildsReused ?? 0 }),
    useStatements(docs) {
      if (rt.statements?.docs !== docs) rt.statements = { docs, byId: new Map(docs.map((d) => [d.id, d])) };
    },
    close() {
      rt.journal?.close();
      rt.logger.info(
        `exec reranker: ${rt.report.runs.executed} sample runs executed, ${rt.report.runs.cached} read from the run journal, ${judge.stats().compiles} compiles`,
      );
      void judge.close();
    },
  };
}

/** The exec reranker's one runtime value: its judge, settings and journal, what it has counted, and what it keeps between calls. */
interface ExecRuntime {
  judge: JudgeBackend;
  /** The judge's description without its job count (what identifies a verdict). */
  judgeKey: Record<string, unknown>;
  /** The judge's job count, if it has one (calls in flight are twice that). */
  judgeJobs: unknown;
  /** The journal keys' settings part. */
  settingsKey: string;
  settings: ExecRerankerSettings;
  journal?: RunJournal;
  logger: Logger;
  report: ExecRerankReport;
  counters: { requested: number; hits: number; duplicates: number; sent: number };
  /** Statement samples by text, parsed once. */
  samplesOf: Map<string, StatementSample[]>;
  /** The statement corpus for borrowed samples, indexed by BM25 on first use. */
  statements?: { docs: readonly Doc[]; byId: Map<string, Doc>; index?: Bm25Index };
}

function newRuntime(ctx: ExecRerankerContext): ExecRuntime {
  const { jobs, ...judgeKey } = ctx.judge.describe();
  return {
    judge: ctx.judge,
    judgeKey,
    judgeJobs: jobs,
    settingsKey: sha([judgeKey]),
    settings: ctx.settings ?? EXEC_RERANKER_DEFAULTS,
    ...(ctx.journal !== undefined ? { journal: ctx.journal } : {}),
    logger: ctx.logger ?? silentLogger,
    report: emptyReport(),
    counters: { requested: 0, hits: 0, duplicates: 0, sent: 0 },
    samplesOf: new Map(),
  };
}

/** What identifies the reranker's scores (its cache and results key): judge, limits, source changes, screening, borrowing, the formula. */
function execIdentity(rt: ExecRuntime): Record<string, unknown> {
  const { settings } = rt;
  return {
    provider: 'exec',
    judge: rt.judgeKey,
    timeoutMs: settings.timeoutMs,
    memoryMb: settings.memoryMb,
    normalise: settings.normalise,
    screen: settings.screen,
    borrow: {
      setting: settings.borrow,
      ...(settings.borrow !== 'none'
        ? {
            text2code: `queries without samples: the first statement with samples among the top ${BORROW_STATEMENTS} BM25 ranks in the statement corpus`,
          }
        : {}),
      ...(settings.borrow === 'all'
        ? {
            code2code: `the best-ranked of the top ${BORROW_ANCHOR_STATEMENTS} statements (BM25 of the anchor's code) whose samples the anchor reproduces`,
          }
        : {}),
    },
    score: EXEC_SCORE_FORMULA,
    samples:
      'AtCoder/LiveCodeBench "Sample Input N / Sample Output N" (stdin, token comparison) and LeetCode "Input: a = .. / Output: .." (the method whose parameters match, called through the functional driver, JSON comparison)',
    prepared: 'cpp: top-level `main();` statements removed (they do not compile)',
    reads: 'query and document texts and languages only (no qrels, verdicts or meta fields)',
  };
}

/** A statement's samples, parsed once per text. */
function samplesOf(rt: ExecRuntime, text: string): StatementSample[] {
  let s = rt.samplesOf.get(text);
  if (s === undefined) {
    s = parseStatementSamples(text);
    rt.samplesOf.set(text, s);
  }
  return s;
}

/** One query's pairs: a consecutive range of the pairs scored. */
interface PairGroup {
  start: number;
  end: number;
  query: Query;
}

/** The programs prepared in one `score` call, by key: each built once per round whatever pairs share it. */
type Variants = Map<string, Variant>;

/** Scores the pairs of consecutive queries: samples reproduced over samples run, plus the first stage's order as the tie-break. */
async function scoreExec(rt: ExecRuntime, pairs: readonly RerankPair[], options: RerankOptions = {}): Promise<Float64Array> {
  const task: TaskName | undefined = options.task;
  const scores = new Float64Array(pairs.length);
  rt.counters.requested += pairs.length;
  const groups = groupPairs(pairs);
  const variants: Variants = new Map();
  const anchors =
    task === 'code2code' && rt.settings.borrow === 'all'
      ? await borrowForAnchors(rt, groups, variants, options)
      : new Map<string, StatementSample[]>();
  const jobs: Job[] = [];
  for (const g of groups) {
    const k = g.end - g.start;
    // The first-stage term orders ties.
    for (let i = g.start; i < g.end; i++) scores[i] = (0.001 * (k - (i - g.start))) / (k + 1);
    const name = task ?? 'unknown';
    rt.report.queries[name] = (rt.report.queries[name] ?? 0) + 1;
    if (!(await queryJobs(rt, task, g, pairs, anchors, variants, jobs))) rt.counters.hits += k;
  }
  rt.report.pairs += jobs.length;
  await runJobs(rt, jobs, options);
  for (const j of jobs) {
    scores[j.pair] += j.reproduced / j.tests.length;
    if (j.reproduced === j.tests.length) rt.report.allReproduced++;
  }
  return scores;
}

/** The pairs in runs of one query each. */
function groupPairs(pairs: readonly RerankPair[]): PairGroup[] {
  const groups: PairGroup[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const rec = pairs[i].records;
    if (rec === undefined)
      throw new CorebError(
        'USAGE',
        'the exec reranker needs the query and document records of each pair (rerank through coreb eval or coreb rerank)',
      );
    const g = groups[groups.length - 1];
    if (g !== undefined && g.query.id === rec.query.id) g.end = i + 1;
    else groups.push({ start: i, end: i + 1, query: rec.query });
  }
  return groups;
}

/**
 * One query's jobs, into `jobs`: text-to-code runs each candidate program on the query's samples
 * (or borrowed ones), code-to-code on the anchor's borrowed samples, code-to-text the query program
 * on each candidate statement's samples. False when the query is passed through (nothing to run).
 */
async function queryJobs(
  rt: ExecRuntime,
  task: TaskName | undefined,
  g: PairGroup,
  pairs: readonly RerankPair[],
  anchors: ReadonlyMap<string, StatementSample[]>,
  variants: Variants,
  jobs: Job[],
): Promise<boolean> {
  const { report } = rt;
  if (task === 'code2code' || task === undefined) {
    const borrowed = anchors.get(g.query.id);
    if (borrowed === undefined) {
      report.passedThrough.code2code++;
      return false;
    }
    report.borrowed.code2code++;
    report.executedQueries++;
    programJobs(rt, g, pairs, borrowed, variants, jobs);
    return true;
  }
  if (task === 'text2code') {
    let s = samplesOf(rt, g.query.text);
    if (s.length === 0 && rt.settings.borrow !== 'none') {
      s = await borrowForText(rt, g.query.text);
      if (s.length > 0) report.borrowed.text2code++;
    }
    if (s.length === 0) {
      report.passedThrough.noSamples++;
      return false;
    }
    report.executedQueries++;
    programJobs(rt, g, pairs, s, variants, jobs);
    return true;
  }
  // code2text: the query program on each candidate statement's samples.
  const language = g.query.language;
  if (!isExecLanguage(language)) {
    report.passedThrough.noRunnableLanguage++;
    return false;
  }
  report.executedQueries++;
  for (let i = g.start; i < g.end; i++) {
    const doc = (pairs[i].records as NonNullable<RerankPair['records']>).doc;
    const s = samplesOf(rt, doc.text);
    const t = s.length === 0 ? undefined : testsFor(language, g.query.text, s);
    if (t === undefined || t.tests.length === 0) {
      report.unrunnable++;
      continue;
    }
    jobs.push({
      pair: i,
      variant: variantOf(variants, language, g.query.text, t.tests[0].kind, t.funcName),
      tests: t.tests,
      reproduced: 0,
      stopped: false,
    });
  }
  return true;
}

/** Jobs running one query's candidate programs on `s` (text-to-code, and code-to-code with borrowed samples). */
function programJobs(
  rt: ExecRuntime,
  g: PairGroup,
  pairs: readonly RerankPair[],
  s: readonly StatementSample[],
  variants: Variants,
  jobs: Job[],
): void {
  for (let i = g.start; i < g.end; i++) {
    const doc = (pairs[i].records as NonNullable<RerankPair['records']>).doc;
    const language = doc.language;
    const t = isExecLanguage(language) ? testsFor(language, doc.text, s) : undefined;
    if (!isExecLanguage(language) || t === undefined || t.tests.length === 0) {
      rt.report.unrunnable++;
      continue;
    }
    jobs.push({
      pair: i,
      variant: variantOf(variants, language, doc.text, t.tests[0].kind, t.funcName),
      tests: t.tests,
      reproduced: 0,
      stopped: false,
    });
  }
}

/** The program prepared for one language, source, test kind and method, made once per `score` call. */
function variantOf(variants: Variants, language: ExecLanguage, code: string, kind: string, funcName: string | undefined): Variant {
  // The language's own changes that make a candidate buildable (C++: a stray top-level `main();`).
  const prepared = findJudgeLanguage(language)?.prepareCandidate?.(code) ?? code;
  const key = sha([language, prepared, kind, funcName ?? '']);
  let v = variants.get(key);
  if (v === undefined) {
    v = { key, program: { id: `exec-${key.slice(0, 12)}`, problemId: 'statement-samples', language, code: prepared } };
    variants.set(key, v);
  }
  return v;
}

/** Statements ranked for `text` by BM25 (the default retriever), best first, at most `n`. */
async function rankStatements(rt: ExecRuntime, text: string, n: number): Promise<Doc[]> {
  const statements = rt.statements;
  if (statements === undefined || statements.docs.length === 0) return [];
  statements.index ??= createBm25Index(statements.docs);
  const { byId } = statements;
  const list = (await statements.index.search([{ id: 'q', text }], n)).get('q');
  return (list?.docIds ?? []).map((id) => byId.get(id) as Doc);
}

/**
 * Samples for a text query that states none: those of the best-ranked of the top
 * {@link BORROW_STATEMENTS} statements (BM25 over the statement corpus) that has samples.
 */
async function borrowForText(rt: ExecRuntime, text: string): Promise<StatementSample[]> {
  for (const d of await rankStatements(rt, text, BORROW_STATEMENTS)) {
    const s = samplesOf(rt, d.text);
    if (s.length > 0) return s;
  }
  return [];
}

/**
 * Samples for code-to-code anchors: each anchor runs on the samples of the top
 * {@link BORROW_ANCHOR_STATEMENTS} statements BM25 ranks for its code; the best-ranked statement
 * whose samples it reproduces every one of lends them. Anchors with none are passed through.
 */
async function borrowForAnchors(
  rt: ExecRuntime,
  groups: readonly PairGroup[],
  variants: Variants,
  options: RerankOptions,
): Promise<Map<string, StatementSample[]>> {
  const probes: Job[] = [];
  const owner: Array<{ query: string; rank: number; samples: StatementSample[] }> = [];
  for (const g of groups) {
    const language = g.query.language;
    if (!isExecLanguage(language)) continue;
    const ranked = await rankStatements(rt, g.query.text, BORROW_ANCHOR_STATEMENTS);
    ranked.forEach((d, rank) => {
      const s = samplesOf(rt, d.text);
      const t = s.length === 0 ? undefined : testsFor(language, g.query.text, s);
      if (t === undefined || t.tests.length === 0) return;
      owner.push({ query: g.query.id, rank, samples: s });
      probes.push({
        pair: owner.length - 1,
        variant: variantOf(variants, language, g.query.text, t.tests[0].kind, t.funcName),
        tests: t.tests,
        reproduced: 0,
        stopped: false,
      });
    });
  }
  await runJobs(rt, probes, options);
  const out = new Map<string, { rank: number; samples: StatementSample[] }>();
  for (const j of probes) {
    if (j.reproduced !== j.tests.length) continue;
    const o = owner[j.pair];
    const best = out.get(o.query);
    if (best === undefined || o.rank < best.rank) out.set(o.query, o);
  }
  return new Map([...out].map(([q, o]) => [q, o.samples]));
}

/** A program's runs of one round: its tests (inputs deduplicated) and the jobs waiting on each. */
interface QueuedProgram {
  variant: Variant;
  tests: Map<string, TestCase>;
  waiting: Array<{ job: Job; key: string }>;
}

/** Runs the jobs' samples in screening rounds: round r runs sample r of every job still going. */
async function runJobs(rt: ExecRuntime, jobs: Job[], options: RerankOptions): Promise<void> {
  // Screening: round 0 runs each pair's first sample, round 1 the rest of the pairs that
  // reproduced it; without screening one round runs everything.
  const { screen } = rt.settings;
  const rounds = jobs.length === 0 ? 0 : screen ? 2 : 1;
  const roundTests = (j: Job, r: number): readonly TestCase[] => (!screen ? j.tests : r === 0 ? j.tests.slice(0, 1) : j.tests.slice(1));
  const pairsExecuted = new Set<number>();
  const pairsTouched = new Set<number>();
  for (let r = 0; r < rounds; r++) {
    // Sample r of each live job: from the journal, or queued on its variant (inputs deduplicated).
    const queued = new Map<string, QueuedProgram>();
    for (const j of jobs) {
      if (j.stopped) continue;
      for (const t of roundTests(j, r)) {
        const key = sha([rt.settingsKey, j.variant.key, t.input, t.outputs]);
        rt.report.runs.requested++;
        pairsTouched.add(j.pair);
        const hit = rt.journal?.get(key);
        if (hit !== undefined) {
          rt.report.runs.cached++;
          applyRun(j, hit.verdict === 'accepted');
          continue;
        }
        pairsExecuted.add(j.pair);
        let q = queued.get(j.variant.key);
        if (q === undefined) {
          q = { variant: j.variant, tests: new Map(), waiting: [] };
          queued.set(j.variant.key, q);
        }
        q.tests.set(key, t);
        q.waiting.push({ job: j, key });
      }
    }
    const work = [...queued.values()];
    if (work.length === 0) continue;
    const settled = await runRound(rt, work, r, options);
    for (const w of work) for (const { job, key } of w.waiting) applyRun(job, settled.get(key) === true);
  }
  rt.counters.sent += pairsExecuted.size;
  rt.counters.hits += pairsTouched.size - pairsExecuted.size;
}

/** A sample's outcome on a job: one more reproduced, or the job stopped. */
function applyRun(j: Job, ok: boolean): void {
  if (ok) j.reproduced++;
  else j.stopped = true;
}

/**
 * One round's judge calls, one per program with all its queued samples, twice the judge's jobs in
 * flight; each verdict journaled (a sandbox error is not) and counted. Reproduced or not, by run key.
 * @throws CorebError `INTERRUPTED` when aborted (the runs finished are journaled).
 */
async function runRound(rt: ExecRuntime, work: readonly QueuedProgram[], r: number, options: RerankOptions): Promise<Map<string, boolean>> {
  const { report } = rt;
  const settled = new Map<string, boolean>();
  const progress: Progress | undefined = options.progress;
  progress?.start(`exec round ${r + 1}: ${work.reduce((s, w) => s + w.tests.size, 0)} runs of ${work.length} programs`, work.length);
  const limit = Math.max(1, 2 * Number(rt.judgeJobs ?? 2));
  await forEachBounded(
    work,
    limit,
    async (w) => {
      const keys = [...w.tests.keys()];
      const result = await rt.judge.judge(w.variant.program, [...w.tests.values()], options.signal ? { signal: options.signal } : {});
      report.judgeCalls++;
      report.compileSeconds += result.compileMs / 1000;
      keys.forEach((key, i) => {
        const run = result.tests[i];
        const verdict: Verdict = run?.verdict ?? result.verdict;
        const cpuMs = run?.cpuMs ?? 0;
        if (run !== undefined) {
          report.runs.executed++;
          if (cpuMs > 0) report.cpuSeconds += cpuMs / 1000;
        }
        report.verdicts[verdict] = (report.verdicts[verdict] ?? 0) + 1;
        if (verdict !== 'sandbox_error') rt.journal?.put(key, { verdict, cpuMs: run === undefined ? 0 : cpuMs });
        settled.set(key, verdict === 'accepted');
      });
      progress?.tick();
    },
    options.signal,
  );
  progress?.done();
  if (options.signal?.aborted)
    throw new CorebError('INTERRUPTED', 'exec reranking interrupted; the runs finished so far are journaled, re-run to resume');
  return settled;
}

/** What {@link createExecRerankerFromSpec} needs. */
export interface ExecRerankerFactoryOptions {
  env: Record<string, string | undefined>;
  /** Cache root (the run journal lives under it); `false`: no journal. Default from `env`. */
  cacheDir?: string | false;
  logger?: Logger;
  /** The fetch remote judges use (tests). */
  fetch?: typeof fetch;
}

/** Creates the exec reranker an `exec[?...]` spec describes, with its judge and run journal. */
export async function createExecRerankerFromSpec(spec: string, options: ExecRerankerFactoryOptions): Promise<ExecReranker> {
  const settings = parseExecRerankerSpec(spec);
  const judge = await createJudge(parseJudgeSpec(settings.judge), {
    local: {
      timeLimitMs: settings.timeoutMs,
      memoryLimitMb: settings.memoryMb,
      normalise: settings.normalise,
      // a candidate runs on many statements' samples, in two screening rounds and across tasks: built once
      keepBuildsMb: EXEC_KEEP_BUILDS_MB,
      jobs: settings.jobs ?? EXEC_JOBS_PER_CORE * availableParallelism(),
    },
    remote: {
      timeLimitMs: settings.timeoutMs,
      memoryLimitMb: settings.memoryMb,
      normalise: settings.normalise,
      ...(settings.jobs !== undefined ? { jobs: settings.jobs } : {}),
    },
    env: options.env,
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  });
  const journal = options.cacheDir === false ? undefined : openRunJournal(options.cacheDir ?? resolveCacheDir(options.env));
  return createExecReranker({
    judge,
    settings,
    ...(journal !== undefined ? { journal } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
}
