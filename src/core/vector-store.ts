/**
 * Document vectors as dense search holds them: one copy, in chunks of rows that may live in
 * SharedArrayBuffers (so worker threads read them without a copy), stored as float32 or float16
 * (IEEE binary16, decoded exactly to float32 before the float32 dot products).
 */
import { normalizeRows, type EmbeddingMatrix } from './embedding.js';
import { CorebError } from './errors.js';
import { f16ToFloat64, float32sToF16 } from './float-format.js';
import { decodeF16Simd, SIMD_MIN_VALUES } from './float16-simd.js';

/** Storage type of document vectors. */
export type DenseDtype = 'float32' | 'float16';

/**
 * Document vectors for {@link denseTopK}: `rows` logical documents of `dim` values. Row `r` of the
 * store is in `chunks[Math.floor(r / chunkRows)]` at row `r % chunkRows`; every chunk but the last
 * holds exactly `chunkRows` rows. With `rowMap`, logical document `i` is store row `rowMap[i]` (a
 * subset or reordering of a larger store, without copying it).
 */
export interface DenseStore {
  rows: number;
  dim: number;
  dtype: DenseDtype;
  chunkRows: number;
  /** float32 chunks are Float32Arrays, float16 chunks Uint16Arrays (binary16 bit patterns). */
  chunks: Array<Float32Array | Uint16Array>;
  rowMap?: Int32Array;
}

/** Bytes per value of a dtype. */
export function dtypeBytes(dtype: DenseDtype): number {
  return dtype === 'float16' ? 2 : 4;
}

/** Largest chunk, in bytes, {@link allocateStore} creates by default (1 GiB). */
export const DEFAULT_CHUNK_BYTES = 1 << 30;

/**
 * Allocates an empty store of `rows x dim` (zeros) in SharedArrayBuffers, in chunks of at most
 * `chunkBytes` bytes (default {@link DEFAULT_CHUNK_BYTES}), so no single buffer nears the 2 GiB-4 GiB
 * limits of typed arrays and WebAssembly.
 */
export function allocateStore(rows: number, dim: number, dtype: DenseDtype = 'float32', chunkBytes = DEFAULT_CHUNK_BYTES): DenseStore {
  const rowBytes = dim * dtypeBytes(dtype);
  const chunkRows = Math.max(1, Math.floor(chunkBytes / rowBytes));
  const chunks: Array<Float32Array | Uint16Array> = [];
  for (let r = 0; r < rows; r += chunkRows) {
    const n = Math.min(chunkRows, rows - r);
    const sab = new SharedArrayBuffer(n * rowBytes);
    chunks.push(dtype === 'float16' ? new Uint16Array(sab) : new Float32Array(sab));
  }
  return { rows, dim, dtype, chunkRows, chunks };
}

/** A float32 store over `m` itself (no copy; one chunk). */
export function storeOfMatrix(m: EmbeddingMatrix): DenseStore {
  return { rows: m.rows, dim: m.dim, dtype: 'float32', chunkRows: Math.max(1, m.rows), chunks: [m.data] };
}

/** True when every chunk lives in a SharedArrayBuffer (worker threads can read it without a copy). */
export function isShared(store: DenseStore): boolean {
  return store.chunks.every((c) => c.buffer instanceof SharedArrayBuffer);
}

let f16Table: Float32Array | undefined;

/** The float32 value of every binary16 bit pattern (65,536 entries, built once; exact). */
export function float16Table(): Float32Array {
  if (f16Table === undefined) {
    f16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) f16Table[h] = f16ToFloat64(h);
  }
  return f16Table;
}

/**
 * Writes `values` (float32, `dim` per row) as store rows `row0, row0 + 1, ...`, rounding to the
 * store's dtype (binary16: nearest, ties to even; values past 65504 become infinity, which
 * validation rejects earlier for normalised rows).
 */
export function writeRows(store: DenseStore, row0: number, values: Float32Array): void {
  const dim = store.dim;
  const n = values.length / dim;
  if (!Number.isInteger(n) || row0 < 0 || row0 + n > store.rows) {
    throw new CorebError('VALIDATION', `writeRows: ${values.length} values at row ${row0} do not fit a ${store.rows} x ${dim} store`);
  }
  let r = 0;
  while (r < n) {
    const row = row0 + r;
    const c = Math.floor(row / store.chunkRows);
    const inChunk = row - c * store.chunkRows;
    const chunk = store.chunks[c];
    const take = Math.min(n - r, store.chunkRows - inChunk);
    const src = values.subarray(r * dim, (r + take) * dim);
    if (chunk instanceof Float32Array) chunk.set(src, inChunk * dim);
    else float32sToF16(src, chunk, inChunk * dim);
    r += take;
  }
}

/**
 * Reads logical documents `[d0, d1)` as float32 rows. Returns a view of the store itself when the
 * rows are contiguous float32 in one chunk, else fills `scratch` (at least `(d1 - d0) * dim` long).
 */
