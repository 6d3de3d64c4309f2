/**
 * Exact and near-duplicate detection for the dataset audit: whitespace-normalised exact matches,
 * and MinHash signatures with LSH banding over token shingles, candidates verified by the exact
 * Jaccard similarity of their shingle sets (Broder 1997; Leskovec et al., Mining of Massive
 * Datasets §3.4). Pure.
 */

import { fmix32, jaccardSorted, shingleHashes } from '../../search/shingles.js';

export { jaccardSorted, shingleHashes } from '../../search/shingles.js';

/** Parameters of {@link findNearDuplicates}. */
export interface NearDuplicateOptions {
  /** Jaccard similarity of shingle sets at or above which two documents are near-duplicates. Default 0.8. */
  threshold?: number;
  /** Tokens per shingle. Default 5. */
  shingleSize?: number;
  /** LSH bands. Default 20. */
  bands?: number;
  /** Signature rows per band (bands x rows = MinHash permutations). Default 5. */
  rows?: number;
}

/** A near-duplicate pair (indices into the input, i < j) and its exact shingle Jaccard. */
export interface NearDuplicatePair {
  i: number;
  j: number;
  jaccard: number;
}

/** Whitespace-normalised text: runs of whitespace become one space, ends trimmed. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Exact duplicates after whitespace normalisation: groups of input indices (size >= 2) whose
 * normalised texts are equal, in order of first occurrence. Empty texts are not grouped.
 */
export function findExactDuplicates(texts: readonly string[]): number[][] {
  const groups = new Map<string, number[]>();
  texts.forEach((t, i) => {
    const n = normalizeWhitespace(t);
    if (n === '') return;
    const g = groups.get(n);
    if (g === undefined) groups.set(n, [i]);
    else g.push(i);
  });
  return [...groups.values()].filter((g) => g.length > 1);
}

/**
 * MinHash signature of a shingle set: `k` hash functions h_p(x) = fmix32(x ⊕ seed_p) (seeds from
 * a fixed sequence), each the minimum over the set. Empty sets get all-0xffffffff signatures.
 */
export function minHashSignature(shingles: Uint32Array, k: number): Uint32Array {
  const sig = new Uint32Array(k).fill(0xffffffff);
  for (let p = 0; p < k; p++) {
    const seed = fmix32((p + 1) * 0x9e3779b9);
    let m = 0xffffffff;
    for (let s = 0; s < shingles.length; s++) {
      const h = fmix32(shingles[s] ^ seed);
      if (h < m) m = h;
    }
    sig[p] = m;
  }
  return sig;
}

/**
 * Near-duplicate pairs of `texts`: MinHash signatures of `bands x rows` permutations; two texts
 * sharing all `rows` values of any band are candidates; a candidate is reported when the exact
 * Jaccard similarity of its shingle sets is >= `threshold`. Texts equal after whitespace
 * normalisation and empty texts are left out (they are exact duplicates / empty, counted apart).
 * With the defaults (20 x 5) a pair at Jaccard 0.8 becomes a candidate with probability 0.9996.
 */
export function findNearDuplicates(texts: readonly string[], options: NearDuplicateOptions = {}): NearDuplicatePair[] {
  const threshold = options.threshold ?? 0.8;
  const size = options.shingleSize ?? 5;
  const bands = options.bands ?? 20;
  const rows = options.rows ?? 5;
  const shingles = texts.map((t) => shingleHashes(t, size));
  const norm = texts.map(normalizeWhitespace);
  const sigs = shingles.map((s) => minHashSignature(s, bands * rows));
  const seen = new Set<number>();
  const pairs: NearDuplicatePair[] = [];
  const n = texts.length;
  for (let b = 0; b < bands; b++) {
    const buckets = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      if (shingles[i].length === 0) continue;
      const key = Array.from(sigs[i].subarray(b * rows, (b + 1) * rows)).join(',');
      const bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, [i]);
      else bucket.push(i);
    }
    for (const bucket of buckets.values()) {
      for (let x = 0; x < bucket.length; x++) {
        for (let y = x + 1; y < bucket.length; y++) {
          const i = bucket[x];
          const j = bucket[y];
          const key = i * n + j;
          if (seen.has(key)) continue;
          seen.add(key);
          if (norm[i] === norm[j]) continue;
          const jac = jaccardSorted(shingles[i], shingles[j]);
          if (jac >= threshold) pairs.push({ i, j, jaccard: jac });
        }
      }
    }
  }
  return pairs.sort((p, q) => p.i - q.i || p.j - q.j);
}
