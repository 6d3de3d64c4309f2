/**
 * `coreb eval` as a library call: load a CoREB release or a BEIR directory, run each retriever over
 * each task's corpus once, write TREC runs, score them under the protocol, aggregate by task,
 * subtask, language and query type, and return (and optionally save) the results.
 */
import { basename, join, resolve } from 'node:path';
import { TASK_CORPUS, TASK_SHORT, TASK_SHORT_NAME, TASKS, type Query, type RetrievalTask, type TaskName } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import {
  EVAL_RESULTS_SCHEMA,
  type DatasetIdentity,
  type EvalResults,
  type GroupResult,
  type ProtocolName,
  type ProtocolSemantics,
  type QueryResult,
  type RetrieverResult,
  type TaskResult,
} from '../core/eval-results.js';
import { renderIssue, type ValidationIssue } from '../core/issues.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../core/progress.js';
import type { RankedList, RetrieverIndex } from '../core/retrieval.js';
import { hashDatasetDir, isBeirDir, loadBeir, loadRelease, releaseTasks, saveAtomic, saveLinesAtomic } from '../dataset/index.js';
import { aggregateBy, aggregateOverall, aggregateQueries } from './aggregate.js';
import { createRetriever } from './create-retriever.js';
import { EVAL_MEASURES, resolveEvalProtocol } from './protocol.js';
import { parseRetrieverSpec } from './retriever-spec.js';
import { scoreTask } from './score.js';

/** Options of {@link runEval}. */
export interface EvalOptions {
  /** A CoREB release directory (JSONL or parquet) or a BEIR directory (`corpus.jsonl`, ...). */
  data: string;
  /**
   * Split to read: a parquet release's split directory (e.g. `release_v2603`) or a BEIR qrels split
   * (`qrels/<split>.tsv`). Default: the loaders' (the only split there is; BEIR `test`).
   */
  split?: string;
  /** Retriever specs (see {@link parseRetrieverSpec}). Default `['bm25']`. */
  retrievers?: readonly string[];
  /** Tasks to evaluate, short (`t2c`) or long (`text2code`) names. Default: all three. Release only. */
  tasks?: readonly string[];
  /** Comma-separated subtask globs (`*` and `?`), e.g. `t2c_search_*,c2c_*`. Default: all. Release only. */
  subtasks?: string | null;
  /** Documents kept per query (>= 1). Default 1000. */
  depth?: number;
  /** Protocol. Default `coreb` for a release, `beir` for a BEIR directory. */
  protocol?: ProtocolName;
  /** coreb only: c2t_match negatives `exclude` (default) or `zero`. */
  c2tMatchNegatives?: 'exclude' | 'zero';
  /** When set, TREC runs go to `<outDir>/runs/` and the results to `<outDir>/results.json`. */
  outDir?: string;
  /** Keep per-query values in the results. Default true. */
  perQuery?: boolean;
  /** Directory relative retriever files are resolved against. Default: the process's cwd. */
  baseDir?: string;
  /** coreb's version, written into the results. */
  corebVersion: string;
  /** Environment for `dense:` providers (API keys by name). Default: empty. */
  env?: Record<string, string | undefined>;
  /** Embedding cache directory for `dense:` providers. */
  cacheDir?: string;
  signal?: AbortSignal;
  progress?: Progress;
  logger?: Logger;
}

/** Where {@link runEval} wrote its files (relative paths are inside `outDir`). */
export interface EvalOutput {
  results: EvalResults;
  /** Absolute path of results.json, when written. */
  resultsFile?: string;
}

/** The tasks of a loaded dataset, keyed by task name. */
interface LoadedData {
  identity: Omit<DatasetIdentity, 'files' | 'sha256'>;
  tasks: Map<string, RetrievalTask>;
  /** Corpus key per task: tasks sharing a key share one index. */
  corpusKey: Map<string, string>;
}

/** Detects the dataset layout: BEIR when `corpus.jsonl[.gz]` is present, else a CoREB release. */
export async function detectDataLayout(dir: string): Promise<'beir' | 'coreb-release'> {
  return (await isBeirDir(dir)) ? 'beir' : 'coreb-release';
}

