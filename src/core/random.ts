/**
 * Seeded pseudo-random numbers, so sampling (bootstrap resamples, mined easy negatives) is the same
 * on every run and machine for the same seed. No I/O here.
 */

/** A seeded 32-bit PRNG (mulberry32): returns uint32 values; same seed, same stream. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** A seeded generator of doubles uniform in [0, 1) (mulberry32 / 2^32). */
export function createUniform(seed: number): () => number {
  const next = createRng(seed);
  return () => next() / 4294967296;
}

/**
 * A 32-bit seed derived from parts (FNV-1a over their UTF-16 code units, parts separated by a 0
 * unit): gives every item its own stream, independent of the order items are processed in.
 */
export function seedFrom(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    const s = String(p);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0, 0x01000193);
  }
  return h >>> 0;
}
