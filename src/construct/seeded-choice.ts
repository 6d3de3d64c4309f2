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
  let x = hash32(`${seed}:${label}`) || 1;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return (x >>> 0) % n;
}
