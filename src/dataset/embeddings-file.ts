/**
 * Reads precomputed embeddings (`embeddings:FILE`): JSONL, one vector per line, so any model can be
 * evaluated without a provider adapter. Format (docs/eval.md):
 * `{"id": "q1", "kind": "query", "vector": [0.1, ...]}` / `{"id": "d1", "kind": "doc", "vector": [...]}`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { statSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { allocateStore, dtypeBytes, normalizeStoredRows, writeRows, type DenseDtype, type DenseStore } from '../core/vector-store.js';
import { fileIdentity, keepSha256, keptSha256 } from './file-sha256-cache.js';
import { DEFAULT_STREAM_CHUNK_BYTES, checkUniqueIds, loadNpyStore, readIdLines, readNpyHeader, sha256, type NpyHeader } from './npy.js';

/** Vectors read from an embeddings file, by kind and id (float32, as given; not normalised). */
export interface EmbeddingsFile {
  file: string;
  dim: number;
  queries: Map<string, Float32Array>;
  docs: Map<string, Float32Array>;
}

/** Accepted `kind` values (`document` and `corpus` are aliases of `doc`). */
const KIND_ALIASES: Readonly<Record<string, 'query' | 'doc'>> = {
  query: 'query',
  doc: 'doc',
  document: 'doc',
  corpus: 'doc',
};

/**
 * Loads an embeddings JSONL file (plain, or gzipped when the name ends in `.gz`). Blank lines are
 * skipped. Every vector must have the same dimension and finite values; ids are unique per kind.
 * @throws CorebError `IO` if unreadable, `PARSE` for malformed lines, `VALIDATION` for inconsistent
 *   vectors, each naming file:line and field.
 */
export async function loadEmbeddingsFile(file: string, signal?: AbortSignal): Promise<EmbeddingsFile> {
  const out: EmbeddingsFile = { file, dim: -1, queries: new Map(), docs: new Map() };
  let input: Readable = createReadStream(file);
  const opened = new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', (e) => reject(new CorebError('IO', `cannot read embeddings file ${file}: ${(e as Error).message}`, { cause: e })));
  });
  await opened;
  if (file.endsWith('.gz')) input = input.pipe(createGunzip());
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const rawLine of lines) {
      line++;
      if (signal?.aborted) throw signal.reason;
      const text = line === 1 && rawLine.charCodeAt(0) === 0xfeff ? rawLine.slice(1) : rawLine;
      if (text.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch (e) {
        throw new CorebError('PARSE', `malformed JSON (${(e as Error).message}); each line must be {"id", "kind", "vector"}`, {
          file,
          line,
          cause: e,
        });
      }
      if (typeof row !== 'object' || row === null || Array.isArray(row)) {
        throw new CorebError('PARSE', 'expected a JSON object {"id", "kind", "vector"}', { file, line });
      }
      const r = row as Record<string, unknown>;
      if (typeof r.id !== 'string' || r.id === '') throw new CorebError('PARSE', 'expected a non-empty string id', { file, line, field: 'id' });
      const kind = typeof r.kind === 'string' ? KIND_ALIASES[r.kind] : undefined;
      if (kind === undefined) {
        throw new CorebError('PARSE', `expected "query" or "doc", got ${JSON.stringify(r.kind)}`, { file, line, field: 'kind' });
      }
      if (!Array.isArray(r.vector) || r.vector.length === 0) {
        throw new CorebError('PARSE', 'expected a non-empty array of numbers', { file, line, field: 'vector' });
      }
      if (out.dim < 0) out.dim = r.vector.length;
      else if (r.vector.length !== out.dim) {
        throw new CorebError('VALIDATION', `vector of ${r.id} has ${r.vector.length} values; earlier vectors have ${out.dim}`, {
          file,
          line,
          field: 'vector',
        });
      }
      const v = new Float32Array(out.dim);
      for (let i = 0; i < out.dim; i++) {
        const x = r.vector[i];
        if (typeof x !== 'number' || !Number.isFinite(x)) {
          throw new CorebError('VALIDATION', `value ${i} of ${r.id} is ${JSON.stringify(x)}; every value must be a finite number`, {
            file,
            line,
            field: 'vector',
          });
        }
        v[i] = x;
      }
      const target = kind === 'query' ? out.queries : out.docs;
      if (target.has(r.id)) throw new CorebError('VALIDATION', `duplicate ${kind} id ${r.id}`, { file, line, field: 'id' });
      target.set(r.id, v);
    }
  } catch (e) {
    if (e instanceof CorebError) throw e;
    if (signal?.aborted) throw e;
    throw new CorebError('IO', `cannot read embeddings file ${file}: ${(e as Error).message}`, { cause: e });
  } finally {
    lines.close();
    input.destroy();
  }
  if (out.dim < 0)
    throw new CorebError('VALIDATION', 'embeddings file holds no vectors; add lines {"id", "kind": "query"|"doc", "vector": [...]}', { file });
  return out;
}

