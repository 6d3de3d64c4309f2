/**
 * Scores one task's ranked lists under a protocol: picks the query population, applies anchor
 * exclusion / identical-id removal, calls the trec_eval-exact metrics and adds the hard-negative
 * diagnostics per query.
 */
import type { Qrels, Query, Run } from '../core/dataset.js';
import type { MetricValues, ProtocolSemantics, QueryResult } from '../core/eval-results.js';
import type { RankedList } from '../core/retrieval.js';
import { evaluate, measureKey, parseMeasures } from '../metrics/index.js';
import { EVAL_MEASURES } from './protocol.js';
import { rankTrec, topHardNegatives } from './rank.js';

/**
 * trec_eval result key of each display label of {@link EVAL_MEASURES} (`ndcg@10` -> `ndcg_cut_10`),
 * as the metrics' own measure parser names it.
 */
export const MEASURE_KEYS: Readonly<Record<(typeof EVAL_MEASURES)[number], string>> = Object.fromEntries(
  EVAL_MEASURES.map((label) => {
    const [spec] = parseMeasures([label]);
    return [label, measureKey(spec.family, spec.params[0])];
  }),
) as Record<(typeof EVAL_MEASURES)[number], string>;

/** Input of {@link scoreTask}. */
export interface ScoreTaskInput {
  /** Task name written into each query result (`text2code`, ... or a BEIR task name). */
  task: string;
  /** The task's queries to score (already filtered by subtask). */
  queries: readonly Query[];
  qrels: Qrels;
  /** Ranked lists by query id; a query without an entry is "missing". */
  lists: ReadonlyMap<string, RankedList>;
  protocol: ProtocolSemantics;
  /** Remove each query's `anchorId` before scoring (the protocol's code-to-code rule). Default false. */
  excludeAnchors?: boolean;
  /** Compute hard-negative diagnostics (labels 2/1 mean positive/hard negative). Default true. */
  graded?: boolean;
}

/** Output of {@link scoreTask}. */
export interface ScoredTask {
  /** Evaluated queries, in the order of `queries`. */
  perQuery: Map<string, QueryResult>;
  /** Queries with qrels but no ranked list. */
  missing: number;
  /** Queries left out by the protocol (c2t_match negatives). */
  excluded: number;
}

/** True for a c2t_match query whose qrels hold no positive (label >= 2): a "negative pair". */
export function isMatchNegative(query: Query, labels: ReadonlyMap<string, number> | undefined): boolean {
  if (query.subtask !== 'c2t_match') return false;
  if (labels === undefined) return true;
  for (const v of labels.values()) if (v >= 2) return false;
  return true;
}

/** Converts a ranked list to the metrics' run shape, dropping the `drop` documents. */
function toRun(list: RankedList, drop: ReadonlySet<string> | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < list.docIds.length; i++) {
    const id = list.docIds[i];
    if (drop?.has(id)) continue;
    m.set(id, list.scores[i]);
  }
  return m;
}

/** The scored population of a task: runs after removals, their qrels, the kept queries and the counts left out. */
interface Population {
  run: Run;
  subQrels: Qrels;
  kept: Query[];
  missing: number;
  excluded: number;
}

function population(input: ScoreTaskInput): Population {
  const { protocol, qrels, lists } = input;
  const run: Run = new Map();
  const subQrels: Qrels = new Map();
  const kept: Query[] = [];
  let missing = 0;
  let excluded = 0;
  for (const q of input.queries) {
    const labels = qrels.get(q.id);
    if (labels === undefined) continue;
    if (protocol.c2tMatchNegatives === 'exclude' && isMatchNegative(q, labels)) {
      excluded++;
      continue;
    }
    const list = lists.get(q.id);
    if (list === undefined) {
      missing++;
      continue;
    }
    const drop = new Set<string>();
    if (input.excludeAnchors && q.anchorId !== undefined) drop.add(q.anchorId);
    if (protocol.ignoreIdenticalIds) drop.add(q.id);
    run.set(q.id, toRun(list, drop.size > 0 ? drop : undefined));
    subQrels.set(q.id, labels);
    kept.push(q);
  }
  return { run, subQrels, kept, missing, excluded };
}

/**
 * The mean of one measure (e.g. `recall@128`) over the population {@link scoreTask} scores, under
 * the same protocol (relevance level, nDCG mode, removals); null when no query is scored.
 */
export function meanMeasure(input: ScoreTaskInput, label: string): number | null {
  const { run, subQrels, kept } = population(input);
  if (kept.length === 0) return null;
  const [spec] = parseMeasures([label]);
  const key = measureKey(spec.family, spec.params[0]);
  const evaluation = evaluate(subQrels, run, { measures: [label], relevanceLevel: input.protocol.relevanceLevel, ndcg: input.protocol.ndcg });
  let sum = 0;
  for (const q of kept) sum += evaluation.perQuery.get(q.id)?.[key] ?? 0;
  return sum / kept.length;
}

/**
 * Scores one task. Population: queries with qrels and a ranked list (run ∩ qrels), minus c2t_match
 * negatives under `exclude`. Measures per {@link EVAL_MEASURES} with the protocol's relevance level
 * and nDCG mode; the diagnostics use the same trec order after the same removals.
 */
export function scoreTask(input: ScoreTaskInput): ScoredTask {
  const { protocol } = input;
  const graded = input.graded ?? true;
  const { run, subQrels, kept, missing, excluded } = population(input);
  const perQuery = new Map<string, QueryResult>();
  if (kept.length === 0) return { perQuery, missing, excluded };
  const evaluation = evaluate(subQrels, run, {
    measures: EVAL_MEASURES.map((label) => (label === 'mrr@10' && protocol.mrr === 'beir' ? 'mrr_beir@10' : label)),
    relevanceLevel: protocol.relevanceLevel,
    ndcg: protocol.ndcg,
  });
  for (const q of kept) {
    const raw = evaluation.perQuery.get(q.id) ?? {};
    const metrics: MetricValues = {};
    for (const label of EVAL_MEASURES) metrics[label] = raw[MEASURE_KEYS[label]] ?? 0;
    if (protocol.mrr === 'beir') metrics['mrr@10'] = raw.mrr_beir_10 ?? 0;
    let hn = { hardNegatives: 0, intrusion: null as number | null };
    if (graded) hn = topHardNegatives(rankTrec(run.get(q.id)!, undefined, 10), subQrels.get(q.id), 10);
    const r: QueryResult = { task: input.task, metrics, hnIntrusion: hn.intrusion, hardNegativesTop10: hn.hardNegatives };
    if (q.subtask !== undefined) r.subtask = q.subtask;
    if (q.language !== undefined) r.language = q.language;
    if (q.subQueryType !== undefined) r.subQueryType = q.subQueryType;
    perQuery.set(q.id, r);
  }
  return { perQuery, missing, excluded };
}
