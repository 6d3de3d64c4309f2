/**
 * Ranking one query exactly as trec_eval 9.0.8 does, with core's trec order (score rounded to
 * float32, or the double in trec_eval 10 mode, descending; ties by docid descending in UTF-8 byte
 * order): packed sort keys when they fit, a comparator sort otherwise.
 */
import { compareTrec, trecScore, trecSortKey, TREC_SORT_KEY_TIES as PACK } from '../core/trec-order.js';

let keys = new Float64Array(1024);
let ties = new Int32Array(1024);
let order = new Int32Array(1024);
const NO_TIES = new Int32Array(0);
/** Tie groups up to this size are sorted by insertion sort, larger ones by TypedArray sort. */
const SMALL_TIES = 16;

/** Grows the shared sort scratch (`keys`, `ties`, `order`) to hold `len` entries, doubling. */
function ensureScratch(len: number): void {
  if (keys.length < len) {
    keys = new Float64Array(len * 2);
    ties = new Int32Array(len * 2);
    order = new Int32Array(len * 2);
  }
}

/** Inverts a rank permutation: element `r` is the doc index with rank `r`. */
export function invertRanks(ranks: Int32Array): Int32Array {
  const inv = new Int32Array(ranks.length);
  for (let i = 0; i < ranks.length; i++) inv[ranks[i]] = i;
  return inv;
}

/**
 * Sorts the entries `[start, end)` of one query into trec_eval order and writes the doc indices,
 * best first, to `out`. The entry whose doc equals `exclude` (an anchor; -1 for none) is dropped.
 * @param float64 - true to compare double scores (trec_eval 10); false rounds to float32 (9.0.8).
 * @returns the number of ranked docs written.
 */
export function rankQuery(
  docs: Int32Array,
  scores: Float64Array,
  start: number,
  end: number,
  exclude: number,
  docRanks: Int32Array,
  rankToDoc: Int32Array,
  float64: boolean,
  out: Int32Array,
): number {
  ensureScratch(end - start);
  if (!float64 && docRanks.length <= PACK) {
    let n = 0;
    for (let p = start; p < end; p++) {
      const d = docs[p];
      if (d === exclude && d >= 0) continue;
      keys[n++] = trecSortKey(scores[p], docRanks[d]);
    }
    const view = keys.subarray(0, n);
    view.sort();
    for (let i = 0; i < n; i++) {
      const k = view[n - 1 - i];
      out[i] = rankToDoc[k - Math.floor(k / PACK) * PACK];
    }
    return n;
  }
  let n = 0;
  for (let p = start; p < end; p++) {
    if (docs[p] === exclude && exclude >= 0) continue;
    keys[n] = trecScore(scores[p], float64);
    ties[n] = docRanks[docs[p]];
    order[n] = n;
    n++;
  }
  const idx = order.subarray(0, n);
  idx.sort((a, b) => compareTrec(keys[a], a, keys[b], b, ties));
  for (let i = 0; i < n; i++) out[i] = rankToDoc[ties[idx[i]]]; // ties hold doc ranks; every doc >= 0 here
  return n;
}

/**
 * BEIR's ranking for its MRR: double scores descending, ties in insertion (run-file) order
 * (Python's stable `sorted(..., reverse=True)`). Writes doc indices best first to `out`.
 * @returns the number of ranked docs written.
 */
export function rankQueryInsertionOrder(
  docs: Int32Array,
  scores: Float64Array,
  start: number,
  end: number,
  exclude: number,
  out: Int32Array,
): number {
  ensureScratch(end - start);
  let n = 0;
  for (let p = start; p < end; p++) if (exclude < 0 || docs[p] !== exclude) order[n++] = p;
  const idx = order.subarray(0, n);
  idx.sort((a, b) => {
    const x = scores[a];
    const y = scores[b];
    if (x > y) return -1;
    if (x < y) return 1;
    return a - b;
  });
  for (let i = 0; i < n; i++) out[i] = docs[idx[i]];
  return n;
}

let groupKeys = new Float64Array(1024);

/**
 * {@link rankQuery} for runs whose docids are compared by entry (`compare(a, b)` = strcmp of the
 * docids of entries a and b) instead of by a global docid rank: sorts by score, then sorts each
 * group of tied scores by docid descending. Writes doc indices (may be -1) best first to `out`.
 * @returns the number of ranked docs written.
 */
export function rankQueryByEntries(
  docs: Int32Array,
  scores: Float64Array,
  start: number,
  end: number,
  exclude: number,
  compare: (a: number, b: number) => number,
  float64: boolean,
  out: Int32Array,
): number {
  const len = end - start;
  ensureScratch(len);
  if (groupKeys.length < len) groupKeys = new Float64Array(len * 2);
  let n = 0;
  if (!float64 && len <= PACK) {
    for (let p = start; p < end; p++) {
      if (exclude >= 0 && docs[p] === exclude) continue;
      keys[n++] = trecSortKey(scores[p], p - start);
    }
    const view = keys.subarray(0, n);
    view.sort();
    for (let i = 0; i < n; i++) {
      const k = view[n - 1 - i];
      const g = Math.floor(k / PACK);
      groupKeys[i] = g;
      order[i] = start + (k - g * PACK);
    }
  } else {
    for (let p = start; p < end; p++) {
      if (exclude >= 0 && docs[p] === exclude) continue;
      order[n++] = p;
    }
    const idx = order.subarray(0, n);
    idx.sort((a, b) => compareTrec(trecScore(scores[a], float64), 0, trecScore(scores[b], float64), 0, NO_TIES));
    for (let i = 0; i < n; i++) groupKeys[i] = trecScore(scores[order[i]], float64);
  }
  const byDocidDesc = (a: number, b: number): number => compare(b, a);
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && groupKeys[j] === groupKeys[i]) j++;
    if (j - i > SMALL_TIES) order.subarray(i, j).sort(byDocidDesc);
    else if (j - i > 1) {
      // Small tie groups (the usual case) by insertion sort in place: no subarray or comparator
      // call per group. Docids within a query are distinct, so the order is the same.
      for (let k = i + 1; k < j; k++) {
        const e = order[k];
        let m = k - 1;
        while (m >= i && compare(e, order[m]) > 0) {
          order[m + 1] = order[m];
          m--;
        }
        order[m + 1] = e;
      }
    }
    i = j;
  }
  for (let i = 0; i < n; i++) out[i] = docs[order[i]];
  return n;
}
