/**
 * Seeded random unit vectors written as `.npy` files, shared by the dense benches
 * (`search-dense-scale.ts`, `dense-vs-faiss.ts`): the same seed gives the same file.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { normalizeRows } from '../../src/core/embedding.js';
import { npyHeader } from '../../src/dataset/npy.js';

/** Writes `rows x dim` seeded random unit vectors (uniform in [-0.5, 0.5), normalised) as float32 .npy. */
export function writeRandomNpy(file: string, rows: number, dim: number, seed: number): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, npyHeader(rows, dim, 'float32'));
    let a = seed >>> 0;
    const step = 8192;
    const buf = new Float32Array(step * dim);
    for (let r = 0; r < rows; r += step) {
      const n = Math.min(step, rows - r);
      const part = buf.subarray(0, n * dim);
      for (let i = 0; i < part.length; i++) {
        a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
        part[i] = a / 4294967296 - 0.5;
      }
      normalizeRows(part, dim);
      writeSync(fd, new Uint8Array(part.buffer, 0, part.byteLength));
    }
  } finally {
    closeSync(fd);
  }
}
