/**
 * L2 normalisation of row-major vectors, shared by HTTP and local providers so that cosine
 * similarity becomes a dot product downstream.
 */

/** Scales every row of `data` (row length `dim`) to unit L2 norm, in place. Zero rows stay zero. */
export function normalizeRows(data: Float32Array, dim: number): void {
  for (let off = 0; off < data.length; off += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += data[off + j] * data[off + j];
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let j = 0; j < dim; j++) data[off + j] *= inv;
    }
  }
}
