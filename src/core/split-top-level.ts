/**
 * Splitting text at separators that stand outside brackets (and, optionally, quotes): retriever
 * specs (`rrf:(a,b),c`), parameter lists (`Map<K, V> m, int n`), statement arguments
 * (`nums = [1,2], s = "a,b"`). Pure.
 */

/** What {@link splitTopLevel} treats as separators, brackets and quotes. */
export interface SplitOptions {
  /** Separator characters. Default `,`. */
  separators?: string;
  /** Opening brackets (each raises the depth). Default `(`. */
  open?: string;
  /** Closing brackets (each lowers it). Default `)`. */
  close?: string;
  /** Quote characters: inside a quote nothing counts (a backslash escapes the next character). Default none. */
  quotes?: string;
}

/** The parts of `text` between separators at bracket depth 0 (outside quotes), untrimmed, empty parts kept. */
export function splitTopLevel(text: string, options: SplitOptions = {}): string[] {
  const separators = options.separators ?? ',';
  const open = options.open ?? '(';
  const close = options.close ?? ')';
  const quotes = options.quotes ?? '';
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (quotes.includes(c)) quote = c;
    else if (open.includes(c)) depth++;
    else if (close.includes(c)) depth--;
    else if (depth === 0 && separators.includes(c)) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
