/**
 * `coreb eval` as a library call: load a CoREB release or a BEIR directory, run each retriever over
 * each task's corpus once, write TREC runs, score them under the protocol, aggregate by task,
 * subtask, language and query type, and return (and optionally save) the results. {@link runEval}
 * reads as its steps: the options checked, the data loaded and identified, the protocol and
 * exclusions decided, the rerankers opened, each retriever evaluated (evaluate-retriever.ts), the
 * results assembled, kept in the store and written.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Doc, RetrievalTask } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { EVAL_RESULTS_SCHEMA, type DatasetIdentity, type EvalResults, type ProtocolSemantics } from '../core/eval-results.js';
import { silentLogger, silentProgress, type Logger } from '../core/progress.js';
import { corebVersion } from '../core/version.js';
import { saveAtomic } from '../dataset/atomic-write.js';
import { hashDatasetDir } from '../dataset/dataset-identity.js';
import { cachedReleaseTokenStats, verifiedByModelLanguage } from '../dataset/release-tokens.js';
import { releaseTasks } from '../dataset/release-tasks.js';
import { entryPath, writeEntry } from '../dataset/results-store.js';
import { rowModelMeta } from '../providers/presets.js';
import { detectDataLayout, loadEvalData, type EvalData } from './eval-data.js';
import type { EvalOptions, EvalOutput } from './eval-options.js';
import { checkAborted, evaluateRetriever, recordFailure, type EvalRun, type OpenReranker } from './evaluate-retriever.js';
import { protocolMeasures, resolveExtraMeasures, resolveProtocol, type ScoringProtocol } from './protocol.js';
import { createRerankerFromSpec, parseRerankFusion, RERANK_DEFAULT_DEPTH } from './rerank-stage.js';
import { parseRetrieverSpec, retrieverLabel, type RetrieverSpec } from './retriever-spec.js';
import { prepareOutDir, removeOldRuns, RUN_FILE_FORMATS, runFileDepth } from './run-files.js';

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
  const signal = options.signal;
  const { depth, specs } = checkOptions(options);
  const dir = resolve(options.data);
  const layout = await detectDataLayout(dir);
  const scoring = await chooseProtocol(dir, layout, options);
  const outDir = options.outDir === undefined ? undefined : resolve(options.outDir);
  const replacing = outDir !== undefined && (await prepareOutDir(outDir, options.overwrite ?? false, logger));
  const data = await loadEvalData(dir, layout, options, logger);
  if (layout === 'beir') warnUnreachableLevel(dir, data, scoring, logger);
  checkAborted(signal);
  const identity = await identifyDataset(dir, data, options);
  const loadMs = performance.now() - t0;
  checkAborted(signal);
  const run = newRun(options, { dir, depth, layout, scoring, data, identity, ...(outDir !== undefined ? { outDir } : {}) });
  try {
    // The release's statements, whichever tasks are scored (so the exec reranker's borrowing does not
    // depend on --tasks); made once, and only for a reranker that reads them.
    run.rerankers = await openRerankers(
      options.rerankers ?? [],
      options,
      logger,
      run.closers,
      () => data.tasks.get('code2text')?.corpus ?? (data.release !== undefined ? releaseTasks(data.release).code2text.corpus : undefined),
    );
    for (const spec of specs) {
      try {
        await evaluateRetriever(run, spec);
      } catch (e) {
        recordFailure(run, retrieverLabel(spec), spec.text, e);
      }
    }
  } finally {
    for (const close of run.closers) close();
  }
  const results = assembleResults(run, scoring, identity, { loadMs, totalMs: performance.now() - t0 });
  const store = run.store === undefined ? undefined : { dir: run.store.dir, added: await keepInStore(run, results), reused: run.reused };
  if (outDir === undefined) return { results, ...(store !== undefined ? { store } : {}) };
  checkAborted(signal);
  const resultsFile = join(outDir, 'results.json');
  await saveAtomic(resultsFile, JSON.stringify(results, null, 2) + '\n');
  if (replacing) await removeOldRuns(outDir, run.rowScoring.written, logger);
  return { results, resultsFile, ...(store !== undefined ? { store } : {}) };
}

/**
 * The protocol the data is scored under, with the extra measures asked for: `coreb` for a release
 * and a repository benchmark (`coreb repo build`: BEIR layout, graded the CoREB way), `beir` for
 * other BEIR data, unless `options.protocol` says.
 */
