/**
 * TREC qrels (`qid iter docid rel`) and runs (`qid Q0 docid rank score tag`), plain or gzip, read
 * into core's CSR columns exactly as trec_eval reads them: scanned from bytes (trec-scan.ts), ids
 * interned (id-table.ts), numbers parsed like C (strtod.ts), grouped by query (trec-group.ts).
 */
import { statSync } from 'node:fs';
import type { QrelsColumns, RunColumns } from '../core/columns.js';
import type { Qrels, Run } from '../core/dataset.js';
import { IdTable } from './id-table.js';
import { isGzip, readLineChunks } from './text-file.js';
import { DocidSet, DuplicateEntry, EntryLines, groupByBytes, groupByQuery } from './trec-group.js';
import {
  estimateLines,
  JudgedLookup,
  QrelsScanner,
  RunScanner,
  scanQrels,
  scanRun,
  toBuffer,
  type JudgedDocs,
  type RawColumns,
  type ScannedGroup,
} from './trec-scan.js';
import { CorebError, formatLocation } from '../core/errors.js';

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

/** Groups scanned run entries into {@link TrecRunColumns} (throws {@link DuplicateEntry}). */
function runColumns(raw: RawColumns, docTable: IdTable, knownOnly: boolean): TrecRunColumns {
  if (!knownOnly) {
    const g = groupByQuery(raw, docTable, 'run line');
    return { queryIds: raw.queryIds, docIds: docTable.strings, offsets: g.offsets, docs: g.docs, scores: g.nums, runTag: raw.lastTag };
  }
  const { starts, pool, offsets, docs, nums } = groupByBytes(raw);
  return {
    queryIds: raw.queryIds,
    docIds: docTable.strings,
    offsets,
    docs,
    scores: nums,
    runTag: raw.lastTag,
    compareEntries: (a, b) => pool.compare(starts[a], starts[b]),
    entryDocId: (p) => pool.toString(starts[p]),
  };
}

function qrelsColumns(raw: RawColumns, docTable: IdTable): TrecQrelsColumns {
  const g = groupByQuery(raw, docTable, 'qrels line');
  return { queryIds: raw.queryIds, docIds: docTable.strings, offsets: g.offsets, docs: g.docs, labels: Int32Array.from(g.nums) };
}

/** Runs `group`, turning a duplicate into its error with line numbers from `rescan` (mapped by `mapLine`). */
async function withDuplicateLines<T>(
  file: string,
  group: () => T | Promise<T>,
  rescan: (lines: EntryLines) => Promise<void> | void,
  mapLine: (line: number) => number = (l) => l,
): Promise<T> {
  try {
    return await group();
  } catch (e) {
    if (!(e instanceof DuplicateEntry)) throw e;
    const lines = new EntryLines([e.entry, e.firstEntry]);
    await rescan(lines);
    throw e.toError(file, { lineOf: (entry) => mapLine(lines.lineOf(entry)) });
  }
}

/** `e` with its line mapped by `origin` (a partition's line to the original file's). */
function remapError(e: unknown, origin: TrecOrigin | undefined): unknown {
  if (origin === undefined || !(e instanceof CorebError) || e.location.line === undefined) return e;
  const message = e.message.slice(formatLocation(e.location).length);
  return new CorebError(e.code, message, { ...e.location, file: origin.file, line: origin.lineOf(e.location.line), cause: e.cause });
}

/** Sync {@link withDuplicateLines} over bytes in memory. */
function groupInMemory<T>(file: string, bytes: Buffer, group: () => T): T {
  try {
    return group();
  } catch (e) {
    if (!(e instanceof DuplicateEntry)) throw e;
    const lines = new EntryLines([e.entry, e.firstEntry]);
    lines.scan(bytes);
    throw e.toError(file, lines);
  }
}

