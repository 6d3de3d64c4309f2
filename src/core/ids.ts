/**
 * String <-> integer interning, and the trec_eval docid order. Hot loops work on integer ids;
 * ties between equal scores are broken by docid descending in UTF-8 byte order (trec_eval 9.0.8).
 */

/** Interns strings to dense integers 0..n-1 in first-seen order. */
export class Interner {
  private readonly map = new Map<string, number>();
  readonly strings: string[] = [];

  /** Returns the id of `s`, assigning the next one if new. */
  intern(s: string): number {
    let id = this.map.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.map.set(s, id);
      this.strings.push(s);
    }
    return id;
  }

  /** Returns the id of `s`, or -1 when it was never interned. */
  get(s: string): number {
    const id = this.map.get(s);
    return id === undefined ? -1 : id;
  }

  get size(): number {
    return this.strings.length;
  }
}

/**
 * Compares two strings by Unicode code point (equal to C `strcmp` on their UTF-8 bytes).
 * JS `<` compares UTF-16 code units, which disagrees for astral vs U+E000..U+FFFF characters.
 * @returns negative, zero or positive like `strcmp`.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800..0xDFFF) encode code points above 0xFFFF, which sort after 0xE000..0xFFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** A UTF-16 code unit remapped so that unit order is code-point order (surrogates after U+E000..U+FFFF). */
function unitKey(c: number): number {
  return c >= 0xd800 ? (c <= 0xdfff ? c + 0x2000 : c - 0x800) : c;
}

/** {@link compareCodePoints} of `a` and `b` from code unit `from` on (the units before are equal). */
function compareCodePointsFrom(a: string, b: string, from: number): number {
  const n = Math.min(a.length, b.length);
  for (let i = from; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitKey(x) - unitKey(y);
  }
  return a.length - b.length;
}

/** Buckets below this size are finished by a comparison sort. */
const SMALL_BUCKET = 48;

/**
 * The input indices of `strings` in code-point order, equal strings in input order: a most-
 * significant-digit radix sort on remapped UTF-16 code units (a stable counting sort per
 * character position, small buckets finished by a stable comparison sort). About 4x faster than a
 * comparison sort of a million ids, and no Map of the strings.
 */
export function codePointOrder(strings: readonly string[]): Int32Array {
  const n = strings.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const tmp = new Int32Array(n);
  const keys = new Int32Array(n);
  // One counting array for every bucket (keys span at most 0x20001 values), cleared over the span used.
  const count = new Int32Array(0x20002);
  const start = new Int32Array(0x20002);
  const stack: number[] = [0, n, 0];
  while (stack.length > 0) {
    const d = stack.pop() as number;
    const hi = stack.pop() as number;
    const lo = stack.pop() as number;
    if (hi - lo < SMALL_BUCKET) {
      // A stable insertion sort in place: no array per bucket.
      for (let i = lo + 1; i < hi; i++) {
        const x = order[i];
        const sx = strings[x];
        let j = i - 1;
        while (j >= lo && compareCodePointsFrom(strings[order[j]], sx, d) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = x;
      }
      continue;
    }
    let min = 0x20000;
    let max = -1;
    for (let i = lo; i < hi; i++) {
      const str = strings[order[i]];
      // 0 = the string ended here (it sorts first); else the remapped unit + 1.
      const k = d < str.length ? unitKey(str.charCodeAt(d)) + 1 : 0;
      keys[i] = k;
      if (k < min) min = k;
      if (k > max) max = k;
    }
    const span = max - min + 1;
    if (span === 1) {
      // Every string has the same unit here (or every one ended: they are all equal).
      if (min !== 0) stack.push(lo, hi, d + 1);
      continue;
    }
    count.fill(0, 0, span + 1);
    for (let i = lo; i < hi; i++) count[keys[i] - min + 1]++;
    for (let b = 0; b < span; b++) count[b + 1] += count[b];
    start.set(count.subarray(0, span + 1));
    for (let i = lo; i < hi; i++) tmp[lo + count[keys[i] - min]++] = order[i];
    order.set(tmp.subarray(lo, hi), lo);
    for (let b = 0; b < span; b++) {
      const a0 = lo + start[b];
      const a1 = lo + start[b + 1];
      // The ended bucket holds equal strings: already in input order.
      if (a1 - a0 > 1 && !(b === 0 && min === 0)) stack.push(a0, a1, d + 1);
    }
  }
  return order;
}

/**
 * Ranks strings by code point and returns, for each input index, its rank (0 = smallest; equal
 * strings get consecutive ranks in input order). Lets hot loops break score ties with one integer
 * comparison: larger rank = larger docid. See {@link codePointOrder}.
 */
export function codePointRanks(strings: readonly string[]): Int32Array {
  return ranksOfOrder(codePointOrder(strings));
}

/** The inverse permutation of `order`: `ranks[order[r]] = r`. */
export function ranksOfOrder(order: Int32Array): Int32Array {
  const ranks = new Int32Array(order.length);
  for (let r = 0; r < order.length; r++) ranks[order[r]] = r;
  return ranks;
}

/**
 * Where `id` is among `strings`, by binary search over their code-point `order` (from
 * {@link codePointOrder}): its input index (the first of equal strings), or -1 when it is absent.
 * Finds ids without a Map of the strings (20 comparisons among a million).
 */
export function indexInOrder(strings: readonly string[], order: Int32Array, id: string): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(strings[order[mid]], id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < order.length && strings[order[lo]] === id ? order[lo] : -1;
}

/**
 * The first pair of equal strings, as input indices `[first, second]` (in input order), found as
 * neighbours in `order` (from {@link codePointOrder}); undefined when all are distinct. Checks
 * uniqueness without a Map of the strings.
 */
export function firstDuplicate(strings: readonly string[], order: Int32Array): [number, number] | undefined {
  let found: [number, number] | undefined;
  for (let r = 1; r < order.length; r++) {
    const a = order[r - 1];
    const b = order[r];
    if (strings[a] === strings[b] && (found === undefined || b < found[1])) found = [a, b];
  }
  return found;
}

/**
 * Why an id cannot be written to a TREC run or qrels line, or undefined when it can: TREC files
 * split at whitespace, so an id with a space or tab would shift the columns (8 instead of 6).
 */
export function trecIdProblem(id: string): string | undefined {
  if (id === '') return 'is empty';
  if (/\s/.test(id)) return 'contains whitespace; TREC run and qrels lines split at whitespace, so it would produce lines with extra columns';
  return undefined;
}