async function chooseProtocol(dir: string, layout: 'beir' | 'coreb-release', options: EvalOptions): Promise<ScoringProtocol> {
  const graded = layout === 'beir' && (await isRepoBenchmark(dir));
  const protocol = resolveProtocol(
    options.protocol ?? (layout === 'beir' && !graded ? 'beir' : 'coreb'),
    options.c2tMatchNegatives === undefined ? {} : { c2tMatchNegatives: options.c2tMatchNegatives },
  );
  const extraMeasures = resolveExtraMeasures(options.measures ?? []);
  return extraMeasures.length > 0 ? { ...protocol, extraMeasures } : protocol;
}

/** What the run loaded and decided before any retriever: the input of {@link newRun}. */
interface LoadedRun {
  dir: string;
  depth: number;
  layout: 'beir' | 'coreb-release';
  scoring: ScoringProtocol;
  data: EvalData;
  identity: DatasetIdentity;
  outDir?: string;
}

/** The run every retriever's evaluation reads and adds its rows to (rerankers opened next). */
function newRun(options: EvalOptions, { dir, depth, layout, scoring, data, identity, outDir }: LoadedRun): EvalRun {
  const { extraMeasures: _extra, ...protocol } = scoring;
  const runDepth = options.runDepth ?? runFileDepth(protocolMeasures(scoring));
  const store = options.resultsStore;
  return {
    options,
    dir,
    baseDir: options.baseDir ?? process.cwd(),
    depth,
    protocol,
    data,
    rerankers: [],
    fusion: parseRerankFusion(options.rerankFusion),
    ...planExclusions(data.tasks, protocol),
    ...(store !== undefined
      ? {
          store: {
            dir: store.dir,
            force: store.force === true,
            ctx: {
              dataset: identity,
              protocol,
              measures: [...protocolMeasures(scoring)],
              options: { depth, tasks: [...data.tasks.keys()], subtasks: options.subtasks ?? null },
            },
          },
        }
      : {}),
    rowScoring: {
      scoring,
      graded: layout === 'coreb-release',
      ...(outDir !== undefined ? { outDir } : {}),
      runFormat: options.runs ?? 'plain',
      runDepth: runDepth === 'all' ? undefined : runDepth,
      written: new Set(),
      logger: options.logger ?? silentLogger,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    },
    logger: options.logger ?? silentLogger,
    progress: options.progress ?? silentProgress,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    closers: [],
    rows: [],
    reused: [],
    failed: [],
    slugs: new Set(),
    memo: { docMaps: new Map() },
  };
}

/** The results of the run: its rows (with their model metadata), failures, options and timings. */
function assembleResults(run: EvalRun, scoring: ScoringProtocol, identity: DatasetIdentity, timings: EvalResults['timings']): EvalResults {
  const { options, rowScoring } = run;
  const extraMeasures = scoring.extraMeasures ?? [];
  for (const row of run.rows) {
    const meta = rowModelMeta(row, options.modelMeta);
    if (meta !== undefined) row.model = meta;
  }
  return {
    schema: EVAL_RESULTS_SCHEMA,
    coreb: { version: options.corebVersion ?? corebVersion() },
    createdAt: new Date().toISOString(),
    dataset: identity,
    protocol: run.protocol,
    measures: [...protocolMeasures(scoring)],
    options: {
      depth: run.depth,
      tasks: [...run.data.tasks.keys()],
      subtasks: options.subtasks ?? null,
      ...(extraMeasures.length > 0 ? { measures: [...extraMeasures] } : {}),
      ...(rowScoring.outDir !== undefined && rowScoring.runFormat !== 'none' ? { runDepth: rowScoring.runDepth ?? 'all' } : {}),
      ...(run.rerankers.length > 0 ? { rerankDepth: options.rerankDepth ?? RERANK_DEFAULT_DEPTH, rerankers: [...(options.rerankers ?? [])] } : {}),
    },
    retrievers: run.rows,
    ...(run.failed.length > 0 ? { failed: run.failed } : {}),
    timings,
  };
}