/**
 * Packs the vectors of `ids` into one row-major matrix (row i = ids[i]).
 * @throws CorebError `VALIDATION` naming how many ids have no vector, and the first few.
 */
export function packVectors(
  file: string,
  kind: 'query' | 'doc',
  vectors: ReadonlyMap<string, Float32Array>,
  ids: readonly string[],
  dim: number,
): Float32Array {
  const data = new Float32Array(ids.length * dim);
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    const v = vectors.get(ids[i]);
    if (v === undefined) missing.push(ids[i]);
    else data.set(v, i * dim);
  }
  if (missing.length > 0) {
    throw new CorebError(
      'VALIDATION',
      `${missing.length} of ${ids.length} ${kind} ids have no vector in ${file} (first: ${missing.slice(0, 5).join(', ')}); add a line {"id", "kind": "${kind}", "vector"} for each`,
      { file },
    );
  }
  return data;
}

/**
 * The ids of a table's rows: the list in row order, and id -> row built on the first lookup (and
 * checked unique then). A corpus whose documents come in the file's order never needs the map
 * ({@link RowIds.inOrder}): a million ids cost one comparison each instead of a hash-map build.
 */
export class RowIds {
  private map: Map<string, number> | undefined;
  /**
   * @param list the ids in row order.
   * @param file where they were read (named in a duplicate-id error).
   */
  constructor(
    readonly list: readonly string[],
    private readonly file: string,
  ) {}

  /** Number of rows. */
  get size(): number {
    return this.list.length;
  }

  /**
   * The row of `id`, or undefined.
   * @throws CorebError `VALIDATION` naming the file and line when the ids repeat (checked on the first call).
   */
  get(id: string): number | undefined {
    if (this.map === undefined) this.map = checkUniqueIds(this.list, this.file);
    return this.map.get(id);
  }

  /** True when `ids` is this list, in order (row i holds `ids[i]`). */
  inOrder(ids: readonly string[]): boolean {
    if (ids.length !== this.list.length) return false;
    const list = this.list;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== list[i]) return false;
    return true;
  }
}

/** Vectors of one kind in one store: row `ids.get(id)` of `store` (raw, not normalised). */
export interface VectorTable {
  ids: RowIds;
  store: DenseStore;
  /** True when the rows were scaled to unit L2 norm as they were read ({@link LoadEmbeddingsOptions.normalizeDocs}). */
  normalized?: boolean;
}

/**
 * Document vectors left in their `.npy` file because the matrix is larger than the memory budget:
 * dense search reads them in chunks (`openNpyChunks` with these settings) at each search.
 */
export interface StreamedVectorTable {
  ids: RowIds;
  /** The `.npy` file and its checked header. */
  file: string;
  header: NpyHeader;
  /** Storage dtype of the chunks (the file's unless `dtype` was asked for). */
  dtype: DenseDtype;
  /** Bytes of one chunk in `dtype` (see {@link streamChunkBytes}). */
  chunkBytes: number;
  /** The memory budget the matrix exceeded, in bytes. */
  memoryBytes: number;
}

/**
 * Precomputed vectors as dense search reads them: each kind in one store (one copy of the
 * matrix), rows looked up by id, or for a document matrix larger than the memory budget, left in
 * its `.npy` file ({@link StreamedVectorTable}). From a JSONL embeddings file or a directory of
 * `.npy` matrices.
 */
