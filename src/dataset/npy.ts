/**
 * NumPy `.npy` matrices of embeddings (float32 `<f4` or float16 `<f2`, C order, 2-D) with an ids
 * file beside them (one id per line, row order), read straight into a shared {@link DenseStore}
 * without passing through JSON or an intermediate copy, and written by `coreb providers embed
 * --format npy`. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import type { EmbeddingMatrix } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import { float32sToF16, float64ToF16 } from '../core/float-format.js';
import {
  allocateStore,
  decodeFloat16,
  dtypeBytes,
  float16Table,
  normalizeRowsToF16,
  normalizeStoredRows,
  type DenseChunkSource,
  type DenseDtype,
  type DenseStore,
} from '../core/vector-store.js';
import { saveAtomic } from './atomic-write.js';
import { hashFileInto } from './dataset-identity.js';
import { forEachLine, ioError, splitLines } from './text-file.js';

/** The parsed header of a `.npy` file. */
export interface NpyHeader {
  /** Format version, 1, 2 or 3. */
  version: number;
  dtype: DenseDtype;
  rows: number;
  dim: number;
  /** Byte offset of the first value. */
  dataOffset: number;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const DTYPES: Readonly<Record<string, DenseDtype>> = { '<f4': 'float32', '<f2': 'float16' };

/**
 * Reads and checks the header of `file`: magic, version 1/2/3, a dict with `descr` `'<f4'` or
 * `'<f2'`, `fortran_order` False and a 2-D `shape`, and a file size matching the shape.
 * @throws CorebError `IO` if unreadable, `PARSE` naming the file and what is wrong.
 */
export function readNpyHeader(file: string): NpyHeader {
  const bad = (what: string) => new CorebError('PARSE', `${file}: not a readable .npy embeddings matrix: ${what}`, { file });
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new CorebError('IO', `cannot read ${file}: ${(e as Error).message}`, { file, cause: e });
  }
  try {
    const size = statSync(file).size;
    const pre = Buffer.alloc(12);
    const got = readSync(fd, pre, 0, 12, 0);
    if (got < 10 || MAGIC.some((b, i) => pre[i] !== b)) throw bad('it does not start with the magic string \\x93NUMPY');
    const version = pre[6];
    if (version < 1 || version > 3) throw bad(`format version ${version}.${pre[7]}; versions 1, 2 and 3 are read`);
    const lenBytes = version === 1 ? 2 : 4;
    if (got < 8 + lenBytes) throw bad('the header is truncated');
    const headerLen = version === 1 ? pre.readUInt16LE(8) : pre.readUInt32LE(8);
    const start = 8 + lenBytes;
    if (start + headerLen > size) throw bad(`the header claims ${headerLen} bytes but the file has ${size}`);
    const hb = Buffer.alloc(headerLen);
    readSync(fd, hb, 0, headerLen, start);
    const header = hb.toString(version === 3 ? 'utf8' : 'latin1');
    const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(header)?.[1];
    const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header)?.[1];
    const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
    if (descr === undefined || fortran === undefined || shapeText === undefined) {
      throw bad(`the header ${JSON.stringify(header.trim())} lacks descr, fortran_order or shape`);
    }
    const dtype = DTYPES[descr];
    if (dtype === undefined) throw bad(`dtype '${descr}'; expected '<f4' (float32) or '<f2' (float16), little-endian`);
    if (fortran !== 'False') throw bad('fortran_order is True; write the matrix in C order (np.ascontiguousarray)');
    const shape = shapeText
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (shape.length !== 2 || !shape.every((s) => /^\d+L?$/.test(s))) throw bad(`shape (${shapeText}); expected 2-D (rows, dim)`);
    const [rows, dim] = shape.map((s) => Number.parseInt(s, 10));
    if (dim < 1) throw bad(`shape (${rows}, ${dim}); dim must be at least 1`);
    const dataOffset = start + headerLen;
    const expected = dataOffset + rows * dim * dtypeBytes(dtype);
    if (size !== expected) throw bad(`shape (${rows}, ${dim}) of ${descr} needs ${expected} bytes, the file has ${size}`);
    return { version, dtype, rows, dim, dataOffset };
  } finally {
    closeSync(fd);
  }
}

/** Options of {@link loadNpyStore}. */
export interface LoadNpyOptions {
  /** Storage dtype. Default: the file's. float32 files are rounded to float16; float16 decoded exactly. */
  dtype?: DenseDtype;
  /** Largest chunk of the store, in bytes. Default `DEFAULT_CHUNK_BYTES` (1 GiB). */
  chunkBytes?: number;
  signal?: AbortSignal;
  /**
   * When set, every row is scaled to unit L2 norm as it is read (the arithmetic of
   * `normalizeStoredRows`), and this names the matrix in the error for a non-finite row. A float32
   * file stored as float16 is normalised in float32 and rounded once (as `normalizedStore` does for
   * an encoder's vectors), not rounded, normalised and rounded again. Default: values as in the file.
   */
  normalize?: string;
  /**
   * Updated with every byte of the file in order (header, then data) as it is read, so the file's
   * SHA-256 costs no second read.
   */
  hash?: Hash;
}

