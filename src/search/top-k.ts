/**
 * Bounded-heap top-k over integer document ids with the trec_eval order, shared by BM25, dense
 * search and fusion so every coreb retriever ranks exactly as the metrics will re-rank its scores.
 */
import { codePointRanks } from '../core/ids.js';
import { TREC_SORT_KEY_TIES, trecBefore, trecScore, trecSortKey, trecSortKeyScore } from '../core/trec-order.js';

/**
 * Keeps the best `capacity` (document, score) pairs seen so far.
 *
 * Order ("better first"): core's trec order (`trecBefore`), score rounded to float32 descending,
 * then docid descending in code-point order (trec_eval 9.0.8). The docid comparison is one integer
 * comparison on `tieRanks[doc]`, the docid's rank from {@link codePointRanks} (larger rank = larger
 * docid = ranked first among equal scores). A min-heap holds the current worst at its root, so a push costs
 * O(1) when the candidate is worse than the root and O(log k) otherwise; {@link drainInto} sorts
 * only the k survivors. Scratch buffers are allocated once; call {@link reset} between queries.
 */
export class TopK {
  /** Maximum number of kept pairs. */
  readonly capacity: number;
  private readonly tieRanks: Int32Array;
  private readonly heapDocs: Int32Array;
  private readonly heapScores: Float32Array;
  private count = 0;
  /** Scratch of {@link drainInto}'s sort, made on first use. */
  private sortKeys: Float64Array | undefined;

  /**
   * @param capacity the k of top-k (>= 1).
   * @param tieRanks per document index, its docid's code-point rank (see {@link codePointRanks}).
   */
  constructor(capacity: number, tieRanks: Int32Array) {
    this.capacity = Math.max(1, Math.floor(capacity));
    this.tieRanks = tieRanks;
    this.heapDocs = new Int32Array(this.capacity);
    this.heapScores = new Float32Array(this.capacity);
  }

  /** Number of pairs currently kept. */
  get size(): number {
    return this.count;
  }

  /**
   * The float32 score a candidate must reach (>=) to possibly enter: the current worst kept score
   * when full, else -Infinity. Lets a caller skip {@link push} cheaply for most candidates.
   */
  get threshold(): number {
    return this.count < this.capacity ? -Infinity : this.heapScores[0];
  }

  /** Empties the heap (keeps its buffers). */
  reset(): void {
    this.count = 0;
  }

  /** Offers document `doc` with `score` (rounded to float32 here). NaN scores are ignored. */
  push(doc: number, score: number): void {
    const s = trecScore(score);
    if (Number.isNaN(s)) return;
    const docs = this.heapDocs;
    const scores = this.heapScores;
    const ties = this.tieRanks;
    if (this.count < this.capacity) {
      let i = this.count++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!trecBefore(scores[p], docs[p], s, doc, ties)) break;
        docs[i] = docs[p];
        scores[i] = scores[p];
        i = p;
      }
      docs[i] = doc;
      scores[i] = s;
      return;
    }
    if (!trecBefore(s, doc, scores[0], docs[0], ties)) return;
    this.siftDown(doc, s, this.count);
  }

  /** Places (doc, s) at the root and restores the heap over the first `n` slots. */
  private siftDown(doc: number, s: number, n: number): void {
    const docs = this.heapDocs;
    const scores = this.heapScores;
    const ties = this.tieRanks;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      const r = l + 1;
      if (r < n && trecBefore(scores[l], docs[l], scores[r], docs[r], ties)) c = r;
      if (!trecBefore(s, doc, scores[c], docs[c], ties)) break;
      docs[i] = docs[c];
      scores[i] = scores[c];
      i = c;
    }
    docs[i] = doc;
    scores[i] = s;
  }

  /**
   * Writes the kept pairs best first into `outDocs` / `outScores` (each at least {@link size} long)
   * and empties the heap. Past 64 pairs, with tie ranks that are a permutation below 2^21, the pairs
   * are packed into one number each ({@link trecSortKey}) and sorted natively: ~4x less CPU than
   * draining the heap for the 1,000 a search keeps; the same order either way.
   * @returns the number of pairs written.
   */
  drainInto(outDocs: Int32Array, outScores: Float32Array): number {
    const n = this.count;
    const docs = this.heapDocs;
    const scores = this.heapScores;
    const byRank = n > 64 ? rankToDoc(this.tieRanks) : undefined;
    if (byRank !== undefined) {
      const keys = (this.sortKeys ??= new Float64Array(this.capacity)).subarray(0, n);
      const ties = this.tieRanks;
      for (let i = 0; i < n; i++) keys[i] = trecSortKey(scores[i], ties[docs[i]]);
      keys.sort();
      // Ascending keys are worst first.
      for (let i = 0; i < n; i++) {
        const doc = byRank[keys[n - 1 - i] % TREC_SORT_KEY_TIES];
        outDocs[i] = doc;
        outScores[i] = trecSortKeyScore(keys[n - 1 - i]);
      }
      this.count = 0;
      return n;
    }
    for (let m = n; m > 0; m--) {
      outDocs[m - 1] = docs[0];
      outScores[m - 1] = scores[0];
      const lastDoc = docs[m - 1];
      const lastScore = scores[m - 1];
      if (m > 1) this.siftDown(lastDoc, lastScore, m - 1);
    }
    this.count = 0;
    return n;
  }
}

const rankToDocs = new WeakMap<Int32Array, Int32Array | null>();

/**
 * The document of each tie rank when `tieRanks` is a permutation of 0..n-1 with n at most 2^21
 * (what {@link codePointRanks} gives for unique ids), else undefined; computed once per array.
 */
function rankToDoc(tieRanks: Int32Array): Int32Array | undefined {
  let inverse = rankToDocs.get(tieRanks);
  if (inverse === undefined) {
    inverse = null;
    if (tieRanks.length <= TREC_SORT_KEY_TIES) {
      const inv = new Int32Array(tieRanks.length).fill(-1);
      let ok = true;
      for (let d = 0; d < tieRanks.length && ok; d++) {
        const r = tieRanks[d];
        if (r < 0 || r >= inv.length || inv[r] !== -1) ok = false;
        else inv[r] = d;
      }
      if (ok) inverse = inv;
    }
    rankToDocs.set(tieRanks, inverse);
  }
  return inverse ?? undefined;
}

/** Returns the code-point rank of every id, the tie key {@link TopK} expects. */
export function createTieRanks(docIds: readonly string[]): Int32Array {
  return codePointRanks(docIds);
}
