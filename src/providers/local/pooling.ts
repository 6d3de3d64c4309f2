/**
 * Pooling of token states into one vector per text, driven by the attention mask so it is right
 * for left and right padding alike: mean over real tokens, the first real token (`cls`), or the
 * last real token (`last-token`, as decoder embedders such as Qwen3-Embedding use).
 */
import type { Pooling } from '../types.js';

/**
 * Pools `hidden` (row-major `[batch, seq, dim]`) with `mask` (`[batch, seq]`, 1 = real token)
 * into `[batch, dim]`. A row with no real token pools to zeros (callers never send empty rows:
 * tokenizers add special tokens).
 */
export function poolHidden(
  hidden: Float32Array,
  mask: ArrayLike<number | bigint>,
  batch: number,
  seq: number,
  dim: number,
  pooling: Pooling,
): Float32Array {
  const out = new Float32Array(batch * dim);
  for (let b = 0; b < batch; b++) {
    const o = b * dim;
    let first = -1;
    let last = -1;
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (Number(mask[b * seq + t]) !== 0) {
        if (first < 0) first = t;
        last = t;
        count++;
      }
    }
    if (count === 0) continue;
    if (pooling === 'mean') {
      for (let t = 0; t < seq; t++) {
        if (Number(mask[b * seq + t]) === 0) continue;
        const h = (b * seq + t) * dim;
        for (let j = 0; j < dim; j++) out[o + j] += hidden[h + j];
      }
      for (let j = 0; j < dim; j++) out[o + j] /= count;
    } else {
      const t = pooling === 'cls' ? first : last;
      out.set(hidden.subarray((b * seq + t) * dim, (b * seq + t + 1) * dim), o);
    }
  }
  return out;
}
