/**
 * Response validation for embedding APIs: the right number of vectors, in input order, each of
 * the expected dimension, every value a finite number. A bad response is an error, never a silent
 * zero vector.
 */

/** A response that parsed as JSON but does not hold the vectors asked for. Not retried. */
export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError';
}

/**
 * Reorders OpenAI-style `data: [{index, embedding}]` items by `index`, requiring every index
 * 0..count-1 exactly once. Returns the embeddings in input order.
 */
export function orderByIndex(data: unknown, count: number, field = 'embedding'): unknown[] {
  if (!Array.isArray(data)) throw new ResponseShapeError('`data` is not an array');
  if (data.length !== count) throw new ResponseShapeError(`response has ${data.length} vectors for ${count} inputs`);
  const out: unknown[] = new Array(count);
  const seen = new Uint8Array(count);
  data.forEach((item: unknown, pos) => {
    const rec = item as Record<string, unknown> | null;
    const idx = rec !== null && typeof rec === 'object' && 'index' in rec ? rec.index : pos;
    if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= count) {
      throw new ResponseShapeError(`item ${pos} has index ${JSON.stringify(idx)}; expected an integer in 0..${count - 1}`);
    }
    if (seen[idx]) throw new ResponseShapeError(`index ${idx} appears twice; the response order cannot be trusted`);
    seen[idx] = 1;
    out[idx] = rec?.[field];
  });
  return out;
}

/**
 * Checks `vectors` (count, dimension, finiteness) and copies them into one row-major Float32Array.
 * `dim` is the expected dimension (undefined: take the first vector's). Returns the data and dim.
 */
export function toRows(vectors: unknown, count: number, dim: number | undefined): { data: Float32Array; dim: number } {
  if (!Array.isArray(vectors)) throw new ResponseShapeError('the vectors are not an array');
  if (vectors.length !== count) throw new ResponseShapeError(`response has ${vectors.length} vectors for ${count} inputs`);
  const first = vectors[0] as unknown;
  const d = dim ?? (Array.isArray(first) ? first.length : 0);
  if (d <= 0) throw new ResponseShapeError('vector 0 is empty or not an array of numbers');
  const data = new Float32Array(count * d);
  for (let i = 0; i < count; i++) {
    const v = vectors[i] as unknown;
    if (!Array.isArray(v)) throw new ResponseShapeError(`vector ${i} is ${v === null ? 'null' : typeof v}, not an array of numbers`);
    if (v.length !== d)
      throw new ResponseShapeError(
        `vector ${i} has ${v.length} values, expected ${d} (dimension of ${dim === undefined ? 'vector 0' : 'this embedder'})`,
      );
    for (let j = 0; j < d; j++) {
      const x = v[j] as unknown;
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new ResponseShapeError(`vector ${i} value ${j} is ${JSON.stringify(x) ?? String(x)}, not a finite number`);
      }
      data[i * d + j] = x;
    }
  }
  return { data, dim: d };
}
