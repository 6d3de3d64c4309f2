/**
 * The reply contracts of `coreb build` (docs/build.md): what each stage accepts from a model and
 * how it is read. A reply that breaks its contract throws {@link ContractError}, whose message is
 * quoted back to the model on a retry.
 */
import type { ExecLanguage } from '../../core/execution.js';
import { wordCount } from '../../core/words.js';

/** A reply that does not follow its stage's contract. */
export class ContractError extends Error {
  override readonly name = 'ContractError';
}

/** Removes one surrounding ``` fence (any info string) when the whole reply is fenced. */
export function stripOneFence(text: string): string {
  const t = text.trim();
  const m = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(t);
  return m ? m[1].trim() : t;
}

/** Parses a JSON object reply: bare, in one ```json fence, or the outermost `{…}` of the text. */
export function parseJsonObject(text: string): Record<string, unknown> {
  const candidates = [stripOneFence(text)];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  if (fenced) candidates.push(fenced[1]);
  const a = text.indexOf('{');
  const b = text.lastIndexOf('}');
  if (a >= 0 && b > a) candidates.push(text.slice(a, b + 1));
  let firstError = '';
  for (const c of candidates) {
    try {
      const v = JSON.parse(c) as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
      firstError ||= 'the JSON value is not an object';
    } catch (e) {
      firstError ||= `not valid JSON (${(e as Error).message})`;
    }
  }
  throw new ContractError(`expected one JSON object (bare or in a \`\`\`json fence): ${firstError || 'no JSON found'}`);
}

/** The rewrite stage's reply. */
export interface RewriteReply {
  title: string;
  statement: string;
  starterCode: string;
  ioChanged: boolean;
}

/** Reads `{"title", "statement", "starterCode"?, "ioChanged"}`; an original without starter code keeps none. */
export function parseRewriteReply(text: string, hadStarterCode: boolean): RewriteReply {
  const o = parseJsonObject(text);
  const str = (k: string): string => {
    const v = o[k];
    if (typeof v !== 'string' || v.trim() === '') throw new ContractError(`field "${k}" must be a non-empty string`);
    return v;
  };
  if (typeof o.ioChanged !== 'boolean') throw new ContractError('field "ioChanged" must be true or false');
  let starterCode = '';
  if (hadStarterCode) {
    if (typeof o.starterCode !== 'string' || o.starterCode.trim() === '') {
      throw new ContractError('field "starterCode" must hold the rewritten starter code (the original has one)');
    }
    starterCode = o.starterCode;
  }
  return { title: str('title').trim(), statement: str('statement'), starterCode, ioChanged: o.ioChanged };
}

/** Reads `{"tests": [{"input", "output"}]}` with exactly `count` cases. */
export function parseTestsReply(text: string, count: number): Array<{ input: string; output: string }> {
  const o = parseJsonObject(text);
  if (!Array.isArray(o.tests)) throw new ContractError('field "tests" must be an array');
  if (o.tests.length !== count) throw new ContractError(`"tests" has ${o.tests.length} cases; expected exactly ${count}, in the order sent`);
  return o.tests.map((t: unknown, i) => {
    const r = t as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object' || typeof r.input !== 'string' || typeof r.output !== 'string') {
      throw new ContractError(`tests[${i}] must be {"input": string, "output": string}`);
    }
    return { input: r.input, output: r.output };
  });
}

/** The reply key of a search-query variant: `retro_any` or `retro_<language>` (the official runner's keys). */
export function searchVariantKey(language: string): string {
  return `retro_${language}`;
}

/**
 * Reads the search queries of one query type for several variants (`retro_any`, `retro_python`, …):
 * `{"queries": {"retro_any": [...], ...}}` or the bare `{"retro_any": [...], ...}`. Each entry is a
 * string or an object with a `query` string (the official runner's `{query, best_match, ...}`).
 * Every variant asked must be present as an array; an explicitly empty array is an answer (that
 * variant gets no query of this type: the official releases have variants without queries), a
 * missing variant is not. Duplicates within a variant are dropped, at most `max` kept; variants
 * not asked are ignored.
 * @returns variant key -> queries, in the order of `variants`.
 */
