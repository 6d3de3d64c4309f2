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
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { allocateStore, writeRows, type DenseDtype, type DenseStore } from '../core/vector-store.js';
import { loadIdsFile, loadNpyStore } from './npy.js';

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

/** Vectors of one kind in one store: row `ids.get(id)` of `store` (raw, not normalised). */
export interface VectorTable {
  ids: Map<string, number>;
  store: DenseStore;
}

/**
 * Precomputed vectors as dense search reads them: each kind in one store (one copy of the
 * matrix), rows looked up by id. From a JSONL embeddings file or a directory of `.npy` matrices.
 */
export interface EmbeddingVectors {
  /** The file or directory read. */
  file: string;
  /** `jsonl`, or `npy` (a directory: docs.npy + docs.ids, queries.npy + queries.ids). */
  format: 'jsonl' | 'npy';
  dim: number;
  queries: VectorTable;
  docs: VectorTable;
}

/** Options of {@link loadEmbeddings}. */
export interface LoadEmbeddingsOptions {
  /** Storage dtype of the document vectors. Default: float32 (JSONL) or the file's (`.npy`). */
  dtype?: DenseDtype;
  signal?: AbortSignal;
}

/**
 * Moves the vectors of a loaded JSONL file into stores, emptying its maps row by row (so memory
 * holds one copy, not two, while it runs). Queries are kept as float32; documents in `dtype`.
 */
export function tableOfVectors(vectors: Map<string, Float32Array>, dim: number, dtype: DenseDtype): VectorTable {
  const store = allocateStore(vectors.size, dim, dtype);
  const ids = new Map<string, number>();
  for (const [id, v] of vectors) {
    writeRows(store, ids.size, v);
    ids.set(id, ids.size);
    vectors.delete(id);
  }
  return { ids, store };
}

/** The file names of an `.npy` embeddings directory. */
export const NPY_EMBEDDINGS_FILES = { docs: ['docs.npy', 'docs.ids'], queries: ['queries.npy', 'queries.ids'] } as const;

/** Reads one `.npy` + ids pair, checking they have the same number of rows. */
async function loadNpyTable(dir: string, names: readonly [string, string], options: LoadEmbeddingsOptions): Promise<VectorTable> {
  const [npy, idsName] = names.map((n) => join(dir, n));
  const list = await loadIdsFile(idsName);
  const store = loadNpyStore(npy, {
    ...(options.dtype !== undefined ? { dtype: options.dtype } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (store.rows !== list.length) {
    throw new CorebError('VALIDATION', `${npy} has ${store.rows} rows but ${idsName} has ${list.length} ids; write one id per row, in row order`, {
      file: idsName,
    });
  }
  return { ids: new Map(list.map((id, i) => [id, i])), store };
}

/**
 * Loads precomputed vectors for `embeddings:PATH`: a JSONL file ({@link loadEmbeddingsFile}) or a
 * directory holding `docs.npy` + `docs.ids` and `queries.npy` + `queries.ids` (see
 * `readNpyHeader` for the accepted `.npy` files; ids one per line, in row order).
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
    const docs = await loadNpyTable(path, NPY_EMBEDDINGS_FILES.docs, options);
    const queries = await loadNpyTable(path, NPY_EMBEDDINGS_FILES.queries, { ...options, dtype: 'float32' });
    if (docs.store.dim !== queries.store.dim) {
      throw new CorebError('VALIDATION', `${path}: docs.npy has dim ${docs.store.dim} but queries.npy has dim ${queries.store.dim}; use one model`, {
        file: path,
      });
    }
    return { file: path, format: 'npy', dim: docs.store.dim, docs, queries };
  }
  const e = await loadEmbeddingsFile(path, options.signal);
  return {
    file: path,
    format: 'jsonl',
    dim: e.dim,
    docs: tableOfVectors(e.docs, e.dim, options.dtype ?? 'float32'),
    queries: tableOfVectors(e.queries, e.dim, 'float32'),
  };
}
