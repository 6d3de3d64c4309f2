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
  const t = x * 32;
  if (Number.isInteger(t) && t % 2 !== 0) {
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
  const { columns, values, queryIds } = result;
  const width = columns.length;
  const parts: string[] = [];
  if (options.perQuery) {
    const keys = columns.map((c) => (c.key.length < 22 ? c.key.padEnd(22) : c.key));
    for (let row = 0; row < queryIds.length; row++) {
      const qid = '\t' + queryIds[row] + '\t';
      let chunk = '';
      for (let c = 0; c < width; c++) {
        const col = columns[c];
        if (!col.perQuery) continue;
        const v = values[row * width + c];
        chunk += keys[c] + qid + (col.count ? String(v) : formatFixed4(v)) + '\n';
      }
      parts.push(chunk);
    }
  }
  if (result.runid) parts.push(line('runid', 'all', options.runId ?? ''));
  for (let c = 0; c < width; c++) {
    const col = columns[c];
    const v = result.aggregate[c];
    parts.push(line(col.key, 'all', col.count ? String(v) : formatFixed4(v)));
  }
  return parts.join('');
}
