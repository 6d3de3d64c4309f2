/**
 * Rendering of evaluations exactly as trec_eval 9.0.8 prints them: `%-22s\t%s\t%6.4f` lines (counts
 * with `%ld`), per-query blocks in query order, then the `all` summary; glibc's round-half-even.
 */
import type { ColumnarEvaluation } from './evaluate.js';

/**
 * Formats `x` like C `printf("%6.4f", x)` with glibc: correctly rounded, exact ties to even.
 * Exact ties at 4 decimals occur only for odd multiples of 1/32 (metrics-spec §4), where JS
 * `toFixed` would round up instead.
 */
export function formatFixed4(x: number): string {
  if (isOddThirtySecond(x)) {
    const v = Math.abs(x) * 1e4;
    let r = Math.floor(v);
    if (r % 2 !== 0) r += 1;
    const whole = Math.floor(r / 1e4);
    const s = (x < 0 ? '-' : '') + `${whole}.${String(r - whole * 1e4).padStart(4, '0')}`;
    return s.length < 6 ? s.padStart(6) : s;
  }
  if (x >= 0 && x <= 1) {
    // x * 1e4 is within half an ulp (~1e-12) of the exact product, so unless its fraction is
    // within 1e-9 of one half the nearest integer is the correctly rounded result.
    const v = x * 1e4;
    const r = Math.round(v);
    if (Math.abs(v - Math.floor(v) - 0.5) > 1e-9) return r === 10000 ? '1.0000' : '0.' + fourDigits()[r];
  }
  const s = x.toFixed(4);
  return s.length < 6 ? s.padStart(6) : s;
}

let digits: string[] | undefined;

/** "0000".."9999". */
function fourDigits(): string[] {
  if (digits === undefined) digits = Array.from({ length: 10000 }, (_, i) => String(i).padStart(4, '0'));
  return digits;
}

function line(key: string, qid: string, value: string): string {
  return `${key.length < 22 ? key.padEnd(22) : key}\t${qid}\t${value}\n`;
}

/** Options of {@link renderTrec}. */
export interface RenderTrecOptions {
  /** Print per-query lines before the summary (trec_eval `-q`). Default false. */
  perQuery?: boolean;
  /** The run tag printed for `runid` (the tag of the run's last line). Default empty. */
  runId?: string;
}

/**
 * Renders a columnar evaluation in trec_eval 9.0.8's text format, line for line: with `perQuery`,
 * each evaluated query's per-query measures in print order, then the `all` lines (runid, num_q,
 * then every requested measure). Missing queries under `complete` get no per-query lines.
 */
export function renderTrec(result: ColumnarEvaluation, options: RenderTrecOptions = {}): string {
  return renderTrecBytes(result, options).toString('utf8');
}

/**
 * {@link renderTrec} as UTF-8 bytes, written straight into one buffer (no per-line strings); what
 * the CLI writes to stdout.
 */
export function renderTrecBytes(result: ColumnarEvaluation, options: RenderTrecOptions = {}): Buffer {
  const parts = [...renderTrecChunks(result, options, Number.MAX_SAFE_INTEGER)];
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/**
 * {@link renderTrecBytes} in pieces: the per-query lines of `rowsPerChunk` queries at a time, then
 * the summary, so a caller can let the event loop turn (and signals act) between pieces of a big
 * output. Concatenated, the pieces are exactly {@link renderTrecBytes}.
 */
export function* renderTrecChunks(result: ColumnarEvaluation, options: RenderTrecOptions = {}, rowsPerChunk = 2000): Generator<Buffer> {
  const { columns, queryIds } = result;
  const width = columns.length;
  const summary: string[] = [];
  if (result.runid) summary.push(line('runid', 'all', options.runId ?? ''));
  for (let c = 0; c < width; c++) {
    const col = columns[c];
    // A text column (relstring) is printed per query only, as trec_eval does.
    if (col.text) continue;
    const v = result.aggregate[c];
    summary.push(line(col.key, 'all', col.count ? String(v) : formatFixed4(v)));
  }
  const tail = Buffer.from(summary.join(''), 'utf8');
  if (options.perQuery) {
    for (let from = 0; from < queryIds.length; from += rowsPerChunk) yield renderRows(result, from, Math.min(queryIds.length, from + rowsPerChunk));
  }
  yield tail;
}

/** The per-query lines of rows `[from, to)`. */
function renderRows(result: ColumnarEvaluation, from: number, to: number): Buffer {
  const { columns, values, queryIds } = result;
  const width = columns.length;
  const perQuery: number[] = [];
  for (let c = 0; c < width; c++) if (columns[c].perQuery) perQuery.push(c);
  const keys = perQuery.map((c) => Buffer.from(columns[c].key.length < 22 ? columns[c].key.padEnd(22) : columns[c].key, 'utf8'));
  const isCount = perQuery.map((c) => columns[c].count);
  const texts = perQuery.map((c) => result.text.get(c));
  let keyBytes = 0;
  for (const k of keys) keyBytes += k.length;
  const qids = queryIds.slice(from, to).map((q) => Buffer.from(q, 'utf8'));
  let size = 0;
  // Per line: key, tab, qid, tab, value (at most 24 bytes for a count or a %6.4f value), newline;
  // a text value (relstring) is quoted ASCII.
  for (const q of qids) size += keyBytes + perQuery.length * (q.length + 27);
  for (const t of texts) if (t !== undefined) for (let row = from; row < to; row++) size += t[row].length + 2;
  const out = Buffer.allocUnsafe(size);
  const table = fourDigitBytes();
  let pos = 0;
  for (let row = from; row < to; row++) {
    const qid = qids[row - from];
    const base = row * width;
    for (let j = 0; j < perQuery.length; j++) {
      pos += keys[j].copy(out, pos);
      out[pos++] = 9;
      pos += qid.copy(out, pos);
      out[pos++] = 9;
      const v = values[base + perQuery[j]];
      const text = texts[j];
      if (text !== undefined) {
        pos += out.write(`'${text[row]}'`, pos, 'latin1');
      } else if (isCount[j]) {
        pos += out.write(String(v), pos, 'latin1');
      } else {
        const t = v * 1e4;
        const r = Math.round(t);
        if (v >= 0 && v < 1 && r < 10000 && Math.abs(t - Math.floor(t) - 0.5) > 1e-9 && !isOddThirtySecond(v)) {
          out[pos++] = 48;
          out[pos++] = 46;
          const d = r * 4;
          out[pos++] = table[d];
          out[pos++] = table[d + 1];
          out[pos++] = table[d + 2];
          out[pos++] = table[d + 3];
        } else {
          pos += out.write(formatFixed4(v), pos, 'latin1');
        }
      }
      out[pos++] = 10;
    }
  }
  return out.subarray(0, pos);
}

/** True for odd multiples of 1/32: the values whose 4-decimal rounding is an exact tie. */
function isOddThirtySecond(x: number): boolean {
  const t = x * 32;
  return Number.isInteger(t) && t % 2 !== 0;
}

let digitBytes: Uint8Array | undefined;

/** ASCII of "0000".."9999", 4 bytes each. */
function fourDigitBytes(): Uint8Array {
  if (digitBytes === undefined) {
    digitBytes = new Uint8Array(40000);
    for (let i = 0; i < 10000; i++) {
      digitBytes[4 * i] = 48 + Math.floor(i / 1000);
      digitBytes[4 * i + 1] = 48 + (Math.floor(i / 100) % 10);
      digitBytes[4 * i + 2] = 48 + (Math.floor(i / 10) % 10);
      digitBytes[4 * i + 3] = 48 + (i % 10);
    }
  }
  return digitBytes;
}
