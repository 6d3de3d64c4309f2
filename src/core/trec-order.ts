/**
 * The trec_eval ranking rule, defined once (metrics-spec §2): score descending, the score rounded to
 * float32 as trec_eval 9.0.8 stores it (the double itself in trec_eval 10 mode), ties broken by docid
 * descending in C `strcmp` order of the UTF-8 bytes (= code-point order). metrics re-ranks runs with
 * it, search's top-k keeps the best documents with it, eval's diagnostics order lists with it.
 */
import { compareCodePoints } from './ids.js';

/** The score trec_eval compares: `score` rounded to float32 (9.0.8), or the double when `float64` (10). */
export function trecScore(score: number, float64 = false): number {
  return float64 ? score : Math.fround(score);
}

/**
 * Compares entries `a` and `b` in trec order: negative when `a` ranks first, positive when `b` does.
 * `sa`/`sb` are their {@link trecScore}s; `ties[a]`/`ties[b]` their integer tie keys, which grow with
 * the docid (e.g. its rank from `codePointRanks`), so among equal scores the larger key ranks first.
 * The keys are read only on a score tie (hot loops pay nothing for them otherwise). Scores neither
 * greater nor smaller tie, like trec_eval's `qsort` comparator (callers reject NaN scores).
 */
export function compareTrec(sa: number, a: number, sb: number, b: number, ties: ArrayLike<number>): number {
  return sa > sb ? -1 : sa < sb ? 1 : ties[b] - ties[a];
}

/** `compareTrec(sa, a, sb, b, ties) < 0` as a predicate (for heaps): true when `a` ranks strictly first. */
export function trecBefore(sa: number, a: number, sb: number, b: number, ties: ArrayLike<number>): boolean {
  return sa > sb || (sa === sb && ties[a] > ties[b]);
}

/** {@link compareTrec} with the docids themselves as tie keys (compared by code point). */
export function compareTrecIds(sa: number, a: string, sb: number, b: string): number {
  return sa > sb ? -1 : sa < sb ? 1 : compareCodePoints(b, a);
}

/** Tie keys of {@link trecSortKey} must be below this bound (2^21), so a key stays an exact double. */
export const TREC_SORT_KEY_TIES = 2097152;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * {@link compareTrec} packed into one number for a typed-array sort: ascending keys are trec order
 * worst first. The float32 bits of `score` (-0 as +0) are mapped to an unsigned order-preserving
 * integer and multiplied by {@link TREC_SORT_KEY_TIES}; `tie` (0 <= tie < 2^21, larger = first
 * among equal scores) is added. Decode the tie as `key % TREC_SORT_KEY_TIES`. float32 mode only.
 */
export function trecSortKey(score: number, tie: number): number {
  f32[0] = score === 0 ? 0 : score;
  const bits = u32[0];
  const sortable = bits >= 0x80000000 ? ~bits >>> 0 : bits + 0x80000000;
  return sortable * TREC_SORT_KEY_TIES + tie;
}

/** The float32 score a {@link trecSortKey} was made from (-0 comes back as 0). */
export function trecSortKeyScore(key: number): number {
  const sortable = Math.floor(key / TREC_SORT_KEY_TIES);
  u32[0] = sortable >= 0x80000000 ? sortable - 0x80000000 : ~sortable >>> 0;
  return f32[0];
}

/**
 * A score as a run file line writes it. A float32 score (coreb's retrievers give float32 values,
 * see `RankedList`) is written with 9 significant digits: every float32 has one such text, which
 * trec_eval 9.0.8 (`atof`, then stored as a float) and coreb read back as the same float32, and
 * distinct float32 values keep distinct texts in the same order, so the run ranks the same in float32
 * and in trec_eval 10's double mode. It is about half the length of the double's shortest text (10
 * characters instead of ~17; a third of the CPU to print, less to compress), trailing zeros of the
 * fraction dropped. Any other score (a run
 * file's double) is written as JavaScript's shortest text of the double, which reads back exactly.
 */
export function runScoreText(score: number, float32: boolean): string {
  if (!float32 || !Number.isFinite(score)) return String(score);
  const text = score.toPrecision(9);
  // Trailing zeros of the fraction dropped (2.5, not 2.50000000; 1e+21, not 1.00000000e+21).
  const e = text.indexOf('e');
  const end = e < 0 ? text.length : e;
  if (text.charCodeAt(end - 1) !== 48 || text.indexOf('.') < 0) return text;
  let cut = end;
  while (text.charCodeAt(cut - 1) === 48) cut--;
  if (text.charCodeAt(cut - 1) === 46) cut--;
  return text.slice(0, cut) + text.slice(end);
}
