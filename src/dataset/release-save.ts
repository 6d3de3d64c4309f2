/**
 * The inverse of the release loader: typed records back to the official wire rows (snake_case,
 * flattened `meta_*` columns) and a release directory of `<table>.jsonl` files, written atomically.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Release, ReleaseTable } from '../core/dataset.js';
import { RELEASE_TABLES } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { camelCase, type TableSchema } from './coerce.js';
import { writeJsonl } from './jsonl.js';
import { RELEASE_SCHEMAS, TASK_TABLES } from './release-schema.js';

/** `camelCase` -> `snake_case` (`sourceProblemId` -> `source_problem_id`). */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

function toWire(record: Record<string, unknown>, schema: TableSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    const v = record[camelCase(f.wire)];
    if (v !== undefined) out[f.wire] = v;
  }
  const meta = (record.meta ?? {}) as Record<string, unknown>;
  const metaWire = new Map(schema.meta.map((f) => [camelCase(f.wire), f.wire]));
  for (const [k, v] of Object.entries(meta)) {
    if (v !== undefined) out[`meta_${metaWire.get(k) ?? snakeCase(k)}`] = v;
  }
  const extra = (record.extra ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[snakeCase(k)] = v;
  return out;
}

/**
 * Converts a release's typed records to wire rows per table (the flattened layout of the published
 * JSONL export). Loading the result gives back the same records.
 */
export function releaseToWire(release: Release): Record<ReleaseTable, Record<string, unknown>[]> {
  const rows = (table: ReleaseTable, records: readonly object[]): Record<string, unknown>[] =>
    records.map((r) => toWire(r as Record<string, unknown>, RELEASE_SCHEMAS[table]));
  const out = {
    code_corpus: rows('code_corpus', release.codeCorpus),
    text_corpus: rows('text_corpus', release.textCorpus),
  } as Record<ReleaseTable, Record<string, unknown>[]>;
  for (const [task, tables] of Object.entries(TASK_TABLES) as Array<[keyof typeof TASK_TABLES, (typeof TASK_TABLES)[keyof typeof TASK_TABLES]]>) {
    out[tables.queries] = rows(tables.queries, release.tasks[task].queries);
    out[tables.qrels] = rows(tables.qrels, release.tasks[task].qrels);
  }
  return out;
}

/**
 * Writes a release as `<dir>/<table>.jsonl` (or `.jsonl.gz` with `gzip`), one file per table, each
 * written atomically. Creates `dir` if needed.
 * @throws CorebError `IO` when the directory or a file cannot be written.
 */
export async function saveRelease(dir: string, release: Release, options: { gzip?: boolean } = {}): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new CorebError('IO', `cannot create directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir, cause: e });
  }
  const wire = releaseToWire(release);
  for (const t of RELEASE_TABLES) await writeJsonl(join(dir, `${t}.jsonl${options.gzip ? '.gz' : ''}`), wire[t]);
}
