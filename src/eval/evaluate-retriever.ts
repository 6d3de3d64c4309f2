/**
 * One retriever of an evaluation, as its steps: the retriever made ({@link openPass}), the rows a
 * results store already has read instead of scored ({@link readStoredRows}), the warnings its spec
 * earns ({@link specWarnings}), every task searched with each corpus indexed once
 * ({@link searchStage}), the first-stage row scored ({@link firstStageRow}), then each reranker's
 * row ({@link rerankedRow}). Each step is a function over the run ({@link EvalRun}: what the
 * evaluation loaded and decided once) and the retriever's pass ({@link RetrieverPass}).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { TASK_SHORT_NAME, TASKS, type Doc, type RetrievalTask, type TaskName } from '../core/dataset.js';
import { CorebError, isCorebError } from '../core/errors.js';
import type { FailedRetriever, ProtocolSemantics, RetrieverResult } from '../core/eval-results.js';
import { collectGarbage, releaseGarbage } from '../core/memory.js';
import type { Logger, Progress } from '../core/progress.js';
import type { RankedList, Retriever, RetrieverIndex } from '../core/retrieval.js';
import { saveLinesAtomic } from '../dataset/atomic-write.js';
import { entryPath, hasEntry, readEntry, type StoreContext } from '../dataset/results-store.js';
import type { Bm25Options } from '../search/bm25.js';
import { describeLabelProxy, findTaskLabelProxies, type TaskLabelProxy } from './audit/label-proxies.js';
import { bridgeInSampleWarning, loadBridgeFile } from './bridge-release.js';
import { corpusStates, replayBm25, searchVisible, type CorpusStates } from './corpus-states.js';
import { createRetriever, usesLanguageFilter } from './create-retriever.js';
import type { EvalData } from './eval-data.js';
import type { EvalOptions } from './eval-options.js';
import { LANGUAGE_FILTER_WARNING } from './language-filter.js';
import { diffCounters, rerankLists, RERANK_DEFAULT_DEPTH, type RerankFusion, type SpecReranker } from './rerank-stage.js';
import type { RetrieverSpec } from './retriever-spec.js';
import { cutLists, slugify, topRankedLines } from './run-files.js';
import { assembleRow, compareWithFirstStage, scoreRow, type RowScoring, type StageTask } from './score-row.js';

/** Corpora of at least this many documents get one full garbage collection after their index is built. */
const COLLECT_AFTER_INDEX_DOCS = 100_000;

/** A reranker of the run with the name its rows carry. */
export interface OpenReranker {
  spec: string;
  label: string;
  reranker: SpecReranker;
}

/** What an evaluation loaded and decided once, read by each retriever's evaluation. */
export interface EvalRun {
  options: EvalOptions;
  /** The dataset directory, absolute. */
  dir: string;
  /** What relative retriever files are resolved against. */
  baseDir: string;
  /** Documents kept per query. */
  depth: number;
  protocol: ProtocolSemantics;
  data: EvalData;
  rerankers: readonly OpenReranker[];
  fusion: RerankFusion;
  /** Per task, what each query excludes from its list (the code-to-code anchor, or its own id). */
  excludes: ReadonlyMap<string, Map<string, string[]>>;
  /** Per query, the places those exclusions take in a run file's top (what a `run:` file is read for). */
  planQueries: ReadonlyMap<string, number>;
  /** With a results store: where its rows go and what identifies them. */
  store?: { dir: string; force: boolean; ctx: StoreContext };
  /** How rows are scored and where their run files go. */
  rowScoring: RowScoring;
  logger: Logger;
  progress: Progress;
  signal?: AbortSignal;
  /** Called when the run ends, pass or fail (retrievers' and rerankers' resources). */
  closers: Array<() => void>;
  /** Rows made or read so far, in order. */
  rows: RetrieverResult[];
  /** Entries read from the results store instead of scored (relative entry paths). */
  reused: string[];
  /** Retrievers and reranked rows that failed. */
  failed: FailedRetriever[];
  /** Run-file slugs taken so far. */
  slugs: Set<string>;
  /** Worked out once per run, on first use. */
  memo: { docMaps: Map<string, Map<string, Doc>>; problems?: Set<string>; proxies?: TaskLabelProxy[] };
}

