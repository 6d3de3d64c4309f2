/**
 * Means over groups of evaluated queries (task, subtask, language, sub_query_type, overall), with
 * the hard-negative diagnostics, and the protocol's rounding. Pure.
 */
import type { GroupResult, MetricValues, ProtocolSemantics, QueryResult } from '../core/eval-results.js';
import { EVAL_MEASURES, roundHalfEven } from './protocol.js';

/**
 * Arithmetic mean of every measure over `queries` (summed in the given order, divided once, as
 * trec_eval and BEIR do), plus the diagnostics. Rounds to `roundDigits` decimals when given.
 */
export function aggregateQueries(queries: Iterable<QueryResult>, roundDigits: number | null = null): GroupResult {
  const sums: MetricValues = {};
  for (const label of EVAL_MEASURES) sums[label] = 0;
  let n = 0;
  let eligible = 0;
  let intrusions = 0;
  let hn = 0;
  for (const q of queries) {
    n++;
    for (const label of EVAL_MEASURES) sums[label] += q.metrics[label] ?? 0;
    hn += q.hardNegativesTop10;
    if (q.hnIntrusion !== null) {
      eligible++;
      intrusions += q.hnIntrusion;
    }
  }
  const metrics: MetricValues = {};
  for (const label of EVAL_MEASURES) metrics[label] = n > 0 ? round(sums[label] / n, roundDigits) : 0;
  return groupResult(n, metrics, eligible, intrusions, hn, roundDigits);
}

/**
 * Mean of group results weighted equally (MTEB's average over tasks); diagnostics pooled by count.
 */
export function aggregateGroups(groups: readonly GroupResult[], roundDigits: number | null = null): GroupResult {
  const live = groups.filter((g) => g.queries > 0);
  const metrics: MetricValues = {};
  for (const label of EVAL_MEASURES) {
    let s = 0;
    for (const g of live) s += g.metrics[label];
    metrics[label] = live.length > 0 ? round(s / live.length, roundDigits) : 0;
  }
  let eligible = 0;
  let intrusions = 0;
  let hn = 0;
  let n = 0;
  for (const g of live) {
    n += g.queries;
    hn += g.diagnostics.hardNegativesTop10 * g.queries;
    if (g.diagnostics.intrusionRate !== null) {
      eligible += g.diagnostics.intrusionEligible;
      intrusions += g.diagnostics.intrusionRate * g.diagnostics.intrusionEligible;
    }
  }
  return groupResult(n, metrics, eligible, intrusions, hn, roundDigits);
}

/** Groups query results by `key` (queries whose key is undefined are skipped) and aggregates each. */
export function aggregateBy(
  queries: ReadonlyMap<string, QueryResult>,
  key: (q: QueryResult) => string | undefined,
  roundDigits: number | null = null,
): Record<string, GroupResult> {
  const groups = new Map<string, QueryResult[]>();
  for (const q of queries.values()) {
    const k = key(q);
    if (k === undefined) continue;
    let g = groups.get(k);
    if (g === undefined) groups.set(k, (g = []));
    g.push(q);
  }
  const out: Record<string, GroupResult> = {};
  for (const k of [...groups.keys()].sort()) out[k] = aggregateQueries(groups.get(k)!, roundDigits);
  return out;
}

/** The overall group of a protocol: pooled queries (`query-weighted`) or the mean of task groups. */
export function aggregateOverall(
  protocol: ProtocolSemantics,
  perQuery: ReadonlyMap<string, QueryResult>,
  taskGroups: readonly GroupResult[],
): GroupResult {
  return protocol.overall === 'task-mean'
    ? aggregateGroups(taskGroups, protocol.roundDigits)
    : aggregateQueries(perQuery.values(), protocol.roundDigits);
}

/**
 * A group of `n` queries with its (already averaged) `metrics` and the diagnostics from pooled
 * counts: `intrusions` over `eligible` queries, `hn` hard negatives in the top 10 in all.
 */
function groupResult(
  n: number,
  metrics: MetricValues,
  eligible: number,
  intrusions: number,
  hn: number,
  roundDigits: number | null,
): GroupResult {
  return {
    queries: n,
    metrics,
    diagnostics: {
      intrusionRate: eligible > 0 ? round(intrusions / eligible, roundDigits) : null,
      intrusionEligible: eligible,
      hardNegativesTop10: n > 0 ? round(hn / n, roundDigits) : 0,
      ndcgRecallGap10: round(metrics['ndcg@10'] - metrics['recall@10'], roundDigits),
    },
  };
}

function round(x: number, digits: number | null): number {
  return digits === null ? x : roundHalfEven(x, digits);
}
