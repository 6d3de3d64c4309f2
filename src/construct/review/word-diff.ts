/**
 * Word-level diff of two texts (the original statement and its rewrite in `coreb review`): Myers'
 * O((N+M)·D) shortest edit script over words, so a reviewer sees what a rewrite changed.
 */

/** One run of the diff: words kept (`eq`), removed from the old text (`del`) or added by the new one (`ins`). */
export interface DiffSegment {
  op: 'eq' | 'del' | 'ins';
  /** The words with their original spacing (`eq` takes the new text's spacing). */
  text: string;
}

/** Options of {@link diffWords}. */
export interface WordDiffOptions {
  /**
   * Largest edit distance searched (words inserted + deleted); beyond it the differing middle is
   * reported as one deletion and one insertion. Default 5000 (bounds time and the trace's memory).
   */
  maxEdits?: number;
}

/** A word with the whitespace that follows it (leading whitespace is its own token). */
function tokens(text: string): string[] {
  return text.match(/\s+|\S+\s*/g) ?? [];
}

/**
 * The word diff of `before` → `after`: words compare exactly (whitespace ignored), adjacent
 * segments of one kind are merged, and concatenating the `eq`+`del` texts gives back `before`'s
 * words, `eq`+`ins` gives `after`'s (a kept word keeps the new text's spacing unless only the old
 * one had a space after it).
 *
 * Algorithm: E. W. Myers, "An O(ND) Difference Algorithm and Its Variations", Algorithmica 1
 * (1986), greedy forward search with a saved V per step for the backtrack; common prefix and suffix
 * are trimmed first.
 */
export function diffWords(before: string, after: string, options: WordDiffOptions = {}): DiffSegment[] {
  const a = tokens(before);
  const b = tokens(after);
  const key = (t: string): string => t.trim();
  let pre = 0;
  while (pre < a.length && pre < b.length && key(a[pre]) === key(b[pre])) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && key(a[a.length - 1 - suf]) === key(b[b.length - 1 - suf])) suf++;
  const out: DiffSegment[] = [];
  const push = (op: DiffSegment['op'], text: string): void => {
    if (text === '') return;
    const last = out.at(-1);
    if (last !== undefined && last.op === op) last.text += text;
    else out.push({ op, text });
  };
  const kept = (x: string, y: string): string => (/\s$/.test(y) ? y : x);
  for (let i = 0; i < pre; i++) push('eq', kept(a[i], b[i]));
  const am = a.slice(pre, a.length - suf).map(key);
  const bm = b.slice(pre, b.length - suf).map(key);
  const ops = myers(am, bm, options.maxEdits ?? 5000);
  let i = pre;
  let j = pre;
  for (const op of ops) {
    if (op === 'eq') {
      push('eq', kept(a[i], b[j]));
      i++;
      j++;
    } else if (op === 'del') push('del', a[i++]);
    else push('ins', b[j++]);
  }
  for (let k = 0; k < suf; k++) push('eq', kept(a[a.length - suf + k], b[b.length - suf + k]));
  return out;
}

/** The edit script of `a` → `b` (one op per token), or delete-all + insert-all past `maxEdits`. */
function myers(a: string[], b: string[], maxEdits: number): Array<DiffSegment['op']> {
  const n = a.length;
  const m = b.length;
  const fallback = (): Array<DiffSegment['op']> => [...Array<'del'>(n).fill('del'), ...Array<'ins'>(m).fill('ins')];
  if (n === 0 || m === 0) return fallback();
  const max = Math.min(n + m, maxEdits);
  const off = max + 1;
  let v: Int32Array = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return fallback();
  // Backtrack from (n, m) through the saved V of each step.
  const ops: Array<DiffSegment['op']> = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]);
    const pk = down ? k + 1 : k - 1;
    const px = v[off + pk];
    const py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) {
      ops.push('eq');
      x--;
      y--;
    }
    ops.push(down ? 'ins' : 'del');
    x = px;
    y = py;
  }
  while (x > 0 && y > 0) {
    ops.push('eq');
    x--;
    y--;
  }
  return ops.reverse();
}