export function readBlock(store: DenseStore, d0: number, d1: number, scratch: Float32Array): Float32Array {
  const dim = store.dim;
  const map = store.rowMap;
  const cr = store.chunkRows;
  if (map === undefined && store.dtype === 'float32') {
    const c0 = Math.floor(d0 / cr);
    if (Math.floor((d1 - 1) / cr) === c0) {
      const off = (d0 - c0 * cr) * dim;
      return (store.chunks[c0] as Float32Array).subarray(off, off + (d1 - d0) * dim);
    }
  }
  const table = store.dtype === 'float16' ? float16Table() : undefined;
  if (map === undefined && table !== undefined) {
    const c0 = Math.floor(d0 / cr);
    if (Math.floor((d1 - 1) / cr) === c0)
      return decodeFloat16(store.chunks[c0] as Uint16Array, (d0 - c0 * cr) * dim, (d1 - d0) * dim, scratch, table);
  }
  for (let d = d0; d < d1; d++) {
    const row = map === undefined ? d : map[d];
    const c = Math.floor(row / cr);
    const off = (row - c * cr) * dim;
    const out = (d - d0) * dim;
    const chunk = store.chunks[c];
    if (table === undefined) scratch.set((chunk as Float32Array).subarray(off, off + dim), out);
    else decodeFloat16(chunk as Uint16Array, off, dim, scratch.subarray(out, out + dim), table);
  }
  return scratch.subarray(0, (d1 - d0) * dim);
}

/**
 * `count` float16 values of `src` from `from`, decoded into the start of `out`: with WebAssembly
 * SIMD from 256 values on (`decodeF16Simd`, the same values), else by table (one monomorphic loop).
 */
export function decodeFloat16(src: Uint16Array, from: number, count: number, out: Float32Array, table: Float32Array = float16Table()): Float32Array {
  if (count < SIMD_MIN_VALUES || !decodeF16Simd(src, from, count, out)) for (let i = 0; i < count; i++) out[i] = table[src[from + i]];
  return out.subarray(0, count);
}

/** Store row `r` (a logical document index when `rowMap` is set) as a new float32 array. */
export function readRow(store: DenseStore, d: number): Float32Array {
  return readBlock(store, d, d + 1, new Float32Array(store.dim)).slice();
}

/**
 * Scales every row of the store to unit L2 norm in place (like `normalizeRows`: the norm summed in
 * double over the stored values, each value multiplied by `1 / sqrt(sum)`, then stored in the
 * dtype). All-zero rows stay zero. Ignores `rowMap` (normalises every stored row).
 * @throws CorebError `VALIDATION` naming `what` and the first row holding a non-finite value.
 */
export function normalizeStore(store: DenseStore, what: string): void {
  let base = 0;
  for (const chunk of store.chunks) {
    const rows = chunk.length / store.dim;
    normalizeStoredRows(chunk, 0, rows, store.dim, what, base);
    base += rows;
  }
}

/**
 * {@link normalizeStore} of rows `[r0, r1)` of one chunk (float32 values, or float16 bit patterns
 * in a Uint16Array): the same arithmetic, so a streamed chunk normalised here holds the values an
 * in-memory store would. `rowBase` is added to row numbers in errors.
 * @throws CorebError `VALIDATION` naming `what` and the first row holding a non-finite value.
 */
export function normalizeStoredRows(chunk: Float32Array | Uint16Array, r0: number, r1: number, dim: number, what: string, rowBase = 0): void {
  // One monomorphic loop per storage type: a loop over either type ran 3-4x slower.
  const bad = chunk instanceof Float32Array ? normalizeFloat32Rows(chunk, r0, r1, dim) : normalizeFloat16Rows(chunk, r0, r1, dim);
  if (bad >= 0) throw nonFinite(chunk, bad, dim, what, rowBase);
}

/** The error for row `bad` of `chunk` holding a non-finite value, naming its first such column. */
function nonFinite(chunk: Float32Array | Uint16Array, bad: number, dim: number, what: string, rowBase: number): CorebError {
  const table = chunk instanceof Uint16Array ? float16Table() : undefined;
  const off = bad * dim;
  let j = 0;
  while (j < dim && Number.isFinite(table === undefined ? chunk[off + j] : table[chunk[off + j]])) j++;
  const v = table === undefined ? chunk[off + j] : table[chunk[off + j]];
  return new CorebError('VALIDATION', `${what}: row ${rowBase + bad} has a non-finite value (${v}) at column ${j}`);
}

/**
 * Rows `[r0, r1)` of the float32 matrix `src`, each scaled to unit L2 norm with the arithmetic of
 * {@link normalizeStoredRows} and then rounded once to binary16, written to `dst` from `dstOffset`
 * (row `r0` first). `src` is left as it is; rows pass through a block of scratch (about 64K
 * values, rounded together) while in cache. All-zero rows stay zero.
 * @throws CorebError `VALIDATION` naming `what` and the first row (plus `rowBase`) holding a non-finite value.
 */
