/**
 * bpref (Buckley & Voorhees, SIGIR 2004), trec_eval 9.0.8 m_bpref.c: for each retrieved relevant
 * doc, 1 - min(judged non-relevant above it, R) / min(N, R), averaged over R relevant docs.
 * Docs not in the qrels and docs labelled < 0 are skipped.
 */
import { NONPOOL, type RankedContext } from './context.js';

/** bpref of the query; 0 when num_rel = 0. */
export function bpref(ctx: RankedContext): number {
  const { n, labels, level, numRel, numNonrel } = ctx;
  let nonrelSoFar = 0;
  let sum = 0;
  const denom = Math.min(numNonrel, numRel);
  for (let i = 0; i < n; i++) {
    const l = labels[i];
    if (l === NONPOOL || l < 0) continue;
    if (l < level) nonrelSoFar++;
    else if (nonrelSoFar > 0) sum += 1 - Math.min(nonrelSoFar, numRel) / denom;
    else sum += 1;
  }
  return numRel > 0 ? sum / numRel : sum;
}

/** gm_bpref's per-query term: ln(max(bpref, 1e-5)); the summary is exp(mean of these). */
export function logBpref(ctx: RankedContext): number {
  return Math.log(Math.max(bpref(ctx), 0.00001));
}

/** trec_eval's INFAP_EPSILON. */
const INFAP_EPSILON = 0.00001;

/**
 * infAP (Yilmaz & Aslam, CIKM 2006; trec_eval 9.0.8 m_infap.c): AP estimated from a sampled pool.
 * Docs not in the qrels are skipped; docs labelled < 0 are pooled but unjudged.
 */
export function infAP(ctx: RankedContext): number {
  const { n, labels, level } = ctx;
  let nonrelSoFar = 0;
  let relSoFar = 0;
  let unjudgedSoFar = 0;
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const l = labels[j];
    if (l === NONPOOL) continue;
    if (l < 0) {
      unjudgedSoFar++;
      continue;
    }
    if (l < level) {
      nonrelSoFar++;
      continue;
    }
    relSoFar++;
    if (j === 0) sum += 1;
    else {
      const fj = j;
      sum +=
        1 / (fj + 1) +
        (fj / (fj + 1)) *
          ((relSoFar - 1 + nonrelSoFar + unjudgedSoFar) / fj) *
          ((relSoFar - 1 + INFAP_EPSILON) / (relSoFar - 1 + nonrelSoFar + 2 * INFAP_EPSILON));
    }
  }
  return ctx.numRel > 0 ? sum / ctx.numRel : sum;
}
