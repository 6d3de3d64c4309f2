/**
 * The worked examples a problem statement carries, read from its text: AtCoder / LiveCodeBench
 * "Sample Input N … Sample Output N" blocks (stdin programs) and LeetCode "Example N: Input: a = 1,
 * b = [2] Output: 3" blocks (a method called with named arguments). The execution-aware reranker runs
 * candidate programs on them; nothing here reads labels or metadata. Pure; no I/O.
 */
import { splitTopLevel } from '../core/split-top-level.js';

/** An AtCoder-style sample: the program reads `input` on stdin and should print `output`. */
export interface StdinSample {
  kind: 'stdin';
  /** stdin text, ending in a newline. */
  input: string;
  /** Expected stdout (compared token by token by the judge). */
  output: string;
}

/** A LeetCode-style example: a method called with named arguments, returning `output`. */
export interface CallSample {
  kind: 'call';
  /** Arguments in statement order: the name the statement gives and the value as JSON text. */
  args: Array<{ name: string; json: string }>;
  /** Expected return value as JSON text. */
  output: string;
}

/** One worked example of a statement. */
export type StatementSample = StdinSample | CallSample;

/** What a line is, once its markdown (`#`, `**`, `__`, backticks, a trailing colon) is taken off. */
type LineKind =
  | { kind: 'sample-input' }
  | { kind: 'sample-output'; rest: string }
  | { kind: 'example' }
  | { kind: 'input'; rest: string }
  | { kind: 'output'; rest: string }
  | { kind: 'explanation' }
  | { kind: 'heading' }
  | { kind: 'fence' }
  | { kind: 'blank' }
  | { kind: 'text' };

