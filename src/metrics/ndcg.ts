/**
 * nDCG as trec_eval computes it (m_ndcg.c, m_ndcg_cut.c): linear gains (the label itself), discount
 * glibc log2(rank + 1), ideal list = every positive label of the query sorted descending. The
 * relevance level does not apply (mode `trec`) unless labels below it were zeroed (mode `strict`).
 */
import type { RankedContext } from './context.js';

/** nDCG over the whole ranking: DCG(n) / IDCG(m); 0 when the ideal DCG is 0. */
export function ndcg(ctx: RankedContext): number {
  const ideal = ctx.ideal[ctx.idealCount];
  return ideal > 0 ? ctx.dcg[ctx.n] / ideal : 0;
}

/** Writes nDCG@k = DCG(min(k, n)) / IDCG(min(k, m)) for each cutoff (0 when IDCG is 0). */
export function ndcgAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  const { n, idealCount: m } = ctx;
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    const ideal = ctx.ideal[k < m ? k : m];
    out[at + j] = ideal > 0 ? ctx.dcg[k < n ? k : n] / ideal : 0;
  }
}
