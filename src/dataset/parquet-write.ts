/**
 * Writes CoREB tables as parquet, the layout the official release is published in on the Hugging
 * Face Hub (one config per table, one split per release: `<table>/<split>-00000-of-00001.parquet`),
 * with a dataset card naming the configs, so `hf upload` publishes a build unchanged.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReleaseTable } from '../core/dataset.js';
import { RELEASE_TABLES } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { saveAtomic } from './atomic-write.js';
import { RELEASE_SCHEMAS } from './release-schema.js';

type SchemaElement = Record<string, unknown>;

/** The declared type of a wire column (`meta_x` included) in a release table, when the schema knows it. */
function declaredType(table: string | undefined, column: string): string | undefined {
  const schema = table === undefined ? undefined : RELEASE_SCHEMAS[table as ReleaseTable];
  if (schema === undefined) return undefined;
  const meta = column.startsWith('meta_') ? column.slice(5) : undefined;
  const spec = meta !== undefined ? schema.meta.find((f) => f.wire === meta) : schema.fields.find((f) => f.wire === column);
  return spec?.type;
}

/**
 * Parquet schema elements of one column: the type the release schema declares (so a float column
 * whose values happen to be whole stays DOUBLE), else inferred from its non-null values (structs,
 * string lists, booleans, INT64 / DOUBLE numbers, UTF-8 strings).
 */
function columnSchema(
  name: string,
  values: unknown[],
  declared?: string,
  childDeclared?: (key: string) => string | undefined,
): { schema: SchemaElement[]; convert: (v: unknown) => unknown } {
  const present = values.filter((v) => v !== null && v !== undefined);
  const first = present[0];
  if (declared === undefined && first !== undefined && typeof first === 'object' && !Array.isArray(first)) {
    const keys = [...new Set(present.flatMap((v) => Object.keys(v as object)))];
    const children = keys.map((k) =>
      columnSchema(
        k,
        values.map((v) => (v == null ? null : (v as Record<string, unknown>)[k])),
        childDeclared?.(k),
      ),
    );
    return {
      schema: [{ name, repetition_type: 'OPTIONAL', num_children: keys.length }, ...children.flatMap((c) => c.schema)],
      convert: (v) => {
        if (v == null) return null;
        const o: Record<string, unknown> = {};
        keys.forEach((k, i) => (o[k] = children[i].convert((v as Record<string, unknown>)[k] ?? null)));
        return o;
      },
    };
  }
  if (declared === 'strings' || (declared === undefined && Array.isArray(first))) {
    return {
      schema: [
        { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      ],
      convert: (v) => v ?? null,
    };
  }
  const kind =
    declared ??
    (typeof first === 'boolean' ? 'bool' : typeof first === 'number' ? (present.every((v) => Number.isInteger(v)) ? 'int' : 'number') : 'string');
  if (kind === 'bool') return { schema: [{ name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' }], convert: (v) => v ?? null };
  if (kind === 'int')
    return { schema: [{ name, type: 'INT64', repetition_type: 'OPTIONAL' }], convert: (v) => (v == null ? null : BigInt(v as number)) };
  if (kind === 'number') return { schema: [{ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' }], convert: (v) => (v == null ? null : Number(v)) };
  return {
    schema: [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }],
    convert: (v) => (v == null ? null : String(v)),
  };
}

/** The part of `hyparquet-writer` coreb uses. */
export interface ParquetWriter {
  parquetWriteBuffer(options: { columnData: Array<{ name: string; data: unknown[] }>; schema: never }): ArrayBuffer;
}

/**
 * Encodes rows as one parquet file with `writer` (`import * as writer from 'hyparquet-writer'`).
 * Columns in first-seen order; types from the release schema of `table` when given (see
 * {@link columnSchema}), else inferred.
 */
export function encodeParquetWith(writer: ParquetWriter, rows: readonly Record<string, unknown>[], table?: string): Uint8Array {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cols = names.map((n) => ({
    n,
    ...columnSchema(
      n,
      rows.map((r) => r[n] ?? null),
      n === 'meta' ? undefined : declaredType(table, n),
      n === 'meta' ? (k) => declaredType(table, `meta_${k}`) : undefined,
    ),
  }));
  const buf = writer.parquetWriteBuffer({
    columnData: cols.map((c) => ({ name: c.n, data: rows.map((r) => c.convert(r[c.n] ?? null)) })),
    schema: [{ name: 'root', num_children: cols.length }, ...cols.flatMap((c) => c.schema)] as never,
  });
  return new Uint8Array(buf);
}

/**
 * {@link encodeParquetWith} with `hyparquet-writer` loaded on first use.
 * @throws CorebError `UNSUPPORTED` when the npm package hyparquet-writer is missing.
 */
export async function encodeParquet(rows: readonly Record<string, unknown>[], table?: string): Promise<Uint8Array> {
  let writer: ParquetWriter;
  try {
    writer = (await import('hyparquet-writer')) as unknown as ParquetWriter;
  } catch (e) {
    throw new CorebError('UNSUPPORTED', 'writing parquet needs the npm package hyparquet-writer; install it with `npm install hyparquet-writer`', {
      cause: e,
    });
  }
  return encodeParquetWith(writer, rows, table);
}

/** What {@link saveHubRelease} wrote. */
export interface HubReleaseOutput {
  dir: string;
  files: string[];
}

/** Moves a wire row's `meta_*` columns into one nested `meta` object, the shape the official parquet has. */
export function nestMetaColumns(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const meta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k.startsWith('meta_')) meta[k.slice(5)] = v;
    else out[k] = v;
  }
  if (Object.keys(meta).length > 0) out.meta = meta;
  return out;
}

/**
 * Writes a release in the Hub's dataset layout under `dir`: `<table>/<split>-00000-of-00001.parquet`
 * for the 8 tables (`meta_*` columns nested into a `meta` struct, as published) and `README.md`, a dataset card whose YAML `configs` name one config per table
 * with this split (`extra` lines are appended to the card's body). `coreb eval --data DIR --split
 * SPLIT` and `coreb validate` read it back.
 */
export async function saveHubRelease(
  dir: string,
  split: string,
  tables: Readonly<Record<ReleaseTable, readonly Record<string, unknown>[]>>,
  card: { title: string; license?: string; body?: string },
): Promise<HubReleaseOutput> {
  const files: string[] = [];
  for (const t of RELEASE_TABLES) {
    const file = join(dir, t, `${split}-00000-of-00001.parquet`);
    await mkdir(join(dir, t), { recursive: true });
    await saveAtomic(file, await encodeParquet(tables[t].map(nestMetaColumns), t));
    files.push(file);
  }
  const yaml = [
    '---',
    ...(card.license !== undefined ? [`license: ${card.license}`] : []),
    'configs:',
    ...RELEASE_TABLES.flatMap((t) => [`- config_name: ${t}`, '  data_files:', `  - split: ${split}`, `    path: ${t}/${split}-*`]),
    '---',
  ];
  const readme = [...yaml, '', `# ${card.title}`, '', ...(card.body !== undefined ? [card.body.trimEnd(), ''] : [])].join('\n');
  const cardFile = join(dir, 'README.md');
  await saveAtomic(cardFile, readme);
  files.push(cardFile);
  return { dir, files };
}
