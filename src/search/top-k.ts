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
export class TopK implements TopKKeeper {
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
      drainKeys(keys, n, byRank, outDocs, outScores);
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

/** What a scan needs of a top-k keeper: {@link TopK} or {@link TopKBatch}. */
export interface TopKKeeper {
  readonly capacity: number;
  readonly size: number;
  readonly threshold: number;
  push(doc: number, score: number): void;
  drainInto(outDocs: Int32Array, outScores: Float32Array): number;
}

/**
 * Candidates a {@link TopKBatch} gathers past its capacity before it selects: as many as it keeps,
 * between 256 and 4,096, so its memory is at most twice a heap's (16 bytes a slot instead of 8; a
 * search holds one keeper per query of a block, every query for the onnxruntime kernel).
 */
function batchSlack(capacity: number): number {
  return Math.min(4096, Math.max(256, capacity));
}

/**
 * The best `capacity` pairs in trec order, like {@link TopK}, kept by batches instead of a heap:
 * a candidate that beats the current k-th best is appended as one packed number
 * ({@link trecSortKey}); when `capacity` more are gathered (256 to 4,096) the best `capacity` are
 * selected (quickselect) and the rest dropped; a drain sorts the kept ones once. A streaming scan
 * at depth 1,000 pushes thousands of candidates per query, each O(log k) in a heap; here each costs
 * an append and a share of a linear selection (the scan's CPU about halved at 100k x 768).
 * Needs tie ranks that are a permutation below 2^21: see {@link createTopK}.
 */
export class TopKBatch implements TopKKeeper {
  readonly capacity: number;
  private readonly tieRanks: Int32Array;
  private readonly byRank: Int32Array;
  private readonly keys: Float64Array;
  private n = 0;
  private barKey = Number.NEGATIVE_INFINITY;
  private bar = Number.NEGATIVE_INFINITY;

  constructor(capacity: number, tieRanks: Int32Array, byRank: Int32Array) {
    this.capacity = Math.max(1, Math.floor(capacity));
    this.tieRanks = tieRanks;
    this.byRank = byRank;
    this.keys = new Float64Array(this.capacity + batchSlack(this.capacity));
  }

  get size(): number {
    return Math.min(this.n, this.capacity);
  }

  /** The float32 score a candidate must reach (>=) to possibly enter: the k-th best's after the last sort. */
  get threshold(): number {
    return this.bar;
  }

  push(doc: number, score: number): void {
    const s = trecScore(score);
    if (Number.isNaN(s)) return;
    const key = trecSortKey(s, this.tieRanks[doc]);
    if (key <= this.barKey) return;
    this.keys[this.n++] = key;
    if (this.n === this.keys.length) this.compact();
  }

  /** Keeps the best `capacity` of the gathered keys (a selection, not a sort); the k-th best becomes the bar. */
  private compact(): void {
    const k = this.capacity;
    if (this.n > k) {
      selectLargest(this.keys, this.n, k);
      this.keys.copyWithin(0, this.n - k, this.n);
      this.n = k;
    }
    if (this.n === k) {
      let min = this.keys[0];
      for (let i = 1; i < k; i++) if (this.keys[i] < min) min = this.keys[i];
      this.barKey = min;
      this.bar = trecSortKeyScore(min);
    }
  }

  drainInto(outDocs: Int32Array, outScores: Float32Array): number {
    this.compact();
    const n = this.n;
    drainKeys(this.keys, n, this.byRank, outDocs, outScores);
    this.n = 0;
    this.barKey = Number.NEGATIVE_INFINITY;
    this.bar = Number.NEGATIVE_INFINITY;
    return n;
  }
}

/**
 * Sorts the packed keys `keys[0, n)` ({@link trecSortKey}) and writes their pairs best first into
 * `outDocs` / `outScores` (ascending keys are worst first), the document found from its tie rank.
 */
function drainKeys(keys: Float64Array, n: number, byRank: Int32Array, outDocs: Int32Array, outScores: Float32Array): void {
  keys.subarray(0, n).sort();
  for (let i = 0; i < n; i++) {
    const key = keys[n - 1 - i];
    outDocs[i] = byRank[key % TREC_SORT_KEY_TIES];
    outScores[i] = trecSortKeyScore(key);
  }
}

/**
 * Rearranges `keys[0, n)` (distinct values) so that the `k` largest are in `keys[n - k, n)`, in no
 * particular order: quickselect with a median-of-three pivot, O(n) on average.
 */
function selectLargest(keys: Float64Array, n: number, k: number): void {
  const target = n - k;
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    const a = keys[lo];
    const b = keys[mid];
    const c = keys[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i] < pivot) i++;
      while (keys[j] > pivot) j--;
      if (i <= j) {
        const t = keys[i];
        keys[i] = keys[j];
        keys[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return;
  }
}

/** A {@link TopKBatch} where the tie ranks allow it (a permutation below 2^21) and `capacity` is past 64, else a {@link TopK}. */
export function createTopK(capacity: number, tieRanks: Int32Array): TopKKeeper {
  const byRank = capacity > 64 ? rankToDoc(tieRanks) : undefined;
  return byRank === undefined ? new TopK(capacity, tieRanks) : new TopKBatch(capacity, tieRanks, byRank);
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
