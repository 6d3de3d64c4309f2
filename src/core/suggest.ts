/**
 * "Did you mean" for mistyped command and option names: the closest known name by edit distance,
 * when it is close enough to be a typo rather than another word.
 */

/** Levenshtein distance (insert, delete, substitute; each costs 1) between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The known name closest to `given`, or undefined when none is within a third of its length
 * (at least 2 edits allowed), or when `given` is a prefix of exactly one known name.
 */
export function closestName(given: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const prefixed: string[] = [];
  for (const k of known) {
    if (k.startsWith(given)) prefixed.push(k);
    const d = editDistance(given, k);
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  if (bestDistance <= Math.max(2, Math.floor(given.length / 3))) return best;
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** `; did you mean \`X\`?` for the known name closest to `given` ({@link closestName}), or an empty string. */
export function didYouMean(given: string, known: Iterable<string>): string {
  const guess = closestName(given, known);
  return guess === undefined ? '' : `; did you mean \`${guess}\`?`;
}
