/**
 * JSON Lines (plain or `.gz`): one JSON object per line. Parsing collects every problem with its
 * file and line instead of stopping at the first; writing is atomic. Input files are never modified.
 */
import { join } from 'node:path';
import { CorebError, isCorebError } from '../core/errors.js';
import type { ValidationIssue } from '../core/issues.js';
import { saveFileAtomic } from './atomic-write.js';
import { forEachLine, forEachLineAt, isFile, type LineScan, type LineSpan, splitLines } from './text-file.js';

/** One parsed JSONL record and the 1-based line it came from. */
export interface JsonlRecord {
  line: number;
  value: Record<string, unknown>;
}

/** What {@link readJsonl} / {@link parseJsonl} return. */
export interface JsonlResult {
  /** Records in file order; malformed lines are left out (and reported). */
  records: JsonlRecord[];
  /** Every problem found, in line order. */
  issues: ValidationIssue[];
}

/** Options for {@link parseJsonl} and {@link readJsonl}. */
export interface JsonlOptions {
  /** Report an empty file (no records at all) as an error; default true (else a warning). */
  emptyIsError?: boolean;
  /** {@link readJsonl} only: stops the read (CorebError `INTERRUPTED`) within 50 ms of work after it aborts. */
  signal?: AbortSignal;
}

/**
 * Finds the JSONL file `<stem>.jsonl` or, failing that, `<stem>.jsonl.gz` in `dir`.
 * @returns its path, or undefined when neither is a file.
 */
export async function findJsonlFile(dir: string, stem: string): Promise<string | undefined> {
  for (const name of [`${stem}.jsonl`, `${stem}.jsonl.gz`]) if (await isFile(join(dir, name))) return join(dir, name);
  return undefined;
}

const NON_FINITE = ['-Infinity', 'Infinity', 'NaN'] as const;
const SENTINEL = '\u0000coreb-non-finite:';

/**
 * Rewrites Python's non-standard `NaN` / `Infinity` / `-Infinity` literals (outside strings) into
 * sentinel strings, or returns null when the line has none.
 */
function protectNonFinite(line: string): string | null {
  let out = '';
  let last = 0;
  let inString = false;
  let found = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    for (const token of NON_FINITE) {
      if (line.startsWith(token, i)) {
        out += line.slice(last, i) + JSON.stringify(SENTINEL + token);
        i += token.length - 1;
        last = i + 1;
        found = true;
        break;
      }
    }
  }
  return found ? out + line.slice(last) : null;
}

function reviveNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith(SENTINEL)) return Number(value.slice(SENTINEL.length));
  return value;
}

/** Parses one JSON text, accepting Python's `NaN`/`Infinity` literals (as Python's `json` does). */
export function parseJsonLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const protectedText = protectNonFinite(text);
    if (protectedText === null) throw e;
    try {
      return JSON.parse(protectedText, reviveNonFinite);
    } catch {
      throw e;
    }
  }
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Turns lines into records and issues; shared by the string and the streaming readers. */
class JsonlCollector {
  readonly records: JsonlRecord[] = [];
  readonly issues: ValidationIssue[] = [];

  /** Records seen (kept in {@link records}, or handed to the sink). */
  count = 0;

  constructor(
    private readonly file: string,
    private readonly options: JsonlOptions,
    private readonly sink?: (value: Record<string, unknown>, line: number, span: LineSpan) => void,
  ) {}

  add(raw: string, line: number, span?: LineSpan): void {
    const file = this.file;
    if (raw.trim() === '') {
      this.issues.push({ severity: 'warning', kind: 'blank-line', file, line, message: 'blank line skipped; JSONL has one JSON object per line' });
      return;
    }
    let value: unknown;
    try {
      value = parseJsonLenient(raw);
    } catch (e) {
      const snippet = raw.length > 60 ? raw.slice(0, 57) + '...' : raw;
      this.issues.push({
        severity: 'error',
        kind: 'malformed-json',
        file,
        line,
        message: `malformed JSON (${(e as Error).message}) in \`${snippet}\`; expected one JSON object per line`,
      });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.issues.push({ severity: 'error', kind: 'not-an-object', file, line, message: `expected a JSON object, got ${kindOf(value)}` });
      return;
    }
    this.count++;
    if (this.sink !== undefined && span !== undefined) this.sink(value as Record<string, unknown>, line, span);
    else this.records.push({ line, value: value as Record<string, unknown> });
  }

  finish(crlfLine: number, bom: boolean): JsonlResult {
    const file = this.file;
    const head: ValidationIssue[] = [];
    if (bom) {
      head.push({
        severity: 'warning',
        kind: 'bom',
        file,
        line: 1,
        message: 'file starts with a UTF-8 byte-order mark; it is ignored, the file is left as it is',
      });
    }
    if (crlfLine > 0) {
      head.push({
        severity: 'warning',
        kind: 'crlf',
        file,
        line: crlfLine,
        message: 'Windows (CRLF) line endings; read as LF, the file is left as it is',
      });
    }
    const issues = [...head, ...this.issues];
    if (this.count === 0 && this.issues.every((x) => x.kind === 'blank-line')) {
      issues.push({
        severity: this.options.emptyIsError === false ? 'warning' : 'error',
        kind: 'empty-file',
        file,
        message: 'file has no records; expected one JSON object per line',
      });
    }
    return { records: this.records, issues };
  }
}

