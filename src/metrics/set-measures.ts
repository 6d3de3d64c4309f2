/**
 * Unranked set measures over all retrieved docs (trec_eval m_set_P.c, m_set_rel_P.c, m_set_recall.c,
 * m_set_map.c, m_set_F.c), each 0 when its denominator is 0, plus num_nonrel_judged_ret.
 */
import { NONPOOL, type RankedContext } from './context.js';

/** set_P = num_rel_ret / num_ret. */
export function setPrecision(ctx: RankedContext): number {
  return ctx.n > 0 ? ctx.hits[ctx.n] / ctx.n : 0;
}

/** set_relative_P = num_rel_ret / min(num_ret, num_rel). */
export function setRelativePrecision(ctx: RankedContext): number {
  return ctx.n > 0 && ctx.numRel > 0 ? ctx.hits[ctx.n] / Math.min(ctx.n, ctx.numRel) : 0;
}

/** set_recall = num_rel_ret / num_rel. */
export function setRecall(ctx: RankedContext): number {
  return ctx.numRel > 0 ? ctx.hits[ctx.n] / ctx.numRel : 0;
}

/** set_map = num_rel_ret² / (num_ret · num_rel). */
export function setMap(ctx: RankedContext): number {
  const rr = ctx.hits[ctx.n];
  return ctx.n > 0 && ctx.numRel > 0 ? (rr * rr) / (ctx.n * ctx.numRel) : 0;
}

/** set_F (β = 1): 2·P·R / (P + R) with set P and R; 0 when nothing relevant is retrieved. */
export function setF(ctx: RankedContext): number {
  const rr = ctx.hits[ctx.n];
  if (rr === 0) return 0;
  const p = rr / ctx.n;
  const r = rr / ctx.numRel;
  return ((1 + 1) * p * r) / (1 * p + r);
}

/** num_nonrel_judged_ret: retrieved docs judged with 0 <= label < level. */
export function numNonrelJudgedRet(ctx: RankedContext): number {
  let c = 0;
  for (let i = 0; i < ctx.n; i++) {
    const l = ctx.labels[i];
    if (l !== NONPOOL && l >= 0 && l < ctx.level) c++;
  }
  return c;
}

/**
 * utility with trec_eval's default coefficients (1, -1, 0, 0) and no collection size:
 * num_rel_ret - (num_ret - num_rel_ret).
 */
export function utility(ctx: RankedContext): number {
  const a = ctx.hits[ctx.n];
  return 1 * a + -1 * (ctx.n - a) + 0 * (ctx.numRel - a) + 0 * (0 + a - ctx.n - ctx.numRel);
}