/** One retriever's pass over the run: its spec and retriever, how deep it searches, and what its search gathers. */
export interface RetrieverPass {
  spec: RetrieverSpec;
  retriever: Retriever;
  /** The spec's `name=`, else the retriever's own name. */
  label: string;
  /** Candidates each reranker reranks. */
  rerankDepth: number;
  /** How deep every task is searched: the run's depth, or deeper for the rerankers and `top_ranked`. */
  searchDepth: number;
  /** When the pass started (`performance.now()`). */
  started: number;
  warnings: string[];
  /** Each corpus's index, built once (tasks that share a corpus share it); emptied when the search ends. */
  indexes: Map<string, RetrieverIndex>;
  /** True when an index was large enough to collect garbage after. */
  largeCorpus: boolean;
  timings: { indexMs: number; searchMs: number; evaluateMs: number; totalMs: number };
  /** How each task of a corpus with states was searched. */
  inStates: Record<string, { states: number; versions: number; search: 'replay' | 'filter' }>;
}

/** Throws the abort reason when `signal` is aborted. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new CorebError('INTERRUPTED', 'interrupted');
  }
}

/** Records a retriever (or reranked row) that failed; an interruption is rethrown, never recorded. */
export function recordFailure(run: EvalRun, name: string, specText: string, e: unknown): void {
  if (run.signal?.aborted || isCorebError(e, 'INTERRUPTED')) throw e;
  const code = isCorebError(e) ? e.code : 'INTERNAL';
  const error = e instanceof Error ? e.message : String(e);
  run.failed.push({ name, spec: specText, code, error });
  run.logger.warn(`${name}: failed (${code}): ${error}; the other retrievers go on, and the failure is recorded in the results`);
}

/**
 * Evaluates one retriever spec: its first-stage row and one row per reranker go to `run.rows` (or
 * are read from the results store when it has them all); a failed reranked row is recorded and the
 * others go on. Throws what fails the first stage (the caller records it).
 */
export async function evaluateRetriever(run: EvalRun, spec: RetrieverSpec): Promise<void> {
  const pass = await openPass(run, spec);
  if (await readStoredRows(run, pass)) return;
  await specWarnings(run, pass);
  const slug = uniqueSlug(run, pass.label);
  const stage = await searchStage(run, pass, slug);
  const first = await firstStageRow(run, pass, stage, slug);
  run.rows.push(first);
  for (const r of run.rerankers) {
    const name = `${pass.label} >> ${r.label}`;
    try {
      run.rows.push(await rerankedRow(run, pass, stage, first, r));
    } catch (e) {
      recordFailure(run, name, `${spec.text} >> ${r.label}`, e);
    }
  }
}

/** Makes the spec's retriever, planned for the run's queries at the depth the rerankers and `top_ranked` need. */
async function openPass(run: EvalRun, spec: RetrieverSpec): Promise<RetrieverPass> {
  const started = performance.now();
  const { options, protocol } = run;
  // A fixed candidate list (MTEB `top_ranked`) is reranked whole unless told otherwise.
  const rerankDepth = options.rerankDepth ?? (spec.kind === 'top-ranked' ? Number.MAX_SAFE_INTEGER : RERANK_DEFAULT_DEPTH);
  const searchDepth = Math.max(run.depth, run.rerankers.length > 0 ? Math.min(rerankDepth, 100_000) : 0, options.topRanked ?? 0);
  const retriever = await createRetriever(spec, {
    // MTEB's and BEIR's MRR read a run in its own order (ties as the file lists them).
    plan: { depth: searchDepth, queries: run.planQueries, order: protocol.mrr === 'trec' ? 'trec' : 'file' },
    baseDir: run.baseDir,
    env: options.env ?? {},
    ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    ...(options.indexCacheDir !== undefined ? { indexCacheDir: options.indexCacheDir } : {}),
    dataDir: run.dir,
    ...(options.split !== undefined ? { split: options.split } : {}),
    logger: run.logger,
    progress: run.progress,
    onClose: (close) => run.closers.push(close),
    ...(run.signal !== undefined ? { signal: run.signal } : {}),
  });
  return {
    spec,
    retriever,
    // The spec's name=, else the retriever's own name (the spec; es: a name without its URLs).
    label: spec.name ?? retriever.name,
    rerankDepth,
    searchDepth,
    started,
    warnings: [],
    indexes: new Map(),
    largeCorpus: false,
    timings: { indexMs: 0, searchMs: 0, evaluateMs: 0, totalMs: 0 },
    inStates: {},
  };
}

