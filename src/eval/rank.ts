/**
 * The trec_eval 9.0.8 order of one ranked list (core's trec order), for the diagnostics eval computes
 * beside the metrics: score rounded to float32 descending, ties by docid descending in code-point order.
 */
import { compareTrecIds, trecScore } from '../core/trec-order.js';

/**
 * Returns the document ids of `scores` in trec_eval order, leaving out `drop` (anchors, identical
 * ids), only the first `k` when given. With `k` it selects by insertion into a k-slot list (O(n·k),
 * no full sort); without, it sorts the whole list: call it on runs, never on a corpus.
 */
export function rankTrec(scores: ReadonlyMap<string, number>, drop?: ReadonlySet<string>, k = Infinity): string[] {
  const ids: string[] = [];
  const s32: number[] = [];
  if (k === Infinity) {
    for (const [id, score] of scores) {
      if (drop?.has(id)) continue;
      ids.push(id);
      s32.push(trecScore(score));
    }
    const order = Array.from(ids.keys());
    order.sort((i, j) => compareTrecIds(s32[i], ids[i], s32[j], ids[j]));
    return order.map((i) => ids[i]);
  }
  const before = (sa: number, a: string, sb: number, b: string): boolean => compareTrecIds(sa, a, sb, b) < 0;
  for (const [id, score] of scores) {
    if (drop?.has(id)) continue;
    const s = trecScore(score);
    let i: number;
    if (ids.length < k) {
      i = ids.length;
      ids.push(id);
      s32.push(s);
    } else if (k > 0 && before(s, id, s32[k - 1], ids[k - 1])) {
      i = k - 1;
    } else continue;
    while (i > 0 && before(s, id, s32[i - 1], ids[i - 1])) {
      ids[i] = ids[i - 1];
      s32[i] = s32[i - 1];
      i--;
    }
    ids[i] = id;
    s32[i] = s;
  }
  return ids;
}

/** What the top of one ranked list holds, against CoREB's graded labels (2 positive, 1 hard negative). */
export interface TopHardNegatives {
  /** Hard negatives (label 1) in the top `k`. */
  hardNegatives: number;
  /** 1 if the first hard negative ranks above the first positive, 0 if not, null unless both are in the top `k`. */
  intrusion: number | null;
}

/**
 * Counts hard negatives in the top `k` of `ranked` and tells whether one of them beats every
 * positive there (the paper's "hard-negative intrusion"). Default `k` 10.
 */
export function topHardNegatives(ranked: readonly string[], labels: ReadonlyMap<string, number> | undefined, k = 10): TopHardNegatives {
  let hardNegatives = 0;
  let firstPos = -1;
  let firstNeg = -1;
  const n = Math.min(k, ranked.length);
  for (let i = 0; i < n; i++) {
    const lab = labels?.get(ranked[i]);
    if (lab === undefined) continue;
    if (lab >= 2) {
      if (firstPos < 0) firstPos = i;
    } else if (lab === 1) {
      hardNegatives++;
      if (firstNeg < 0) firstNeg = i;
    }
  }
  const intrusion = firstPos >= 0 && firstNeg >= 0 ? (firstNeg < firstPos ? 1 : 0) : null;
  return { hardNegatives, intrusion };
}
