/**
 * One result row from ranked lists: each task's run file written (when asked) and its queries
 * scored and aggregated, the row assembled with its breakdowns (subtask, language, query type), the
 * file-level block of a repository benchmark, and a reranked row compared with its first stage.
 */
import { join } from 'node:path';
import type { Qrels, Query, RetrievalTask, TaskName } from '../core/dataset.js';
import type { GroupResult, MetricValues, ProtocolSemantics, QueryResult, RetrieverResult, TaskResult } from '../core/eval-results.js';
import type { Logger } from '../core/progress.js';
import type { RankedList } from '../core/retrieval.js';
import { counted } from '../core/words.js';
import { saveChunksAtomic } from '../dataset/atomic-write.js';
import { aggregateBy, aggregateGroups, aggregateQueries } from './aggregate.js';
import { fileKeys, fileList, fileQrels, LOCALIZATION_MEASURES, withoutTests } from './file-level.js';
import type { ScoringProtocol } from './protocol.js';
import { metricDeltas } from './rerank-stage.js';
import { trecRunChunks, type RunFileFormat } from './run-files.js';
import { meanMeasure, scoreTask } from './score.js';

/** One task's first stage: the lists searched (to the larger of depth and rerank depth) and what was excluded. */
export interface StageTask {
  name: string;
  task: RetrievalTask;
  taskName?: TaskName;
  corpusKey: string;
  anchored: boolean;
  exclude: Map<string, string[]>;
  lists: Map<string, RankedList>;
}

/**
 * The row's file-level block, when every chunk of a scored task names its file (repository
 * benchmarks): the protocol's measures and {@link LOCALIZATION_MEASURES}, overall, per task and per
 * query type, and the same without test files.
 */
export function scoreFileLevel(
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
export interface RowParts {
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
export function assembleRow(parts: RowParts, scoring: ScoringProtocol, withPerQuery: boolean): RetrieverResult {
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
 * How a reranked row compares with its first stage: the depth reranked, the first stage's recall at
 * it per task (the ceiling reranking can reach), and every measure's change, absolute and relative,
 * per task and overall.
 */
export function compareWithFirstStage(
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

/** What scoring a row needs: the protocol, whether labels are graded, where run files go and what was written. */
export interface RowScoring {
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
export async function scoreRow(
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
      await saveChunksAtomic(join(outDir, runFile), trecRunChunks(st.task.queries, lists, slug, d), signal);
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
