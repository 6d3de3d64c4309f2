/**
 * Loads a BEIR / CoIR directory (`corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv` with a
 * `query-id corpus-id score` header) into a RetrievalTask, reporting every problem found.
 */
import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Doc, Query, RetrievalTask } from '../core/dataset.js';
import { CorebError, isCorebError } from '../core/errors.js';
import { EventLoopTurns } from '../core/event-loop-turns.js';
import { trecIdProblem } from '../core/ids.js';
import type { ValidationIssue } from '../core/issues.js';
import { camelCase, coerceValue, INVALID, RowChecker, type FieldSpec } from './coerce.js';
import { CorpusTextFile } from './corpus-texts.js';
import { findJsonlFile, firstCrlfLine, readJsonl, readJsonlAt, type JsonlResult } from './jsonl.js';
import { isDirectory, isFile, type LineSpan, loadTextFile, sniffGzip, splitLines, type TextFile } from './text-file.js';

/** Options for {@link loadBeir}. */
export interface LoadBeirOptions {
  /** Qrels split (`qrels/<split>.tsv`); default `test`, or the only split when `test` is absent. */
  split?: string;
  /**
   * Stops the load (CorebError `INTERRUPTED`) when it aborts: the event loop gets a turn at least
   * every 50 ms of work (reading, building the records, the id checks), so Ctrl-C stops a
   * million-document load at once.
   */
  signal?: AbortSignal;
  /**
   * Where the corpus texts are kept. `memory`: in the documents. `file`: left in `corpus.jsonl`, each
   * `doc.text` read again from the file when asked for (ids, titles and other fields stay in memory;
   * the file must not change while the task is in use). `auto` (default): `file` for a plain
   * `corpus.jsonl` of at least {@link FILE_TEXTS_FROM_BYTES}, `memory` otherwise. A gzip corpus is
   * always read into memory.
   */
  texts?: 'memory' | 'file' | 'auto';
}

/**
 * Size of a plain `corpus.jsonl` from which {@link loadBeir} leaves the texts in the file by default:
 * 256 MiB (about 200,000 code documents).
 */
export const FILE_TEXTS_FROM_BYTES = 256 * 1024 * 1024;

/** A loaded BEIR task and every problem found. */
export interface LoadedBeir {
  /** `queries` holds only the queries judged in the split (as BEIR's GenericDataLoader does). */
  task: RetrievalTask;
  /** The split that was read. */
  split: string;
  issues: ValidationIssue[];
}

const ID: FieldSpec = { wire: '_id', type: 'string', required: true };
const TEXT: FieldSpec = { wire: 'text', type: 'string', required: true };
const TITLE: FieldSpec = { wire: 'title', type: 'string' };
const HEADER = ['query-id', 'corpus-id', 'score'] as const;

async function findJsonl(dir: string, stem: string): Promise<string> {
  return (await findJsonlFile(dir, stem)) ?? join(dir, `${stem}.jsonl`);
}

/** The qrels splits of a BEIR directory (`qrels/*.tsv` names without extension), sorted. */
export async function listBeirSplits(dir: string): Promise<string[]> {
  try {
    return (await readdir(join(dir, 'qrels')))
      .filter((n) => n.endsWith('.tsv') || n.endsWith('.tsv.gz'))
      .map((n) => n.replace(/\.tsv(\.gz)?$/, ''))
      .sort();
  } catch {
    return [];
  }
}

/** True when `dir` looks like a BEIR directory (has `corpus.jsonl[.gz]`). */
export async function isBeirDir(dir: string): Promise<boolean> {
  return (await findJsonlFile(dir, 'corpus')) !== undefined;
}

/**
 * Turns raw records into values with `build`: a numeric `_id` is read as a string (and warned about
 * once), and each record gets a checker that reports its problems at its line.
 */
function recordTaker<T>(
  file: string,
  issues: ValidationIssue[],
  build: (raw: Record<string, unknown>, c: RowChecker) => T | undefined,
): (raw: Record<string, unknown>, line: number) => T | undefined {
  let numericIds = 0;
  return (raw, line) => {
    const id = raw._id;
    if (typeof id === 'number' && Number.isFinite(id)) {
      // Numeric ids are common in exported corpora; read them as strings (as BEIR does) and warn once.
      raw._id = String(id);
      if (numericIds++ === 0) {
        issues.push({
          severity: 'warning',
          kind: 'coerced-type',
          file,
          line,
          field: '_id',
          message: `number ${id} read as the string "${id}" (and likewise on every such line); ids are strings`,
        });
      }
    }
    return build(raw, new RowChecker(issues, { file, line }));
  };
}

