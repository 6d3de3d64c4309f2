/**
 * Means over groups of evaluated queries (task, subtask, language, sub_query_type, overall, task
 * mean), with the hard-negative diagnostics, and the protocol's rounding. Pure.
 */
import type { GroupResult, MetricValues, ProtocolSemantics, QueryResult } from '../core/eval-results.js';
import { protocolMeasures, roundHalfEven } from './protocol.js';

/** What aggregation reads of a protocol: its measures (by name) and its rounding. */
export type AggregateProtocol = Pick<ProtocolSemantics, 'name' | 'roundDigits' | 'unrounded'> & { extraMeasures?: readonly string[] };

/** Full precision over the coreb measures (the default of the functions below). */
const FULL_PRECISION: AggregateProtocol = { name: 'coreb', roundDigits: null, unrounded: [] };

/**
 * Arithmetic mean of every measure of the protocol over `queries` (summed in the given order,
 * divided once, as trec_eval, BEIR and MTEB do), plus the diagnostics, rounded per the protocol.
 */
export function aggregateQueries(queries: Iterable<QueryResult>, protocol: AggregateProtocol = FULL_PRECISION): GroupResult {
  const measures = protocolMeasures(protocol);
  const sums: MetricValues = {};
  for (const label of measures) sums[label] = 0;
  let n = 0;
  let eligible = 0;
  let intrusions = 0;
  let hn = 0;
  for (const q of queries) {
    n++;
    for (const label of measures) sums[label] += q.metrics[label] ?? 0;
    hn += q.hardNegativesTop10;
    if (q.hnIntrusion !== null) {
      eligible++;
      intrusions += q.hnIntrusion;
    }
  }
  const metrics: MetricValues = {};
  for (const label of measures) metrics[label] = n > 0 ? roundMeasure(sums[label] / n, label, protocol) : 0;
  return groupResult(n, metrics, eligible, intrusions, hn, protocol.roundDigits);
}

/**
 * Mean of group results weighted equally (the task mean: the official README's Avg, MTEB's
 * average over tasks); diagnostics pooled by count; `queries` is the pooled count. Groups without
 * queries are left out.
 */
export function aggregateGroups(groups: readonly GroupResult[], protocol: AggregateProtocol = FULL_PRECISION): GroupResult {
  const live = groups.filter((g) => g.queries > 0);
  const metrics: MetricValues = {};
  for (const label of protocolMeasures(protocol)) {
    let s = 0;
    for (const g of live) s += g.metrics[label] ?? 0;
    metrics[label] = live.length > 0 ? roundMeasure(s / live.length, label, protocol) : 0;
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
  return groupResult(n, metrics, eligible, intrusions, hn, protocol.roundDigits);
}

/** Groups query results by `key` (queries whose key is undefined are skipped) and aggregates each. */
export function aggregateBy(
  queries: ReadonlyMap<string, QueryResult>,
  key: (q: QueryResult) => string | undefined,
  protocol: AggregateProtocol = FULL_PRECISION,
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
  for (const k of [...groups.keys()].sort()) out[k] = aggregateQueries(groups.get(k)!, protocol);
  return out;
}

/**
 * A group of `n` queries with its (already averaged) `metrics` and the diagnostics from pooled
 * counts: `intrusions` over `eligible` queries, `hn` hard negatives in the top 10 in all.
 */
function groupResult(n: number, metrics: MetricValues, eligible: number, intrusions: number, hn: number, roundDigits: number | null): GroupResult {
  return {
    queries: n,
    metrics,
    diagnostics: {
      intrusionRate: eligible > 0 ? round(intrusions / eligible, roundDigits) : null,
      intrusionEligible: eligible,
      hardNegativesTop10: n > 0 ? round(hn / n, roundDigits) : 0,
      ndcgRecallGap10: round((metrics['ndcg@10'] ?? 0) - (metrics['recall@10'] ?? 0), roundDigits),
    },
  };
}

/** `x` rounded as the protocol rounds `label` (its digits, unless the measure is one it leaves unrounded). */
export function roundMeasure(x: number, label: string, protocol: AggregateProtocol): number {
  return protocol.unrounded.includes(label) ? x : round(x, protocol.roundDigits);
}

function round(x: number, digits: number | null): number {
  return digits === null ? x : roundHalfEven(x, digits);
}
