/**
 * `coreb eval` as a library call: load a CoREB release or a BEIR directory, run each retriever over
 * each task's corpus once, write TREC runs, score them under the protocol, aggregate by task,
 * subtask, language and query type, and return (and optionally save) the results.
 */
import { collectGarbage, releaseGarbage } from '../core/memory.js';
import { counted } from '../core/words.js';
import { corebVersion } from '../core/version.js';
import { readdir, readFile, rm } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { TASK_SHORT_NAME, TASKS, type Doc, type Qrels, type Query, type Release, type RetrievalTask, type TaskName } from '../core/dataset.js';
import { CorebError, isCorebError } from '../core/errors.js';
import {
  EVAL_RESULTS_SCHEMA,
  type DatasetIdentity,
  type DatasetStats,
  type EvalResults,
  type FailedRetriever,
  type GroupResult,
  type MetricValues,
  type ProtocolName,
  type ProtocolSemantics,
  type QueryResult,
  type RetrieverResult,
  type TaskResult,
} from '../core/eval-results.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../core/progress.js';
import type { RankedList, RetrieverIndex } from '../core/retrieval.js';
import { hashDatasetDir } from '../dataset/dataset-identity.js';
import { loadCl100kCounter, releaseTokenStats, verifiedByModelLanguage } from '../dataset/release-tokens.js';
import { removeStaleTemps, saveAtomic, saveLinesAtomic } from '../dataset/atomic-write.js';
import type { GivenModelMeta } from '../core/model-meta.js';
import { rowModelMeta } from '../providers/presets.js';
import { entryPath, hasEntry, readEntry, writeEntry, type StoreContext } from '../dataset/results-store.js';
import { aggregateBy, aggregateGroups, aggregateQueries } from './aggregate.js';
import { createRetriever, usesLanguageFilter } from './create-retriever.js';
import { LANGUAGE_FILTER_WARNING } from './language-filter.js';
import { fileKeys, fileList, fileQrels, LOCALIZATION_MEASURES, withoutTests } from './file-level.js';
import { bridgeInSampleWarning, loadBridgeFile } from './bridge-release.js';
import { protocolMeasures, resolveProtocol, resolveExtraMeasures, type ScoringProtocol } from './protocol.js';
import { describeLabelProxy, findTaskLabelProxies, type TaskLabelProxy } from './audit/label-proxies.js';
import { parseRetrieverSpec, retrieverLabel, type RetrieverSpec } from './retriever-spec.js';
import { meanMeasure, scoreTask } from './score.js';
import { releaseTasks } from '../dataset/release-tasks.js';
import { detectDataLayout, type EvalDataOptions, loadEvalData } from './eval-data.js';
import type { Bm25Options } from '../search/bm25.js';
import { measureReadDepth, parseMeasures } from '../metrics/measures.js';
import { corpusStates, replayBm25, searchVisible, type CorpusStates } from './corpus-states.js';
import {
  createRerankerFromSpec,
  diffCounters,
  metricDeltas,
  parseRerankFusion,
  rerankLists,
  RERANK_DEFAULT_DEPTH,
  type SpecReranker,
} from './rerank-stage.js';

const statesMemo = new WeakMap<RetrievalTask, CorpusStates | null>();

/** The task's {@link corpusStates}, worked out once per task. */
function statesOf(task: RetrievalTask): CorpusStates | undefined {
  let s = statesMemo.get(task);
  if (s === undefined) statesMemo.set(task, (s = corpusStates(task) ?? null));
  return s ?? undefined;
}

/** True when a spec is plain BM25 that {@link replayBm25} computes at each state (no bridge, no RM3, no filter). */
function replayable(spec: RetrieverSpec): spec is Extract<RetrieverSpec, { kind: 'bm25' }> {
  return spec.kind === 'bm25' && spec.bridge === undefined && spec.filter === undefined && !(Number(spec.params.feedbackDocs ?? 0) > 0);
}

/** True when `dir` holds the manifest of a `coreb repo build` benchmark. */
async function isRepoBenchmark(dir: string): Promise<boolean> {
  try {
    const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { format?: unknown };
    return m.format === 'coreb-repo-benchmark';
  } catch {
    return false;
  }
}

/** The bridge files a spec (or its rrf members) reads. */
function bridgeFiles(spec: RetrieverSpec): string[] {
  if (spec.kind === 'bm25') return spec.bridge !== undefined ? [spec.bridge.file] : [];
  return spec.kind === 'rrf' ? spec.members.flatMap(bridgeFiles) : [];
}

/** Options of {@link runEval}. */
/** Where {@link runEval} keeps and finds rows (`coreb eval --results DIR`; see dataset/results-store.ts). */
export interface ResultsStoreOptions {
  dir: string;
  /** Score rows the store already has again (and replace their entries); default false: they are read from the store. */
  force?: boolean;
}

