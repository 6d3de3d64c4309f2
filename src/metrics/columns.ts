/**
 * The columnar (CSR) form of qrels and runs the metric kernels work on: interned integer doc ids,
 * typed arrays, one contiguous slice per query. The TREC parser produces this shape directly.
 */
import type { Qrels, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { Interner } from '../core/ids.js';

/**
 * A run in CSR form. Query `q`'s entries are `[offsets[q], offsets[q + 1])` of `docs`/`scores`, in
 * run-file (insertion) order. Doc ids index `docIds`, which must be shared with the qrels.
 */
export interface RunColumns {
  /** Query ids, one per query slice. */
  readonly queryIds: readonly string[];
  /** Interned document ids (shared with {@link QrelsColumns.docIds}). */
  readonly docIds: readonly string[];
  /** Slice bounds, length `queryIds.length + 1`. */
  readonly offsets: Int32Array;
  /** Doc index per entry. */
  readonly docs: Int32Array;
  /** Score per entry, as parsed (double). */
  readonly scores: Float64Array;
  /**
   * Optional: compares the docids of entries `a` and `b` in C `strcmp` order (UTF-8 bytes). When
   * present, `docs[i]` may be -1 for docs outside `docIds` (not judged, not an anchor) and score
   * ties are broken with it, so only judged docs need interned ids.
   */
  readonly compareEntries?: (a: number, b: number) => number;
}

/** Qrels in CSR form; same layout as {@link RunColumns} with integer labels (< 0 = unjudged). */
export interface QrelsColumns {
  readonly queryIds: readonly string[];
  readonly docIds: readonly string[];
  readonly offsets: Int32Array;
  readonly docs: Int32Array;
  readonly labels: Int32Array;
}

/**
 * Converts map-shaped qrels and run to columns with one shared doc id space.
 * Labels must be integers; scores must not be NaN.
 * @throws CorebError `VALIDATION` on a non-integer label or a NaN score.
 */
export function createColumns(qrels: Qrels, run: Run): { qrels: QrelsColumns; run: RunColumns } {
  const ids = new Interner();
  let nq = 0;
  for (const m of qrels.values()) nq += m.size;
  const qOffsets = new Int32Array(qrels.size + 1);
  const qDocs = new Int32Array(nq);
  const labels = new Int32Array(nq);
  let p = 0;
  let qi = 0;
  for (const [qid, m] of qrels) {
    for (const [d, label] of m) {
      if (!Number.isInteger(label)) {
        throw new CorebError('VALIDATION', `qrels label of (${qid}, ${d}) is ${label}; labels must be integers`);
      }
      qDocs[p] = ids.intern(d);
      labels[p++] = label;
    }
    qOffsets[++qi] = p;
  }
  let nr = 0;
  for (const m of run.values()) nr += m.size;
  const rOffsets = new Int32Array(run.size + 1);
  const rDocs = new Int32Array(nr);
  const scores = new Float64Array(nr);
  p = 0;
  qi = 0;
  for (const [qid, m] of run) {
    for (const [d, s] of m) {
      if (Number.isNaN(s)) throw new CorebError('VALIDATION', `run score of (${qid}, ${d}) is NaN; scores must be numbers`);
      rDocs[p] = ids.intern(d);
      scores[p++] = s;
    }
    rOffsets[++qi] = p;
  }
  const docIds = ids.strings;
  return {
    qrels: { queryIds: [...qrels.keys()], docIds, offsets: qOffsets, docs: qDocs, labels },
    run: { queryIds: [...run.keys()], docIds, offsets: rOffsets, docs: rDocs, scores },
  };
}
