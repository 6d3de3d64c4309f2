/**
 * Deterministic choices for the coreb-mini planner: an index picked from a seed and a label, so a
 * rebuild makes the same choices and adding a problem never changes those made for the others.
 */

/** 32-bit FNV-1a hash of a string (seeds the per-problem choices). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A deterministic choice: index into `n` items from the seed and a label, so adding a problem never
 * changes the choices made for the others.
 */
export function choose(seed: number, label: string, n: number): number {
  return seededStream(seed, label)() % n;
}

/** An xorshift32 stream seeded from the seed and a label (FNV-1a of `seed:label`, 0 mapped to 1); each call gives the next unsigned 32-bit value. */
function seededStream(seed: number, label: string): () => number {
  let x = hash32(`${seed}:${label}`) || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/**
 * A deterministic sample of `n` items without replacement, in sampled order (a partial
 * Fisher–Yates shuffle driven by an xorshift32 stream seeded from the seed and a label). The same
 * seed and label always give the same sample; a different label gives an independent one, so each
 * query's sample does not depend on the others. `n >= items.length` returns every item in its
 * original order (as Python's `random.sample` is only called when there are more items than wanted).
 */
export function sampleSeeded<T>(items: readonly T[], n: number, seed: number, label: string): T[] {
  if (n >= items.length) return [...items];
  if (n <= 0) return [];
  const pool = [...items];
  const next = seededStream(seed, label);
  for (let i = 0; i < n; i++) {
    const j = i + (next() % (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, n);
}