async function readRecords<T>(
  file: string,
  issues: ValidationIssue[],
  build: (raw: Record<string, unknown>, c: RowChecker) => T | undefined,
  turns: EventLoopTurns,
  signal: AbortSignal | undefined,
): Promise<Array<{ line: number; value: T }>> {
  let r: JsonlResult;
  try {
    r = await readJsonl(file, signal === undefined ? {} : { signal });
  } catch (e) {
    if (!isCorebError(e, 'NOT_FOUND')) throw e;
    issues.push({ severity: 'error', kind: 'missing-file', file, message: `missing; a BEIR directory has ${basename(file)}` });
    return [];
  }
  issues.push(...r.issues);
  const out: Array<{ line: number; value: T }> = [];
  const take = recordTaker(file, issues, build);
  const records = r.records;
  for (let i = 0; i < records.length; i++) {
    if (turns.due()) await turns.take(() => `loading ${file} stopped at record ${i} of ${records.length}`);
    const rec = records[i];
    const v = take(rec.value, rec.line);
    if (v !== undefined) out.push({ line: rec.line, value: v });
  }
  return out;
}

/** The corpus record of a BEIR row, or undefined when its id or text is unusable. */
function corpusDoc(raw: Record<string, unknown>, c: RowChecker, fileText?: (id: string) => Doc): Doc | undefined {
  const id = coerceValue(raw._id, ID, '_id', c);
  const text = coerceValue(raw.text, TEXT, 'text', c);
  const title = coerceValue(raw.title, TITLE, 'title', c);
  if (id === INVALID || text === INVALID) return undefined;
  // A text that needed coercing is kept as read; the file's own string texts stay in the file.
  const doc: Doc =
    fileText !== undefined && typeof raw.text === 'string' && text === raw.text ? fileText(id as string) : { id: id as string, text: text as string };
  if (typeof title === 'string') doc.title = title;
  const meta = rest(raw, ['_id', 'text', 'title']);
  if (meta !== undefined) doc.meta = meta;
  return doc;
}

/**
 * Reads a plain corpus file keeping each document's line span instead of its text (see
 * {@link CorpusTextFile}); the same records and problems as {@link readRecords}.
 */
async function readCorpusLeavingTexts(
  file: string,
  st: Stats,
  issues: ValidationIssue[],
  signal: AbortSignal | undefined,
): Promise<Array<{ line: number; value: Doc }>> {
  const texts = new CorpusTextFile(file, st.size, st.mtimeMs);
  const out: Array<{ line: number; value: Doc }> = [];
  let span: LineSpan = { at: 0, bytes: 0 };
  let line = 0;
  const fileText = (id: string): Doc => texts.docAt(id, span, line);
  // The records' own problems after the file's, as readRecords orders them.
  const own: ValidationIssue[] = [];
  const take = recordTaker(file, own, (raw, c) => corpusDoc(raw, c, fileText));
  const r = await readJsonlAt(
    file,
    (raw, l, s) => {
      span = s;
      line = l;
      const v = take(raw, l);
      if (v !== undefined) out.push({ line: l, value: v });
    },
    signal === undefined ? {} : { signal },
  );
  issues.push(...r.issues, ...own);
  return out;
}

/**
 * The file's stat when {@link loadBeir} leaves the texts of `file` in the file (see
 * {@link LoadBeirOptions.texts}), else undefined.
 */
async function leavesTexts(file: string, texts: LoadBeirOptions['texts']): Promise<Stats | undefined> {
  if (texts === 'memory') return undefined;
  let st: Stats;
  try {
    st = await stat(file);
    if (await sniffGzip(file)) return undefined;
  } catch {
    return undefined; // Missing or unreadable: the ordinary read reports it.
  }
  return texts === 'file' || st.size >= FILE_TEXTS_FROM_BYTES ? st : undefined;
}

function rest(raw: Record<string, unknown>, skip: readonly string[]): Record<string, unknown> | undefined {
  const meta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!skip.includes(k)) meta[camelCase(k)] = v;
  return Object.keys(meta).length > 0 ? meta : undefined;
}

async function checkUnique<T extends { id: string }>(
  rows: Array<{ line: number; value: T }>,
  file: string,
  issues: ValidationIssue[],
  turns: EventLoopTurns,
): Promise<Map<string, T>> {
  // One map of the first record of each id; the lines of first records are looked up only when a
  // duplicate shows (a second million-entry map cost 50 MB of heap at a million documents).
  const out = new Map<string, T>();
  let firstLine: Map<string, number> | undefined;
  for (let i = 0; i < rows.length; i++) {
    if (turns.due()) await turns.take(() => `checking the ids of ${file} stopped at record ${i} of ${rows.length}`);
    const r = rows[i];
    const problem = trecIdProblem(r.value.id);
    if (problem !== undefined) {
      issues.push({ severity: 'error', kind: 'bad-id', file, line: r.line, field: '_id', message: `id ${JSON.stringify(r.value.id)} ${problem}` });
    }
    if (out.has(r.value.id)) {
      if (firstLine === undefined) {
        firstLine = new Map();
        for (let j = i - 1; j >= 0; j--) firstLine.set(rows[j].value.id, rows[j].line);
      }
      issues.push({
        severity: 'error',
        kind: 'duplicate-id',
        file,
        line: r.line,
        field: '_id',
        message: `duplicate id \`${r.value.id}\` (first at line ${firstLine.get(r.value.id)}); ids must be unique`,
      });
    } else {
      out.set(r.value.id, r.value);
      firstLine?.set(r.value.id, r.line);
    }
  }
  return out;
}