export interface EmbeddingVectors {
  /** The file or directory read. */
  file: string;
  /** `jsonl`, or `npy` (a directory: docs.npy + docs.ids, queries.npy + queries.ids). */
  format: 'jsonl' | 'npy';
  dim: number;
  queries: VectorTable;
  docs: VectorTable | StreamedVectorTable;
  /**
   * SHA-256 of the files read whole, by file name (`docs.npy`, `docs.ids`, ...), computed as they
   * were read; a streamed matrix is not read at load time and is absent.
   */
  fileSha256?: Record<string, string>;
}

/** The default memory budget of a `.npy` document matrix: half of `os.totalmem()`, in bytes. */
export function defaultEmbeddingsMemoryBytes(): number {
  return Math.floor(totalmem() / 2);
}

/**
 * Chunk bytes of a streamed matrix under a budget of `memoryBytes`: a quarter of it (two chunks
 * and a read buffer stay within it), at most `DEFAULT_STREAM_CHUNK_BYTES` (32 MiB); at least one
 * row is always read.
 */
export function streamChunkBytes(memoryBytes: number): number {
  return Math.max(1, Math.min(DEFAULT_STREAM_CHUNK_BYTES, Math.floor(memoryBytes / 4)));
}

/** Options of {@link loadEmbeddings}. */
export interface LoadEmbeddingsOptions {
  /** Storage dtype of the document vectors. Default: float32 (JSONL) or the file's (`.npy`). */
  dtype?: DenseDtype;
  /**
   * Bytes the document matrix of a `.npy` directory may take in memory, in its storage dtype; a
   * larger one is not read but streamed from the file at each search ({@link StreamedVectorTable}:
   * memory then holds two chunks and a read buffer of at most a quarter of the budget each, up to
   * 32 MiB). 0 always streams. Default {@link defaultEmbeddingsMemoryBytes} (half the machine's
   * memory). JSONL files are always read whole.
   */
  memoryBytes?: number;
  /**
   * Scale each document row to unit L2 norm as it is read, in float32, before it is stored in
   * `dtype` (one rounding to float16, as for an encoder's vectors; the table is then marked
   * `normalized`). Non-finite rows are rejected then, naming the file and row. Default false: the
   * values of the file. Queries are never normalised here. Streamed matrices are normalised as each
   * chunk is read either way.
   */
  normalizeDocs?: boolean;
  /**
   * A folder where the SHA-256 of each `.npy` matrix is kept by the file's identity on disk
   * (device, inode, size, modification and status-change times; see `file-sha256-cache.ts`): a
   * later load of the same unchanged file skips hashing it (~0.2 s per 300 MB). Default: none (every
   * load hashes).
   */
  sha256CacheDir?: string;
  signal?: AbortSignal;
}

/**
 * Moves the vectors of a loaded JSONL file into stores, emptying its maps row by row (so memory
 * holds one copy, not two, while it runs). Queries are kept as float32; documents in `dtype`.
 */
export function tableOfVectors(vectors: Map<string, Float32Array>, dim: number, dtype: DenseDtype, normalize?: string): VectorTable {
  const store = allocateStore(vectors.size, dim, dtype);
  const list: string[] = [];
  for (const [id, v] of vectors) {
    if (normalize !== undefined) normalizeStoredRows(v, 0, 1, dim, normalize, list.length);
    writeRows(store, list.length, v);
    list.push(id);
    vectors.delete(id);
  }
  return { ids: new RowIds(list, '(embeddings file)'), store, ...(normalize !== undefined ? { normalized: true } : {}) };
}

/** How errors name the document matrix of the embeddings at `path` (as dense search's normalisation names it). */
export function docsWhat(path: string): string {
  return `document vectors of ${path}`;
}

/** The file names of an `.npy` embeddings directory. */
export const NPY_EMBEDDINGS_FILES = { docs: ['docs.npy', 'docs.ids'], queries: ['queries.npy', 'queries.ids'] } as const;