/** With a results store (and no `force`): when it has every row of the spec (the first stage and each reranked row), reads them into `run.rows`; true then. */
async function readStoredRows(run: EvalRun, pass: RetrieverPass): Promise<boolean> {
  const store = run.store;
  if (store === undefined || store.force) return false;
  const { spec, retriever, label } = pass;
  const rows = [
    { name: label, spec: spec.text, description: retriever.describe() },
    ...run.rerankers.map(({ label: rlabel, reranker }) => ({
      name: `${label} >> ${rlabel}`,
      spec: `${spec.text} >> ${rlabel}`,
      description: { kind: 'rerank', firstStage: retriever.describe(), reranker: reranker.describe() },
    })),
  ];
  if (!rows.every((r) => hasEntry(store.dir, r, store.ctx))) return false;
  for (const r of rows) {
    const path = entryPath(r, store.ctx);
    run.rows.push((await readEntry(store.dir, path)).row);
    run.reused.push(path);
  }
  run.logger.info(
    `${label}: already in the results store (${rows.map((r) => entryPath(r, store.ctx)).join(', ')}); not scored again (--force recomputes)`,
  );
  return true;
}

/** The warnings a spec earns, into `pass.warnings` and the log: a language filter, a bridge trained on evaluated problems, a label proxy indexed. */
async function specWarnings(run: EvalRun, pass: RetrieverPass): Promise<void> {
  const { spec, label, warnings } = pass;
  if (usesLanguageFilter(spec)) warnings.push(LANGUAGE_FILTER_WARNING);
  for (const b of bridgeFiles(spec)) {
    const w = bridgeInSampleWarning(await loadBridgeFile(isAbsolute(b) ? b : resolve(run.baseDir, b)), evaluatedProblems(run));
    if (w !== undefined) {
      warnings.push(w);
      run.logger.warn(`${label}: ${w}`);
    }
  }
  const extra = bm25ExtraFields(spec);
  if (extra.length > 0) {
    run.memo.proxies ??= findTaskLabelProxies(run.data.tasks);
    for (const p of run.memo.proxies.filter((x) => extra.includes(x.field))) {
      warnings.push(`indexes a label proxy: ${describeLabelProxy(p)}; its numbers read the label, not the text every retriever sees`);
    }
    for (const w of warnings) run.logger.warn(`${label}: ${w}`);
  }
}

/** The seed problems of the evaluated queries (for the bridge's in-sample check), worked out once per run. */
function evaluatedProblems(run: EvalRun): Set<string> {
  run.memo.problems ??= new Set(
    [...run.data.tasks.values()].flatMap((t) => t.queries.map((q) => q.problemId).filter((p): p is string => p !== undefined)),
  );
  return run.memo.problems;
}

/** A run-file slug of `text` no other row of the run has (`-2`, `-3`, ... appended). */
function uniqueSlug(run: EvalRun, text: string): string {
  let slug = slugify(text);
  for (let i = 2; run.slugs.has(slug); i++) slug = `${slugify(text)}-${i}`;
  run.slugs.add(slug);
  return slug;
}

/**
 * Searches every task (with `top_ranked` lists written when asked); the indexes are let go before
 * anything is scored (at a million documents their postings are ~400 MB), so what scoring and
 * reranking allocate does not add to that peak.
 */
async function searchStage(run: EvalRun, pass: RetrieverPass, slug: string): Promise<StageTask[]> {
  const { outDir, written } = run.rowScoring;
  const topRanked = run.options.topRanked;
  const stage: StageTask[] = [];
  for (const [name, task] of run.data.tasks) {
    const st = await searchTask(run, pass, name, task);
    stage.push(st);
    if (outDir !== undefined && topRanked !== undefined) {
      const file = `runs/${slug}.${name}.top_ranked.jsonl`;
      await saveLinesAtomic(join(outDir, file), topRankedLines(task.queries, st.lists, topRanked), run.signal);
      written.add(file);
    }
  }
  pass.indexes.clear();
  if (pass.largeCorpus) await releaseGarbage();
  return stage;
}