/**
 * Parses JSONL text. Blank lines are skipped with a warning; CRLF line endings are reported once as a
 * warning (the data is still read); malformed lines and lines that are not JSON objects are errors;
 * a file without records is an `empty-file` error. `NaN`/`Infinity` literals are read as numbers
 * (validators flag them per field).
 * @param file path used in issue locations.
 */
export function parseJsonl(text: string, file: string, options: JsonlOptions = {}): JsonlResult {
  const c = new JsonlCollector(file, options);
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) c.add(lines[i], i + 1);
  return c.finish(firstCrlfLine(text), false);
}

/** 1-based line number of the first line ending in `\r\n`, or 0 when there is none. */
export function firstCrlfLine(text: string): number {
  const at = text.indexOf('\r\n');
  if (at < 0) return 0;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Reads a JSONL file (plain or gzip), streaming it line by line (files larger than memory's string
 * limit work), and reports every problem as {@link parseJsonl} does, plus a BOM warning.
 * Undecodable bytes (bad gzip, invalid UTF-8) become one `invalid-encoding` error; records before
 * them are kept.
 * @throws CorebError `NOT_FOUND` / `IO` when the file cannot be read at all.
 */
export async function readJsonl(file: string, options: JsonlOptions = {}): Promise<JsonlResult> {
  const c = new JsonlCollector(file, options);
  return collect(c, file, () => forEachLine(file, (text, line) => c.add(text, line), options.signal));
}

/**
 * Runs `scan` over the lines of `file` into `c` and returns its records and issues; bytes that do
 * not decode become one `invalid-encoding` error (the records before them kept).
 */
async function collect(c: JsonlCollector, file: string, scan: () => Promise<LineScan>): Promise<JsonlResult> {
  try {
    const s = await scan();
    return c.finish(s.firstCrlfLine, s.bom);
  } catch (e) {
    if (!isCorebError(e, 'PARSE')) throw e;
    const r = c.finish(0, false);
    const issue: ValidationIssue = { severity: 'error', kind: 'invalid-encoding', file, message: e.message.replace(/^.*?: (?=not )/, '') };
    if (e.location.line !== undefined) issue.line = e.location.line;
    return { records: r.records, issues: [...r.issues.filter((i) => i.kind !== 'empty-file'), issue] };
  }
}

/**
 * Reads a plain (not gzip) JSONL file as {@link readJsonl} does, but hands each record to `onRecord`
 * with its line's byte span instead of keeping it, so a caller can keep only what it needs (a
 * corpus keeps ids and spans, and reads a text again from its span when it is asked for).
 * @returns the problems found (`records` is empty).
 * @throws as {@link readJsonl}; CorebError `USAGE` when the file is gzip.
 */
export async function readJsonlAt(
  file: string,
  onRecord: (value: Record<string, unknown>, line: number, span: LineSpan) => void,
  options: JsonlOptions = {},
): Promise<JsonlResult> {
  const c = new JsonlCollector(file, options, onRecord);
  return collect(c, file, () => forEachLineAt(file, (text, line, span) => c.add(text, line, span), options.signal));
}

/**
 * Reads a JSONL file with {@link readJsonl} for callers that cannot go on past a bad line: returns
 * the records, or throws the first error issue (malformed line, empty file, bad encoding).
 * @throws CorebError `PARSE` with the issue's file, line and field; `NOT_FOUND` / `IO` when unreadable.
 */
export async function loadJsonlRecords(file: string): Promise<JsonlRecord[]> {
  const { records, issues } = await readJsonl(file);
  const bad = issues.find((i) => i.severity === 'error');
  if (bad !== undefined) throw new CorebError('PARSE', bad.message, { file: bad.file, line: bad.line, field: bad.field });
  return records;
}

/**
 * Writes rows as JSONL (one `JSON.stringify` per line, `\n` endings), atomically (temp file +
 * rename); gzip when `file` ends in `.gz`.
 * @throws CorebError `VALIDATION` (with `file` and the 0-based `row`) when a row cannot be
 * represented (undefined, a function, a non-finite number), `IO` when the file cannot be written.
 */
export async function writeJsonl(file: string, rows: Iterable<unknown>): Promise<void> {
  const parts: string[] = [];
  let i = 0;
  for (const row of rows) {
    const line = JSON.stringify(row, (_k, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) {
        throw new CorebError('VALIDATION', `non-finite number ${v} cannot be written as JSON; replace it with null`, { file, row: i });
      }
      return typeof v === 'bigint' ? Number(v) : v;
    });
    if (line === undefined) throw new CorebError('VALIDATION', `${typeof row} cannot be written as JSON; a row is a JSON value`, { file, row: i });
    parts.push(line);
    i++;
  }
  await saveFileAtomic(file, parts.length === 0 ? '' : parts.join('\n') + '\n');
}
