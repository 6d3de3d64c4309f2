/**
 * JSON Lines (plain or `.gz`): one JSON object per line. Parsing collects every problem with its
 * file and line instead of stopping at the first; writing is atomic. Input files are never modified.
 */
import { CorebError, isCorebError } from '../core/errors.js';
import type { ValidationIssue } from '../core/issues.js';
import { loadTextFile, saveFileAtomic, splitLines, type TextFile } from './text-file.js';

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

/**
 * Parses JSONL text. Blank lines are skipped with a warning; a BOM or CRLF line endings are
 * reported as warnings (the data is still read); malformed lines and lines that are not JSON objects
 * are errors. `NaN`/`Infinity` literals are read as numbers (validators flag them per field).
 * @param file path used in issue locations.
 */
export function parseJsonl(text: string, file: string, options: JsonlOptions = {}): JsonlResult {
  const records: JsonlRecord[] = [];
  const issues: ValidationIssue[] = [];
  const lines = splitLines(text);
  const crlfLine = firstCrlfLine(text);
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i];
    if (raw.trim() === '') {
      issues.push({ severity: 'warning', kind: 'blank-line', file, line, message: 'blank line skipped; JSONL has one JSON object per line' });
      continue;
    }
    let value: unknown;
    try {
      value = parseJsonLenient(raw);
    } catch (e) {
      const snippet = raw.length > 60 ? raw.slice(0, 57) + '...' : raw;
      issues.push({
        severity: 'error',
        kind: 'malformed-json',
        file,
        line,
        message: `malformed JSON (${(e as Error).message}) in \`${snippet}\`; expected one JSON object per line`,
      });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      issues.push({
        severity: 'error',
        kind: 'not-an-object',
        file,
        line,
        message: `expected a JSON object, got ${kindOf(value)}`,
      });
      continue;
    }
    records.push({ line, value: value as Record<string, unknown> });
  }
  if (crlfLine > 0) {
    issues.unshift({
      severity: 'warning',
      kind: 'crlf',
      file,
      line: crlfLine,
      message: 'Windows (CRLF) line endings; read as LF, the file is left as it is',
    });
  }
  if (records.length === 0 && issues.every((x) => x.kind === 'blank-line' || x.kind === 'crlf')) {
    issues.push({
      severity: options.emptyIsError === false ? 'warning' : 'error',
      kind: 'empty-file',
      file,
      message: 'file has no records; expected one JSON object per line',
    });
  }
  return { records, issues };
}

/** 1-based line number of the first line ending in `\r\n`, or 0 when there is none. */
export function firstCrlfLine(text: string): number {
  const at = text.indexOf('\r\n');
  if (at < 0) return 0;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Adds file-level encoding issues (BOM) in front of `issues`. */
function encodingIssues(tf: TextFile): ValidationIssue[] {
  return tf.bom
    ? [
        {
          severity: 'warning',
          kind: 'bom',
          file: tf.path,
          line: 1,
          message: 'file starts with a UTF-8 byte-order mark; it is ignored, the file is left as it is',
        },
      ]
    : [];
}

/**
 * Reads a JSONL file (plain or gzip) and reports every problem; see {@link parseJsonl}.
 * Undecodable bytes (bad gzip, invalid UTF-8) become one `invalid-encoding` error.
 * @throws CorebError `NOT_FOUND` / `IO` when the file cannot be read at all.
 */
export async function readJsonl(file: string, options: JsonlOptions = {}): Promise<JsonlResult> {
  let tf: TextFile;
  try {
    tf = await loadTextFile(file);
  } catch (e) {
    if (isCorebError(e, 'PARSE')) {
      return {
        records: [],
        issues: [{ severity: 'error', kind: 'invalid-encoding', file, message: e.message.replace(`${file}: `, '') }],
      };
    }
    throw e;
  }
  const r = parseJsonl(tf.text, file, options);
  return { records: r.records, issues: [...encodingIssues(tf), ...r.issues] };
}

/**
 * Writes rows as JSONL (one `JSON.stringify` per line, `\n` endings), atomically (temp file +
 * rename); gzip when `file` ends in `.gz`.
 * @throws CorebError `VALIDATION` when a row cannot be represented (undefined, a function, a
 * non-finite number), `IO` when the file cannot be written.
 */
export async function writeJsonl(file: string, rows: Iterable<unknown>): Promise<void> {
  const parts: string[] = [];
  let i = 0;
  for (const row of rows) {
    const line = JSON.stringify(row, (_k, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) {
        throw new CorebError('VALIDATION', `row ${i}: non-finite number ${v} cannot be written as JSON; replace it with null`);
      }
      return typeof v === 'bigint' ? Number(v) : v;
    });
    if (line === undefined) throw new CorebError('VALIDATION', `row ${i}: ${typeof row} cannot be written as JSON`);
    parts.push(line);
    i++;
  }
  await saveFileAtomic(file, parts.length === 0 ? '' : parts.join('\n') + '\n');
}
