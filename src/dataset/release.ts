/**
 * Loads an official CoREB release directory: the 8 tables as JSONL (`<table>.jsonl[.gz]`) or as the
 * published parquet (`<split>/<table>-<split>-00000-of-00001.parquet`, or per config
 * `<table>/<split>-00000-of-00001.parquet`), flattened `meta_*` columns or a nested `meta` object,
 * into typed records. Problems are returned as issues, never thrown.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Release, ReleaseTable, TableSource, TaskName } from '../core/dataset.js';
import { RELEASE_TABLES, TASKS } from '../core/dataset.js';
import { CorebError, isCorebError } from '../core/errors.js';
import type { ValidationIssue } from '../core/issues.js';
import { coerceRow, RowChecker } from './coerce.js';
import { findJsonlFile, readJsonl } from './jsonl.js';
import { readParquetRows } from './parquet.js';
import { RELEASE_SCHEMAS, TASK_TABLES } from './release-schema.js';
import { isDirectory } from './text-file.js';

/** Storage formats of a release directory. */
export const RELEASE_FORMATS = ['auto', 'jsonl', 'parquet'] as const;
/** A release storage format; `auto` picks JSONL when `code_corpus.jsonl[.gz]` exists, else parquet. */
export type ReleaseFormat = (typeof RELEASE_FORMATS)[number];

/** Options for {@link loadRelease}. */
export interface LoadReleaseOptions {
  /** Storage format; default `auto`. */
  format?: ReleaseFormat;
  /**
   * Split name, e.g. `release_v2602`. Default: for JSONL the directory's name; for parquet the one
   * split found under the directory (a USAGE error lists them when there are several).
   */
  split?: string;
}

/** A loaded release and every problem found while reading it (see {@link validateRelease} for more). */
export interface LoadedRelease {
  release: Release;
  issues: ValidationIssue[];
}

/** The files a release directory provides, per table (one or more parquet shards, or one JSONL). */
export interface ReleaseLayout {
  format: 'jsonl' | 'parquet';
  split: string;
  /** Files per table, in row order; empty when the table is missing. */
  files: Record<ReleaseTable, string[]>;
  /**
   * Tables of the chosen split that coreb does not know (a later release may add some), with
   * their files: reported as warnings and not read.
   */
  unknownTables: Record<string, string[]>;
  /** When the release was made, from its `manifest.json` (see {@link Release.releaseDate}). */
  releaseDate?: string;
}

const SHARD_RE = /^(.+)-(\d{5})-of-(\d{5})\.parquet$/;

/** JSONL files a `coreb build` folder holds beside the tables (the problems, the review decisions): not tables. */
const BUILD_FILES: readonly string[] = ['problems', 'review'];

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/** Splits whose parquet shards sit in `dir` itself: name -> file names. */
function parquetSplitsIn(names: string[]): Map<string, string[]> {
  const splits = new Map<string, string[]>();
  for (const name of names) {
    const m = SHARD_RE.exec(name);
    if (m === null) continue;
    const table = RELEASE_TABLES.find((t) => m[1].startsWith(`${t}-`));
    if (table === undefined) continue;
    const split = m[1].slice(table.length + 1);
    const list = splits.get(split) ?? [];
    list.push(name);
    splits.set(split, list);
  }
  return splits;
}

/**
 * What a release's optional `manifest.json` declares: its split (`{"split": "..."}`, e.g. the
 * bundled coreb-mini) and when it was made (`release_date`, else `created_at`); undefined fields when
 * there is no manifest or it names neither.
 */
async function readManifest(dir: string): Promise<{ split?: string; date?: string }> {
  const file = join(dir, 'manifest.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (e) {
    throw new CorebError('PARSE', `malformed JSON (${(e as Error).message}); expected a JSON object`, { file, cause: e });
  }
  const m = (manifest ?? {}) as { split?: unknown; release_date?: unknown; created_at?: unknown };
  const split = typeof m.split === 'string' && m.split !== '' ? m.split : undefined;
  const date = [m.release_date, m.created_at].find((d): d is string => typeof d === 'string' && !Number.isNaN(Date.parse(d)));
  return { ...(split !== undefined ? { split } : {}), ...(date !== undefined ? { date } : {}) };
}

/**
 * Finds which format, split and files a release directory holds.
 * @throws CorebError `NOT_FOUND` when `dir` holds no CoREB tables, `USAGE` when several parquet
 * splits exist and none was chosen (the message lists them).
 */