export interface EvalOptions extends EvalDataOptions {
  /** A CoREB release directory (JSONL or parquet) or a BEIR directory (`corpus.jsonl`, ...). */
  data: string;
  /** Retriever specs (see {@link parseRetrieverSpec}). Default `['bm25']`. */
  retrievers?: readonly string[];
  /** Documents kept per query (>= 1). Default 1000. */
  depth?: number;
  /**
   * Reranker specs (see docs/rerank.md). Each (retriever, reranker) pair becomes its own result row
   * named `<retriever> >> <reranker>`, with `firstStage` and a `rerank` block. Default: none.
   */
  rerankers?: readonly string[];
  /** Candidates reranked per query (the c2c anchor removed before the cut). Default 128; a `top-ranked` first stage: all its candidates. */
  rerankDepth?: number;
  /** `none` (default), `rrf` or `rrf:k=60,alpha=4`: fuse reranker and first-stage ranks. */
  rerankFusion?: string;
  /**
   * With `outDir`: also write each retriever's top N per query as MTEB `top_ranked` candidate lists
   * (`runs/<retriever>.<task>.top_ranked.jsonl`, lines `{"query-id", "corpus-ids"}`), so rerankers can
   * later be compared on identical candidates. Default: not written.
   */
  topRanked?: number;
  /** Protocol (`coreb`, `mteb`, `beir`). Default `coreb` for a release, `beir` for a BEIR directory. */
  protocol?: ProtocolName;
  /** coreb only: c2t_match negatives `zero` (default: counted as 0, the published numbers) or `exclude`. */
  c2tMatchNegatives?: 'exclude' | 'zero';
  /**
   * When set, TREC runs go to `<outDir>/runs/` and the results to `<outDir>/results.json`. The
   * directory must be empty or absent (temporary files left by a killed run are removed first)
   * unless {@link overwrite} is set.
   */
  outDir?: string;
  /**
   * Replace the results already in `outDir`: files are rewritten, and run files of the earlier
   * results that this run does not write are removed once the new results.json is saved. Default
   * false: a non-empty `outDir` is refused before any work.
   */
  overwrite?: boolean;
  /**
   * With `outDir`: how run files are written: `plain` (default) `runs/<name>.<task>.trec`, `gz`
   * gzip-compressed `.trec.gz` (about a fifth of the size; `run:` specs, `coreb metrics` and
   * trec_eval read them), `none` not at all (results.json and the leaderboard only).
   */
  runs?: RunFileFormat;
  /**
   * Documents per query in run files: a number, or `all` (every document retrieved, to `depth`).
   * Default: as deep as the measures reported read (the coreb and beir protocols: 100, mteb: 1000;
   * `--measures recall@1000` or an uncut measure such as `map`: all), plus the documents tied with
   * the last one written and, for code-to-code, one more (the anchor left out when scoring), so
   * `coreb metrics` and `run:` on the file give the reported values exactly.
   */
  runDepth?: number | 'all';
  /** Keep per-query values in the results. Default true. */
  perQuery?: boolean;
  /** Directory relative retriever files are resolved against. Default: the process's cwd. */
  baseDir?: string;
  /** coreb's version, written into the results. Default: this package's (`corebVersion()`). */
  corebVersion?: string;
  /** Environment for `dense:` providers (API keys by name). Default: empty. */
  env?: Record<string, string | undefined>;
  /** Embedding cache directory for `dense:` providers. */
  cacheDir?: string;
  /** On-disk BM25 index store folder (see `CreateRetrieverContext.indexCacheDir`). Default: none. */
  indexCacheDir?: string;
  /**
   * Record the release's descriptive statistics in `dataset.stats` (cl100k_base token lengths per
   * subtask and corpus, verified-correct programs per model x language; `coreb report` shows them).
   * Default true (a CoREB release only).
   */
  datasetStats?: boolean;
  /** Where those statistics are cached by dataset sha256 (`<dir>/datasets/<sha256>.stats.json`); default: not cached. */
  statsCacheDir?: string;
  /** Stops the run when aborted (exit between queries and files; nothing half-written). Default: none. */
  signal?: AbortSignal;
  /** Told the phases and counts as the run goes (a progress bar). Default: silent. */
  progress?: Progress;
  /** Warnings and information lines (what was left out, what was read). Default: silent. */
  logger?: Logger;
  /**
   * Measures reported beside the protocol's own (`ndcg@100`, `recall@1000`, any one measure at one
   * cutoff that `coreb metrics` knows); recorded in `options.measures`. Default none.
   */
  measures?: readonly string[];
  /** Keep every scored row in a results store, and read the rows it already has instead of scoring them again. */
  resultsStore?: ResultsStoreOptions;
  /**
   * Model metadata by row name or model id (`--model-meta FILE`), over what coreb's presets know;
   * written into each row's `model`. Default: the presets only.
   */
  modelMeta?: GivenModelMeta;
}

/** How run files are written: plain TREC, gzip-compressed TREC, or not at all. */
export const RUN_FILE_FORMATS = ['plain', 'gz', 'none'] as const;
/** A run file format (see {@link EvalOptions.runs}). */
export type RunFileFormat = (typeof RUN_FILE_FORMATS)[number];

/** Where {@link runEval} wrote its files (relative paths are inside `outDir`). */
export interface EvalOutput {
  results: EvalResults;
  /** Absolute path of results.json, when written. */
  resultsFile?: string;
  /** With a results store: entries written this run, and rows read from the store instead of scored (relative entry paths). */
  store?: { dir: string; added: string[]; reused: string[] };
}

/** Corpora of at least this many documents get one full garbage collection after their index is built. */
const COLLECT_AFTER_INDEX_DOCS = 100_000;

/** Names of the files `runEval` writes under `runs/` (what `--overwrite` may remove). */
const RUN_OUTPUT = /\.(trec|trec\.gz|top_ranked\.jsonl)$/;

/**
 * Readies an output directory: removes the temporary files a killed run left in it and in its
 * `runs/`, then refuses it when it holds results (a results.json, or any file but run files)
 * unless `overwrite`. Run files alone are what an interrupted run leaves (it writes results.json
 * last): such a directory is taken over, as with `overwrite`.
 * @returns true when earlier run files may be there (to remove those this run does not rewrite).
 * @throws CorebError `USAGE` when `dir` is a file, or holds results and `overwrite` is not set.
 */
export async function prepareOutDir(dir: string, overwrite: boolean, logger: Logger): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ENOTDIR')
      throw new CorebError('USAGE', `--out ${dir} is a file; --out names a directory for results.json, leaderboard.md and runs/`);
    throw new CorebError('IO', `cannot read the output directory (${code ?? (e as Error).message})`, { file: dir, cause: e });
  }
  const stale = [...(await removeStaleTemps(dir)), ...(await removeStaleTemps(join(dir, 'runs'))).map((n) => `runs/${n}`)];
  if (stale.length > 0) logger.info(`${dir}: removed ${stale.length} temporary file(s) left by an interrupted run (${stale.slice(0, 3).join(', ')})`);
  if (overwrite) return true;
  entries = await readdir(dir);
  const held: string[] = [];
  let runFiles = 0;
  for (const name of entries) {
    if (name === 'runs') {
      const runs = await readdir(join(dir, 'runs')).catch(() => null);
      if (runs === null) held.push('runs');
      else {
        held.push(...runs.filter((r) => !RUN_OUTPUT.test(r)).map((r) => `runs/${r}`));
        runFiles += runs.filter((r) => RUN_OUTPUT.test(r)).length;
      }
    } else held.push(name);
  }
  if (held.length > 0) {
    held.sort((a, b) => Number(b === 'results.json') - Number(a === 'results.json'));
    throw new CorebError(
      'USAGE',
      `--out ${dir} already holds ${held.length} file(s) (${held.slice(0, 3).join(', ')}${held.length > 3 ? ', ...' : ''}): ` +
        'earlier results are never replaced silently; pass --overwrite to replace them, or choose an empty or new directory',
    );
  }
  if (runFiles > 0) logger.info(`${dir}: ${runFiles} run file(s) of an interrupted run (no results.json) will be replaced`);
  return runFiles > 0;
}