/**
 * Parses BEIR qrels TSV text. Expects the `query-id corpus-id score` header (a missing header is a
 * warning and the first line is read as data); each row needs three tab-separated fields and an
 * integer score.
 */
export function parseBeirQrels(
  tf: Pick<TextFile, 'text' | 'path'>,
  issues: ValidationIssue[],
): Array<{ line: number; queryId: string; docId: string; relevance: number }> {
  const file = tf.path;
  const lines = splitLines(tf.text);
  const out: Array<{ line: number; queryId: string; docId: string; relevance: number }> = [];
  const crlf = firstCrlfLine(tf.text);
  if (crlf > 0)
    issues.push({
      severity: 'warning',
      kind: 'crlf',
      file,
      line: crlf,
      message: 'Windows (CRLF) line endings; read as LF, the file is left as it is',
    });
  let start = 0;
  if (lines.length > 0) {
    const head = lines[0].split('\t').map((s) => s.trim());
    if (head.length === 3 && head.every((h, i) => h === HEADER[i])) start = 1;
    else if (head.length === 3 && !Number.isFinite(Number(head[2]))) {
      start = 1;
      issues.push({
        severity: 'warning',
        kind: 'unexpected-header',
        file,
        line: 1,
        message: `header \`${head.join('\\t')}\`; expected \`${HEADER.join('\\t')}\``,
      });
    } else {
      issues.push({
        severity: 'warning',
        kind: 'missing-header',
        file,
        line: 1,
        message: `no \`${HEADER.join('\\t')}\` header; line 1 read as data`,
      });
    }
  }
  for (let i = start; i < lines.length; i++) {
    const line = i + 1;
    if (lines[i].trim() === '') {
      issues.push({ severity: 'warning', kind: 'blank-line', file, line, message: 'blank line skipped' });
      continue;
    }
    const cols = lines[i].split('\t');
    if (cols.length !== 3) {
      issues.push({
        severity: 'error',
        kind: 'wrong-column-count',
        file,
        line,
        message: `${cols.length} tab-separated fields; expected 3 (query-id, corpus-id, score)`,
      });
      continue;
    }
    const [queryId, docId, scoreText] = cols.map((s) => s.trim());
    if (queryId === '' || docId === '') {
      issues.push({
        severity: 'error',
        kind: 'missing-field',
        file,
        line,
        field: queryId === '' ? 'query-id' : 'corpus-id',
        message: 'is empty; expected an id',
      });
      continue;
    }
    const score = Number(scoreText);
    if (/^[-+]?(nan|inf|infinity)$/i.test(scoreText)) {
      issues.push({
        severity: 'error',
        kind: 'non-finite-number',
        file,
        line,
        field: 'score',
        message: `\`${scoreText}\`; expected an integer relevance (NaN and infinities are not allowed)`,
      });
      continue;
    }
    if (scoreText === '' || !Number.isFinite(score)) {
      issues.push({ severity: 'error', kind: 'wrong-type', file, line, field: 'score', message: `\`${scoreText}\`; expected an integer relevance` });
      continue;
    }
    if (!Number.isInteger(score)) {
      issues.push({ severity: 'error', kind: 'not-integer', file, line, field: 'score', message: `${scoreText}; expected an integer relevance` });
      continue;
    }
    out.push({ line, queryId, docId, relevance: score });
  }
  if (out.length === 0 && !issues.some((x) => x.file === file && x.severity === 'error')) {
    issues.push({
      severity: 'error',
      kind: 'empty-file',
      file,
      message: 'no qrels rows; expected `query-id<TAB>corpus-id<TAB>score` lines after the header',
    });
  }
  return out;
}

/**
 * Loads a BEIR/CoIR directory into a RetrievalTask named after the directory. Corpus rows become
 * Docs (`_id` -> id, `title`, `text`, other fields camelCased into `meta`); queries likewise. Every
 * problem is returned: malformed lines, missing/duplicate ids, qrels with unknown query or corpus
 * ids, duplicate pairs, non-integer scores, empty files, BOM/CRLF.
 * @throws CorebError `NOT_FOUND` when `dir` is missing or the split has no qrels file (the message
 * lists the available splits); `USAGE` when no split is given and there is no `test` but several;
 * `INTERRUPTED` when `options.signal` aborts.
 */