/** Logs the first warnings and throws a VALIDATION error naming the first problems when `issues` holds errors. */
export function failOnErrors(dir: string, issues: readonly ValidationIssue[], logger: Logger): void {
  const errors = issues.filter((i) => i.severity === 'error');
  for (const w of issues.filter((i) => i.severity === 'warning').slice(0, 5)) logger.warn(renderIssue(w));
  if (errors.length > 0) {
    throw new CorebError(
      'VALIDATION',
      `dataset has ${errors.length} problem(s); first: ${errors.slice(0, 3).map(renderIssue).join('; ')}. Run \`coreb validate ${dir}\` for all of them`,
      { file: dir },
    );
  }
}

/** Resolves `--tasks` values to task names. */
export function resolveTasks(names: readonly string[] | undefined): TaskName[] {
  if (names === undefined || names.length === 0) return [...TASKS];
  const out: TaskName[] = [];
  for (const raw of names.flatMap((n) => n.split(','))) {
    const n = raw.trim();
    if (n === '') continue;
    const t = (TASK_SHORT as Record<string, TaskName>)[n] ?? ((TASKS as readonly string[]).includes(n) ? (n as TaskName) : undefined);
    if (t === undefined) {
      throw new CorebError('USAGE', `unknown task \`${n}\`; valid tasks: ${Object.keys(TASK_SHORT).join(', ')} (or ${TASKS.join(', ')})`);
    }
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/** Compiles comma-separated globs (`*` any run, `?` one character) into one predicate. */
export function compileSubtaskGlob(globs: string): (subtask: string | undefined) => boolean {
  const res = globs
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '')
    .map((g) => new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$'));
  return (s) => s !== undefined && res.some((re) => re.test(s));
}

async function loadData(dir: string, layout: 'beir' | 'coreb-release', options: EvalOptions, logger: Logger): Promise<LoadedData> {
  const tasks = new Map<string, RetrievalTask>();
  const corpusKey = new Map<string, string>();
  if (layout === 'beir') {
    if (options.tasks !== undefined && options.tasks.length > 0) throw new CorebError('USAGE', '--tasks applies to CoREB releases only; a BEIR directory is one task');
    if (options.subtasks) throw new CorebError('USAGE', '--subtasks applies to CoREB releases only');
    const { task, issues, split } = await loadBeir(dir, options.split !== undefined ? { split: options.split } : {});
    failOnErrors(dir, issues, logger);
    const name = task.name || basename(dir);
    tasks.set(name, task);
    corpusKey.set(name, 'corpus');
    return { identity: { kind: 'beir', dir, split, counts: counts(tasks) }, tasks, corpusKey };
  }
  const { release, issues } = await loadRelease(dir, options.split !== undefined ? { split: options.split } : {});
  failOnErrors(dir, issues, logger);
  const all = releaseTasks(release);
  const keep = options.subtasks ? compileSubtaskGlob(options.subtasks) : null;
  for (const t of resolveTasks(options.tasks)) {
    const task = all[t];
    const queries = keep === null ? task.queries : task.queries.filter((q) => keep(q.subtask));
    if (queries.length === 0) continue;
    tasks.set(t, { ...task, queries });
    corpusKey.set(t, TASK_CORPUS[t]);
  }
  if (tasks.size === 0) {
    throw new CorebError('USAGE', `no queries match --tasks ${options.tasks?.join(',') ?? '(all)'} --subtasks ${options.subtasks ?? '(all)'}`);
  }
  return { identity: { kind: 'coreb-release', dir, split: release.split, counts: counts(tasks) }, tasks, corpusKey };
}

function counts(tasks: ReadonlyMap<string, RetrievalTask>): Record<string, { corpus: number; queries: number }> {
  const out: Record<string, { corpus: number; queries: number }> = {};
  for (const [name, t] of tasks) out[name] = { corpus: t.corpus.length, queries: t.queries.length };
  return out;
}

/** A file-name-safe slug of a retriever spec. */
export function slugify(spec: string): string {
  const s = spec.replace(/[^A-Za-z0-9._=-]+/g, '_').replace(/^_+|_+$/g, '');
  return (s || 'retriever').slice(0, 80);
}

/** TREC run lines (`qid Q0 docid rank score tag`) of ranked lists, in query order. */
export function* trecRunLines(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, tag: string): Generator<string> {
  for (const q of queries) {
    const l = lists.get(q.id);
    if (l === undefined) continue;
    for (let i = 0; i < l.docIds.length; i++) yield `${q.id} Q0 ${l.docIds[i]} ${i + 1} ${l.scores[i]} ${tag}`;
  }
}

/** A progress reporter that prefixes every step label (e.g. with the retriever and task). */
function prefixProgress(inner: Progress, prefix: string): Progress {
  return { start: (label, total) => inner.start(`${prefix}: ${label}`, total), tick: (n) => inner.tick(n), done: () => inner.done() };
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new CorebError('INTERRUPTED', 'interrupted');
  }
}

/**
 * Runs a full evaluation. Each retriever indexes each distinct corpus once (t2c and c2c share the
 * code corpus), searches every query of every selected task to `depth`, and is scored per
 * {@link scoreTask}. Under protocol `coreb` the code-to-code anchor is excluded at search time (so a
 * list still holds `depth` documents) and again by the scorer (for runs read from files).
 * Files are written atomically; on abort (`signal`) nothing half-written is left behind.
 * @example
 * ```ts
 * import { renderResults, runEval } from 'coreb';
 * const { results } = await runEval({
 *   data: 'path/to/release_v2602',
 *   retrievers: ['bm25', 'run:my-model.trec'],
 *   outDir: 'results',
 *   corebVersion: '0.1.0',
 * });
 * console.log(renderResults(results, { format: 'markdown' }));
 * ```
 */
export async function runEval(options: EvalOptions): Promise<EvalOutput> {
  const t0 = performance.now();
  const logger = options.logger ?? silentLogger;
  const progress = options.progress ?? silentProgress;
  const signal = options.signal;
  const dir = resolve(options.data);
  const depth = options.depth ?? 1000;
  if (!Number.isInteger(depth) || depth < 1) throw new CorebError('USAGE', `depth must be an integer >= 1, got ${depth}`);
  const specs = (options.retrievers && options.retrievers.length > 0 ? options.retrievers : ['bm25']).map(parseRetrieverSpec);
  const layout = await detectDataLayout(dir);
  const protocol: ProtocolSemantics = resolveEvalProtocol(
    options.protocol ?? (layout === 'beir' ? 'beir' : 'coreb'),
    options.c2tMatchNegatives === undefined ? {} : { c2tMatchNegatives: options.c2tMatchNegatives },
  );
  const data = await loadData(dir, layout, options, logger);
  if (layout === 'beir' && protocol.relevanceLevel > 1) {
    let maxLabel = 0;
    for (const t of data.tasks.values()) for (const m of t.qrels.values()) for (const v of m.values()) maxLabel = Math.max(maxLabel, v);
    if (maxLabel < protocol.relevanceLevel) {
      logger.warn(`${dir}: no qrels label reaches relevance level ${protocol.relevanceLevel} (max ${maxLabel}); every measure will be 0. BEIR data is usually evaluated with --protocol beir`);
    }
  }
  const hashed = await hashDatasetDir(dir);
  const identity: DatasetIdentity = { ...data.identity, files: hashed.files, sha256: hashed.sha256 };
  const loadMs = performance.now() - t0;
  checkAborted(signal);

  const outDir = options.outDir === undefined ? undefined : resolve(options.outDir);
  const baseDir = options.baseDir ?? process.cwd();
  const usedSlugs = new Set<string>();
  const retrieverResults: RetrieverResult[] = [];
  const closers: Array<() => void> = [];
  try {
    for (const spec of specs) {
      const tr = performance.now();
      const retriever = await createRetriever(spec, {
        baseDir,
        env: options.env ?? {},
        ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
        logger,
        progress,
        onClose: (close) => closers.push(close),
        ...(signal !== undefined ? { signal } : {}),
      });
      let slug = slugify(spec.text);
      for (let i = 2; usedSlugs.has(slug); i++) slug = `${slugify(spec.text)}-${i}`;
      usedSlugs.add(slug);
      const indexes = new Map<string, RetrieverIndex>();
      const timings = { indexMs: 0, searchMs: 0, evaluateMs: 0, totalMs: 0 };
      const perQuery = new Map<string, QueryResult>();
      const tasks: Record<string, TaskResult> = {};
      for (const [name, task] of data.tasks) {
        checkAborted(signal);
        const key = data.corpusKey.get(name)!;
        let index = indexes.get(key);
        const taskName = (TASKS as readonly string[]).includes(name) ? (name as TaskName) : undefined;
        const taskProgress = prefixProgress(progress, `${spec.text} ${(TASK_SHORT_NAME as Record<string, string>)[name] ?? name}`);
        if (index === undefined) {
          const ti = performance.now();
          index = await retriever.index(task.corpus, { ...(taskName ? { task: taskName } : {}), progress: taskProgress, ...(signal ? { signal } : {}) });
          timings.indexMs += performance.now() - ti;
          indexes.set(key, index);
        }
        const exclude = new Map<string, string[]>();
        const anchored = protocol.anchorExclusion && name === 'code2code';
        for (const q of task.queries) {
          const ex: string[] = [];
          if (anchored && q.anchorId !== undefined) ex.push(q.anchorId);
          if (protocol.ignoreIdenticalIds) ex.push(q.id);
          if (ex.length > 0) exclude.set(q.id, ex);
        }
        const ts = performance.now();
        const lists = await index.search(task.queries, depth, {
          ...(taskName ? { task: taskName } : {}),
          exclude,
          progress: taskProgress,
          ...(signal ? { signal } : {}),
        });
        timings.searchMs += performance.now() - ts;
        checkAborted(signal);
        let runFile: string | undefined;
        if (outDir !== undefined) {
          runFile = `runs/${slug}.${name}.trec`;
          await saveLinesAtomic(join(outDir, runFile), trecRunLines(task.queries, lists, slug), signal);
        }
        const te = performance.now();
        const scored = scoreTask({
          task: name,
          queries: task.queries,
          qrels: task.qrels,
          lists,
          protocol,
          excludeAnchors: anchored,
          graded: layout === 'coreb-release',
        });
        for (const [qid, r] of scored.perQuery) perQuery.set(qid, r);
        const group = aggregateQueries(scored.perQuery.values(), protocol.roundDigits);
        tasks[name] = {
          ...group,
          missingQueries: scored.missing,
          excludedQueries: scored.excluded,
          ...(runFile !== undefined ? { runFile } : {}),
        };
        if (scored.missing > 0) logger.warn(`${retriever.name}: ${scored.missing} ${name} queries have no ranked list (scored apart as missing)`);
        timings.evaluateMs += performance.now() - te;
      }
      const byTask = (f: (q: QueryResult) => string | undefined) => {
        const out: Record<string, Record<string, GroupResult>> = {};
        for (const name of Object.keys(tasks)) {
          const sub = new Map([...perQuery].filter(([, q]) => q.task === name));
          const g = aggregateBy(sub, f, protocol.roundDigits);
          if (Object.keys(g).length > 0) out[name] = g;
        }
        return out;
      };
      const subtaskTask = new Map<string, string>();
      for (const q of perQuery.values()) if (q.subtask !== undefined) subtaskTask.set(q.subtask, q.task);
      const subtasks: Record<string, GroupResult & { task: string }> = {};
      for (const [s, g] of Object.entries(aggregateBy(perQuery, (q) => q.subtask, protocol.roundDigits))) {
        subtasks[s] = { task: subtaskTask.get(s)!, ...g };
      }
      timings.totalMs = performance.now() - tr;
      const result: RetrieverResult = {
        name: spec.text,
        spec: spec.text,
        description: retriever.describe(),
        overall: aggregateOverall(protocol, perQuery, Object.values(tasks)),
        tasks,
        subtasks,
        languages: byTask((q) => q.language),
        subQueryTypes: byTask((q) => q.subQueryType),
        timings,
      };
      if (options.perQuery ?? true) result.perQuery = Object.fromEntries(perQuery);
      retrieverResults.push(result);
    }
  } finally {
    for (const close of closers) close();
  }
  const results: EvalResults = {
    schema: EVAL_RESULTS_SCHEMA,
    coreb: { version: options.corebVersion },
    createdAt: new Date().toISOString(),
    dataset: identity,
    protocol,
    measures: [...EVAL_MEASURES],
    options: { depth, tasks: [...data.tasks.keys()], subtasks: options.subtasks ?? null },
    retrievers: retrieverResults,
    timings: { loadMs, totalMs: performance.now() - t0 },
  };
  if (outDir === undefined) return { results };
  checkAborted(signal);
  const resultsFile = join(outDir, 'results.json');
  await saveAtomic(resultsFile, JSON.stringify(results, null, 2) + '\n');
  return { results, resultsFile };
}
