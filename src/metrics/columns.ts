/**
 * Map-shaped qrels and runs to the columnar (CSR) form the metric kernels work on (core's
 * `QrelsColumns` / `RunColumns`; the TREC parser produces that shape directly).
 */
import type { QrelsColumns, RunColumns } from '../core/columns.js';
import type { Qrels, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { Interner } from '../core/ids.js';

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
