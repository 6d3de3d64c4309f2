/**
 * Splits a list of texts into request batches bounded by a count and by an estimated token
 * budget, keeping input order so results can be written back by position.
 */

/** A contiguous run of inputs `[start, end)` sent in one request. */
export interface Batch {
  start: number;
  end: number;
  /** Estimated tokens in the batch. */
  tokens: number;
}

/**
 * Estimated tokens of `text`: UTF-16 length / 3, rounded up, at least 1. Deliberately
 * pessimistic (English prose averages ~4 characters per token, source code ~3) so a batch stays
 * under a server's token limit without shipping a tokenizer per model.
 */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 3));
}

/**
 * Plans batches of at most `maxCount` texts and at most `maxTokens` estimated tokens each. A
 * single text over the token budget gets a batch of its own (the server truncates or rejects it;
 * splitting a text is never right).
 */
export function planBatches(
  texts: readonly string[],
  maxCount: number,
  maxTokens: number,
  estimate: (text: string) => number = estimateTokens,
): Batch[] {
  const out: Batch[] = [];
  let start = 0;
  let tokens = 0;
  for (let i = 0; i < texts.length; i++) {
    const t = estimate(texts[i]);
    if (i > start && (i - start >= maxCount || tokens + t > maxTokens)) {
      out.push({ start, end: i, tokens });
      start = i;
      tokens = 0;
    }
    tokens += t;
  }
  if (start < texts.length) out.push({ start, end: texts.length, tokens });
  return out;
}
