/**
 * Reads precomputed embeddings (`embeddings:FILE`): JSONL, one vector per line, so any model can be
 * evaluated without a provider adapter. Format (docs/eval.md):
 * `{"id": "q1", "kind": "query", "vector": [0.1, ...]}` / `{"id": "d1", "kind": "doc", "vector": [...]}`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { CorebError } from '../core/errors.js';

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