export async function loadBeir(dir: string, options: LoadBeirOptions = {}): Promise<LoadedBeir> {
  if (!(await isDirectory(dir))) throw new CorebError('NOT_FOUND', `BEIR directory not found: ${dir}`);
  const splits = await listBeirSplits(dir);
  let split = options.split;
  if (split === undefined) {
    if (splits.includes('test') || splits.length === 0) split = 'test';
    else if (splits.length === 1) split = splits[0];
    else throw new CorebError('USAGE', `${dir} has qrels splits ${splits.join(', ')} and no \`test\`; choose one with --split`);
  }
  const { signal } = options;
  signal?.throwIfAborted();
  const turns = new EventLoopTurns(signal);
  const issues: ValidationIssue[] = [];
  const corpusFile = await findJsonl(dir, 'corpus');
  const corpusStat = await leavesTexts(corpusFile, options.texts);
  const corpusRows =
    corpusStat !== undefined
      ? await readCorpusLeavingTexts(corpusFile, corpusStat, issues, signal)
      : await readRecords<Doc>(corpusFile, issues, (raw, c) => corpusDoc(raw, c), turns, signal);
  const queriesFile = await findJsonl(dir, 'queries');
  const queryRows = await readRecords<Query>(
    queriesFile,
    issues,
    (raw, c) => {
      const id = coerceValue(raw._id, ID, '_id', c);
      const text = coerceValue(raw.text, TEXT, 'text', c);
      if (id === INVALID || text === INVALID) return undefined;
      const q: Query = { id: id as string, text: text as string };
      const meta = rest(raw, ['_id', 'text']);
      if (meta !== undefined) q.meta = meta;
      // A query's type (repository benchmarks: subject, message, issue) is reported per type.
      const type = meta?.metaQueryType ?? meta?.queryType;
      if (typeof type === 'string' && type !== '') q.subQueryType = type;
      return q;
    },
    turns,
    signal,
  );
  const corpus = await checkUnique(corpusRows, corpusFile, issues, turns);
  const queries = await checkUnique(queryRows, queriesFile, issues, turns);
  let qrelsFile = join(dir, 'qrels', `${split}.tsv`);
  if (!(await isFile(qrelsFile)) && (await isFile(qrelsFile + '.gz'))) qrelsFile += '.gz';
  let tf: TextFile;
  try {
    tf = await loadTextFile(qrelsFile);
  } catch (e) {
    if (isCorebError(e, 'NOT_FOUND')) {
      throw new CorebError('NOT_FOUND', `no qrels for split \`${split}\` (${qrelsFile}); available splits: ${splits.join(', ') || 'none'}`, {
        cause: e,
      });
    }
    throw e;
  }
  if (tf.bom)
    issues.push({
      severity: 'warning',
      kind: 'bom',
      file: qrelsFile,
      line: 1,
      message: 'file starts with a UTF-8 byte-order mark; it is ignored, the file is left as it is',
    });
  signal?.throwIfAborted();
  const rows = parseBeirQrels(tf, issues);
  const qrels: RetrievalTask['qrels'] = new Map();
  const firstLine = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.queryId}\u0000${r.docId}`;
    const prev = firstLine.get(key);
    if (prev !== undefined) {
      issues.push({
        severity: 'error',
        kind: 'duplicate-qrel',
        file: qrelsFile,
        line: r.line,
        field: 'corpus-id',
        message: `(\`${r.queryId}\`, \`${r.docId}\`) judged again (first at line ${prev}); each pair is judged once`,
      });
      continue;
    }
    firstLine.set(key, r.line);
    if (!queries.has(r.queryId)) {
      issues.push({
        severity: 'error',
        kind: 'dangling-query',
        file: qrelsFile,
        line: r.line,
        field: 'query-id',
        message: `query \`${r.queryId}\` is not in ${basename(queriesFile)}`,
      });
    }
    if (!corpus.has(r.docId)) {
      issues.push({
        severity: 'error',
        kind: 'dangling-doc',
        file: qrelsFile,
        line: r.line,
        field: 'corpus-id',
        message: `document \`${r.docId}\` is not in ${basename(corpusFile)}`,
      });
    }
    let m = qrels.get(r.queryId);
    if (m === undefined) qrels.set(r.queryId, (m = new Map()));
    m.set(r.docId, r.relevance);
  }
  signal?.throwIfAborted();
  const task: RetrievalTask = {
    name: basename(resolve(dir)),
    corpus: [...corpus.values()],
    queries: [...queries.values()].filter((q) => qrels.has(q.id)),
    qrels,
  };
  return { task, split, issues };
}