/**
 * One task's index (built once per corpus) and search. A function of its own: a suspended async
 * function keeps its locals alive, and an index held there would outlive `pass.indexes`.
 */
async function searchTask(run: EvalRun, pass: RetrieverPass, name: string, task: RetrievalTask): Promise<StageTask> {
  const { signal } = run;
  const { spec, label, searchDepth, timings } = pass;
  checkAborted(signal);
  const key = run.data.corpusKey.get(name)!;
  const taskName = (TASKS as readonly string[]).includes(name) ? (name as TaskName) : undefined;
  const taskProgress = prefixProgress(run.progress, `${label} ${(TASK_SHORT_NAME as Record<string, string>)[name] ?? name}`);
  const exclude = run.excludes.get(name)!;
  const anchored = run.protocol.anchorExclusion && name === 'code2code';
  const states = statesOf(task);
  const done = (lists: Map<string, RankedList>): StageTask => ({
    name,
    task,
    corpusKey: key,
    anchored,
    exclude,
    lists,
    ...(taskName !== undefined ? { taskName } : {}),
  });
  if (states !== undefined && replayable(spec)) {
    // BM25 at each query's own state: no index of every version is needed
    const ts = performance.now();
    const lists = await replayBm25(task.corpus, states, task.queries, spec.params as Bm25Options, searchDepth, {
      exclude,
      progress: taskProgress,
      ...(signal ? { signal } : {}),
    });
    timings.searchMs += performance.now() - ts;
    noteStates(run, pass, name, states, 'replay');
    return done(lists);
  }
  let index = pass.indexes.get(key);
  if (index === undefined) {
    const ti = performance.now();
    index = await pass.retriever.index(task.corpus, {
      ...(taskName ? { task: taskName } : {}),
      progress: taskProgress,
      ...(signal ? { signal } : {}),
    });
    // What the index build let go of (word tables, scratch arrays: ~100 MB at a million
    // documents) is freed before the search rather than left to add to its peak.
    if (task.corpus.length >= COLLECT_AFTER_INDEX_DOCS) {
      pass.largeCorpus = true;
      collectGarbage();
    }
    timings.indexMs += performance.now() - ti;
    pass.indexes.set(key, index);
  }
  const ts = performance.now();
  const searchOptions = { ...(taskName ? { task: taskName } : {}), exclude, progress: taskProgress, ...(signal ? { signal } : {}) };
  let lists: Map<string, RankedList>;
  if (states === undefined) lists = await index.search(task.queries, searchDepth, searchOptions);
  else {
    lists = await searchVisible(index, task.corpus, states, task.queries, searchDepth, searchOptions);
    noteStates(run, pass, name, states, 'filter');
  }
  timings.searchMs += performance.now() - ts;
  checkAborted(signal);
  return done(lists);
}

/** Records (and logs) how a task of a corpus with states (`repo build --corpus-at parent`) was searched. */
function noteStates(run: EvalRun, pass: RetrieverPass, task: string, st: CorpusStates, how: 'replay' | 'filter'): void {
  pass.inStates[task] = { states: st.lastState + 1, versions: st.versions, search: how };
  run.logger.info(
    how === 'replay'
      ? `${pass.label} ${task}: each query searched in its own state of the corpus (${st.lastState + 1} states; bm25 replayed state by state, its statistics those of the state)`
      : `${pass.label} ${task}: each query's list cut to its own state of the corpus (${st.lastState + 1} states, ${st.versions} later versions); exact for scores that do not depend on the rest of the corpus, the statistics of every version together otherwise (rank fusion, a bm25 the replay does not take)`,
  );
}

