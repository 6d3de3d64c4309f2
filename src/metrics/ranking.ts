/**
 * Ranking one query exactly as trec_eval 9.0.8 does (metrics-spec §2): score rounded to float32
 * (or the double in trec_eval 10 mode), descending; ties by docid descending in UTF-8 byte order.
 */

/** Ranks of doc ids >= this bound do not fit the packed 53-bit sort key; a comparator sort is used. */
const PACK = 2097152; // 2^21

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

let keys = new Float64Array(1024);
let order = new Int32Array(1024);

/** Grows the shared sort scratch (`keys`, `order`) to hold `len` entries, doubling. */
function ensureScratch(len: number): void {
  if (keys.length < len) {
    keys = new Float64Array(len * 2);
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
      const s = scores[p];
      f32[0] = s === 0 ? 0 : s;
      const bits = u32[0];
      const sortable = bits >= 0x80000000 ? ~bits >>> 0 : bits + 0x80000000;
      keys[n++] = sortable * PACK + docRanks[d];
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
    const s = scores[p];
    keys[p - start] = float64 ? s : Math.fround(s);
    order[n++] = p;
  }
  const idx = order.subarray(0, n);
  idx.sort((a, b) => {
    const x = keys[a - start];
    const y = keys[b - start];
    if (x > y) return -1;
    if (x < y) return 1;
    return docRanks[docs[b]] - docRanks[docs[a]];
  });
  for (let i = 0; i < n; i++) out[i] = docs[idx[i]];
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
      const s = scores[p];
      f32[0] = s === 0 ? 0 : s;
      const bits = u32[0];
      const sortable = bits >= 0x80000000 ? ~bits >>> 0 : bits + 0x80000000;
      keys[n++] = sortable * PACK + (p - start);
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
    idx.sort((a, b) => {
      const x = float64 ? scores[a] : Math.fround(scores[a]);
      const y = float64 ? scores[b] : Math.fround(scores[b]);
      return x > y ? -1 : x < y ? 1 : 0;
    });
    for (let i = 0; i < n; i++) groupKeys[i] = float64 ? scores[order[i]] : Math.fround(scores[order[i]]);
  }
  const byDocidDesc = (a: number, b: number): number => compare(b, a);
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && groupKeys[j] === groupKeys[i]) j++;
    if (j - i > 1) order.subarray(i, j).sort(byDocidDesc);
    i = j;
  }
  for (let i = 0; i < n; i++) out[i] = docs[order[i]];
  return n;
}
