/** Words in messages and texts: counted nouns ("1 query", "2 queries", never "1 queries") and word counts. Pure. */

/**
 * `n` and the noun in the number it needs: `counted(1, 'query', 'queries')` is `1 query`,
 * `counted(3, 'query', 'queries')` is `3 queries`.
 * @param plural the plural form; default the noun with an `s`.
 * @param format how `n` is written; default `String(n)`.
 */
export function counted(n: number, noun: string, plural = `${noun}s`, format: (n: number) => string = String): string {
  return `${format(n)} ${n === 1 ? noun : plural}`;
}

/** Words of a text (whitespace-separated). */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
