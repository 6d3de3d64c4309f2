/**
 * TREC qrels (`qid iter docid rel`) and runs (`qid Q0 docid rank score tag`), plain or gzip: a
 * hand-written byte scanner that interns ids without building per-line strings and parses scores
 * like C `strtod`/`atof`; plus anchors TSV (`qid<TAB>anchor_docid`) and writers.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Qrels, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { isGzip, saveFileAtomic } from './text-file.js';

/**
 * Interns byte strings (ids) to dense integers in first-seen order with an open-addressing hash
 * table over the raw bytes, so only new ids are decoded to JS strings.
 */
export class IdTable {
  /** Decoded ids; index = interned id. */
  readonly strings: string[] = [];
  private slots: Int32Array = new Int32Array(1 << 12);
  private hashes: Int32Array = new Int32Array(1 << 10);
  private starts: Int32Array = new Int32Array(1 << 10);
  private pool: Uint8Array = new Uint8Array(1 << 14);
  private poolUsed = 0;
  private readonly strIndex = new Map<string, number>();

  /** Number of interned ids. */
  get size(): number {
    return this.strings.length;
  }

  /** Interns `bytes[start, end)` (UTF-8) and returns its id. */
  internBytes(bytes: Uint8Array, start: number, end: number): number {
    let h = 0x811c9dc5 | 0;
    for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    const mask = this.slots.length - 1;
    let slot = h & mask;
    const len = end - start;
    for (;;) {
      const v = this.slots[slot];
      if (v === 0) break;
      const id = v - 1;
      if (this.hashes[id] === h) {
        const s = this.starts[id];
        if (this.starts[id + 1] - s === len) {
          let same = true;
          for (let i = 0; i < len; i++) {
            if (this.pool[s + i] !== bytes[start + i]) {
              same = false;
              break;
            }
          }
          if (same) return id;
        }
      }
      slot = (slot + 1) & mask;
    }
    return this.add(bytes, start, end, h, slot);
  }

  /** Interns a JS string and returns its id. */
  intern(s: string): number {
    const known = this.strIndex.get(s);
    if (known !== undefined) return known;
    const b = Buffer.from(s, 'utf8');
    return this.internBytes(b, 0, b.length);
  }

  /** The id of `s`, or -1 when it was never interned. */
  get(s: string): number {
    return this.strIndex.get(s) ?? -1;
  }