export function parseSearchQueriesReply(text: string, variants: readonly string[], max: number): Record<string, string[]> {
  const o = parseJsonObject(text);
  const inner = o.queries !== null && typeof o.queries === 'object' && !Array.isArray(o.queries) ? (o.queries as Record<string, unknown>) : o;
  const out: Record<string, string[]> = {};
  const missing: string[] = [];
  for (const v of variants) {
    const list = inner[v];
    if (!Array.isArray(list)) {
      missing.push(v);
      continue;
    }
    const kept: string[] = [];
    for (const [i, q] of list.entries()) {
      const raw = typeof q === 'string' ? q : q !== null && typeof q === 'object' ? (q as Record<string, unknown>).query : undefined;
      if (typeof raw !== 'string' || raw.trim() === '') throw new ContractError(`${v}[${i}] must be a non-empty string (or {"query": string})`);
      const t = raw.trim().replace(/\s+/g, ' ');
      if (!kept.includes(t)) kept.push(t);
    }
    out[v] = kept.slice(0, max);
  }
  if (missing.length > 0) {
    throw new ContractError(
      `no queries for ${missing.map((m) => `"${m}"`).join(', ')}; expected an array of strings for each of ${variants.join(', ')} ([] when none fits)`,
    );
  }
  return out;
}

/** Plain text: one fence removed, whitespace trimmed; empty is a contract error. */
export function parsePlainText(text: string): string {
  const t = stripOneFence(text).trim();
  if (t === '') throw new ContractError('the reply is empty; expected plain text');
  return t;
}

/** An abbreviation: plain text of `min`..`max` words. */
export function parseAbbreviation(text: string, min = 50, max = 150): string {
  const t = parsePlainText(text).replace(/\s+/g, ' ');
  const n = wordCount(t);
  if (n < min || n > max) throw new ContractError(`the summary has ${n} words; it must have ${min} to ${max}`);
  return t;
}

