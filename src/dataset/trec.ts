/**
 * TREC qrels (`qid iter docid rel`) and runs (`qid Q0 docid rank score tag`), plain or gzip, read
 * into core's CSR columns exactly as trec_eval reads them: scanned from bytes (trec-scan.ts), ids
 * interned (id-table.ts), numbers parsed like C (strtod.ts), grouped by query (trec-group.ts).
 */
import { readFileSync } from 'node:fs';
import type { QrelsColumns, RunColumns } from '../core/columns.js';
import type { Qrels, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { IdTable } from './id-table.js';
import { compareDocAt, docAt, groupByBytes, groupByQuery } from './trec-group.js';
import { JudgedLookup, scanQrels, scanRun, toBuffer, withFinalNewline, type JudgedDocs } from './trec-scan.js';

/** A parsed TREC run: core's {@link RunColumns} (the shape `metrics` evaluates directly) and its tag. */
export interface TrecRunColumns extends RunColumns {
  /** The tag (6th column) of the last line: trec_eval's `runid`. */
  readonly runTag: string;
  /** Present with `knownDocsOnly`: the docid of entry `p` (decoded on demand). */
  readonly entryDocId?: (p: number) => string;
}

/** Parsed TREC qrels: core's {@link QrelsColumns}. */
export type TrecQrelsColumns = QrelsColumns;

/** Options of the TREC parsers. */
export interface TrecParseOptions {
  /** File name for error messages. Default `<input>`. */
  file?: string;
  /** Doc id table to intern into; pass the same one to qrels and run so ids are shared. */
  docs?: IdTable;
  /**
   * Run only: do not intern docids that are not already in `docs` (their `docs[i]` is -1), and
   * provide {@link TrecRunColumns.compareEntries} for docid ties instead. The fast path for
   * evaluation, where only judged (and anchor) docs need ids. Default false.
   */
  knownDocsOnly?: boolean;
  /**
   * With `knownDocsOnly`: the qrels (parsed into the same `docs`). A run doc then gets its id only
   * when it is judged for its own query (or is that query's anchor), found in a small per-query
   * table instead of the whole id table; other docs get -1. Default: any interned id counts.
   */
  judged?: JudgedDocs;
  /** With `judged`: query id -> anchor docid (interned into `docs` beforehand) also given ids. */
  anchors?: ReadonlyMap<string, string>;
}

/**
 * Parses a TREC run (`qid Q0 docid rank score tag [ignored...]`), plain or gzip bytes or text.
 * The rank column and line order are ignored; the score is read like C `atof`.
 * @throws CorebError `PARSE` for a line with fewer than 6 fields, `VALIDATION` for a NaN score or a
 * duplicate (qid, docid), with file and line.
 */
export function parseTrecRun(input: Uint8Array | string, options: TrecParseOptions = {}): TrecRunColumns {
  const file = options.file ?? '<input>';
  const docTable = options.docs ?? new IdTable();
  const bytes = withFinalNewline(toBuffer(input, file));
  const knownOnly = options.knownDocsOnly === true;
  const judged =
    knownOnly && options.judged !== undefined ? new JudgedLookup(docTable, options.judged, options.anchors) : undefined;
  const raw = scanRun(bytes, file, docTable, knownOnly, judged);
  if (!knownOnly) {
    const g = groupByQuery(raw, docTable, file, 'run line', bytes);
    return {
      queryIds: raw.queryIds,
      docIds: docTable.strings,
      offsets: g.offsets,
      docs: g.docs,
      scores: g.nums,
      runTag: raw.lastTag,
    };
  }
  const g = groupByBytes(raw, file, bytes);
  const { starts } = g;
  return {
    queryIds: raw.queryIds,
    docIds: docTable.strings,
    offsets: g.offsets,
    docs: g.docs,
    scores: g.nums,
    runTag: raw.lastTag,
    compareEntries: (a, b) => compareDocAt(bytes, starts[a], starts[b]),
    entryDocId: (p) => docAt(bytes, starts[p]),
  };
}

/**
 * Parses TREC qrels (`qid iter docid rel`), plain or gzip bytes or text. `iter` is ignored; the label
 * is read like C `atol` (`2.7` -> 2, `x` -> 0); a label < 0 means "in the pool, unjudged".
 * @throws CorebError `PARSE` for a line with fewer or more than 4 fields, `VALIDATION` for a duplicate
 * (qid, docid), with file and line.
 */
export function parseTrecQrels(input: Uint8Array | string, options: TrecParseOptions = {}): TrecQrelsColumns {
  const file = options.file ?? '<input>';
  const docTable = options.docs ?? new IdTable();
  const bytes = toBuffer(input, file);
  const raw = scanQrels(bytes, file, docTable);
  const g = groupByQuery(raw, docTable, file, 'qrels line', bytes);
  return {
    queryIds: raw.queryIds,
    docIds: docTable.strings,
    offsets: g.offsets,
    docs: g.docs,
    labels: Int32Array.from(g.nums),
  };
}

/** Reads a whole file. Synchronous on purpose: one read of the known size is ~30% cheaper in CPU
 * than the promise API's chunked read for the multi-hundred-MB runs this is used on. */
async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorebError(code === 'ENOENT' ? 'NOT_FOUND' : 'IO', code === 'ENOENT' ? 'file not found; check the path' : `cannot read file (${code ?? (e as Error).message})`, {
      file: path,
      cause: e,
    });
  }
}

/** Reads and parses a TREC run file (plain or `.gz`). See {@link parseTrecRun}. */
export async function loadTrecRunColumns(path: string, options: Omit<TrecParseOptions, 'file'> = {}): Promise<TrecRunColumns> {
  return parseTrecRun(await readBytes(path), { ...options, file: path });
}

/** Reads and parses a TREC qrels file (plain or `.gz`). See {@link parseTrecQrels}. */
export async function loadTrecQrelsColumns(
  path: string,
  options: Omit<TrecParseOptions, 'file'> = {},
): Promise<TrecQrelsColumns> {
  return parseTrecQrels(await readBytes(path), { ...options, file: path });
}

/** Converts run columns to the core {@link Run} map (file order kept within each query). */
export function trecRunToMap(run: TrecRunColumns): Run {
  const out: Run = new Map();
  for (let q = 0; q < run.queryIds.length; q++) {
    const m = new Map<string, number>();
    for (let p = run.offsets[q]; p < run.offsets[q + 1]; p++) {
      const d = run.docs[p];
      m.set(d >= 0 ? run.docIds[d] : (run.entryDocId as (p: number) => string)(p), run.scores[p]);
    }
    out.set(run.queryIds[q], m);
  }
  return out;
}

/** Converts qrels columns to the core {@link Qrels} map. */
export function trecQrelsToMap(qrels: TrecQrelsColumns): Qrels {
  const out: Qrels = new Map();
  for (let q = 0; q < qrels.queryIds.length; q++) {
    const m = new Map<string, number>();
    for (let p = qrels.offsets[q]; p < qrels.offsets[q + 1]; p++) m.set(qrels.docIds[qrels.docs[p]], qrels.labels[p]);
    out.set(qrels.queryIds[q], m);
  }
  return out;
}

/** Reads a TREC run file into a {@link Run} map. */
export async function loadTrecRunMap(path: string): Promise<Run> {
  return trecRunToMap(await loadTrecRunColumns(path));
}

/** Reads a TREC qrels file into a {@link Qrels} map. */
export async function loadTrecQrelsMap(path: string): Promise<Qrels> {
  return trecQrelsToMap(await loadTrecQrelsColumns(path));
}
