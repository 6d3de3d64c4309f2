/**
 * The per-query state every measure family reads: the ranked labels and their prefix sums
 * (hits, AP running sum, DCG), plus the ideal gain prefix. Built once per query, scratch reused.
 */
import { discountTable } from './log2.js';

/** Label of a retrieved doc that is not in the qrels (trec_eval RELVALUE_NONPOOL). */
export const NONPOOL = -2147483648;

/** Per-query ranked state. Arrays are scratch buffers longer than needed; read only `[0, n]`. */
export interface RankedContext {
  /** Number of ranked (retrieved) docs. */
  n: number;
  /** Relevance level L: a doc is relevant when its label >= L. */
  level: number;
  /** Qrels label per rank (0-based); {@link NONPOOL} when not judged; < 0 = in pool, unjudged. */
  labels: Int32Array;
  /** Docs in the qrels with label >= L (retrieved or not). */
  numRel: number;
  /** Docs in the qrels with 0 <= label < L. */
  numNonrel: number;
  /** hits[i] = relevant docs among the first i ranks; length n + 1. */
  hits: Int32Array;
  /** 1-based rank of the first relevant doc, 0 when none is retrieved. */
  firstRel: number;
  /** ap[i] = sum over relevant ranks r <= i of hits(r)/r, summed in rank order; length n + 1. */
  ap: Float64Array;
  /** dcg[i] = sum over ranks r <= i with gain > 0 of gain/log2(r+1), in rank order; length n + 1. */
  dcg: Float64Array;
  /** Number of positive ideal gains m. */
  idealCount: number;
  /** ideal[i] = DCG of the first i ideal gains (labels > 0 sorted descending); length m + 1. */
  ideal: Float64Array;
  /** The ideal gains themselves (positive gain labels sorted descending); read `[0, idealCount)`. */
  idealGains: Int32Array;
  /** Gain label per rank for nDCG and BEIR MRR (raw label, or 0 below L in strict mode; 0 if unjudged). */
  gains: Int32Array;
}

/** Creates an empty context with scratch arrays of at least `capacity` ranks. */
export function createContext(capacity: number): RankedContext {
  return {
    n: 0,
    level: 1,
    labels: new Int32Array(capacity),
    numRel: 0,
    numNonrel: 0,
    hits: new Int32Array(capacity + 1),
    firstRel: 0,
    ap: new Float64Array(capacity + 1),
    dcg: new Float64Array(capacity + 1),
    idealCount: 0,
    ideal: new Float64Array(capacity + 1),
    idealGains: new Int32Array(0),
    gains: new Int32Array(capacity),
  };
}

/** Grows the scratch arrays of `ctx` to hold `ranks` ranked docs and `idealLen` ideal gains. */
export function ensureCapacity(ctx: RankedContext, ranks: number, idealLen: number): void {
  if (ctx.labels.length < ranks) {
    const cap = Math.max(ranks, ctx.labels.length * 2);
    ctx.labels = new Int32Array(cap);
    ctx.gains = new Int32Array(cap);
    ctx.hits = new Int32Array(cap + 1);
    ctx.ap = new Float64Array(cap + 1);
    ctx.dcg = new Float64Array(cap + 1);
  }
  if (ctx.ideal.length < idealLen + 1) ctx.ideal = new Float64Array(Math.max(idealLen + 1, ctx.ideal.length * 2));
}

/**
 * Fills hits, firstRel and the AP running sum from `labels[0..n)` (trec_eval m_map.c order:
 * `s += c / i` at each relevant rank i).
 */
export function fillBinaryPrefixes(ctx: RankedContext): void {
  const { n, level, labels, hits, ap } = ctx;
  let c = 0;
  let s = 0;
  let first = 0;
  hits[0] = 0;
  ap[0] = 0;
  for (let i = 0; i < n; i++) {
    if (labels[i] >= level) {
      c++;
      s += c / (i + 1);
      if (first === 0) first = i + 1;
    }
    hits[i + 1] = c;
    ap[i + 1] = s;
  }
  ctx.firstRel = first;
}

/**
 * Fills the DCG prefix from `gains[0..n)` and the ideal prefix from `idealGains` (sorted descending,
 * all > 0). Discount of 0-based rank i is glibc log2(i + 2); gains are linear (trec_eval m_ndcg_cut.c).
 */
export function fillGainPrefixes(ctx: RankedContext, idealGains: Int32Array, m: number): void {
  const { n, gains, dcg, ideal } = ctx;
  const disc = discountTable(Math.max(n, m));
  let s = 0;
  dcg[0] = 0;
  for (let i = 0; i < n; i++) {
    const g = gains[i];
    if (g > 0) s += g / disc[i];
    dcg[i + 1] = s;
  }
  let t = 0;
  ideal[0] = 0;
  for (let i = 0; i < m; i++) {
    t += idealGains[i] / disc[i];
    ideal[i + 1] = t;
  }
  ctx.idealCount = m;
  ctx.idealGains = idealGains;
}