export function normalizeRowsToF16(
  src: Float32Array,
  r0: number,
  r1: number,
  dim: number,
  dst: Uint16Array,
  dstOffset: number,
  what: string,
  rowBase = 0,
): void {
  // Rows are normalised into a block of about 64K values, rounded together.
  const per = Math.max(1, Math.min(r1 - r0, Math.floor(65536 / Math.max(dim, 1))));
  const block = new Float32Array(per * dim);
  for (let b0 = r0; b0 < r1; b0 += per) {
    const b1 = Math.min(r1, b0 + per);
    for (let r = b0; r < b1; r++) {
      const off = r * dim;
      const end = off + dim;
      const o = (r - b0) * dim;
      let s = 0;
      for (let j = off; j < end; j++) {
        const x = src[j];
        s += x * x;
      }
      if (!Number.isFinite(s)) throw nonFinite(src, r, dim, what, rowBase);
      if (s > 0) {
        const inv = 1 / Math.sqrt(s);
        for (let j = 0; j < dim; j++) block[o + j] = src[off + j] * inv;
      } else block.set(src.subarray(off, end), o);
    }
    float32sToF16(block.subarray(0, (b1 - b0) * dim), dst, dstOffset + (b0 - r0) * dim);
  }
}

/** {@link normalizeStoredRows} of float32 rows; returns the first row with a non-finite value (left as it is), or -1. */
function normalizeFloat32Rows(chunk: Float32Array, r0: number, r1: number, dim: number): number {
  for (let r = r0; r < r1; r++) {
    const off = r * dim;
    const end = off + dim;
    let s = 0;
    for (let j = off; j < end; j++) {
      const x = chunk[j];
      s += x * x;
    }
    if (!Number.isFinite(s)) return r;
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let j = off; j < end; j++) chunk[j] *= inv;
    }
  }
  return -1;
}

/** {@link normalizeStoredRows} of float16 bit patterns; returns the first row with a non-finite value, or -1. */
function normalizeFloat16Rows(chunk: Uint16Array, r0: number, r1: number, dim: number): number {
  const table = float16Table();
  const row = new Float32Array(dim);
  for (let r = r0; r < r1; r++) {
    const off = r * dim;
    const end = off + dim;
    let s = 0;
    for (let j = off; j < end; j++) {
      const x = table[chunk[j]];
      s += x * x;
    }
    if (!Number.isFinite(s)) return r;
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      // float64ToF16(Math.fround(x * inv)), through a float32 row: the same bits.
      for (let j = 0; j < dim; j++) row[j] = table[chunk[off + j]] * inv;
      float32sToF16(row, chunk, off);
    }
  }
  return -1;
}

/**
 * Document vectors too large to hold at once, read in chunks (e.g. from a `.npy` file) and searched
 * chunk by chunk (`denseTopKStreamed`): only a chunk is in memory. Each chunk holds some of the
 * logical documents, normalised, in the storage dtype; together the chunks hold each document once.
 */
export interface DenseChunkSource {
  /** Logical documents (the rows ranked; result indices refer to them). */
  rows: number;
  dim: number;
  /** Storage dtype of the chunks (the values the scores are computed from). */
  dtype: DenseDtype;
  /** Most rows one chunk holds. */
  chunkRows: number;
  /** Number of chunks. */
  chunkCount: number;
  /**
   * Reads chunk `i` (`0 <= i < chunkCount`) into `into` (`chunkRows * dim` values: float32, or
   * float16 bit patterns for dtype float16): its logical documents, normalised, one row each, with
   * `labels[j]` the logical index of row j. Resolves to the number of rows written.
   * @throws CorebError naming the file for anything unreadable; `INTERRUPTED` when `signal` aborts.
   */
  readChunk(i: number, into: Float32Array | Uint16Array, labels: Int32Array, signal?: AbortSignal): Promise<number>;
}

/**
 * A new shared store holding the rows of `m`, each scaled to unit L2 norm (`normalizeRows`: the
 * same float32 values `normalizeMatrix` gives), then stored in `dtype`. Works through a scratch of
 * at most 1,024 rows, so memory is one store plus the input.
 */
export function normalizedStore(m: EmbeddingMatrix, dtype: DenseDtype = 'float32', chunkBytes = DEFAULT_CHUNK_BYTES): DenseStore {
  const store = allocateStore(m.rows, m.dim, dtype, chunkBytes);
  const step = 1024;
  const scratch = new Float32Array(Math.min(step, Math.max(m.rows, 1)) * m.dim);
  for (let r = 0; r < m.rows; r += step) {
    const n = Math.min(step, m.rows - r);
    const block = scratch.subarray(0, n * m.dim);
    block.set(m.data.subarray(r * m.dim, (r + n) * m.dim));
    normalizeRows(block, m.dim);
    writeRows(store, r, block);
  }
  return store;
}