/**
 * The options checked before any work: depth, run-file format and depth, rerank depth, top-ranked
 * depth, and retriever specs parsed with every row's name unique.
 * @throws CorebError `USAGE` naming the option and what was expected.
 */
function checkOptions(options: EvalOptions): { depth: number; specs: RetrieverSpec[] } {
  const depth = options.depth ?? 1000;
  if (!Number.isInteger(depth) || depth < 1) throw new CorebError('USAGE', `depth must be an integer >= 1, got ${depth}`);
  const specs = (options.retrievers && options.retrievers.length > 0 ? options.retrievers : ['bm25']).map(parseRetrieverSpec);
  const labels = specs.map(retrieverLabel);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice !== undefined) {
    throw new CorebError('USAGE', `two retrievers are named \`${twice}\`; give each its own name= (e.g. bm25?k1=1.2&name=bm25-classic)`);
  }
  const runFormat = options.runs ?? 'plain';
  if (!(RUN_FILE_FORMATS as readonly string[]).includes(runFormat)) {
    throw new CorebError('USAGE', `runs must be one of ${RUN_FILE_FORMATS.join(', ')}, got \`${runFormat}\``);
  }
  if (options.rerankDepth !== undefined && (!Number.isInteger(options.rerankDepth) || options.rerankDepth < 1)) {
    throw new CorebError('USAGE', `rerank depth must be an integer >= 1, got ${options.rerankDepth}`);
  }
  if (options.topRanked !== undefined && (!Number.isInteger(options.topRanked) || options.topRanked < 1)) {
    throw new CorebError('USAGE', `top-ranked depth must be an integer >= 1, got ${options.topRanked}`);
  }
  const runDepth = options.runDepth;
  if (runDepth !== 'all' && runDepth !== undefined && (!Number.isInteger(runDepth) || runDepth < 1)) {
    throw new CorebError('USAGE', `run depth must be an integer >= 1 or all, got ${runDepth}`);
  }
  return { depth, specs };
}

/** BEIR data whose qrels never reach the protocol's relevance level: every measure would be 0, said once. */
function warnUnreachableLevel(dir: string, data: EvalData, protocol: ProtocolSemantics, logger: Logger): void {
  if (protocol.relevanceLevel <= 1) return;
  let maxLabel = 0;
  for (const t of data.tasks.values()) for (const m of t.qrels.values()) for (const v of m.values()) maxLabel = Math.max(maxLabel, v);
  if (maxLabel < protocol.relevanceLevel) {
    logger.warn(
      `${dir}: no qrels label reaches relevance level ${protocol.relevanceLevel} (max ${maxLabel}); every measure will be 0. BEIR data is usually evaluated with --protocol beir`,
    );
  }
}

/** The dataset's identity: its files hashed and, for a release, its descriptive statistics (unless turned off). */
async function identifyDataset(dir: string, data: EvalData, options: EvalOptions): Promise<DatasetIdentity> {
  const hashed = await hashDatasetDir(dir, options.signal);
  const identity: DatasetIdentity = { ...data.identity, files: hashed.files, sha256: hashed.sha256 };
  if (data.release !== undefined && options.datasetStats !== false) {
    identity.stats = {
      tokens: await cachedReleaseTokenStats(data.release, options.statsCacheDir, options.signal, hashed.sha256),
      verified: verifiedByModelLanguage(data.release),
    };
  }
  return identity;
}

/** Writes each scored row (not those read from it) into the results store; the entries written. */
async function keepInStore(run: EvalRun, results: EvalResults): Promise<string[]> {
  const added: string[] = [];
  const store = run.store!;
  for (const row of run.rows) {
    if (run.reused.includes(entryPath(row, store.ctx))) continue;
    added.push(await writeEntry(store.dir, results, row));
  }
  return added;
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
