/**
 * Count measures: num_ret, num_rel, num_rel_ret (trec_eval m_num_*.c). Summed, not averaged, over
 * queries.
 */
import type { RankedContext } from './context.js';

/** num_ret: documents retrieved for the query (after anchor removal). */
export function numRet(ctx: RankedContext): number {
  return ctx.n;
}

/** num_rel: qrels documents with label >= the relevance level, retrieved or not. */
export function numRel(ctx: RankedContext): number {
  return ctx.numRel;
}

/** num_rel_ret: relevant documents retrieved. */
export function numRelRet(ctx: RankedContext): number {
  return ctx.hits[ctx.n];
}