export async function resolveReleaseLayout(dir: string, options: LoadReleaseOptions = {}): Promise<ReleaseLayout> {
  const format = options.format ?? 'auto';
  if (!(await isDirectory(dir))) throw new CorebError('NOT_FOUND', `release directory not found: ${dir}`);
  const manifest = await readManifest(dir);
  const dated = manifest.date !== undefined ? { releaseDate: manifest.date } : {};
  const files = Object.fromEntries(RELEASE_TABLES.map((t) => [t, [] as string[]])) as Record<ReleaseTable, string[]>;
  if (format === 'jsonl' || format === 'auto') {
    let any = false;
    for (const t of RELEASE_TABLES) {
      const f = await findJsonlFile(dir, t);
      if (f !== undefined) {
        files[t].push(f);
        any = true;
      }
    }
    if (any || format === 'jsonl') {
      if (!any) throw new CorebError('NOT_FOUND', `no CoREB JSONL tables (e.g. code_corpus.jsonl) in ${dir}`);
      const unknownTables: Record<string, string[]> = {};
      for (const name of await listDir(dir)) {
        const m = /^(.+)\.jsonl(\.gz)?$/.exec(name);
        if (m !== null && !(RELEASE_TABLES as readonly string[]).includes(m[1]) && !BUILD_FILES.includes(m[1]))
          unknownTables[m[1]] = [join(dir, name)];
      }
      return { format: 'jsonl', split: options.split ?? manifest.split ?? basename(resolve(dir)), files, unknownTables, ...dated };
    }
  }
  // Parquet: `<split>/<table>-<split>-NNNNN-of-NNNNN.parquet` (also directly in `dir`), or the
  // Hugging Face per-config layout `<table>/<split>-NNNNN-of-NNNNN.parquet`.
  const candidates = new Map<string, Record<ReleaseTable, string[]>>();
  const add = (split: string, table: ReleaseTable, file: string): void => {
    let m = candidates.get(split);
    if (m === undefined) {
      m = Object.fromEntries(RELEASE_TABLES.map((t) => [t, [] as string[]])) as Record<ReleaseTable, string[]>;
      candidates.set(split, m);
    }
    if (!m[table].includes(file)) m[table].push(file);
  };
  // Shards of tables coreb does not know: `<table>-<split>-NNNNN-...` beside known ones, or a config folder.
  const others: Array<{ dir: string; name: string; config?: string }> = [];
  const scanFlat = async (d: string): Promise<void> => {
    const names = await listDir(d);
    for (const [split, shards] of parquetSplitsIn(names)) {
      for (const n of shards) add(split, RELEASE_TABLES.find((t) => n.startsWith(`${t}-${split}-`))!, join(d, n));
    }
    for (const n of names) if (SHARD_RE.test(n) && !RELEASE_TABLES.some((t) => n.startsWith(`${t}-`))) others.push({ dir: d, name: n });
  };
  await scanFlat(dir);
  for (const sub of await listDir(dir)) {
    const subDir = join(dir, sub);
    if (!(await isDirectory(subDir))) continue;
    const table = RELEASE_TABLES.find((t) => t === sub);
    if (table === undefined) {
      await scanFlat(subDir);
      for (const n of await listDir(subDir)) {
        const m = SHARD_RE.exec(n);
        if (m !== null && !RELEASE_TABLES.some((t) => n.startsWith(`${t}-`))) others.push({ dir: subDir, name: n, config: sub });
      }
      continue;
    }
    for (const n of await listDir(subDir)) {
      const m = SHARD_RE.exec(n);
      if (m !== null) add(m[1], table, join(subDir, n));
    }
  }
  if (candidates.size === 0) {
    throw new CorebError(
      'NOT_FOUND',
      `no CoREB tables in ${dir}; expected <table>.jsonl files, <split>/<table>-<split>-00000-of-00001.parquet or <table>/<split>-00000-of-00001.parquet (tables: ${RELEASE_TABLES.join(', ')})`,
    );
  }
  let split = options.split;
  if (split === undefined) {
    if (candidates.size > 1) {
      throw new CorebError('USAGE', `${dir} holds several splits (${[...candidates.keys()].join(', ')}); choose one with the split option (--split)`);
    }
    split = [...candidates.keys()][0];
  }
  const found = candidates.get(split);
  if (found === undefined) {
    throw new CorebError('NOT_FOUND', `split \`${split}\` not found in ${dir}; available: ${[...candidates.keys()].join(', ')}`);
  }
  for (const t of RELEASE_TABLES) files[t] = found[t].sort();
  const unknownTables: Record<string, string[]> = {};
  for (const o of others) {
    const stem = SHARD_RE.exec(o.name)![1];
    // `<config>/<split>-NNNNN-...` (the Hub's per-config layout) or `<table>-<split>-NNNNN-...`.
    const table = o.config !== undefined && stem === split ? o.config : stem.endsWith(`-${split}`) ? stem.slice(0, -split.length - 1) : undefined;
    if (table === undefined) continue;
    const list = unknownTables[table] ?? (unknownTables[table] = []);
    const file = join(o.dir, o.name);
    if (!list.includes(file)) list.push(file);
  }
  return { format: 'parquet', split, files, unknownTables, ...dated };
}

/** Raw rows of one table with their source locations. */
interface RawTable {
  rows: Record<string, unknown>[];
  where: Array<{ file: string; line?: number; row?: number }>;
}