/** LLM preambles and markdown headers stripped from hard-negative texts (paper §A.2). */
const HEADER_LINE =
  /^\s*(#{1,6}\s.*|\*\*[^*\n]{0,80}\*\*:?\s*|(?:modified|new|rewritten|revised|alternative)?\s*problem(?:\s+(?:description|statement))?\s*:\s*)$/i;
const HEADER_PREFIX = /^\s*\**\s*(?:modified|new|rewritten|revised|alternative)\s+problem(?:\s+(?:description|statement))?\s*:\**\s*/i;

/** A hard-negative description: one fence removed, header lines and preambles stripped. */
export function parseNegative(text: string): string {
  const lines = parsePlainText(text).split('\n');
  while (lines.length > 0 && (lines[0].trim() === '' || HEADER_LINE.test(lines[0]))) lines.shift();
  const t = lines
    .filter((l) => !/^\s*#{1,6}\s/.test(l))
    .join('\n')
    .replace(HEADER_PREFIX, '')
    .trim();
  if (t === '') throw new ContractError('only headers, no description text');
  return t;
}

/**
 * The program of a solve reply: the body of `<code>…</code>` (a missing closing tag tolerated) or of
 * the longest fenced block, prose around it ignored; comments stripped.
 */
export function extractProgram(text: string, language: ExecLanguage): string {
  let code: string | undefined;
  const tag = /<code>\s*\n?([\s\S]*?)(?:<\/code>|$)/i.exec(text);
  if (tag && tag[1].trim() !== '') code = stripOneFence(tag[1]);
  if (code === undefined) {
    const blocks = [...text.matchAll(/```[^\n`]*\n([\s\S]*?)```/g)].map((m) => m[1]);
    if (blocks.length > 0) code = blocks.reduce((a, b) => (b.length > a.length ? b : a));
  }
  if (code === undefined || code.trim() === '') throw new ContractError('no program found; put the whole program in one fenced code block');
  const stripped = stripComments(code, language).trim();
  if (stripped === '') throw new ContractError('the code block holds only comments');
  return stripped + '\n';
}

/**
 * Removes comments (they can state the intent and leak the problem): `#` lines for Python and Ruby,
 * `//` and `/* *\/` for C++, Java and Go, Ruby `=begin`/`=end` blocks, Python docstrings that
 * stand as statements. String and character literals are respected. Lines left empty by a removed
 * comment are dropped; other lines keep their text, trailing spaces trimmed.
 */
export function stripComments(code: string, language: ExecLanguage): string {
  const hash = language === 'python' || language === 'ruby';
  let out = '';
  let i = 0;
  const n = code.length;
  const removedOn = new Set<number>();
  let line = 0;
  while (i < n) {
    const c = code[i];
    if (c === '\n') {
      line++;
      out += c;
      i++;
      continue;
    }
    if (language === 'ruby' && c === '=' && (i === 0 || code[i - 1] === '\n') && code.startsWith('=begin', i)) {
      const end = code.indexOf('\n=end', i);
      const stop = end < 0 ? n : code.indexOf('\n', end + 5) < 0 ? n : code.indexOf('\n', end + 5);
      line = keepNewlines(code.slice(i, stop), line, removedOn, (nl) => (out += nl));
      removedOn.add(line);
      i = stop;
      continue;
    }
    if (hash && c === '#') {
      if (language === 'ruby' && code[i + 1] === '{') {
        out += c;
        i++;
        continue;
      }
      while (i < n && code[i] !== '\n') i++;
      removedOn.add(line);
      continue;
    }
    if (!hash && c === '/' && code[i + 1] === '/') {
      while (i < n && code[i] !== '\n') i++;
      removedOn.add(line);
      continue;
    }
    if (!hash && c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      removedOn.add(line);
      line = keepNewlines(code.slice(i, stop), line, removedOn, (nl) => (out += nl));
      removedOn.add(line);
      i = stop;
      continue;
    }
    if (language === 'python' && (code.startsWith('"""', i) || code.startsWith("'''", i))) {
      const q = code.slice(i, i + 3);
      const end = code.indexOf(q, i + 3);
      const stop = end < 0 ? n : end + 3;
      const lineStart = out.lastIndexOf('\n') + 1;
      const before = out.slice(lineStart);
      const after = code.slice(stop, code.indexOf('\n', stop) < 0 ? n : code.indexOf('\n', stop));
      if (before.trim() === '' && after.trim() === '') {
        // A docstring (a string standing alone as a statement): dropped, `pass` keeps the block valid.
        line = keepNewlines(code.slice(i, stop), line, removedOn, (nl) => (out += nl));
        removedOn.add(line);
        out += 'pass';
        i = stop;
        continue;
      }
      out += code.slice(i, stop);
      for (const ch of code.slice(i, stop)) if (ch === '\n') line++;
      i = stop;
      continue;
    }
    const quote = c === '"' || c === "'" || (language === 'go' && c === '`');
    if (quote) {
      let j = i + 1;
      while (j < n && code[j] !== c) {
        if (code[j] === '\\' && c !== '`') j++;
        else if (code[j] === '\n' && c !== '`') break;
        j++;
      }
      const stop = Math.min(n, j + 1);
      for (const ch of code.slice(i, stop)) if (ch === '\n') line++;
      out += code.slice(i, stop);
      i = stop;
      continue;
    }
    out += c;
    i++;
  }
  const lines = out.split('\n');
  const kept: string[] = [];
  lines.forEach((l, k) => {
    const t = l.replace(/\s+$/, '');
    if (removedOn.has(k) && t.trim() === '') return;
    kept.push(t);
  });
  return dropRedundantPass(kept, language).join('\n');
}

/**
 * Keeps the line structure of a removed span: appends one newline per newline in `removed`, marks
 * every line it spans as emptied by removal, and returns the line number after it.
 */
function keepNewlines(removed: string, line: number, removedOn: Set<number>, append: (nl: string) => void): number {
  let l = line;
  for (const ch of removed) {
    if (ch !== '\n') continue;
    removedOn.add(l);
    l++;
    append('\n');
  }
  return l;
}

/** A `pass` left by a removed docstring is dropped again when the block has other statements. */
function dropRedundantPass(lines: string[], language: ExecLanguage): string[] {
  if (language !== 'python') return lines;
  const out: string[] = [];
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k];
    if (l.trim() === 'pass') {
      const indent = l.length - l.trimStart().length;
      const next = lines.slice(k + 1).find((x) => x.trim() !== '');
      if (next !== undefined && next.length - next.trimStart().length === indent) continue;
    }
    out.push(l);
  }
  return out;
}

/** A numeric token (upstream `code_utils.py`). */
const NUMBER = '[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?';
const NUMERIC_LINE = new RegExp(`^\\s*${NUMBER}(?:\\s+${NUMBER})*\\s*$`);
const KEYWORD_LINE =
  /^\s*(?:Yes|No|YES|NO|yes|no|inf|Inf|INF|nan|NaN|Infinity|-Infinity|impossible|Impossible|IMPOSSIBLE|possible|Possible|POSSIBLE|none|None|NONE|true|false|True|False|TRUE|FALSE)\s*$/;
const GRID_LINE = /^[.#*@+SGETXo ]+$/;
const JSON_NUMERIC = /^[\s\d.eE+\-[\],]*$/;

/**
 * True when a test case cannot be affected by a rewrite of the story (kept as is, never sent to a
 * model): every non-empty input line and every output line is numbers, a contest keyword
 * (Yes/No/impossible/…), a grid line, or (functional tests) a JSON value of numbers only.
 */
export function isContextIndependent(input: string, output: string): boolean {
  const ok = (line: string): boolean => {
    if (line.trim() === '') return true;
    return NUMERIC_LINE.test(line) || KEYWORD_LINE.test(line) || GRID_LINE.test(line) || JSON_NUMERIC.test(line);
  };
  return input.split('\n').every(ok) && output.split('\n').every(ok);
}