/** Markdown emphasis and heading marks around a line. */
function unmark(line: string): string {
  return line
    .trim()
    .replace(/^#{1,6}\s*/, '')
    .replace(/^>\s*/, '')
    .replace(/^[-*]\s+(?=\*\*|__|[A-Z])/, '')
    .replace(/\*\*|__/g, '')
    .trim();
}

const SAMPLE_INPUT = /^(?:sample|example)\s+input\s*#?\s*(\d+)?\s*:?$/i;
const SAMPLE_OUTPUT = /^(?:sample|example)\s+output\s*#?\s*(\d+)?\s*:?\s*(.*)$/i;
const EXAMPLE = /^(?:example|examples)\s*#?\s*(\d+)?\s*:?$/i;
const INPUT = /^input\s*:\s*(.*)$/i;
const OUTPUT = /^output\s*:\s*(.*)$/i;
const EXPLANATION = /^(?:explanation|note)\b/i;

function classify(line: string): LineKind {
  const raw = line.trim();
  if (raw === '') return { kind: 'blank' };
  if (/^(```|~~~)/.test(raw)) return { kind: 'fence' };
  const t = unmark(raw);
  if (SAMPLE_INPUT.test(t)) return { kind: 'sample-input' };
  const so = SAMPLE_OUTPUT.exec(t);
  if (so !== null) return { kind: 'sample-output', rest: so[2] ?? '' };
  if (EXAMPLE.test(t)) return { kind: 'example' };
  const i = INPUT.exec(t);
  if (i !== null) return { kind: 'input', rest: i[1] };
  const o = OUTPUT.exec(t);
  if (o !== null) return { kind: 'output', rest: o[1] };
  if (EXPLANATION.test(t)) return { kind: 'explanation' };
  if (/^#{1,6}\s/.test(raw) || /^(\*\*|__)[^*_]+(\*\*|__):?$/.test(raw)) return { kind: 'heading' };
  return { kind: 'text' };
}

/** Removes wrapping backticks (`` `3` `` -> `3`). */
function unquote(s: string): string {
  const t = s.trim();
  const m = /^`+([\s\S]*?)`+$/.exec(t);
  return (m === null ? t : m[1]).trim();
}

/**
 * The worked examples of `text`, in order. AtCoder samples are taken when the text has "Sample
 * Input" headings; otherwise LeetCode examples whose input is a list of `name = value` assignments
 * (or one bare value) and whose values and output are JSON (Python's `True`/`False`/`None` and
 * single-quoted strings are read too). A block that does not parse is left out, never guessed.
 * @example
 * ```ts
 * parseStatementSamples('Sample Input 1\n3\n\nSample Output 1\n6\n');
 * // [{ kind: 'stdin', input: '3\n', output: '6' }]
 * ```
 */
export function parseStatementSamples(text: string): StatementSample[] {
  const lines = text.split(/\r?\n/);
  const kinds = lines.map(classify);
  const stdin = parseStdinSamples(lines, kinds);
  if (stdin.length > 0 || kinds.some((k) => k.kind === 'sample-input')) return stdin;
  return parseCallSamples(lines, kinds);
}

/** "Sample Input N" … "Sample Output N" pairs, in order. */
function parseStdinSamples(lines: readonly string[], kinds: readonly LineKind[]): StdinSample[] {
  const out: StdinSample[] = [];
  let i = 0;
  while (i < lines.length) {
    if (kinds[i].kind !== 'sample-input') {
      i++;
      continue;
    }
    // The input: every line up to the Sample Output heading (fences dropped, blank edges trimmed).
    const input: string[] = [];
    let j = i + 1;
    while (j < lines.length && kinds[j].kind !== 'sample-output' && kinds[j].kind !== 'sample-input' && kinds[j].kind !== 'example') {
      if (kinds[j].kind !== 'fence') input.push(lines[j].replace(/\s+$/, ''));
      j++;
    }
    const head = kinds[j];
    if (j >= lines.length || head.kind !== 'sample-output') {
      i = j;
      continue;
    }
    // The output: the heading's own rest, else the first block of lines after it, up to a blank
    // line (outside a fence), a heading or an explanation.
    const output: string[] = [];
    const rest = unquote(head.rest);
    let k = j + 1;
    if (rest !== '') output.push(rest);
    else {
      let fenced = false;
      while (k < lines.length) {
        const kk = kinds[k].kind;
        if (kk === 'fence') {
          if (fenced) {
            k++;
            break;
          }
          fenced = output.length === 0;
          if (!fenced && output.length > 0) break;
          k++;
          continue;
        }
        if (kk === 'blank') {
          if (output.length === 0 || fenced) {
            if (fenced) output.push('');
            k++;
            continue;
          }
          break;
        }
        if (!fenced && kk !== 'text' && kk !== 'input' && kk !== 'output') break;
        output.push(lines[k].replace(/\s+$/, ''));
        k++;
      }
    }
    const inText = trimBlankEdges(input);
    const outText = trimBlankEdges(output);
    if (inText.length > 0 && outText.length > 0) {
      out.push({ kind: 'stdin', input: `${inText.join('\n')}\n`, output: outText.map(unquote).join('\n') });
    }
    i = k;
  }
  return out;
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim() === '') a++;
  while (b > a && lines[b - 1].trim() === '') b--;
  return lines.slice(a, b);
}

/** LeetCode "Input: …" / "Output: …" pairs whose values parse, in order. */
function parseCallSamples(lines: readonly string[], kinds: readonly LineKind[]): CallSample[] {
  const out: CallSample[] = [];
  let i = 0;
  // The value of a marker: its rest on the line, else the lines after it up to a blank line or marker.
  const valueAt = (at: number, rest: string): { text: string; next: number } => {
    const parts: string[] = [];
    if (unquote(rest) !== '') parts.push(unquote(rest));
    let j = at + 1;
    if (parts.length === 0) {
      while (j < lines.length && (kinds[j].kind === 'blank' || kinds[j].kind === 'fence')) j++;
      while (j < lines.length && kinds[j].kind === 'text') {
        parts.push(unquote(lines[j]));
        j++;
        if (j < lines.length && kinds[j].kind === 'fence') j++;
      }
    }
    return { text: parts.join('\n').trim(), next: j };
  };
  while (i < lines.length) {
    const k = kinds[i];
    if (k.kind !== 'input') {
      i++;
      continue;
    }
    const input = valueAt(i, k.rest);
    let j = input.next;
    while (j < lines.length && (kinds[j].kind === 'blank' || kinds[j].kind === 'fence')) j++;
    const o = kinds[j];
    if (j >= lines.length || o.kind !== 'output') {
      i = Math.max(j, i + 1);
      continue;
    }
    const output = valueAt(j, o.rest);
    const args = parseArguments(input.text);
    const result = toJsonText(output.text);
    if (args !== undefined && result !== undefined) out.push({ kind: 'call', args, output: result });
    i = Math.max(output.next, j + 1);
  }
  return out;
}

/**
 * `nums = [1,2], k = 3` -> [{name: 'nums', json: '[1,2]'}, {name: 'k', json: '3'}]; a bare value is
 * one argument named `arg0`. Undefined when a value is not JSON (or a Python literal).
 */
export function parseArguments(text: string): Array<{ name: string; json: string }> | undefined {
  const t = text.replace(/`/g, '').trim().replace(/[.;]$/, '');
  if (t === '') return undefined;
  const parts = splitTopLevel(t, { separators: ',\n', open: '[{(', close: ']})', quotes: `"'` }).filter((p) => p.trim() !== '');
  const named = parts.map((p) => /^\s*([A-Za-z_]\w*)\s*=(?!=)\s*([\s\S]*)$/.exec(p));
  if (named.every((m) => m !== null)) {
    const args: Array<{ name: string; json: string }> = [];
    for (const m of named) {
      const json = toJsonText((m as RegExpExecArray)[2]);
      if (json === undefined) return undefined;
      args.push({ name: (m as RegExpExecArray)[1], json });
    }
    return args;
  }
  if (named.some((m) => m !== null)) return undefined;
  const json = toJsonText(t);
  return json === undefined ? undefined : [{ name: 'arg0', json }];
}

/**
 * A value as JSON text: valid JSON is kept as written (so integers past 2^53 keep every digit);
 * Python literals (`True`, `False`, `None`, single-quoted strings) are converted. Undefined otherwise.
 */
export function toJsonText(value: string): string | undefined {
  const t = unquote(value).replace(/[.;]$/, '').trim();
  if (t === '') return undefined;
  if (isJson(t)) return t;
  const py = pythonToJson(t);
  return py !== undefined && isJson(py) ? py : undefined;
}

function isJson(t: string): boolean {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** Python literal syntax to JSON: quotes, True/False/None; undefined on an unterminated string. */
function pythonToJson(t: string): string | undefined {
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      let body = '';
      while (j < t.length && t[j] !== c) {
        if (t[j] === '\\' && j + 1 < t.length) {
          body += t[j] + t[j + 1];
          j += 2;
          continue;
        }
        body += t[j] === '"' ? '\\"' : t[j];
        j++;
      }
      if (j >= t.length) return undefined;
      out += `"${body.replace(/\\'/g, "'")}"`;
      i = j;
      continue;
    }
    const word = /^[A-Za-z_]\w*/.exec(t.slice(i));
    if (word !== null) {
      const w = word[0];
      out += w === 'True' ? 'true' : w === 'False' ? 'false' : w === 'None' ? 'null' : w;
      i += w.length - 1;
      continue;
    }
    out += c === '(' ? '[' : c === ')' ? ']' : c;
  }
  return out;
}