/**
 * Reads a `.npy` matrix into a new shared store, chunk by chunk (16 MiB reads; when the dtypes
 * match, straight into the store's memory). Values are normalised only with `normalize` (each read
 * while it is in cache); otherwise rows holding a non-finite value are rejected by the consumer's
 * normalisation (`normalizeStore`), naming the row.
 * @throws CorebError as {@link readNpyHeader}; `INTERRUPTED` when `signal` aborts.
 */
export function loadNpyStore(file: string, options: LoadNpyOptions = {}): DenseStore {
  const h = readNpyHeader(file);
  const dtype = options.dtype ?? h.dtype;
  const store = allocateStore(h.rows, h.dim, dtype, options.chunkBytes);
  const fd = openSync(file, 'r');
  try {
    if (options.hash !== undefined) {
      const head = Buffer.alloc(h.dataOffset);
      readSync(fd, head, 0, h.dataOffset, 0);
      options.hash.update(head);
    }
    const inBytes = dtypeBytes(h.dtype);
    const step = Math.max(1, Math.floor((16 << 20) / (h.dim * inBytes)));
    const scratch = h.dtype === dtype ? undefined : Buffer.alloc(step * h.dim * inBytes);
    const table = float16Table();
    let pos = h.dataOffset;
    let row = 0;
    for (const chunk of store.chunks) {
      const chunkRows = chunk.length / h.dim;
      for (let r = 0; r < chunkRows; r += step) {
        if (options.signal?.aborted) throw new CorebError('INTERRUPTED', `reading ${file} interrupted`, { cause: options.signal.reason });
        const n = Math.min(step, chunkRows - r);
        const bytes = n * h.dim * inBytes;
        const target =
          scratch === undefined ? new Uint8Array(chunk.buffer, chunk.byteOffset + r * h.dim * inBytes, bytes) : scratch.subarray(0, bytes);
        let done = 0;
        while (done < bytes) {
          const k = readSync(fd, target, done, bytes - done, pos + done);
          if (k === 0) throw new CorebError('IO', `${file}: unexpected end of file at row ${row + r}`, { file });
          done += k;
        }
        options.hash?.update(target);
        const what = options.normalize;
        if (scratch === undefined) {
          if (what !== undefined) normalizeStoredRows(chunk, r, r + n, h.dim, what, row);
        } else {
          const off = r * h.dim;
          if (h.dtype === 'float16') {
            const src = new Uint16Array(scratch.buffer, scratch.byteOffset, n * h.dim);
            decodeFloat16(src, 0, src.length, (chunk as Float32Array).subarray(off, off + src.length), table);
            if (what !== undefined) normalizeStoredRows(chunk, r, r + n, h.dim, what, row);
          } else {
            const src = new Float32Array(scratch.buffer, scratch.byteOffset, n * h.dim);
            if (what !== undefined) normalizeRowsToF16(src, 0, n, h.dim, chunk as Uint16Array, off, what, row + r);
            else float32sToF16(src, chunk as Uint16Array, off);
          }
        }
        pos += bytes;
      }
      row += chunkRows;
    }
  } finally {
    closeSync(fd);
  }
  return store;
}

/** Default bytes of one chunk of {@link openNpyChunks} (in the storage dtype): 32 MiB. */
export const DEFAULT_STREAM_CHUNK_BYTES = 32 << 20;

/** Options of {@link openNpyChunks}. */
export interface NpyChunksOptions {
  /** Storage dtype of the chunks. Default: the file's (converted as {@link loadNpyStore} does). */
  dtype?: DenseDtype;
  /**
   * Logical document `i` is file row `rowMap[i]` (each file row at most once); rows not mapped are
   * skipped. Default: every file row, in order.
   */
  rowMap?: Int32Array;
  /** Bytes of one chunk in the storage dtype (at least one row). Default {@link DEFAULT_STREAM_CHUNK_BYTES}. */
  chunkBytes?: number;
}

/**
 * The matrix of a `.npy` file as a {@link DenseChunkSource}: each chunk is a run of consecutive file
 * rows read with one asynchronous `read` into a reused buffer (the file stays on disk; memory is one
 * chunk of file bytes plus the caller's chunk), converted to the storage dtype and normalised
 * exactly as {@link loadNpyStore} with `normalize` would (same values, bit for bit). Chunks whose
 * rows are all unmapped are not read. The header is checked now (see {@link readNpyHeader}).
 * @throws CorebError as {@link readNpyHeader}; `VALIDATION` for a `rowMap` entry outside the file
 *   or repeated. Reads throw `IO` naming the file and row when it ends early (truncated since),
 *   `VALIDATION` naming the row of a non-finite value, `INTERRUPTED` when the signal aborts.
 */
