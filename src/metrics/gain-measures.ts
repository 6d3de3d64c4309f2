/**
 * trec_eval 9.0.8's experimental gain measures with default gains (gain = label): binG, G, ndcg_rel
 * and Rndcg (m_binG.c, m_G.c, m_ndcg_rel.c, m_Rndcg.c). The ideal list walks the positive gains in
 * descending order, then gain 0; logarithms are glibc's (integer arguments).
 */
import type { RankedContext } from './context.js';
import { discountTable, glibcLog2 } from './log2.js';

function idealAt(ctx: RankedContext, i: number): number {
  return i < ctx.idealCount ? ctx.idealGains[i] : 0;
}

/** binG: mean over relevant docs of 1 / log2(2 + non-relevant docs above it); 0 if none retrieved. */
export function binG(ctx: RankedContext): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < ctx.n; i++) {
    if (ctx.labels[i] >= ctx.level) {
      relSoFar++;
      sum += 1 / glibcLog2(3 + i - relSoFar);
    }
  }
  return relSoFar > 0 ? sum / ctx.numRel : 0;
}

/**
 * G: each retrieved doc contributes gain / log2(2 + ideal cost so far - gain so far), normalised by
 * the total ideal gain (cost of a rank is its ideal gain, at least 1).
 */
export function gainG(ctx: RankedContext): number {
  const { n, gains } = ctx;
  let resultsG = 0;
  let sumResults = 0;
  let sumIdeal = 0;
  let sumCost = 0;
  let idealGain = idealAt(ctx, 0);
  let i = 0;
  for (; i < n && idealGain > 0; i++) {
    const g = gains[i];
    sumResults += g;
    idealGain = idealAt(ctx, i);
    if (idealGain > 0) sumIdeal += idealGain;
    sumCost += idealGain >= 1 ? idealGain : 1;
    if (g !== 0) resultsG += g / glibcLog2(2 + sumCost - sumResults);
  }
  for (; i < n; i++) {
    const g = gains[i];
    sumResults += g;
    sumCost += 1;
    if (g !== 0) resultsG += g / glibcLog2(2 + sumCost - sumResults);
  }
  while (idealGain > 0) {
    idealGain = idealAt(ctx, i);
    if (idealGain > 0) sumIdeal += idealGain;
    i++;
  }
  return sumIdeal > 0 ? resultsG / sumIdeal : 0;
}

/**
 * ndcg_rel: nDCG averaged over the positive-gain docs (retrieved ones at their rank, unretrieved
 * ones at the end of the ranking).
 */
export function ndcgRel(ctx: RankedContext): number {
  const { n, gains } = ctx;
  const disc = discountTable(Math.max(n, ctx.idealCount) + 1);
  let resultsDcg = 0;
  let idealDcg = 0;
  let sum = 0;
  let numRel = 0;
  let numRelRet = 0;
  let idealGain = idealAt(ctx, 0);
  let i = 0;
  for (; i < n && idealGain > 0; i++) {
    const g = gains[i];
    if (g !== 0) resultsDcg += g / disc[i];
    idealGain = idealAt(ctx, i);
    if (idealGain > 0) {
      numRel++;
      idealDcg += idealGain / disc[i];
    }
    if (g > 0) {
      sum += resultsDcg / idealDcg;
      numRelRet++;
    }
  }
  for (; i < n; i++) {
    const g = gains[i];
    if (g !== 0) resultsDcg += g / disc[i];
    if (g > 0) {
      sum += resultsDcg / idealDcg;
      numRelRet++;
    }
  }
  while (idealGain > 0) {
    idealGain = idealAt(ctx, i);
    if (idealGain > 0) {
      numRel++;
      idealDcg += idealGain / disc[i];
    }
    i++;
  }
  sum += ((numRel - numRelRet) * resultsDcg) / idealDcg;
  return sum > 0 ? sum / numRel : 0;
}

/**
 * Rndcg: nDCG averaged at the R-level points, the ranks where the ideal gain changes (and at the end
 * of the ranking once the ideal gain is 0). 0 when num_rel = 0.
 */
export function rNdcg(ctx: RankedContext): number {
  if (ctx.numRel === 0) return 0;
  const { n, gains } = ctx;
  const disc = discountTable(Math.max(n, ctx.idealCount) + 1);
  let resultsDcg = 0;
  let idealDcg = 0;
  let sum = 0;
  let changes = 0;
  let idealGain = idealAt(ctx, 0);
  let oldIdeal = idealGain;
  let i = 0;
  for (; i < n && idealGain > 0; i++) {
    const g = gains[i];
    idealGain = idealAt(ctx, i);
    if (oldIdeal !== idealGain) {
      if (idealDcg > 0) {
        sum += resultsDcg / idealDcg;
        changes++;
      }
      oldIdeal = idealGain;
    }
    if (g !== 0) resultsDcg += g / disc[i];
    if (idealGain > 0) idealDcg += idealGain / disc[i];
  }
  if (i < n) {
    for (; i < n; i++) {
      const g = gains[i];
      if (g !== 0) resultsDcg += g / disc[i];
    }
    if (idealDcg > 0) {
      sum += resultsDcg / idealDcg;
      changes++;
    }
  }
  while (idealGain > 0) {
    idealGain = idealAt(ctx, i);
    if (oldIdeal !== idealGain) {
      if (idealDcg > 0) {
        sum += resultsDcg / idealDcg;
        changes++;
      }
      oldIdeal = idealGain;
    }
    if (idealGain > 0) idealDcg += idealGain / disc[i];
    i++;
  }
  return sum / changes;
}
