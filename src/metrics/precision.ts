/**
 * Set-and-cutoff measures: P@k, recall@k, success@k, R-precision and interpolated precision at
 * recall points, with trec_eval 9.0.8's exact arithmetic (m_P.c, m_recall.c, m_success.c,
 * m_Rprec.c, m_iprec_at_recall.c).
 */
import type { RankedContext } from './context.js';

/** Writes P@k = hits(min(k, n)) / k for each cutoff (always divided by k) to `out[at + j]`. */
export function precisionAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    out[at + j] = ctx.hits[k < ctx.n ? k : ctx.n] / k;
  }
}

/** Writes recall@k = hits(min(k, n)) / num_rel (0 when num_rel = 0). */
export function recallAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    out[at + j] = ctx.numRel > 0 ? ctx.hits[k < ctx.n ? k : ctx.n] / ctx.numRel : 0;
  }
}

/** Writes success@k = 1 when a relevant doc is within the top k, else 0. */
export function successAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    out[at + j] = ctx.hits[k < ctx.n ? k : ctx.n] > 0 ? 1 : 0;
  }
}

/**
 * Writes acc@k = 1 when every relevant doc is within the top k, else 0 (0 when there is none): the
 * localization accuracy of LocAgent and SWE-bench-Lite file localization, at file level.
 */
export function accAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    out[at + j] = ctx.numRel > 0 && ctx.hits[k < ctx.n ? k : ctx.n] === ctx.numRel ? 1 : 0;
  }
}

/** R-precision: hits(min(num_rel, n)) / num_rel (0 when num_rel = 0). */
export function rPrecision(ctx: RankedContext): number {
  const r = ctx.numRel;
  return r > 0 ? ctx.hits[r < ctx.n ? r : ctx.n] / r : 0;
}

/**
 * Interpolated precision at recall points p (trec_eval 9.0.8): the rank cutoff of p is
 * `trunc(p * num_rel + 0.9)` relevant docs, and Int_Prec(X) = max Prec(Y) for Y >= X, scanned
 * from the bottom of the list. 0 for an empty ranking.
 */
export function iprecAtRecall(ctx: RankedContext, points: readonly number[], out: Float64Array, at: number): void {
  const { n, numRel, labels, level } = ctx;
  const numRelRet = ctx.hits[n];
  // Points whose cutoff exceeds num_rel_ret are never reached and stay 0, as in trec_eval.
  for (let j = 0; j < points.length; j++) out[at + j] = 0;
  if (n === 0) return;
  let cut = points.length - 1;
  while (cut >= 0 && Math.trunc(points[cut] * numRel + 0.9) > numRelRet) cut--;
  let intPrecis = numRelRet / n;
  let relSoFar = numRelRet;
  for (let i = n; i > 0 && relSoFar > 0; i--) {
    const precis = relSoFar / i;
    if (intPrecis < precis) intPrecis = precis;
    if (labels[i - 1] >= level) {
      while (cut >= 0 && relSoFar === Math.trunc(points[cut] * numRel + 0.9)) {
        out[at + cut] = intPrecis;
        cut--;
      }
      relSoFar--;
    }
  }
  while (cut >= 0) {
    out[at + cut] = intPrecis;
    cut--;
  }
}

/**
 * Writes relative_P@k = hits(min(k, n)) / min(k, num_rel) (trec_eval m_rel_P.c): precision up to R,
 * recall after. 0 when num_rel = 0.
 */
export function relativePrecisionAt(ctx: RankedContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  const r = ctx.numRel;
  for (let j = 0; j < cutoffs.length; j++) {
    const k = cutoffs[j];
    out[at + j] = r > 0 ? ctx.hits[k < ctx.n ? k : ctx.n] / (k > r ? r : k) : 0;
  }
}

/**
 * Writes Rprec_mult_x = precision at rank c = trunc(x * num_rel + 0.9) (trec_eval 9.0.8
 * m_Rprec_mult.c): num_rel_ret / c beyond the ranking; 0 when c = 0.
 */
export function rPrecisionMult(ctx: RankedContext, multiples: readonly number[], out: Float64Array, at: number): void {
  const { n, numRel } = ctx;
  const numRelRet = ctx.hits[n];
  for (let j = 0; j < multiples.length; j++) {
    const c = Math.trunc(multiples[j] * numRel + 0.9);
    if (c > n) out[at + j] = numRelRet / c;
    else if (c === 0 || ctx.hits[c] === 0) out[at + j] = 0;
    else out[at + j] = ctx.hits[c] / c;
  }
}

const ELEVEN_POINTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const elevenScratch = new Float64Array(11);

/**
 * 11pt_avg (trec_eval 9.0.8 m_11pt_avg.c): interpolated precision at recall 0, 0.1, ..., 1 summed
 * from the highest point down, divided by 11.
 */
export function elevenPointAverage(ctx: RankedContext): number {
  iprecAtRecall(ctx, ELEVEN_POINTS, elevenScratch, 0);
  let sum = 0;
  for (let j = 10; j >= 0; j--) sum += elevenScratch[j];
  return sum / 11;
}
