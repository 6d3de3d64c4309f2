/**
 * Reads parquet files (the format CoREB is published in) into plain row objects with `hyparquet`.
 * INT64 values arrive as bigint and are turned into numbers here, once.
 */
import type { AsyncBuffer } from 'hyparquet';
import { CorebError } from '../core/errors.js';

/** Converts bigints (INT64 columns) to numbers, recursing into lists and structs. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object' && !(v instanceof Date) && !ArrayBuffer.isView(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = plain(x);
    return out;
  }
  return v;
}

/**
 * Reads every row of a parquet file as an object keyed by column name (structs become nested
 * objects, lists become arrays). Row `i` of the result is parquet row `i` (0-based).
 * @throws CorebError `NOT_FOUND` when missing, `PARSE` when the file is not readable parquet.
 */
export async function readParquetRows(file: string): Promise<Record<string, unknown>[]> {
  // Loaded on first use: its 28 modules cost every JSONL-only command ~20 ms of start-up.
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  let buffer: AsyncBuffer;
  try {
    buffer = await asyncBufferFromFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorebError(code === 'ENOENT' ? 'NOT_FOUND' : 'IO', `cannot open parquet file (${code ?? (e as Error).message})`, {
      file,
      cause: e,
    });
  }
  let rows: Record<string, unknown>[];
  try {
    rows = await parquetReadObjects({ file: buffer });
  } catch (e) {
    throw new CorebError('PARSE', `not a readable parquet file (${(e as Error).message})`, { file, cause: e });
  }
  return rows.map((r) => plain(r) as Record<string, unknown>);
}
