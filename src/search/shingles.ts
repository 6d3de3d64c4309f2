/**
 * Token shingles of a text as sorted sets of 32-bit hashes, and their exact Jaccard similarity:
 * the primitives of near-duplicate detection (the audit's MinHash, the build's problem
 * exclusion). Pure.
 */

/** FNV-1a 32-bit hash of a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's 32-bit finaliser: a bijective avalanche mix. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The set of hashed shingles of a text: lower-cased tokens (default word tokens `[a-z0-9_]+`;
 * `tokens` picks others, e.g. `/\d+/g` for the numbers alone), every run of `size` consecutive
 * tokens hashed (FNV-1a); a text with fewer tokens gives one shingle of all, one with none an
 * empty set. Sorted ascending.
 */
export function shingleHashes(text: string, size = 5, tokens: RegExp = /[a-z0-9_]+/g): Uint32Array {
  const list = text.toLowerCase().match(tokens) ?? [];
  return shinglesOf(list, size);
}

function shinglesOf(tokens: readonly string[], size: number): Uint32Array {
  const set = new Set<number>();
  if (tokens.length === 0) return new Uint32Array(0);
  const n = Math.max(1, tokens.length - size + 1);
  for (let i = 0; i < n; i++) set.add(fnv1a(tokens.slice(i, i + size).join(' ')));
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

/** Exact Jaccard similarity of two sorted hash sets. */
export function jaccardSorted(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}