async function readTable(layout: ReleaseLayout, table: ReleaseTable, dir: string, issues: ValidationIssue[]): Promise<RawTable> {
  const out: RawTable = { rows: [], where: [] };
  const files = layout.files[table];
  if (files.length === 0) {
    const expected =
      layout.format === 'jsonl' ? join(dir, `${table}.jsonl`) : join(dir, layout.split, `${table}-${layout.split}-00000-of-00001.parquet`);
    issues.push({
      severity: 'error',
      kind: 'missing-table',
      file: expected,
      message: `table \`${table}\` is missing; a CoREB release has all 8 tables`,
    });
    return out;
  }
  for (const file of files) {
    if (layout.format === 'jsonl') {
      const r = await readJsonl(file);
      issues.push(...r.issues);
      for (const rec of r.records) {
        out.rows.push(rec.value);
        out.where.push({ file, line: rec.line });
      }
    } else {
      let rows: Record<string, unknown>[];
      try {
        rows = await readParquetRows(file);
      } catch (e) {
        if (!isCorebError(e)) throw e;
        issues.push({ severity: 'error', kind: 'malformed-parquet', file, message: e.message.replace(`${file}: `, '') });
        continue;
      }
      if (rows.length === 0) issues.push({ severity: 'error', kind: 'empty-file', file, message: 'parquet file has no rows' });
      rows.forEach((row, i) => {
        out.rows.push(row);
        out.where.push({ file, row: i });
      });
    }
  }
  return out;
}

/**
 * Loads a CoREB release directory into typed records (wire names camelCased; nested or flattened
 * meta both accepted). Rows missing a required field (ids, texts, relevance) are reported and left
 * out; other bad values are reported and dropped from the record. Cross-table consistency (dangling
 * ids, duplicates, subtasks) is checked by {@link validateRelease}.
 * @throws CorebError only when `dir` is not a release directory at all (see {@link resolveReleaseLayout}).
 * @example
 * ```ts
 * import { core, loadRelease, validateRelease } from 'coreb';
 * const { release, issues } = await loadRelease('path/to/release_v2602');
 * const all = [...issues, ...validateRelease(release)];
 * for (const issue of all) console.error(core.renderIssue(issue));
 * if (!core.hasErrors(all)) console.log(`${release.codeCorpus.length} code documents`);
 * ```
 */
export async function loadRelease(dir: string, options: LoadReleaseOptions = {}): Promise<LoadedRelease> {
  const layout = await resolveReleaseLayout(dir, options);
  const issues: ValidationIssue[] = [];
  for (const [table, tableFiles] of Object.entries(layout.unknownTables)) {
    issues.push({
      severity: 'warning',
      kind: 'unknown-table',
      file: tableFiles[0],
      table,
      message: `table \`${table}\` is not one coreb knows (${RELEASE_TABLES.join(', ')}); it is skipped, not read`,
    });
  }
  const records = {} as Record<ReleaseTable, Record<string, unknown>[]>;
  const sources: Partial<Record<ReleaseTable, TableSource>> = {};
  for (const table of RELEASE_TABLES) {
    const before = issues.length;
    const raw = await readTable(layout, table, dir, issues);
    const unknownSeen = new Set<string>();
    const kept: Record<string, unknown>[] = [];
    const lines: number[] = [];
    const rows: number[] = [];
    const recordFiles: string[] = [];
    raw.rows.forEach((row, i) => {
      const where = raw.where[i];
      const r = coerceRow(row, RELEASE_SCHEMAS[table], new RowChecker(issues, where), unknownSeen);
      if (!r.ok) return;
      kept.push(r.record);
      if (where.line !== undefined) lines.push(where.line);
      if (where.row !== undefined) rows.push(where.row);
      recordFiles.push(where.file);
    });
    records[table] = kept;
    for (let i = before; i < issues.length; i++) issues[i].table = table;
    if (layout.files[table].length > 0) {
      sources[table] = {
        file: layout.files[table][0],
        format: layout.format,
        ...(layout.format === 'jsonl' ? { lines } : { rows }),
        ...(layout.files[table].length > 1 ? { recordFiles } : {}),
        metaStyle: raw.rows.some((r) => r.meta !== null && typeof r.meta === 'object') ? 'nested' : 'flat',
      };
    }
  }
  const tasks = {} as Release['tasks'];
  for (const task of TASKS) {
    const t = TASK_TABLES[task];
    tasks[task] = {
      queries: records[t.queries] as unknown as Release['tasks'][TaskName]['queries'],
      qrels: records[t.qrels] as unknown as Release['tasks'][TaskName]['qrels'],
    };
  }
  const release: Release = {
    dir,
    split: layout.split,
    ...(layout.releaseDate !== undefined ? { releaseDate: layout.releaseDate } : {}),
    codeCorpus: records.code_corpus as unknown as Release['codeCorpus'],
    textCorpus: records.text_corpus as unknown as Release['textCorpus'],
    tasks,
    sources,
  };
  return { release, issues };
}