/** The first stage's row: its lists cut to the run's depth, scored, with its warnings, usage and how a corpus with states was searched. */
async function firstStageRow(run: EvalRun, pass: RetrieverPass, stage: readonly StageTask[], slug: string): Promise<RetrieverResult> {
  const { spec, retriever, label, timings, searchDepth } = pass;
  const depth = run.depth;
  const te = performance.now();
  const first = await scoreRow(run.rowScoring, stage, (st) => (searchDepth > depth ? cutLists(st.lists, depth) : st.lists), slug, label);
  timings.evaluateMs += performance.now() - te;
  timings.totalMs = performance.now() - pass.started;
  const description = retriever.describe();
  const row = assembleRow(
    {
      name: label,
      specText: spec.text,
      description: Object.keys(pass.inStates).length > 0 ? { ...description, corpusStates: pass.inStates } : description,
      tasks: first.tasks,
      perQuery: first.perQuery,
      timings,
    },
    run.rowScoring.scoring,
    run.options.perQuery ?? true,
  );
  if (first.fileLevel !== undefined) row.fileLevel = first.fileLevel;
  if (first.unscored.length > 0) row.unscoredTasks = first.unscored;
  if (pass.warnings.length > 0) row.warnings = pass.warnings;
  const usage = retriever.report?.();
  if (usage !== undefined) row.usage = usage;
  return row;
}

/** One reranker's row over the first stage's lists: reranked per task, scored, compared with the first stage, its pair counts and execution figures. */
async function rerankedRow(
  run: EvalRun,
  pass: RetrieverPass,
  stage: readonly StageTask[],
  firstRow: RetrieverResult,
  { spec: rspec, label: rlabel, reranker }: OpenReranker,
): Promise<RetrieverResult> {
  const { signal } = run;
  const name = `${pass.label} >> ${rlabel}`;
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
        docs: docsOf(run, st.corpusKey, st.task),
        lists: st.lists,
        depth: pass.rerankDepth,
        fusion: run.fusion,
        exclude: st.exclude,
        progress: prefixProgress(run.progress, `${name} ${(TASK_SHORT_NAME as Record<string, string>)[st.name] ?? st.name}`),
        ...(st.taskName !== undefined ? { task: st.taskName } : {}),
        ...(signal !== undefined ? { signal } : {}),
      }),
    );
  }
  const rerankMs = performance.now() - t0;
  const tEval = performance.now();
  const row = await scoreRow(run.rowScoring, stage, (st) => reranked.get(st.name)!, uniqueSlug(run, name), name);
  const evaluateMs = performance.now() - tEval;
  const after = reranker.counters();
  const { timings } = pass;
  const result = assembleRow(
    {
      name,
      specText: `${pass.spec.text} >> ${rlabel}`,
      description: { kind: 'rerank', firstStage: firstRow.description, reranker: reranker.describe() },
      tasks: row.tasks,
      perQuery: row.perQuery,
      timings: { indexMs: timings.indexMs, searchMs: timings.searchMs, rerankMs, evaluateMs, totalMs: timings.totalMs + rerankMs + evaluateMs },
    },
    run.rowScoring.scoring,
    run.options.perQuery ?? true,
  );
  const { depth: shownDepth, recallCeiling, delta, deltaRelative } = compareWithFirstStage(stage, firstRow, result, run.protocol, pass.rerankDepth);
  result.firstStage = pass.label;
  result.rerank = {
    depth: shownDepth,
    spec: rspec,
    reranker: reranker.describe(),
    fusion: run.fusion,
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
  if (pass.warnings.length > 0) result.warnings = [...pass.warnings];
  if (row.fileLevel !== undefined) result.fileLevel = row.fileLevel;
  const execAfter = reranker.report?.();
  if (execAfter !== undefined) result.rerank.execution = diffCounters(execAfter, execBefore);
  if (row.unscored.length > 0) result.unscoredTasks = row.unscored;
  return result;
}

/** A corpus's documents by id (for the rerankers' texts), made once per corpus per run. */
function docsOf(run: EvalRun, key: string, task: RetrievalTask): Map<string, Doc> {
  let m = run.memo.docMaps.get(key);
  if (m === undefined) run.memo.docMaps.set(key, (m = new Map(task.corpus.map((d) => [d.id, d]))));
  return m;
}

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

/** The bridge files a spec (or its rrf members) reads. */
function bridgeFiles(spec: RetrieverSpec): string[] {
  if (spec.kind === 'bm25') return spec.bridge !== undefined ? [spec.bridge.file] : [];
  return spec.kind === 'rrf' ? spec.members.flatMap(bridgeFiles) : [];
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