/** After an `--overwrite` run (or one taking over an interrupted run's directory): removes the run files of earlier results that this run did not write. */
async function removeOldRuns(outDir: string, written: ReadonlySet<string>, logger: Logger): Promise<void> {
  const names = await readdir(join(outDir, 'runs')).catch(() => [] as string[]);
  const old = names.filter((n) => RUN_OUTPUT.test(n) && !written.has(`runs/${n}`));
  for (const n of old) await rm(join(outDir, 'runs', n), { force: true });
  if (old.length > 0) logger.info(`${outDir}: removed ${old.length} run file(s) of the replaced results`);
}

/**
 * A release's descriptive statistics, read from `<cacheDir>/datasets/<sha256>.stats.json` when an
 * earlier run computed them for the same bytes, else computed (and saved there).
 */
async function loadOrComputeDatasetStats(
  release: Release,
  sha256: string,
  cacheDir: string | undefined,
  signal: AbortSignal | undefined,
): Promise<DatasetStats> {
  const file = cacheDir === undefined ? undefined : join(cacheDir, 'datasets', `${sha256}.stats.json`);
  if (file !== undefined) {
    const cached = await readFile(file, 'utf8').then(
      (t) => JSON.parse(t) as DatasetStats,
      () => undefined,
    );
    if (cached?.tokens?.encoding === 'cl100k_base' && cached.verified !== undefined) return cached;
  }
  const stats: DatasetStats = {
    tokens: await releaseTokenStats(release, await loadCl100kCounter(), signal),
    verified: verifiedByModelLanguage(release),
  };
  // A cache: a failed write costs the next run the computation, nothing else (saveAtomic makes the folder).
  if (file !== undefined) await saveAtomic(file, JSON.stringify(stats)).catch(() => undefined);
  return stats;
}

/** A file-name-safe slug of a retriever spec. */
export function slugify(spec: string): string {
  const s = spec.replace(/[^A-Za-z0-9._=-]+/g, '_').replace(/^_+|_+$/g, '');
  return (s || 'retriever').slice(0, 80);
}

/**
 * TREC run lines (`qid Q0 docid rank score tag`) of ranked lists, in query order; with `depth`, each
 * list's first `depth` documents and those tied in score with the last of them.
 */
export function* trecRunLines(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, tag: string, depth?: number): Generator<string> {
  for (const q of queries) {
    const l = lists.get(q.id);
    if (l === undefined) continue;
    let n = l.docIds.length;
    if (depth !== undefined && depth < n) {
      const last = l.scores[depth - 1];
      n = depth;
      while (n < l.docIds.length && l.scores[n] === last) n++;
    }
    for (let i = 0; i < n; i++) yield `${q.id} Q0 ${l.docIds[i]} ${i + 1} ${l.scores[i]} ${tag}`;
  }
}

/**
 * The documents per query a run file needs for `measures` to read the values reported: their read
 * depth ({@link measureReadDepth}), or undefined (every document) when one reads the whole list.
 */
export function runFileDepth(measures: readonly string[]): number | undefined {
  return measureReadDepth(parseMeasures(measures));
}

/** One task's first stage: the lists searched (to the larger of depth and rerank depth) and what was excluded. */
interface StageTask {
  name: string;
  task: RetrievalTask;
  taskName?: TaskName;
  corpusKey: string;
  anchored: boolean;
  exclude: Map<string, string[]>;
  lists: Map<string, RankedList>;
}

/** Lists cut to their first `depth` entries. */
function cutLists(lists: ReadonlyMap<string, RankedList>, depth: number): Map<string, RankedList> {
  const out = new Map<string, RankedList>();
  for (const [q, l] of lists) out.set(q, l.docIds.length <= depth ? l : { docIds: l.docIds.slice(0, depth), scores: l.scores.slice(0, depth) });
  return out;
}

/** MTEB `top_ranked` lines (`{"query-id", "corpus-ids"}`) of each query's first `n` documents, in query order. */
export function* topRankedLines(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, n: number): Generator<string> {
  for (const q of queries) {
    const l = lists.get(q.id);
    if (l !== undefined) yield JSON.stringify({ 'query-id': q.id, 'corpus-ids': l.docIds.slice(0, n) });
  }
}

/** Fields a spec's BM25 (or an rrf member's) indexes beyond the defaults `title` and `text`. */
export function bm25ExtraFields(spec: RetrieverSpec): string[] {
  if (spec.kind === 'rrf') return [...new Set(spec.members.flatMap(bm25ExtraFields))];
  if (spec.kind !== 'bm25' || !Array.isArray(spec.params.fields)) return [];
  return spec.params.fields.filter((f) => f !== 'title' && f !== 'text');
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
 * The row's file-level block, when every chunk of a scored task names its file (repository
 * benchmarks): the protocol's measures and {@link LOCALIZATION_MEASURES}, overall, per task and per
 * query type, and the same without test files.
 */
function scoreFileLevel(
  stage: readonly StageTask[],
  listsOf: (t: StageTask) => ReadonlyMap<string, RankedList>,
  scoring: ScoringProtocol,
  graded: boolean,
): RetrieverResult['fileLevel'] {
  const extra = [...(scoring.extraMeasures ?? []), ...LOCALIZATION_MEASURES.filter((m) => !(scoring.extraMeasures ?? []).includes(m))];
  const fileScoring: ScoringProtocol = { ...scoring, extraMeasures: extra };
  const views = { all: new FileView(), nonTest: new FileView() };
  let dropped = 0;
  for (const st of stage) {
    const fileOf = fileKeys(st.task.corpus);
    if (fileOf === undefined) continue;
    const lists = new Map([...listsOf(st)].map(([q, l]) => [q, fileList(l, fileOf)]));
    if (!st.task.queries.some((q) => lists.has(q.id))) continue;
    const qrels = fileQrels(st.task.qrels, fileOf);
    const score = (view: FileView, l: ReadonlyMap<string, RankedList>, q: Qrels) => {
      const scored = scoreTask({ task: st.name, queries: st.task.queries, qrels: q, lists: l, protocol: fileScoring, excludeAnchors: false, graded });
      view.add(st.name, st.task.queries, scored.perQuery);
    };
    score(views.all, lists, qrels);
    const nt = withoutTests(lists, qrels, scoring.relevanceLevel);
    dropped += nt.dropped.filter((q) => lists.has(q)).length;
    score(views.nonTest, nt.lists, nt.qrels);
  }
  if (views.all.empty()) return undefined;
  return { ...views.all.result(fileScoring), nonTest: { ...views.nonTest.result(fileScoring), droppedQueries: dropped } };
}