  private add(bytes: Uint8Array, start: number, end: number, h: number, slot: number): number {
    const id = this.strings.length;
    const len = end - start;
    if (id + 2 > this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
      const starts = new Int32Array(this.starts.length * 2);
      starts.set(this.starts);
      this.starts = starts;
    }
    if (this.poolUsed + len > this.pool.length) {
      const pool = new Uint8Array(Math.max(this.pool.length * 2, this.poolUsed + len));
      pool.set(this.pool.subarray(0, this.poolUsed));
      this.pool = pool;
    }
    this.pool.set(bytes.subarray(start, end), this.poolUsed);
    this.starts[id] = this.poolUsed;
    this.poolUsed += len;
    this.starts[id + 1] = this.poolUsed;
    this.hashes[id] = h;
    this.slots[slot] = id + 1;
    const s = Buffer.from(bytes.buffer, bytes.byteOffset + start, len).toString('utf8');
    this.strings.push(s);
    this.strIndex.set(s, id);
    if ((id + 1) * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.strings.length; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

/** A parsed TREC run in CSR form (the shape `metrics` evaluates directly). */
export interface TrecRunColumns {
  /** Query ids in first-seen order. */
  queryIds: string[];
  /** Interned doc ids (the shared {@link IdTable}'s strings). */
  docIds: string[];
  /** Query q's entries are `[offsets[q], offsets[q + 1])`, in file order. */
  offsets: Int32Array;
  docs: Int32Array;
  /** Scores as C `atof` reads them (double). */
  scores: Float64Array;
  /** 1-based source line of each entry. */
  lines: Int32Array;
  /** The tag (6th column) of the last line: trec_eval's `runid`. */
  runTag: string;
}

/** Parsed TREC qrels in CSR form. */
export interface TrecQrelsColumns {
  queryIds: string[];
  docIds: string[];
  offsets: Int32Array;
  docs: Int32Array;
  /** Labels as C `atol` reads them (`2.7` -> 2); < 0 means judged-unjudged. */
  labels: Int32Array;
  lines: Int32Array;
}

/** Options of the TREC parsers. */
export interface TrecParseOptions {
  /** File name for error messages. Default `<input>`. */
  file?: string;
  /** Doc id table to intern into; pass the same one to qrels and run so ids are shared. */
  docs?: IdTable;
}

const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

const ATOF_RE =
  /^[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)/i;

/**
 * Parses the longest numeric prefix of `text` like C `atof`/`strtod`: decimal, hex floats,
 * `inf`/`infinity`, `nan`; trailing garbage ignored (`0.5abc` -> 0.5); no number -> 0.
 */
export function parseStrtod(text: string): number {
  const m = ATOF_RE.exec(text.trimStart());
  if (m === null) return 0;
  const tok = m[0];
  const neg = tok[0] === '-';
  const body = tok[0] === '-' || tok[0] === '+' ? tok.slice(1) : tok;
  const lower = body.toLowerCase();
  if (lower.startsWith('inf')) return neg ? -Infinity : Infinity;
  if (lower.startsWith('nan')) return NaN;
  if (lower.startsWith('0x')) {
    const pm = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/.exec(lower) as RegExpExecArray;
    const digits = pm[1] + pm[2];
    const exp = (pm[3] === undefined ? 0 : Number(pm[3])) - 4 * pm[2].length;
    const mant = BigInt('0x' + (digits === '' ? '0' : digits));
    const v = hexScale(mant, exp);
    return neg ? -v : v;
  }
  const v = Number(body.endsWith('.') ? body.slice(0, -1) : body);
  return neg ? -v : v;
}

function hexScale(mant: bigint, exp: number): number {
  if (mant === 0n) return 0;
  // Shift the mantissa into 53+ bits so Number() rounds once, then scale by an exact power of two.
  let m = mant;
  let e = exp;
  const bits = m.toString(2).length;
  if (bits > 64) {
    const drop = bits - 64;
    const sticky = (m & ((1n << BigInt(drop)) - 1n)) !== 0n ? 1n : 0n;
    m = (m >> BigInt(drop)) | sticky;
    e += drop;
  }
  return Number(m) * 2 ** e;
}

/**
 * Parses one score token `bytes[start, end)` exactly like strtod: Clinger's fast path when the
 * decimal has <= 15 significant digits and |exponent| <= 22, else {@link parseStrtod} on the text.
 */
function parseScore(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let neg = false;
  let c = bytes[i];
  if (c === 45 || c === 43) {
    neg = c === 45;
    i++;
  }
  let mant = 0;
  let sig = 0;
  let exp = 0;
  let digits = 0;
  for (; i < end; i++) {
    c = bytes[i] - 48;
    if (c < 0 || c > 9) break;
    digits++;
    if (sig > 0 || c !== 0) {
      mant = mant * 10 + c;
      sig++;
    }
  }
  if (i < end && bytes[i] === 46) {
    i++;
    for (; i < end; i++) {
      c = bytes[i] - 48;
      if (c < 0 || c > 9) break;
      digits++;
      if (sig > 0 || c !== 0) {
        mant = mant * 10 + c;
        sig++;
      }
      exp--;
    }
  }
  if (digits > 0 && i < end && (bytes[i] === 101 || bytes[i] === 69)) {
    let j = i + 1;
    let eneg = false;
    if (j < end && (bytes[j] === 45 || bytes[j] === 43)) {
      eneg = bytes[j] === 45;
      j++;
    }
    let e = 0;
    let ed = 0;
    for (; j < end; j++) {
      c = bytes[j] - 48;
      if (c < 0 || c > 9) break;
      if (e < 100000) e = e * 10 + c;
      ed++;
    }
    if (ed > 0) {
      exp += eneg ? -e : e;
      i = j;
    }
  }
  if (i === end && digits > 0 && sig <= 15) {
    let v: number;
    if (mant === 0) v = 0;
    else if (exp === 0) v = mant;
    else if (exp > 0 && exp <= 22) v = mant * POW10[exp];
    else if (exp < 0 && exp >= -22) v = mant / POW10[-exp];
    else return parseStrtod(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1'));
    return neg ? -v : v;
  }
  return parseStrtod(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8'));
}

/** C `atol` of a token: optional sign and leading digits; anything else stops (`2.7` -> 2, `x` -> 0). */
function parseAtol(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let neg = false;
  if (bytes[i] === 45 || bytes[i] === 43) {
    neg = bytes[i] === 45;
    i++;
  }
  let v = 0;
  for (; i < end; i++) {
    const c = bytes[i] - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
  }
  return neg ? -v : v;
}

function toBuffer(input: Uint8Array | string, file: string): Uint8Array {
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  if (!isGzip(input)) return input;
  try {
    return gunzipSync(input);
  } catch (e) {
    throw new CorebError('PARSE', `not a valid gzip stream (${(e as Error).message}); re-compress it or give the plain file`, {
      file,
      cause: e,
    });
  }
}

function grow<T extends Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

interface RawColumns {
  queryIds: string[];
  qOf: Int32Array;
  docs: Int32Array;
  nums: Float64Array;
  lines: Int32Array;
  count: number;
  lastTag: string;
}

/**
 * Scans lines of whitespace-separated fields. `minFields` fields are required; field 0 is the
 * query id, field `docField` the doc id, field `numField` the number (score or label); extra fields
 * are ignored. Blank lines are skipped; a leading UTF-8 BOM and `\r` are whitespace.
 */
function scan(
  bytes: Uint8Array,
  file: string,
  docTable: IdTable,
  minFields: number,
  docField: number,
  numField: number,
  isRun: boolean,
): RawColumns {
  const queries = new IdTable();
  let cap = Math.max(16, (bytes.length / 24) | 0);
  let qOf = new Int32Array(cap);
  let docs = new Int32Array(cap);
  let nums = new Float64Array(cap);
  let lines = new Int32Array(cap);
  let count = 0;
  let tagStart = 0;
  let tagEnd = 0;
  const len = bytes.length;
  let pos = len >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let line = 0;
  let prevQ = -1;
  let prevQs = 0;
  let prevQe = 0;
  const fs = new Int32Array(8);
  const fe = new Int32Array(8);
  while (pos < len) {
    line++;
    let nf = 0;
    // Tokenise one line into at most 7 fields (tokens beyond the 6th are ignored).
    for (;;) {
      while (pos < len && bytes[pos] !== 10 && bytes[pos] <= 32) pos++;
      if (pos >= len || bytes[pos] === 10) break;
      const s = pos;
      while (pos < len && bytes[pos] > 32) pos++;
      if (nf < 7) {
        fs[nf] = s;
        fe[nf] = pos;
      }
      nf++;
    }
    pos++;
    if (nf === 0) continue;
    if (nf < minFields) {
      throw new CorebError(
        'PARSE',
        isRun
          ? `expected 6 fields \`qid Q0 docid rank score tag\`, got ${nf}`
          : `expected 4 fields \`qid iter docid rel\`, got ${nf}`,
        { file, line },
      );
    }
    if (count === cap) {
      cap *= 2;
      qOf = grow(qOf, cap);
      docs = grow(docs, cap);
      nums = grow(nums, cap);
      lines = grow(lines, cap);
    }
    const qs = fs[0];
    const qe = fe[0];
    let q = -1;
    if (prevQ >= 0 && qe - qs === prevQe - prevQs) {
      let same = true;
      for (let i = 0; i < qe - qs; i++) {
        if (bytes[qs + i] !== bytes[prevQs + i]) {
          same = false;
          break;
        }
      }
      if (same) q = prevQ;
    }
    if (q < 0) {
      q = queries.internBytes(bytes, qs, qe);
      prevQ = q;
      prevQs = qs;
      prevQe = qe;
    }
    qOf[count] = q;
    docs[count] = docTable.internBytes(bytes, fs[docField], fe[docField]);
    if (isRun) {
      const v = parseScore(bytes, fs[numField], fe[numField]);
      if (Number.isNaN(v)) {
        throw new CorebError('VALIDATION', `score is NaN; trec_eval's ordering is undefined for NaN, give a number`, {
          file,
          line,
          field: 'score',
        });
      }
      nums[count] = v;
      tagStart = fs[5];
      tagEnd = fe[5];
    } else {
      nums[count] = parseAtol(bytes, fs[numField], fe[numField]);
    }
    lines[count] = line;
    count++;
  }
  const lastTag = isRun && count > 0 ? Buffer.from(bytes.buffer, bytes.byteOffset + tagStart, tagEnd - tagStart).toString('utf8') : '';
  return { queryIds: queries.strings, qOf, docs, nums, lines, count, lastTag };
}

/** Groups scanned entries by query (stable, first-seen query order) and rejects duplicate (qid, docid). */
function group(
  raw: RawColumns,
  docTable: IdTable,
  file: string,
  what: string,
): { offsets: Int32Array; docs: Int32Array; nums: Float64Array; lines: Int32Array } {
  const nq = raw.queryIds.length;
  const n = raw.count;
  const offsets = new Int32Array(nq + 1);
  for (let i = 0; i < n; i++) offsets[raw.qOf[i] + 1]++;
  for (let q = 0; q < nq; q++) offsets[q + 1] += offsets[q];
  let contiguous = true;
  for (let i = 1; i < n && contiguous; i++) if (raw.qOf[i] < raw.qOf[i - 1]) contiguous = false;
  let docs = raw.docs.subarray(0, n);
  let nums = raw.nums.subarray(0, n);
  let lines = raw.lines.subarray(0, n);
  if (!contiguous) {
    const fill = offsets.slice(0, nq);
    const d2 = new Int32Array(n);
    const n2 = new Float64Array(n);
    const l2 = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const p = fill[raw.qOf[i]]++;
      d2[p] = raw.docs[i];
      n2[p] = raw.nums[i];
      l2[p] = raw.lines[i];
    }
    docs = d2;
    nums = n2;
    lines = l2;
  }
  const seen = new Int32Array(docTable.size);
  const firstLine = new Int32Array(docTable.size);
  for (let q = 0; q < nq; q++) {
    for (let p = offsets[q]; p < offsets[q + 1]; p++) {
      const d = docs[p];
      if (seen[d] === q + 1) {
        throw new CorebError(
          'VALIDATION',
          `duplicate ${what} for query \`${raw.queryIds[q]}\` and document \`${docTable.strings[d]}\` (first on line ${firstLine[d]}); each (qid, docid) may appear once`,
          { file, line: lines[p] },
        );
      }
      seen[d] = q + 1;
      firstLine[d] = lines[p];
    }
  }
  return { offsets, docs, nums, lines };
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
  const raw = scan(toBuffer(input, file), file, docTable, 6, 2, 4, true);
  const g = group(raw, docTable, file, 'run line');
  return {
    queryIds: raw.queryIds,
    docIds: docTable.strings,
    offsets: g.offsets,
    docs: g.docs,
    scores: g.nums,
    lines: g.lines,
    runTag: raw.lastTag,
  };
}

/**
 * Parses TREC qrels (`qid iter docid rel`), plain or gzip bytes or text. `iter` is ignored; the label
 * is read like C `atol` (`2.7` -> 2, `x` -> 0); a label < 0 means "in the pool, unjudged".
 * @throws CorebError `PARSE` for a line with fewer than 4 fields, `VALIDATION` for a duplicate
 * (qid, docid), with file and line.
 */
export function parseTrecQrels(input: Uint8Array | string, options: TrecParseOptions = {}): TrecQrelsColumns {
  const file = options.file ?? '<input>';
  const docTable = options.docs ?? new IdTable();
  const raw = scan(toBuffer(input, file), file, docTable, 4, 2, 3, false);
  const g = group(raw, docTable, file, 'qrels line');
  return {
    queryIds: raw.queryIds,
    docIds: docTable.strings,
    offsets: g.offsets,
    docs: g.docs,
    labels: Int32Array.from(g.nums),
    lines: g.lines,
  };
}

async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorebError(code === 'ENOENT' ? 'NOT_FOUND' : 'IO', `cannot read ${path}: ${(e as Error).message}`, {
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
    for (let p = run.offsets[q]; p < run.offsets[q + 1]; p++) m.set(run.docIds[run.docs[p]], run.scores[p]);
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

/**
 * Renders a run as TREC text: per query, docs by descending score with 1-based ranks
 * (`qid Q0 docid rank score tag`). Scores are written with full precision (shortest round-trip).
 * @param tag - run tag, default `coreb`.
 */
export function renderTrecRun(run: Run, tag = 'coreb'): string {
  const parts: string[] = [];
  for (const [qid, m] of run) {
    const entries = [...m].sort((a, b) => b[1] - a[1]);
    let rank = 1;
    for (const [doc, score] of entries) parts.push(`${qid} Q0 ${doc} ${rank++} ${score} ${tag}\n`);
  }
  return parts.join('');
}

/** Renders qrels as TREC text (`qid 0 docid rel`). */
export function renderTrecQrels(qrels: Qrels): string {
  const parts: string[] = [];
  for (const [qid, m] of qrels) for (const [doc, rel] of m) parts.push(`${qid} 0 ${doc} ${rel}\n`);
  return parts.join('');
}

/** Writes a run atomically as TREC text (gzip when `path` ends in `.gz`). */
export async function saveTrecRun(path: string, run: Run, tag = 'coreb'): Promise<void> {
  await saveFileAtomic(path, renderTrecRun(run, tag));
}

/** Writes qrels atomically as TREC text; gzip when `path` ends in `.gz`. */
export async function saveTrecQrels(path: string, qrels: Qrels): Promise<void> {
  await saveFileAtomic(path, renderTrecQrels(qrels));
}

/**
 * Parses an anchors TSV: one `qid<TAB>anchor_docid` per line (blank lines and a `qid`/`query_id`
 * header skipped; `\r` tolerated).
 * @throws CorebError `PARSE` for a line without two fields, `VALIDATION` for a repeated qid.
 */
export function parseAnchorsTsv(text: string, file = '<input>'): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '');
    if (l.trim() === '') continue;
    const f = l.split('\t');
    if (f.length < 2 || f[0] === '' || f[1] === '') {
      throw new CorebError('PARSE', 'expected `qid<TAB>anchor_docid`', { file, line: i + 1 });
    }
    if (i === 0 && /^(qid|query_id|query-id)$/i.test(f[0])) continue;
    if (out.has(f[0])) {
      throw new CorebError('VALIDATION', `query \`${f[0]}\` has a second anchor; give one anchor per query`, { file, line: i + 1 });
    }
    out.set(f[0], f[1]);
  }
  return out;
}

/** Reads an anchors TSV file (plain or `.gz`). See {@link parseAnchorsTsv}. */
export async function loadAnchorsTsv(path: string): Promise<Map<string, string>> {
  const raw = await readBytes(path);
  return parseAnchorsTsv(Buffer.from(toBuffer(raw, path)).toString('utf8'), path);
}