function judgedLookup(docTable: IdTable, options: TrecParseOptions): JudgedLookup | undefined {
  return options.knownDocsOnly === true && options.judged !== undefined ? new JudgedLookup(docTable, options.judged, options.anchors) : undefined;
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
  const bytes = toBuffer(input, file);
  const knownOnly = options.knownDocsOnly === true;
  const raw = scanRun(bytes, file, docTable, knownOnly, judgedLookup(docTable, options));
  return groupInMemory(file, bytes, () => runColumns(raw, docTable, knownOnly));
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
  return groupInMemory(file, bytes, () => qrelsColumns(raw, docTable));
}

/** Where the lines of a derived file (a partition of a run) came from, for error messages. */
export interface TrecOrigin {
  /** The original file's name. */
  file: string;
  /** The original line of the derived file's 1-based `line`. */
  lineOf(line: number): number;
}

/** Options of the TREC file loaders. */
export interface TrecLoadOptions extends Omit<TrecParseOptions, 'file'> {
  /** Checked between chunks: an aborted signal stops the read with its reason. */
  signal?: AbortSignal;
  /** Errors name this file and its lines instead of the file read. Default: the file read. */
  origin?: TrecOrigin;
  /** Bytes read per chunk (whole lines). Default 4 MiB. */
  chunkBytes?: number;
  /** {@link streamTrecRunGroups} only: given the file's bytes as read, before gunzip (to hash it or count them in the same pass). */
  onBytes?: (bytes: Uint8Array) => void;
}

/**
 * Entry capacity for a file from its first chunk: its line density times the file size for a plain
 * file (5% head room, so the columns are allocated once), the chunk's lines for gzip (then doubling).
 */
function capacityFor(path: string, first: Buffer): number {
  let size = first.length;
  try {
    size = statSync(path).size;
  } catch {
    // a pipe or a vanished file: the chunk's own count
  }
  return isGzip(first) || size < first.length ? estimateLines(first) : estimateLines(first, size);
}

/**
 * Reads and parses a TREC run file (plain or `.gz`) as a stream of line chunks: no size limit
 * (past 2 GiB and 4 GiB), memory for the entries only, never for the file. See {@link parseTrecRun}.
 */
export async function loadTrecRunColumns(path: string, options: TrecLoadOptions = {}): Promise<TrecRunColumns> {
  const docTable = options.docs ?? new IdTable();
  const knownOnly = options.knownDocsOnly === true;
  const judged = judgedLookup(docTable, options);
  const { origin } = options;
  const shown = origin?.file ?? path;
  let scanner: RunScanner | undefined;
  for await (const chunk of readLineChunks(path, { signal: options.signal })) {
    scanner ??= new RunScanner(shown, docTable, knownOnly, judged, capacityFor(path, chunk));
    try {
      scanner.scan(chunk);
    } catch (e) {
      throw remapError(e, origin);
    }
  }
  const raw = (scanner ?? new RunScanner(shown, docTable, knownOnly, judged, 0)).result();
  return withDuplicateLines(
    shown,
    () => runColumns(raw, docTable, knownOnly),
    async (lines) => {
      for await (const chunk of readLineChunks(path, { signal: options.signal })) lines.scan(chunk);
    },
    origin?.lineOf,
  );
}

/** One query's lines of a run streamed by {@link streamTrecRunGroups}: entries `[start, end)`. */
export interface TrecRunGroup {
  qid: string;
  /** Doc index per entry: judged (or anchor) docs of this query; -1 for the others. */
  docs: Int32Array;
  scores: Float64Array;
  start: number;
  end: number;
  /** strcmp of the docids of entries `a` and `b` (UTF-8 bytes). */
  compareEntries: (a: number, b: number) => number;
  /** The docid of entry `p` (decoded from its bytes). */
  entryDocId: (p: number) => string;
}

/** What {@link streamTrecRunGroups} saw. */
export interface TrecRunStream {
  /**
   * False when a query's lines resumed after another query's: the stream stopped there and the
   * groups handed out so far are incomplete (read the run another way, e.g. partitioned by query).
   */
  grouped: boolean;
  /** Run query ids seen (all of them when `grouped`). */
  queryIds: readonly string[];
  /** The tag of the last line (trec_eval's `runid`). */
  runTag: string;
}