/** Per-query file-level results gathered per task and per query type. */
class FileView {
  private readonly tasks = new Map<string, QueryResult[]>();
  private readonly types = new Map<string, QueryResult[]>();
  private readonly all: QueryResult[] = [];

  add(task: string, queries: readonly Query[], perQuery: ReadonlyMap<string, QueryResult>): void {
    const list = this.tasks.get(task) ?? [];
    this.tasks.set(task, list);
    for (const q of queries) {
      const r = perQuery.get(q.id);
      if (r === undefined) continue;
      list.push(r);
      this.all.push(r);
      if (q.subQueryType === undefined) continue;
      const typed = this.types.get(q.subQueryType);
      if (typed === undefined) this.types.set(q.subQueryType, [r]);
      else typed.push(r);
    }
  }

  empty(): boolean {
    return this.all.length === 0;
  }

  result(scoring: ScoringProtocol): { overall: GroupResult; tasks: Record<string, GroupResult>; queryTypes?: Record<string, GroupResult> } {
    const tasks = Object.fromEntries([...this.tasks].filter(([, l]) => l.length > 0).map(([t, l]) => [t, aggregateQueries(l, scoring)]));
    const out: { overall: GroupResult; tasks: Record<string, GroupResult>; queryTypes?: Record<string, GroupResult> } = {
      overall: aggregateQueries(this.all, scoring),
      tasks,
    };
    if (this.types.size > 0)
      out.queryTypes = Object.fromEntries([...this.types].sort(([a], [b]) => (a < b ? -1 : 1)).map(([t, l]) => [t, aggregateQueries(l, scoring)]));
    return out;
  }
}

/** What a row is assembled from: its name, spec, description, per-task results, per-query results and timings. */
interface RowParts {
  name: string;
  specText: string;
  description: Record<string, unknown>;
  tasks: Record<string, TaskResult>;
  perQuery: Map<string, QueryResult>;
  timings: RetrieverResult['timings'];
}

/**
 * One leaderboard row from its scored queries: the overall and task-mean aggregates, and the
 * breakdowns by subtask, language and query type; the per-query values kept when `withPerQuery`.
 */
function assembleRow(parts: RowParts, scoring: ScoringProtocol, withPerQuery: boolean): RetrieverResult {
  const { tasks, perQuery } = parts;
  const byTask = (f: (q: QueryResult) => string | undefined) => {
    const out: Record<string, Record<string, GroupResult>> = {};
    for (const taskName of Object.keys(tasks)) {
      const sub = new Map([...perQuery].filter(([, q]) => q.task === taskName));
      const g = aggregateBy(sub, f, scoring);
      if (Object.keys(g).length > 0) out[taskName] = g;
    }
    return out;
  };
  const subtaskTask = new Map<string, string>();
  for (const q of perQuery.values()) if (q.subtask !== undefined) subtaskTask.set(q.subtask, q.task);
  const subtasks: Record<string, GroupResult & { task: string }> = {};
  for (const [st, g] of Object.entries(aggregateBy(perQuery, (q) => q.subtask, scoring))) {
    subtasks[st] = { task: subtaskTask.get(st)!, ...g };
  }
  const result: RetrieverResult = {
    name: parts.name,
    spec: parts.specText,
    description: parts.description,
    overall: aggregateQueries(perQuery.values(), scoring),
    taskMean: aggregateGroups(Object.values(tasks), scoring),
    tasks,
    subtasks,
    languages: byTask((q) => q.language),
    subQueryTypes: byTask((q) => q.subQueryType),
    timings: parts.timings,
  };
  if (withPerQuery) result.perQuery = Object.fromEntries(perQuery);
  return result;
}

/**
 * What each task's queries exclude from their ranked lists (the code-to-code anchor under the coreb
 * protocol, the query's own id under beir), and per query how many places that takes in a run
 * file's top (the plan a `run:` file is read for).
 */
function planExclusions(
  tasks: ReadonlyMap<string, RetrievalTask>,
  protocol: ProtocolSemantics,
): { excludes: Map<string, Map<string, string[]>>; planQueries: Map<string, number> } {
  const excludes = new Map<string, Map<string, string[]>>();
  const planQueries = new Map<string, number>();
  for (const [name, task] of tasks) {
    const exclude = new Map<string, string[]>();
    const anchored = protocol.anchorExclusion && name === 'code2code';
    for (const q of task.queries) {
      const ex: string[] = [];
      if (anchored && q.anchorId !== undefined) ex.push(q.anchorId);
      if (protocol.ignoreIdenticalIds) ex.push(q.id);
      if (ex.length > 0) exclude.set(q.id, ex);
      planQueries.set(q.id, (planQueries.get(q.id) ?? 0) + ex.length);
    }
    excludes.set(name, exclude);
  }
  return { excludes, planQueries };
}

/**
 * How a reranked row compares with its first stage: the depth reranked, the first stage's recall at
 * it per task (the ceiling reranking can reach), and every measure's change, absolute and relative,
 * per task and overall.
 */
function compareWithFirstStage(
  stage: readonly StageTask[],
  firstRow: RetrieverResult,
  reranked: RetrieverResult,
  protocol: ProtocolSemantics,
  rerankDepth: number,
): {
  depth: number;
  recallCeiling: Record<string, number | null>;
  delta: Record<string, MetricValues>;
  deltaRelative: Record<string, Record<string, number | null>>;
} {
  const depth = Math.min(rerankDepth, Math.max(0, ...stage.flatMap((st) => [...st.lists.values()].map((l) => l.docIds.length))));
  const recallCeiling: Record<string, number | null> = {};
  const delta: Record<string, MetricValues> = {};
  const deltaRelative: Record<string, Record<string, number | null>> = {};
  for (const st of stage) {
    recallCeiling[st.name] = meanMeasure(
      { task: st.name, queries: st.task.queries, qrels: st.task.qrels, lists: st.lists, protocol, excludeAnchors: st.anchored },
      `recall@${depth}`,
    );
    const a = firstRow.tasks[st.name];
    const b = reranked.tasks[st.name];
    if (a === undefined || b === undefined) continue;
    const d = metricDeltas(a.metrics, b.metrics);
    delta[st.name] = d.delta;
    deltaRelative[st.name] = d.relative;
  }
  const o = metricDeltas(firstRow.overall.metrics, reranked.overall.metrics);
  delta.overall = o.delta;
  deltaRelative.overall = o.relative;
  return { depth, recallCeiling, delta, deltaRelative };
}

