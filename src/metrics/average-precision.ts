/**
 * Average precision: map (whole list), map_cut@k and the per-query term of gm_map
 * (trec_eval m_map.c, m_map_cut.c, m_gm_map.c). AP@k divides by all relevant docs, not min(k, R).
 */
import type { RankedContext } from './context.js';

/** trec_eval's MIN_GEO_MEAN: AP values below this are floored before taking the log. */
export const MIN_GEO_MEAN = 0.00001;

/** AP over the whole ranking: (sum over relevant ranks i of hits(i)/i) / num_rel; 0 if num_rel = 0. */
export function averagePrecision(ctx: RankedContext): number {
  return ctx.numRel > 0 ? ctx.ap[ctx.n] / ctx.numRel : 0;
}

/** Writes AP@k = (running AP sum up to rank min(k, n)) / num_rel for each cutoff. */
export function averagePrecisionAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    out[at + j] = ctx.numRel > 0 ? ctx.ap[k < ctx.n ? k : ctx.n] / ctx.numRel : 0;
  }
}

/** gm_map's per-query term: ln(max(AP, 1e-5)); the summary is exp(mean of these). */
export function logAveragePrecision(ctx: RankedContext): number {
  return Math.log(Math.max(averagePrecision(ctx), MIN_GEO_MEAN));
}
