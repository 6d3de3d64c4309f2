/**
 * Reciprocal rank: trec_eval's recip_rank, MRR@k in trec order (`recip_rank_cut_k`, the same as
 * `trec_eval -M k -m recip_rank`) and BEIR's own MRR@k (beir custom_metrics.mrr), which ranks
 * differently and is computed separately.
 */
import type { RankedContext } from './context.js';

/** 1 / rank of the first relevant doc; 0 when none is retrieved. */
export function reciprocalRank(ctx: RankedContext): number {
  return ctx.firstRel > 0 ? 1 / ctx.firstRel : 0;
}

/** Writes RR if the first relevant doc is within rank k, else 0, for each cutoff k. */
export function reciprocalRankAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  for (let j = 0; j < cutoffs.length; j++) {
    out[at + j] = ctx.firstRel > 0 && ctx.firstRel <= cutoffs[j] ? 1 / ctx.firstRel : 0;
  }
}

/**
 * BEIR-style MRR@k for one query: `gainsInBeirOrder[i]` is the gain label of the doc at 0-based
 * rank i of BEIR's ranking (double scores descending, ties in run-file order). Relevant means
 * gain label > 0. Writes 1/rank of the first relevant doc within k, else 0.
 */
export function beirReciprocalRankAt(gainsInBeirOrder: Int32Array, n: number, cutoffs: readonly number[], out: Float64Array, at: number): void {
  let first = 0;
  for (let i = 0; i < n; i++) {
    if (gainsInBeirOrder[i] > 0) {
      first = i + 1;
      break;
    }
  }
  for (let j = 0; j < cutoffs.length; j++) out[at + j] = first > 0 && first <= cutoffs[j] ? 1 / first : 0;
}
