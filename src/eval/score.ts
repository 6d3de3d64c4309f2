/**
 * Scores one task's ranked lists under a protocol: picks the query population, applies anchor
 * exclusion / identical-id removal, calls the trec_eval-exact metrics and adds the hard-negative
 * diagnostics per query.
 */
import type { Qrels, Query, Run } from '../core/dataset.js';
import type { MetricValues, QueryResult } from '../core/eval-results.js';
import type { RankedList } from '../core/retrieval.js';
import { evaluate } from '../metrics/evaluate.js';
import { measureKey, measureReadDepth, parseMeasures } from '../metrics/measures.js';
import { trecScore } from '../core/trec-order.js';
import { EVAL_MEASURES, protocolMeasures, type ScoringProtocol } from './protocol.js';
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

/**
 * The metrics engine's measure name and result key of each label a protocol reports: MRR is
 * BEIR's/MTEB's own (`mrr_beir`) under those protocols, trec_eval's `recip_rank_cut` otherwise.
 */
export function engineMeasures(protocol: ScoringProtocol): Array<{ label: string; measure: string; key: string }> {
  return protocolMeasures(protocol).map((label) => {
    const measure = label.startsWith('mrr@') && protocol.mrr !== 'trec' ? `mrr_beir@${label.slice(4)}` : label;
    const [spec] = parseMeasures([measure]);
    return { label, measure, key: measureKey(spec.family, spec.params[0]) };
  });
}

/** Input of {@link scoreTask}. */
export interface ScoreTaskInput {
  /** Task name written into each query result (`text2code`, ... or a BEIR task name). */
  task: string;
  /** The task's queries to score (already filtered by subtask). */
  queries: readonly Query[];
  qrels: Qrels;
  /** Ranked lists by query id; a query without an entry is "missing". */
  lists: ReadonlyMap<string, RankedList>;
  /** The protocol, with any extra measures asked for ({@link ScoringProtocol}). */
  protocol: ScoringProtocol;
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
  /** Their ids, in query order. */
  missingIds: string[];
  /** Queries left out by the protocol (c2t_match negatives under `exclude`; no rel-2 document under mteb). */
  excluded: number;
  /** c2t_match negatives counted with 0 (under `zero`). */
  zeroed: number;
  /** Evaluated queries whose ranked list was empty (after the protocol's removals): all 0, still averaged. */
  emptyIds: string[];
}

/** True for a c2t_match query whose qrels hold no positive (label >= 2): a "negative pair". */
export function isMatchNegative(query: Query, labels: ReadonlyMap<string, number> | undefined): boolean {
  if (query.subtask !== 'c2t_match') return false;
  if (labels === undefined) return true;
  for (const v of labels.values()) if (v >= 2) return false;
  return true;
}

/**
 * Converts a ranked list to the metrics' run shape, dropping the `drop` documents; with `depth`, only
 * the first `depth` documents kept and those tied in score with the last of them. A list is in trec
 * order ({@link RankedList}), so every measure that reads at most `depth` documents gets the value the
 * whole list gives it, for a tenth of the work at the default 1,000 retrieved and 100 read.
 */
function toRun(list: RankedList, drop: ReadonlySet<string> | undefined, depth: number | undefined): Map<string, number> {
  const m = new Map<string, number>();
  let last = Number.NaN;
  for (let i = 0; i < list.docIds.length; i++) {
    const id = list.docIds[i];
    if (drop?.has(id)) continue;
    const score = list.scores[i];
    const s32 = trecScore(score);
    if (depth !== undefined && m.size >= depth && s32 !== last) break;
    m.set(id, score);
    last = s32;
  }
  return m;
}

/** The scored population of a task: runs after removals, their qrels, the kept queries and the counts left out. */
interface Population {
  run: Run;
  subQrels: Qrels;
  kept: Query[];
  missingIds: string[];
  excluded: number;
  zeroed: number;
  emptyIds: string[];
}

/** The qrels of one query with labels below 2 removed, or undefined when none is left. */
function positivesOnly(labels: ReadonlyMap<string, number>): Map<string, number> | undefined {
  const out = new Map<string, number>();
  for (const [d, v] of labels) if (v >= 2) out.set(d, v);
  return out.size > 0 ? out : undefined;
}

/**
 * Population: queries with qrels and a ranked list (run ∩ qrels), minus c2t_match negatives under
 * `exclude` and, under mteb, minus queries without a rel-2 document (whose qrels are reduced to
 * rel-2 documents). An empty ranked list scores 0 and stays in the population.
 */
