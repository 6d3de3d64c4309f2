/** Counted nouns in messages and reports: "1 query", "2 queries", never "1 queries". Pure. */

/**
 * `n` and the noun in the number it needs: `counted(1, 'query', 'queries')` is `1 query`,
 * `counted(3, 'query', 'queries')` is `3 queries`.
 * @param plural the plural form; default the noun with an `s`.
 * @param format how `n` is written; default `String(n)`.
 */
export function counted(n: number, noun: string, plural = `${noun}s`, format: (n: number) => string = String): string {
  return `${format(n)} ${n === 1 ? noun : plural}`;
}