export function openNpyChunks(file: string, options: NpyChunksOptions = {}): DenseChunkSource {
  const h = readNpyHeader(file);
  const dtype = options.dtype ?? h.dtype;
  const dim = h.dim;
  const inBytes = dtypeBytes(h.dtype);
  const chunkRows = Math.max(1, Math.floor((options.chunkBytes ?? DEFAULT_STREAM_CHUNK_BYTES) / (dim * dtypeBytes(dtype))));
  const chunkCount = Math.ceil(h.rows / chunkRows);
  // Per file row, its logical index, or -1.
  let inverse: Int32Array | undefined;
  if (options.rowMap !== undefined) {
    inverse = new Int32Array(h.rows).fill(-1);
    const map = options.rowMap;
    for (let i = 0; i < map.length; i++) {
      const r = map[i];
      if (!Number.isInteger(r) || r < 0 || r >= h.rows || inverse[r] !== -1) {
        throw new CorebError('VALIDATION', `${file}: row map entry ${i} is ${r}; expected distinct rows of the ${h.rows} in the file`, { file });
      }
      inverse[r] = i;
    }
  }
  const rows = options.rowMap?.length ?? h.rows;
  const table = float16Table();
  const what = `document vectors of ${file}`;
  let raw: Uint8Array | undefined;
  return {
    rows,
    dim,
    dtype,
    chunkRows,
    chunkCount,
    async readChunk(i, into, labels, signal) {
      if (signal?.aborted) throw new CorebError('INTERRUPTED', `reading ${file} interrupted`, { cause: signal.reason });
      let f0 = i * chunkRows;
      let f1 = Math.min(h.rows, f0 + chunkRows);
      if (inverse !== undefined) {
        while (f0 < f1 && inverse[f0] === -1) f0++;
        while (f1 > f0 && inverse[f1 - 1] === -1) f1--;
      }
      if (f1 <= f0) return 0;
      const bytes = (f1 - f0) * dim * inBytes;
      if (raw === undefined) raw = new Uint8Array(chunkRows * dim * inBytes);
      const buf = raw;
      const fh = await open(file, 'r').catch((e: Error) => {
        throw new CorebError('IO', `cannot read ${file}: ${e.message}`, { file, cause: e });
      });
      try {
        let done = 0;
        while (done < bytes) {
          const { bytesRead } = await fh.read(buf, done, bytes - done, h.dataOffset + f0 * dim * inBytes + done);
          if (bytesRead === 0) {
            throw new CorebError(
              'IO',
              `${file}: unexpected end of file at row ${f0 + Math.floor(done / (dim * inBytes))}; the header says ${h.rows} rows`,
              {
                file,
              },
            );
          }
          done += bytesRead;
        }
      } finally {
        await fh.close();
      }
      if (signal?.aborted) throw new CorebError('INTERRUPTED', `reading ${file} interrupted`, { cause: signal.reason });
      const src32 = h.dtype === 'float32' ? new Float32Array(buf.buffer, 0, (f1 - f0) * dim) : undefined;
      const src16 = h.dtype === 'float16' ? new Uint16Array(buf.buffer, 0, (f1 - f0) * dim) : undefined;
      let n = 0;
      for (let f = f0; f < f1; f++) {
        const label = inverse === undefined ? f : inverse[f];
        if (label === -1) continue;
        const s = (f - f0) * dim;
        const o = n * dim;
        if (src32 !== undefined && into instanceof Uint16Array) {
          // Normalised in float32, then rounded once (as loadNpyStore does).
          normalizeRowsToF16(src32, f - f0, f - f0 + 1, dim, into, o, what, f0);
        } else {
          if (src32 !== undefined) (into as Float32Array).set(src32.subarray(s, s + dim), o);
          else if (src16 !== undefined) {
            if (into instanceof Uint16Array) into.set(src16.subarray(s, s + dim), o);
            else decodeFloat16(src16, s, dim, into.subarray(o, o + dim), table);
          }
          normalizeStoredRows(into, n, n + 1, dim, what, f - n);
        }
        labels[n] = label;
        n++;
      }
      return n;
    },
  };
}