function population(input: ScoreTaskInput, depth: number | undefined): Population {
  const { protocol, qrels, lists } = input;
  const run: Run = new Map();
  const subQrels: Qrels = new Map();
  const kept: Query[] = [];
  const missingIds: string[] = [];
  const emptyIds: string[] = [];
  let excluded = 0;
  let zeroed = 0;
  for (const q of input.queries) {
    const original = qrels.get(q.id);
    if (original === undefined) continue;
    const labels = protocol.qrels === 'positives-only' ? positivesOnly(original) : original;
    if (labels === undefined) {
      excluded++;
      continue;
    }
    const negative = protocol.c2tMatchNegatives !== 'include' && isMatchNegative(q, labels);
    if (negative && protocol.c2tMatchNegatives === 'exclude') {
      excluded++;
      continue;
    }
    const list = lists.get(q.id);
    if (list === undefined) {
      missingIds.push(q.id);
      continue;
    }
    if (negative) zeroed++;
    const drop = new Set<string>();
    if (input.excludeAnchors && q.anchorId !== undefined) drop.add(q.anchorId);
    if (protocol.ignoreIdenticalIds) drop.add(q.id);
    const docs = toRun(list, drop.size > 0 ? drop : undefined, depth);
    if (docs.size === 0) emptyIds.push(q.id);
    run.set(q.id, docs);
    subQrels.set(q.id, labels);
    kept.push(q);
  }
  return { run, subQrels, kept, missingIds, excluded, zeroed, emptyIds };
}

/**
 * The mean of one measure (e.g. `recall@128`) over the population {@link scoreTask} scores, under
 * the same protocol (relevance level, nDCG mode, removals); null when no query is scored.
 */
export function meanMeasure(input: ScoreTaskInput, label: string): number | null {
  const [spec] = parseMeasures([label]);
  const { run, subQrels, kept } = population(input, measureReadDepth([spec]));
  if (kept.length === 0) return null;
  const key = measureKey(spec.family, spec.params[0]);
  const evaluation = evaluate(subQrels, run, { measures: [label], relevanceLevel: input.protocol.relevanceLevel, ndcg: input.protocol.ndcg });
  let sum = 0;
  for (const q of kept) sum += evaluation.perQuery.get(q.id)?.[key] ?? 0;
  return sum / kept.length;
}

/**
 * Scores one task over the population of {@link population} (run ∩ qrels, the protocol's
 * exclusions; empty lists count as 0). Measures per {@link protocolMeasures} with the protocol's
 * relevance level and nDCG mode; the diagnostics use the same trec order after the same removals
 * (and the release's graded qrels).
 */
export function scoreTask(input: ScoreTaskInput): ScoredTask {
  const { protocol } = input;
  const graded = input.graded ?? true;
  const measures = engineMeasures(protocol);
  // As deep as the measures read, and at least the diagnostics' top 10.
  const read = measureReadDepth(parseMeasures(measures.map((m) => m.measure)));
  const { run, subQrels, kept, missingIds, excluded, zeroed, emptyIds } = population(
    input,
    read === undefined || !graded ? read : Math.max(read, 10),
  );
  const perQuery = new Map<string, QueryResult>();
  const out = { perQuery, missing: missingIds.length, missingIds, excluded, zeroed, emptyIds };
  if (kept.length === 0) return out;
  const evaluation = evaluate(subQrels, run, {
    measures: measures.map((m) => m.measure),
    relevanceLevel: protocol.relevanceLevel,
    ndcg: protocol.ndcg,
  });
  for (const q of kept) {
    const raw = evaluation.perQuery.get(q.id) ?? {};
    const metrics: MetricValues = {};
    for (const m of measures) metrics[m.label] = raw[m.key] ?? 0;
    let hn = { hardNegatives: 0, intrusion: null as number | null };
    if (graded) hn = topHardNegatives(rankTrec(run.get(q.id)!, undefined, 10), input.qrels.get(q.id), 10);
    const r: QueryResult = { task: input.task, metrics, hnIntrusion: hn.intrusion, hardNegativesTop10: hn.hardNegatives };
    if (q.subtask !== undefined) r.subtask = q.subtask;
    if (q.language !== undefined) r.language = q.language;
    if (q.subQueryType !== undefined) r.subQueryType = q.subQueryType;
    perQuery.set(q.id, r);
  }
  return out;
}
