/**
 * The columnar (CSR) form of qrels and runs: interned integer doc ids, typed arrays, one contiguous
 * slice per query. dataset's TREC parser produces it and metrics' kernels evaluate it, so it lives
 * here, between the two.
 */

/**
 * A run in CSR form. Query `q`'s entries are `[offsets[q], offsets[q + 1])` of `docs`/`scores`, in
 * run-file (insertion) order. Doc ids index `docIds`, which must be shared with the qrels.
 */
export interface RunColumns {
  /** Query ids, one per query slice (first-seen order). */
  readonly queryIds: readonly string[];
  /** Interned document ids (shared with {@link QrelsColumns.docIds}). */
  readonly docIds: readonly string[];
  /** Slice bounds, length `queryIds.length + 1`. */
  readonly offsets: Int32Array;
  /** Doc index per entry. */
  readonly docs: Int32Array;
  /** Score per entry, as parsed (double; C `atof` for a TREC file). */
  readonly scores: Float64Array;
  /**
   * Optional: compares the docids of entries `a` and `b` in C `strcmp` order (UTF-8 bytes; negative,
   * zero, positive). When present, `docs[i]` may be -1 for docs outside `docIds` (not judged, not an
   * anchor) and score ties are broken with it, so only judged docs need interned ids.
   */
  readonly compareEntries?: (a: number, b: number) => number;
}

/** Qrels in CSR form; same layout as {@link RunColumns} with integer labels. */
export interface QrelsColumns {
  readonly queryIds: readonly string[];
  readonly docIds: readonly string[];
  readonly offsets: Int32Array;
  readonly docs: Int32Array;
  /** Labels (C `atol` of a TREC file: `2.7` -> 2); < 0 means judged-unjudged. */
  readonly labels: Int32Array;
}