/** The header bytes of a version 1.0 `.npy` file for a `rows x dim` C-order matrix (padded to 64 bytes). */
export function npyHeader(rows: number, dim: number, dtype: DenseDtype): Buffer {
  const dict = `{'descr': '${dtype === 'float16' ? '<f2' : '<f4'}', 'fortran_order': False, 'shape': (${rows}, ${dim}), }`;
  const unpadded = 10 + dict.length + 1;
  const total = Math.ceil(unpadded / 64) * 64;
  const text = dict + ' '.repeat(total - unpadded) + '\n';
  const out = Buffer.alloc(10 + text.length);
  Buffer.from(MAGIC).copy(out, 0);
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(text.length, 8);
  out.write(text, 10, 'latin1');
  return out;
}

/**
 * Writes `m` as a `.npy` file (version 1.0, C order) in `dtype` (float16: rounded to nearest,
 * ties to even), atomically (`saveAtomic`: a temporary file renamed into place).
 * @throws CorebError `IO` naming the file.
 */
export async function writeNpy(file: string, m: EmbeddingMatrix, dtype: DenseDtype = 'float32'): Promise<void> {
  const header = npyHeader(m.rows, m.dim, dtype);
  const out = new Uint8Array(header.length + m.rows * m.dim * dtypeBytes(dtype));
  out.set(header);
  if (dtype === 'float32') out.set(new Uint8Array(m.data.buffer, m.data.byteOffset, m.rows * m.dim * 4), header.length);
  else {
    const h = new DataView(out.buffer, header.length);
    for (let j = 0; j < m.rows * m.dim; j++) h.setUint16(j * 2, float64ToF16(m.data[j]), true);
  }
  await saveAtomic(file, out);
}

/** Writes `ids` one per line (the ids file beside a `.npy` matrix), atomically. */
export async function writeIdsFile(file: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    if (id === '' || /[\r\n]/.test(id)) throw new CorebError('VALIDATION', `id ${JSON.stringify(id)} cannot be written one per line`, { file });
  }
  await saveAtomic(file, ids.join('\n') + (ids.length > 0 ? '\n' : ''));
}

/** Ids files up to this size are read whole (one read, one decode); larger ones line by line. */
const WHOLE_IDS_FILE_BYTES = 256 << 20;

/**
 * Reads an ids file's lines (UTF-8, a BOM dropped, `\r\n` or `\n`, a final newline optional) and
 * checks none is blank; uniqueness is the caller's ({@link loadIdsFile} checks it, dense search
 * checks a corpus's ids in its one sort). With `hash`, the file's bytes also go through it.
 * @throws CorebError `VALIDATION` naming file and line for a blank id; `PARSE` for invalid UTF-8;
 *   `NOT_FOUND` / `IO` when unreadable.
 */
export async function readIdLines(file: string, hash?: Hash): Promise<string[]> {
  let bytes: Buffer | undefined;
  try {
    if (statSync(file).size <= WHOLE_IDS_FILE_BYTES) bytes = await readFile(file);
  } catch (e) {
    throw ioError(file, e);
  }
  let ids: string[];
  if (bytes !== undefined && !(bytes[0] === 0x1f && bytes[1] === 0x8b)) {
    hash?.update(bytes);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch (e) {
      throw new CorebError('PARSE', `not valid UTF-8 (${(e as Error).message})`, { file, cause: e });
    }
    ids = splitLines(text);
  } else {
    // Large or gzipped: streamed (and hashed from the file).
    ids = [];
    await forEachLine(file, (line) => {
      ids.push(line);
    });
    if (hash !== undefined) await hashFileInto(hash, file);
  }
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] === '') throw new CorebError('VALIDATION', 'blank id; every line holds one id', { file, line: i + 1 });
  }
  return ids;
}

/**
 * Reads an ids file: one id per line (UTF-8, a final newline optional, no blank lines), unique.
 * @throws CorebError `VALIDATION` naming file and line for a blank or duplicate id.
 */
export async function loadIdsFile(file: string): Promise<string[]> {
  const ids = await readIdLines(file);
  checkUniqueIds(ids, file);
  return ids;
}

/**
 * Throws unless `ids` (the lines of `file`, in order) are distinct.
 * @throws CorebError `VALIDATION` naming file and the line of the first repeat.
 */
export function checkUniqueIds(ids: readonly string[], file: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (let i = 0; i < ids.length; i++) {
    const first = seen.get(ids[i]);
    if (first !== undefined) throw new CorebError('VALIDATION', `duplicate id \`${ids[i]}\` (first on line ${first + 1})`, { file, line: i + 1 });
    seen.set(ids[i], i);
  }
  return seen;
}

/** A SHA-256 in progress (`createHash('sha256')`), for {@link loadNpyStore} and {@link readIdLines}. */
export function sha256(): Hash {
  return createHash('sha256');
}

/** The ids file beside a `.npy` matrix: `docs.npy` -> `docs.ids` (`.ids` appended to other names). */
export function npyIdsPath(npy: string): string {
  return npy.endsWith('.npy') ? `${npy.slice(0, -4)}.ids` : `${npy}.ids`;
}