/** A reranker of the run with the name its rows carry. */
interface OpenReranker {
  spec: string;
  label: string;
  reranker: SpecReranker;
}

/**
 * Creates the rerankers of `specs`, each closed (and its cache counters logged) through `closers`.
 * Rows are named by the reranker's PROVIDER:MODEL, by the full spec only when two share one. A
 * reranker that reads problem statements (exec) gets `statements()`, computed once.
 */
async function openRerankers(
  specs: readonly string[],
  options: Pick<EvalOptions, 'env' | 'cacheDir'>,
  logger: Logger,
  closers: Array<() => void>,
  statements: () => readonly Doc[] | undefined,
): Promise<OpenReranker[]> {
  const out: OpenReranker[] = [];
  let docs: readonly Doc[] | undefined;
  const heads = specs.map((r) => r.split('?')[0]);
  for (const [i, spec] of specs.entries()) {
    const reranker = await createRerankerFromSpec(spec, {
      env: options.env ?? {},
      ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
      logger,
    });
    closers.push(() => {
      if (reranker.report === undefined) logger.info(`${spec}: rerank score cache ${JSON.stringify(reranker.counters())}`);
      reranker.close();
    });
    if (reranker.useStatements !== undefined) {
      docs ??= statements();
      if (docs !== undefined) reranker.useStatements(docs);
    }
    out.push({ spec, label: heads.filter((h) => h === heads[i]).length > 1 ? spec : heads[i], reranker });
  }
  return out;
}

/** What scoring a row needs: the protocol, whether labels are graded, where run files go and what was written. */
interface RowScoring {
  scoring: ScoringProtocol;
  graded: boolean;
  outDir?: string;
  runFormat: RunFileFormat;
  /** Documents per query in run files (code-to-code one more); undefined: all. */
  runDepth: number | undefined;
  /** Files written under `outDir`, relative (`runs/...`); each run file is added. */
  written: Set<string>;
  logger: Logger;
  signal?: AbortSignal;
}

/**
 * Scores one row: per task, its run file written (when asked) and its queries scored and
 * aggregated; a task without a single ranked list is unscored (left out of every mean, never a row
 * of zeros); queries without a list or with an empty one are warned about.
 */
