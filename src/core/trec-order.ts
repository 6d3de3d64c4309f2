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