/**
 * Reads one `.npy` + ids pair, checking they have the same number of rows (before the matrix is
 * read); with `stream`, a matrix larger than the memory budget stays in its file.
 */
async function loadNpyTable(
  dir: string,
  names: readonly [string, string],
  options: LoadEmbeddingsOptions,
  stream: boolean,
  hashes: Record<string, string>,
): Promise<VectorTable | StreamedVectorTable> {
  const [npy, idsName] = names.map((n) => join(dir, n));
  const header = readNpyHeader(npy);
  const idsHash = sha256();
  const list = await readIdLines(idsName, idsHash);
  hashes[names[1]] = idsHash.digest('hex');
  if (header.rows !== list.length) {
    throw new CorebError('VALIDATION', `${npy} has ${header.rows} rows but ${idsName} has ${list.length} ids; write one id per row, in row order`, {
      file: idsName,
    });
  }
  const ids = new RowIds(list, idsName);
  const dtype = options.dtype ?? header.dtype;
  const memoryBytes = options.memoryBytes ?? defaultEmbeddingsMemoryBytes();
  if (stream && header.rows * header.dim * dtypeBytes(dtype) > memoryBytes) {
    return { ids, file: npy, header, dtype, chunkBytes: streamChunkBytes(memoryBytes), memoryBytes };
  }
  // The matrix's hash kept by its identity on disk (taken before it is read), when a folder is given.
  const shaCache = options.sha256CacheDir === undefined ? undefined : { dir: options.sha256CacheDir, identity: fileIdentity(npy) };
  const kept = shaCache === undefined ? undefined : keptSha256(shaCache.dir, npy, shaCache.identity);
  const npyHash = kept === undefined ? sha256() : undefined;
  const normalize = options.normalizeDocs === true ? docsWhat(dir) : undefined;
  const store = loadNpyStore(npy, {
    dtype,
    ...(npyHash !== undefined ? { hash: npyHash } : {}),
    ...(normalize !== undefined ? { normalize } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  hashes[names[0]] = kept ?? npyHash!.digest('hex');
  if (kept === undefined && shaCache !== undefined) keepSha256(shaCache.dir, npy, shaCache.identity, hashes[names[0]]);
  return { ids, store, ...(normalize !== undefined ? { normalized: true } : {}) };
}

/**
 * Loads precomputed vectors for `embeddings:PATH`: a JSONL file ({@link loadEmbeddingsFile}) or a
 * directory holding `docs.npy` + `docs.ids` and `queries.npy` + `queries.ids` (see
 * `readNpyHeader` for the accepted `.npy` files; ids one per line, in row order). A document
 * matrix larger than `memoryBytes` is left in its file, to be streamed (see {@link LoadEmbeddingsOptions}).
 * @throws CorebError naming the file for anything unreadable or inconsistent.
 */
export async function loadEmbeddings(path: string, options: LoadEmbeddingsOptions = {}): Promise<EmbeddingVectors> {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    throw new CorebError('IO', `cannot read embeddings ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }
  if (isDir) {
    const fileSha256: Record<string, string> = {};
    const docs = await loadNpyTable(path, NPY_EMBEDDINGS_FILES.docs, options, true, fileSha256);
    const queries = (await loadNpyTable(
      path,
      NPY_EMBEDDINGS_FILES.queries,
      { ...options, dtype: 'float32', normalizeDocs: false },
      false,
      fileSha256,
    )) as VectorTable;
    const dim = 'store' in docs ? docs.store.dim : docs.header.dim;
    if (dim !== queries.store.dim) {
      throw new CorebError('VALIDATION', `${path}: docs.npy has dim ${dim} but queries.npy has dim ${queries.store.dim}; use one model`, {
        file: path,
      });
    }
    return { file: path, format: 'npy', dim, docs, queries, fileSha256 };
  }
  const e = await loadEmbeddingsFile(path, options.signal);
  return {
    file: path,
    format: 'jsonl',
    dim: e.dim,
    docs: tableOfVectors(e.docs, e.dim, options.dtype ?? 'float32', options.normalizeDocs === true ? docsWhat(path) : undefined),
    queries: tableOfVectors(e.queries, e.dim, 'float32'),
  };
}
