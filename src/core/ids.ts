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

/**
 * Ranks strings by code point and returns, for each input index, its rank (0 = smallest; equal
 * strings get consecutive ranks in input order). Lets hot loops break score ties with one integer
 * comparison: larger rank = larger docid. Unique strings without surrogates take the native string
 * sort (UTF-16 order equals code-point order then); anything else a {@link compareCodePoints} sort.
 */
export function codePointRanks(strings: readonly string[]): Int32Array {
  const ranks = new Int32Array(strings.length);
  let astral = false;
  for (let i = 0; i < strings.length && !astral; i++) astral = /[\uD800-\uDFFF]/.test(strings[i]);
  if (!astral) {
    const sorted = strings.slice().sort();
    const rankOf = new Map<string, number>();
    for (let r = 0; r < sorted.length; r++) rankOf.set(sorted[r], r);
    if (rankOf.size === strings.length) {
      for (let i = 0; i < strings.length; i++) ranks[i] = rankOf.get(strings[i]) as number;
      return ranks;
    }
  }
  const order = Array.from(strings.keys()).sort((i, j) => compareCodePoints(strings[i], strings[j]));
  for (let r = 0; r < order.length; r++) ranks[order[r]] = r;
  return ranks;
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