async function scoreRow(
  ctx: RowScoring,
  stage: readonly StageTask[],
  listsOf: (t: StageTask) => ReadonlyMap<string, RankedList>,
  slug: string,
  label: string,
): Promise<{ tasks: Record<string, TaskResult>; perQuery: Map<string, QueryResult>; unscored: string[]; fileLevel: RetrieverResult['fileLevel'] }> {
  const { scoring, outDir, runFormat, written, logger, signal } = ctx;
  const perQuery = new Map<string, QueryResult>();
  const tasks: Record<string, TaskResult> = {};
  const unscored: string[] = [];
  for (const st of stage) {
    const lists = listsOf(st);
    if (!st.task.queries.some((q) => lists.has(q.id))) {
      // Not one query has a ranked list (a run file for other tasks only): the task is unscored,
      // absent from `tasks` and from every mean, never a row of zeros.
      unscored.push(st.name);
      logger.warn(`${label}: no ${st.name} query has a ranked list; ${st.name} is unscored (left out of its means, listed in unscoredTasks)`);
      continue;
    }
    let runFile: string | undefined;
    if (outDir !== undefined && runFormat !== 'none') {
      runFile = `runs/${slug}.${st.name}.trec${runFormat === 'gz' ? '.gz' : ''}`;
      // an anchored task's scorer leaves the anchor out: one document more keeps the depth scored
      const d = ctx.runDepth === undefined ? undefined : ctx.runDepth + (st.anchored ? 1 : 0);
      await saveLinesAtomic(join(outDir, runFile), trecRunLines(st.task.queries, lists, slug, d), signal);
      written.add(runFile);
    }
    const scored = scoreTask({
      task: st.name,
      queries: st.task.queries,
      qrels: st.task.qrels,
      lists,
      protocol: scoring,
      excludeAnchors: st.anchored,
      graded: ctx.graded,
    });
    for (const [qid, r] of scored.perQuery) perQuery.set(qid, r);
    const group = aggregateQueries(scored.perQuery.values(), scoring);
    tasks[st.name] = {
      ...group,
      missingQueries: scored.missing,
      excludedQueries: scored.excluded,
      zeroedQueries: scored.zeroed,
      emptyQueries: scored.emptyIds,
      missingQueryIds: scored.missingIds.slice(0, 100),
      ...(runFile !== undefined ? { runFile } : {}),
    };
    if (scored.missing > 0)
      logger.warn(
        `${label}: ${counted(scored.missing, `${st.name} query`, `${st.name} queries`)} ${scored.missing === 1 ? 'has' : 'have'} no ranked list (scored apart as missing)`,
      );
    if (scored.emptyIds.length > 0) {
      logger.warn(
        `${label}: ${counted(scored.emptyIds.length, `${st.name} query`, `${st.name} queries`)} ${scored.emptyIds.length === 1 ? 'has' : 'have'} an empty ranked list (scored 0 and averaged; listed in results.json as emptyQueries, absent from the run file)`,
      );
    }
  }
  return { tasks, perQuery, unscored, fileLevel: scoreFileLevel(stage, listsOf, scoring, ctx.graded) };
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
  const labels = specs.map(retrieverLabel);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice !== undefined) {
    throw new CorebError('USAGE', `two retrievers are named \`${twice}\`; give each its own name= (e.g. bm25?k1=1.2&name=bm25-classic)`);
  }
  const layout = await detectDataLayout(dir);
  // A repository benchmark (coreb repo build) is graded the CoREB way: BEIR layout, coreb protocol.
  const graded = layout === 'beir' && (await isRepoBenchmark(dir));
  const protocol: ProtocolSemantics = resolveProtocol(
    options.protocol ?? (layout === 'beir' && !graded ? 'beir' : 'coreb'),
    options.c2tMatchNegatives === undefined ? {} : { c2tMatchNegatives: options.c2tMatchNegatives },
  );
  const extraMeasures = resolveExtraMeasures(options.measures ?? []);
  /** The protocol with the extra measures asked for: what scoring and aggregation use. */
  const scoring: ScoringProtocol = extraMeasures.length > 0 ? { ...protocol, extraMeasures } : protocol;
  const outDir = options.outDir === undefined ? undefined : resolve(options.outDir);
  const replacing = outDir !== undefined && (await prepareOutDir(outDir, options.overwrite ?? false, logger));
  const data = await loadEvalData(dir, layout, options, logger);
  if (layout === 'beir' && protocol.relevanceLevel > 1) {
    let maxLabel = 0;
    for (const t of data.tasks.values()) for (const m of t.qrels.values()) for (const v of m.values()) maxLabel = Math.max(maxLabel, v);
    if (maxLabel < protocol.relevanceLevel) {
      logger.warn(
        `${dir}: no qrels label reaches relevance level ${protocol.relevanceLevel} (max ${maxLabel}); every measure will be 0. BEIR data is usually evaluated with --protocol beir`,
      );
    }
  }
  checkAborted(signal);
  const hashed = await hashDatasetDir(dir, signal);
  const identity: DatasetIdentity = { ...data.identity, files: hashed.files, sha256: hashed.sha256 };
  if (data.release !== undefined && options.datasetStats !== false) {
    identity.stats = await loadOrComputeDatasetStats(data.release, hashed.sha256, options.statsCacheDir, signal);
  }
  const loadMs = performance.now() - t0;
  checkAborted(signal);

  const baseDir = options.baseDir ?? process.cwd();
  const usedSlugs = new Set<string>();
  let proxies: TaskLabelProxy[] | undefined;
  const uniqueSlug = (text: string): string => {
    let slug = slugify(text);
    for (let i = 2; usedSlugs.has(slug); i++) slug = `${slugify(text)}-${i}`;
    usedSlugs.add(slug);
    return slug;
  };
  const runFormat = options.runs ?? 'plain';
  if (!(RUN_FILE_FORMATS as readonly string[]).includes(runFormat)) {
    throw new CorebError('USAGE', `runs must be one of ${RUN_FILE_FORMATS.join(', ')}, got \`${runFormat}\``);
  }
  const retrieverResults: RetrieverResult[] = [];
  const failed: FailedRetriever[] = [];
  /** Records a retriever (or reranked row) that failed; an interruption is rethrown, never recorded. */
  const recordFailure = (name: string, specText: string, e: unknown): void => {
    if (signal?.aborted || isCorebError(e, 'INTERRUPTED')) throw e;
    const code = isCorebError(e) ? e.code : 'INTERNAL';
    const error = e instanceof Error ? e.message : String(e);
    failed.push({ name, spec: specText, code, error });
    logger.warn(`${name}: failed (${code}): ${error}; the other retrievers go on, and the failure is recorded in the results`);
  };
  /** Files written under `outDir`, relative (`runs/...`). */
  const written = new Set<string>();
  const closers: Array<() => void> = [];
  const fusion = parseRerankFusion(options.rerankFusion);
  const rerankSpecs = options.rerankers ?? [];
  if (options.rerankDepth !== undefined && (!Number.isInteger(options.rerankDepth) || options.rerankDepth < 1)) {
    throw new CorebError('USAGE', `rerank depth must be an integer >= 1, got ${options.rerankDepth}`);
  }
  if (options.topRanked !== undefined && (!Number.isInteger(options.topRanked) || options.topRanked < 1)) {
    throw new CorebError('USAGE', `top-ranked depth must be an integer >= 1, got ${options.topRanked}`);
  }
  const store = options.resultsStore;
  const storeCtx: StoreContext = {
    dataset: identity,
    protocol,
    measures: [...protocolMeasures(scoring)],
    options: { depth, tasks: [...data.tasks.keys()], subtasks: options.subtasks ?? null },
  };
  const added: string[] = [];
  const reused: string[] = [];
  const docMaps = new Map<string, Map<string, Doc>>();
  const docsOf = (key: string, task: RetrievalTask): Map<string, Doc> => {
    let m = docMaps.get(key);
    if (m === undefined) docMaps.set(key, (m = new Map(task.corpus.map((d) => [d.id, d]))));
    return m;
  };
  const runDepth = options.runDepth ?? runFileDepth(protocolMeasures(scoring));
  if (runDepth !== 'all' && runDepth !== undefined && (!Number.isInteger(runDepth) || runDepth < 1)) {
    throw new CorebError('USAGE', `run depth must be an integer >= 1 or all, got ${runDepth}`);
  }
  const rowScoring: RowScoring = {
    scoring,
    graded: layout === 'coreb-release',
    ...(outDir !== undefined ? { outDir } : {}),
    runFormat,
    runDepth: runDepth === 'all' ? undefined : runDepth,
    written,
    logger,
    ...(signal !== undefined ? { signal } : {}),
  };
  try {
    // The release's statements, whichever tasks are scored (so the exec reranker's borrowing does not
    // depend on --tasks); made once, and only for a reranker that reads them.
    const rerankers = await openRerankers(
      rerankSpecs,
      options,
      logger,
      closers,
      () => data.tasks.get('code2text')?.corpus ?? (data.release !== undefined ? releaseTasks(data.release).code2text.corpus : undefined),
    );
    const { excludes, planQueries } = planExclusions(data.tasks, protocol);
    // The seed problems of the evaluated queries (for the bridge's in-sample check), computed once.
    let problems: Set<string> | undefined;
    const evaluatedProblems = (): Set<string> => {
      problems ??= new Set([...data.tasks.values()].flatMap((t) => t.queries.map((q) => q.problemId).filter((p): p is string => p !== undefined)));
      return problems;
    };
    const evaluateSpec = async (spec: RetrieverSpec): Promise<void> => {
      const tr = performance.now();
      // A fixed candidate list (MTEB `top_ranked`) is reranked whole unless told otherwise.
      const rerankDepth = options.rerankDepth ?? (spec.kind === 'top-ranked' ? Number.MAX_SAFE_INTEGER : RERANK_DEFAULT_DEPTH);
      const searchDepth = Math.max(depth, rerankers.length > 0 ? Math.min(rerankDepth, 100_000) : 0, options.topRanked ?? 0);
      const retriever = await createRetriever(spec, {
        // MTEB's and BEIR's MRR read a run in its own order (ties as the file lists them).
        plan: { depth: searchDepth, queries: planQueries, order: protocol.mrr === 'trec' ? 'trec' : 'file' },
        baseDir,
        env: options.env ?? {},
        ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
        ...(options.indexCacheDir !== undefined ? { indexCacheDir: options.indexCacheDir } : {}),
        dataDir: dir,
        ...(options.split !== undefined ? { split: options.split } : {}),
        logger,
        progress,
        onClose: (close) => closers.push(close),
        ...(signal !== undefined ? { signal } : {}),
      });
      // The spec's name=, else the retriever's own name (the spec; es: a name without its URLs).
      const label = spec.name ?? retriever.name;
      if (store !== undefined && store.force !== true) {
        // Every row this spec makes (the first stage, each reranked row) already in the store: read them, score nothing.
        const rows = [
          { name: label, spec: spec.text, description: retriever.describe() },
          ...rerankers.map(({ label: rlabel, reranker }) => ({
            name: `${label} >> ${rlabel}`,
            spec: `${spec.text} >> ${rlabel}`,
            description: { kind: 'rerank', firstStage: retriever.describe(), reranker: reranker.describe() },
          })),
        ];
        if (rows.every((r) => hasEntry(store.dir, r, storeCtx))) {
          for (const r of rows) {
            const path = entryPath(r, storeCtx);
            retrieverResults.push((await readEntry(store.dir, path)).row);
            reused.push(path);
          }
          logger.info(
            `${label}: already in the results store (${rows.map((r) => entryPath(r, storeCtx)).join(', ')}); not scored again (--force recomputes)`,
          );
          return;
        }
      }
      const warnings: string[] = [];
      if (usesLanguageFilter(spec)) warnings.push(LANGUAGE_FILTER_WARNING);
      for (const b of bridgeFiles(spec)) {
        const w = bridgeInSampleWarning(await loadBridgeFile(isAbsolute(b) ? b : resolve(baseDir, b)), evaluatedProblems());
        if (w !== undefined) {
          warnings.push(w);
          logger.warn(`${label}: ${w}`);
        }
      }
      const extra = bm25ExtraFields(spec);
      if (extra.length > 0) {
        proxies ??= findTaskLabelProxies(data.tasks);
        for (const p of proxies.filter((x) => extra.includes(x.field))) {
          warnings.push(`indexes a label proxy: ${describeLabelProxy(p)}; its numbers read the label, not the text every retriever sees`);
        }
        for (const w of warnings) logger.warn(`${label}: ${w}`);
      }
      const slug = uniqueSlug(label);
      // How each task of a corpus with states (`repo build --corpus-at parent`) was searched.
      const searchedInStates: Record<string, { states: number; versions: number; search: 'replay' | 'filter' }> = {};
      const noteStates = (task: string, st: CorpusStates, how: 'replay' | 'filter') => {
        searchedInStates[task] = { states: st.lastState + 1, versions: st.versions, search: how };
        logger.info(
          how === 'replay'
            ? `${label} ${task}: each query searched in its own state of the corpus (${st.lastState + 1} states; bm25 replayed state by state, its statistics those of the state)`
            : `${label} ${task}: each query's list cut to its own state of the corpus (${st.lastState + 1} states, ${st.versions} later versions); exact for scores that do not depend on the rest of the corpus, the statistics of every version together otherwise (rank fusion, a bm25 the replay does not take)`,
        );
      };
      const indexes = new Map<string, RetrieverIndex>();
      let largeCorpus = false;
      const timings = { indexMs: 0, searchMs: 0, evaluateMs: 0, totalMs: 0 };
      // One task's index (built once per corpus) and search. In a function of its own: a suspended
      // async function keeps its locals alive, and an index held there would outlive `indexes`.
      const searchTask = async (name: string, task: RetrievalTask): Promise<StageTask> => {
        checkAborted(signal);
        const key = data.corpusKey.get(name)!;
        let index = indexes.get(key);
        const taskName = (TASKS as readonly string[]).includes(name) ? (name as TaskName) : undefined;
        const taskProgress = prefixProgress(progress, `${label} ${(TASK_SHORT_NAME as Record<string, string>)[name] ?? name}`);
        const exclude = excludes.get(name)!;
        const anchored = protocol.anchorExclusion && name === 'code2code';
        const states = statesOf(task);
        if (states !== undefined && replayable(spec)) {
          // BM25 at each query's own state: no index of every version is needed
          const ts = performance.now();
          const lists = await replayBm25(task.corpus, states, task.queries, spec.params as Bm25Options, searchDepth, {
            exclude,
            progress: taskProgress,
            ...(signal ? { signal } : {}),
          });
          timings.searchMs += performance.now() - ts;
          noteStates(name, states, 'replay');
          return { name, task, corpusKey: key, anchored, exclude, lists, ...(taskName !== undefined ? { taskName } : {}) };
        }
        if (index === undefined) {
          const ti = performance.now();
          index = await retriever.index(task.corpus, {
            ...(taskName ? { task: taskName } : {}),
            progress: taskProgress,
            ...(signal ? { signal } : {}),
          });
          // What the index build let go of (word tables, scratch arrays: ~100 MB at a million
          // documents) is freed before the search rather than left to add to its peak.
          if (task.corpus.length >= COLLECT_AFTER_INDEX_DOCS) {
            largeCorpus = true;
            collectGarbage();
          }
          timings.indexMs += performance.now() - ti;
          indexes.set(key, index);
        }
        const ts = performance.now();
        const searchOptions = {
          ...(taskName ? { task: taskName } : {}),
          exclude,
          progress: taskProgress,
          ...(signal ? { signal } : {}),
        };
        let lists: Map<string, RankedList>;
        if (states === undefined) lists = await index.search(task.queries, searchDepth, searchOptions);
        else {
          lists = await searchVisible(index, task.corpus, states, task.queries, searchDepth, searchOptions);
          noteStates(name, states, 'filter');
        }
        timings.searchMs += performance.now() - ts;
        checkAborted(signal);
        return { name, task, corpusKey: key, anchored, exclude, lists, ...(taskName !== undefined ? { taskName } : {}) };
      };
      const stage: StageTask[] = [];
      for (const [name, task] of data.tasks) {
        const st = await searchTask(name, task);
        stage.push(st);
        if (outDir !== undefined && options.topRanked !== undefined) {
          await saveLinesAtomic(
            join(outDir, `runs/${slug}.${name}.top_ranked.jsonl`),
            topRankedLines(task.queries, st.lists, options.topRanked),
            signal,
          );
          written.add(`runs/${slug}.${name}.top_ranked.jsonl`);
        }
      }
      // Every task is searched: the indexes go before the scoring (at a million documents their
      // postings are ~400 MB), so what scoring and reranking allocate does not add to that peak.
      indexes.clear();
      if (largeCorpus) await releaseGarbage();
      const te = performance.now();
      const first = await scoreRow(rowScoring, stage, (st) => (searchDepth > depth ? cutLists(st.lists, depth) : st.lists), slug, label);
      timings.evaluateMs += performance.now() - te;
      timings.totalMs = performance.now() - tr;
      const withPerQuery = options.perQuery ?? true;
      const firstRow = assembleRow(
        {
          name: label,
          specText: spec.text,
          description: Object.keys(searchedInStates).length > 0 ? { ...retriever.describe(), corpusStates: searchedInStates } : retriever.describe(),
          tasks: first.tasks,
          perQuery: first.perQuery,
          timings,
        },
        scoring,
        withPerQuery,
      );
      if (first.fileLevel !== undefined) firstRow.fileLevel = first.fileLevel;
      if (first.unscored.length > 0) firstRow.unscoredTasks = first.unscored;
      if (warnings.length > 0) firstRow.warnings = warnings;
      const usage = retriever.report?.();
      if (usage !== undefined) firstRow.usage = usage;
      retrieverResults.push(firstRow);
      for (const { spec: rspec, label: rlabel, reranker } of rerankers) {
        const name = `${label} >> ${rlabel}`;
        try {
          checkAborted(signal);
          const t0 = performance.now();
          const before = reranker.counters();
          const execBefore = reranker.report?.();
          const reranked = new Map<string, Map<string, RankedList>>();
          for (const st of stage) {
            reranked.set(
              st.name,
              await rerankLists({
                reranker,
                queries: st.task.queries,
                docs: docsOf(st.corpusKey, st.task),
                lists: st.lists,
                depth: rerankDepth,
                fusion,
                exclude: st.exclude,
                progress: prefixProgress(progress, `${name} ${(TASK_SHORT_NAME as Record<string, string>)[st.name] ?? st.name}`),
                ...(st.taskName !== undefined ? { task: st.taskName } : {}),
                ...(signal !== undefined ? { signal } : {}),
              }),
            );
          }
          const rerankMs = performance.now() - t0;
          const tEval = performance.now();
          const row = await scoreRow(rowScoring, stage, (st) => reranked.get(st.name)!, uniqueSlug(name), name);
          const evaluateMs = performance.now() - tEval;
          const after = reranker.counters();
          const result = assembleRow(
            {
              name,
              specText: `${spec.text} >> ${rlabel}`,
              description: { kind: 'rerank', firstStage: firstRow.description, reranker: reranker.describe() },
              tasks: row.tasks,
              perQuery: row.perQuery,
              timings: {
                indexMs: timings.indexMs,
                searchMs: timings.searchMs,
                rerankMs,
                evaluateMs,
                totalMs: timings.totalMs + rerankMs + evaluateMs,
              },
            },
            scoring,
            withPerQuery,
          );
          const { depth: shownDepth, recallCeiling, delta, deltaRelative } = compareWithFirstStage(stage, firstRow, result, protocol, rerankDepth);
          result.firstStage = label;
          result.rerank = {
            depth: shownDepth,
            spec: rspec,
            reranker: reranker.describe(),
            fusion,
            recallCeiling,
            delta,
            deltaRelative,
            pairs: {
              requested: after.requested - before.requested,
              cached: after.hits - before.hits,
              duplicates: after.duplicates - before.duplicates,
              sent: after.sent - before.sent,
            },
          };
          if (warnings.length > 0) result.warnings = [...warnings];
          if (row.fileLevel !== undefined) result.fileLevel = row.fileLevel;
          const execAfter = reranker.report?.();
          if (execAfter !== undefined) result.rerank.execution = diffCounters(execAfter, execBefore);
          if (row.unscored.length > 0) result.unscoredTasks = row.unscored;
          retrieverResults.push(result);
        } catch (e) {
          recordFailure(name, `${spec.text} >> ${rlabel}`, e);
        }
      }
    };
    for (const spec of specs) {
      try {
        await evaluateSpec(spec);
      } catch (e) {
        recordFailure(retrieverLabel(spec), spec.text, e);
      }
    }
  } finally {
    for (const close of closers) close();
  }
  const results: EvalResults = {
    schema: EVAL_RESULTS_SCHEMA,
    coreb: { version: options.corebVersion ?? corebVersion() },
    createdAt: new Date().toISOString(),
    dataset: identity,
    protocol,
    measures: [...protocolMeasures(scoring)],
    options: {
      depth,
      tasks: [...data.tasks.keys()],
      subtasks: options.subtasks ?? null,
      ...(extraMeasures.length > 0 ? { measures: extraMeasures } : {}),
      ...(outDir !== undefined && runFormat !== 'none' ? { runDepth: rowScoring.runDepth ?? 'all' } : {}),
      ...(rerankSpecs.length > 0 ? { rerankDepth: options.rerankDepth ?? RERANK_DEFAULT_DEPTH, rerankers: [...rerankSpecs] } : {}),
    },
    retrievers: retrieverResults,
    ...(failed.length > 0 ? { failed } : {}),
    timings: { loadMs, totalMs: performance.now() - t0 },
  };
  for (const row of retrieverResults) {
    const meta = rowModelMeta(row, options.modelMeta);
    if (meta !== undefined) row.model = meta;
  }
  const storeOut = store === undefined ? undefined : { dir: store.dir, added, reused };
  if (store !== undefined) {
    for (const row of retrieverResults) {
      const path = entryPath(row, storeCtx);
      if (reused.includes(path)) continue;
      added.push(await writeEntry(store.dir, results, row));
    }
  }
  if (outDir === undefined) return { results, ...(storeOut !== undefined ? { store: storeOut } : {}) };
  checkAborted(signal);
  const resultsFile = join(outDir, 'results.json');
  await saveAtomic(resultsFile, JSON.stringify(results, null, 2) + '\n');
  if (replacing) await removeOldRuns(outDir, written, logger);
  return { results, resultsFile, ...(storeOut !== undefined ? { store: storeOut } : {}) };
}