/**
 * Streams a TREC run (plain or `.gz`) query by query: `onGroup` gets each query's lines as soon as
 * the next query starts, so memory holds one 4 MiB chunk plus one query, never the file (runs are
 * grouped by query in practice: trec_eval's and every engine's output). Only judged and anchor
 * docs get ids (`judged` is required), as with `knownDocsOnly`. Stops with `grouped: false` at the
 * first query whose lines are split. Malformed lines and duplicate (qid, docid) throw like
 * {@link loadTrecRunColumns}, naming the file and line(s).
 */
export async function streamTrecRunGroups(path: string, options: TrecLoadOptions, onGroup: (group: TrecRunGroup) => void): Promise<TrecRunStream> {
  const docTable = options.docs ?? new IdTable();
  const judged = judgedLookup(docTable, { ...options, knownDocsOnly: true });
  const set = new DocidSet();
  let current: ScannedGroup | undefined;
  const compareEntries = (a: number, b: number): number => {
    const g = current as ScannedGroup;
    return g.pool.compare(g.starts[a], g.starts[b]);
  };
  const entryDocId = (p: number): string => {
    const g = current as ScannedGroup;
    return g.pool.toString(g.starts[p]);
  };
  const out: TrecRunGroup = { qid: '', docs: new Int32Array(0), scores: new Float64Array(0), start: 0, end: 0, compareEntries, entryDocId };
  const handle = (g: ScannedGroup): void => {
    const dup = set.findDuplicate(g.pool, g.starts, g.start, g.end);
    if (dup !== undefined) {
      const [p, o] = dup;
      throw new DuplicateEntry('run line', g.qid, g.pool.toString(g.starts[p]), g.firstEntry + p - g.start, g.firstEntry + o - g.start);
    }
    current = g;
    out.qid = g.qid;
    out.docs = g.docs;
    out.scores = g.nums;
    out.start = g.start;
    out.end = g.end;
    onGroup(out);
  };
  let scanner: RunScanner | undefined;
  const scan = async (): Promise<TrecRunStream> => {
    for await (const chunk of readLineChunks(path, { signal: options.signal, chunkBytes: options.chunkBytes, onBytes: options.onBytes })) {
      scanner ??= new RunScanner(path, docTable, true, judged, 2 * estimateLines(chunk));
      scanner.scan(chunk);
      if (!scanner.grouped) return { grouped: false, queryIds: scanner.queryIds, runTag: scanner.runTag };
      scanner.takeGroups(false, handle);
    }
    scanner ??= new RunScanner(path, docTable, true, judged, 0);
    scanner.takeGroups(true, handle);
    return { grouped: true, queryIds: scanner.queryIds, runTag: scanner.runTag };
  };
  return withDuplicateLines(
    path,
    () => scan(),
    async (lines) => {
      for await (const chunk of readLineChunks(path, { signal: options.signal })) lines.scan(chunk);
    },
  );
}

/** Reads and parses a TREC qrels file (plain or `.gz`), streamed like {@link loadTrecRunColumns}. */
export async function loadTrecQrelsColumns(path: string, options: TrecLoadOptions = {}): Promise<TrecQrelsColumns> {
  const docTable = options.docs ?? new IdTable();
  let scanner: QrelsScanner | undefined;
  for await (const chunk of readLineChunks(path, { signal: options.signal })) {
    scanner ??= new QrelsScanner(path, docTable, capacityFor(path, chunk));
    scanner.scan(chunk);
  }
  const raw = (scanner ?? new QrelsScanner(path, docTable, 0)).result();
  return withDuplicateLines(
    path,
    () => qrelsColumns(raw, docTable),
    async (lines) => {
      for await (const chunk of readLineChunks(path, { signal: options.signal })) lines.scan(chunk);
    },
  );
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
