/**
 * TREC qrels (`qid iter docid rel`) and runs (`qid Q0 docid rank score tag`), plain or gzip: a
 * hand-written byte scanner that interns ids without building per-line strings and parses scores
 * like C `strtod`/`atof`; plus anchors TSV (`qid<TAB>anchor_docid`) and writers.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { QrelsColumns, RunColumns } from '../core/columns.js';
import type { Qrels, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { saveFileAtomic } from './atomic-write.js';
import { isGzip, loadTextFile, splitLines } from './text-file.js';

/**
 * murmur3's 32-bit finaliser. FNV-1a's multiply only carries low bits upward, so ids that differ in
 * a few digits collide in the low bits the table indexes by; mixing spreads them.
 */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Interns byte strings (ids) to dense integers in first-seen order with an open-addressing hash
 * table over the raw bytes, so only new ids are decoded to JS strings.
 */
export class IdTable {
  /** Decoded ids; index = interned id. */
  readonly strings: string[] = [];
  /**
   * Open-addressing table, 4 ints per slot: [hash, id + 1, pool start, byte length], so a lookup
   * touches one cache line of the table plus the id's bytes.
   */
  private slots: Int32Array = new Int32Array(4 << 12);
  /** One-hash Bloom filter over the ids (8+ bits per id) so most absent lookups skip the table. */
  private filter: Int32Array = new Int32Array(0);
  private filterShift = 32;
  private filterFor = -1;
  private pool: Uint8Array = new Uint8Array(1 << 14);
  private poolUsed = 0;
  /** Per id: FNV-1a hash and pool start (idStart[id + 1] is its end). */
  private idHash: Int32Array = new Int32Array(1024);
  private idStart: Int32Array = new Int32Array(1024);
  /** String -> id, filled lazily by {@link get} / {@link intern}. */
  private readonly strIndex = new Map<string, number>();
  private indexed = 0;

  /** Number of interned ids. */
  get size(): number {
    return this.strings.length;
  }

  /** Interns `bytes[start, end)` (UTF-8) and returns its id. */
  internBytes(bytes: Buffer, start: number, end: number): number {
    let h = 0x811c9dc5 | 0;
    for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    return this.internHashed(bytes, start, end, h);
  }

  /**
   * Interns `bytes[start, end)` whose 32-bit FNV-1a hash (offset 0x811c9dc5, prime 0x01000193)
   * the caller already computed while scanning.
   */
  internHashed(bytes: Buffer, start: number, end: number, h: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = mix(h) & mask;
    const len = end - start;
    for (;;) {
      const at = slot << 2;
      const v = slots[at + 1];
      if (v === 0) break;
      if (slots[at] === h && slots[at + 3] === len) {
        const pool = this.pool;
        const s = slots[at + 2];
        let i = 0;
        while (i < len && pool[s + i] === bytes[start + i]) i++;
        if (i === len) return v - 1;
      }
      slot = (slot + 1) & mask;
    }
    return this.add(bytes, start, end, h, slot);
  }

  /**
   * The id of `bytes[start, end)` (FNV-1a hash `h`, see {@link internHashed}), or -1 when it was
   * never interned. Never adds an id.
   */
  lookupHashed(bytes: Buffer, start: number, end: number, h: number): number {
    if (this.filterFor !== this.strings.length) this.buildFilter();
    const m = mix(h);
    const bit = m >>> this.filterShift;
    if ((this.filter[bit >>> 5] & (1 << (bit & 31))) === 0) return -1;
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = m & mask;
    const len = end - start;
    for (;;) {
      const at = slot << 2;
      const v = slots[at + 1];
      if (v === 0) return -1;
      if (slots[at] === h && slots[at + 3] === len) {
        const pool = this.pool;
        const s = slots[at + 2];
        let i = 0;
        while (i < len && pool[s + i] === bytes[start + i]) i++;
        if (i === len) return v - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  private buildFilter(): void {
    let bits = 64;
    let log = 6;
    while (bits < this.strings.length * 8) {
      bits *= 2;
      log++;
    }
    this.filter = new Int32Array(bits >>> 5);
    this.filterShift = 32 - log;
    const slots = this.slots;
    for (let at = 0; at < slots.length; at += 4) {
      if (slots[at + 1] === 0) continue;
      const bit = mix(slots[at]) >>> this.filterShift;
      this.filter[bit >>> 5] |= 1 << (bit & 31);
    }
    this.filterFor = this.strings.length;
  }

  /** The FNV-1a hash of id `id`'s bytes (see {@link internHashed}). */
  hashOf(id: number): number {
    return this.idHash[id];
  }

  /** True when id `id` has exactly the bytes `bytes[start, end)`. */
  equalsBytes(id: number, bytes: Buffer, start: number, end: number): boolean {
    const s = this.idStart[id];
    const len = end - start;
    if (this.idStart[id + 1] - s !== len) return false;
    const pool = this.pool;
    for (let i = 0; i < len; i++) if (pool[s + i] !== bytes[start + i]) return false;
    return true;
  }

  /** Interns a JS string and returns its id. */
  intern(s: string): number {
    const known = this.get(s);
    if (known >= 0) return known;
    const b = Buffer.from(s, 'utf8');
    return this.internBytes(b, 0, b.length);
  }

  /** The id of `s`, or -1 when it was never interned. */
  get(s: string): number {
    for (; this.indexed < this.strings.length; this.indexed++) this.strIndex.set(this.strings[this.indexed], this.indexed);
    return this.strIndex.get(s) ?? -1;
  }

  private add(bytes: Buffer, start: number, end: number, h: number, slot: number): number {
    const id = this.strings.length;
    const len = end - start;
    if (this.poolUsed + len > this.pool.length) {
      const pool = new Uint8Array(Math.max(this.pool.length * 2, this.poolUsed + len));
      pool.set(this.pool.subarray(0, this.poolUsed));
      this.pool = pool;
    }
    let ascii = true;
    const base = this.poolUsed;
    for (let i = start; i < end; i++) {
      const c = bytes[i];
      this.pool[base + i - start] = c;
      if (c >= 0x80) ascii = false;
    }
    this.poolUsed += len;
    if (id + 2 > this.idStart.length) {
      const size = this.idStart.length * 2;
      const hs = new Int32Array(size);
      hs.set(this.idHash);
      this.idHash = hs;
      const st = new Int32Array(size);
      st.set(this.idStart);
      this.idStart = st;
    }
    this.idHash[id] = h;
    this.idStart[id] = base;
    this.idStart[id + 1] = this.poolUsed;
    const at = slot << 2;
    this.slots[at] = h;
    this.slots[at + 1] = id + 1;
    this.slots[at + 2] = base;
    this.slots[at + 3] = len;
    this.strings.push(bytes.toString(ascii ? 'latin1' : 'utf8', start, end));
    if ((id + 1) * 2 > this.slots.length >> 2) this.rehash();
    return id;
  }

  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 2) - 1;
    for (let at = 0; at < old.length; at += 4) {
      if (old[at + 1] === 0) continue;
      let slot = mix(old[at]) & mask;
      while (slots[(slot << 2) + 1] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(at, at + 4), slot << 2);
    }
    this.slots = slots;
  }
}

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
  judged?: { readonly queryIds: readonly string[]; readonly offsets: Int32Array; readonly docs: Int32Array };
  /** With `judged`: query id -> anchor docid (interned into `docs` beforehand) also given ids. */
  anchors?: ReadonlyMap<string, string>;
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
function parseScore(bytes: Buffer, start: number, end: number): number {
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
    else return parseStrtod(bytes.toString('latin1', start, end));
    return neg ? -v : v;
  }
  return parseStrtod(bytes.toString('utf8', start, end));
}

/** C `atol` of a token: optional sign and leading digits; anything else stops (`2.7` -> 2, `x` -> 0). */
function parseAtol(bytes: Buffer, start: number, end: number): number {
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

function toBuffer(input: Uint8Array | string, file: string): Buffer {
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  if (!isGzip(input)) return Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
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
  /** Runs of consecutive lines with one qid: pairs (first entry, query index), `blockCount` of them. */
  blocks: Int32Array;
  blockCount: number;
  docs: Int32Array;
  nums: Float64Array;
  count: number;
  lastTag: string;
  /** knownDocsOnly: byte offset of each entry's docid (it ends at the next whitespace byte). */
  dStart?: Int32Array;
}

/** Appends the block (entry, q) to `raw`-style block storage, growing it; returns the array. */
function pushBlock(blocks: Int32Array, blockCount: number, entry: number, q: number): Int32Array {
  let b = blocks;
  if (2 * blockCount + 2 > b.length) {
    b = new Int32Array(b.length * 2);
    b.set(blocks);
  }
  b[2 * blockCount] = entry;
  b[2 * blockCount + 1] = q;
  return b;
}

/**
 * Query slices of the grouped entries: `offsets` per query and, when a query's lines are not
 * contiguous in the file, `perm` (grouped position -> file entry index; stable within a query).
 */
function planGroups(raw: RawColumns): { offsets: Int32Array; perm?: Int32Array } {
  const nq = raw.queryIds.length;
  const offsets = new Int32Array(nq + 1);
  const { blocks, blockCount, count } = raw;
  for (let b = 0; b < blockCount; b++) {
    const end = b + 1 < blockCount ? blocks[2 * b + 2] : count;
    offsets[blocks[2 * b + 1] + 1] += end - blocks[2 * b];
  }
  for (let q = 0; q < nq; q++) offsets[q + 1] += offsets[q];
  if (blockCount === nq) return { offsets };
  const fill = offsets.slice(0, nq);
  const perm = new Int32Array(count);
  for (let b = 0; b < blockCount; b++) {
    const end = b + 1 < blockCount ? blocks[2 * b + 2] : count;
    const q = blocks[2 * b + 1];
    for (let i = blocks[2 * b]; i < end; i++) perm[fill[q]++] = i;
  }
  return { offsets, perm };
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

function tooFewFields(file: string, line: number, nf: number, isRun: boolean): CorebError {
  return new CorebError(
    'PARSE',
    isRun ? `expected 6 fields \`qid Q0 docid rank score tag\`, got ${nf}` : `expected 4 fields \`qid iter docid rel\`, got ${nf}`,
    { file, line },
  );
}

/**
 * The 1-based line of the `entry`-th non-blank line (0-based), found by rescanning; used only to
 * report an error, so the hot scanner does not store a line number per entry.
 */
function lineOfEntry(bytes: Buffer, entry: number): number {
  let line = 0;
  let seen = -1;
  let pos = 0;
  while (pos < bytes.length) {
    line++;
    let blank = true;
    while (pos < bytes.length && bytes[pos] !== 10) {
      if (bytes[pos] > 32 && !(line === 1 && pos < 3 && bytes[pos] >= 0xbb && bytes[0] === 0xef)) blank = false;
      pos++;
    }
    pos++;
    if (!blank && ++seen === entry) return line;
  }
  return line;
}

/**
 * Scans a run: per line `qid Q0 docid rank score tag [ignored...]`. One pass over the bytes; the
 * docid is hashed while it is tokenised, the qid is compared with the previous line's first.
 * Blank lines are skipped; a leading UTF-8 BOM and `\r` count as whitespace.
 */
/** `buf`, or a copy with a final newline appended when it lacks one (the run scanner relies on it). */
function withFinalNewline(buf: Buffer): Buffer {
  if (buf.length > 0 && buf[buf.length - 1] === 10) return buf;
  const out = Buffer.allocUnsafe(buf.length + 1);
  buf.copy(out, 0);
  out[buf.length] = 10;
  return out;
}

/** Estimates the line count from the first MB (5% head room) so column arrays rarely regrow. */
function estimateLines(buf: Buffer): number {
  const sample = Math.min(buf.length, 1 << 20);
  let lines = 0;
  for (let i = 0; i < sample; i++) if (buf[i] === 10) lines++;
  if (sample === buf.length) return lines + 1;
  return Math.ceil((Math.max(lines, 1) * (buf.length / sample)) * 1.05) + 16;
}

/** Per-query lookup of judged (and anchor) docs for {@link scanRun}: a tiny cache-resident table. */
class JudgedLookup {
  private readonly index = new Map<string, number>();
  private keys = new Int32Array(64);
  private hashes = new Int32Array(64);
  private stamps = new Int32Array(64);
  private gen = 0;
  private forQuery = -1;

  constructor(
    private readonly docTable: IdTable,
    private readonly judged: NonNullable<TrecParseOptions['judged']>,
    private readonly anchors: ReadonlyMap<string, string> | undefined,
  ) {
    for (let i = 0; i < judged.queryIds.length; i++) this.index.set(judged.queryIds[i], i);
  }

  /** Makes run query `q` (id `qid`) current; rebuilds the table when it changed. */
  select(q: number, qid: string): void {
    if (q === this.forQuery) return;
    this.forQuery = q;
    this.gen++;
    const qq = this.index.get(qid);
    const lo = qq === undefined ? 0 : this.judged.offsets[qq];
    const hi = qq === undefined ? 0 : this.judged.offsets[qq + 1];
    const need = 4 * (hi - lo + 1);
    if (this.keys.length < need) {
      let size = this.keys.length;
      while (size < need) size *= 2;
      this.keys = new Int32Array(size);
      this.hashes = new Int32Array(size);
      this.stamps = new Int32Array(size);
      this.gen = 1;
    }
    for (let p = lo; p < hi; p++) this.add(this.judged.docs[p]);
    const anchor = this.anchors?.get(qid);
    if (anchor !== undefined) {
      const a = this.docTable.get(anchor);
      if (a >= 0) this.add(a);
    }
  }

  private add(id: number): void {
    const h = this.docTable.hashOf(id);
    const mask = this.keys.length - 1;
    let slot = mix(h) & mask;
    while (this.stamps[slot] === this.gen) {
      if (this.keys[slot] === id) return;
      slot = (slot + 1) & mask;
    }
    this.stamps[slot] = this.gen;
    this.keys[slot] = id;
    this.hashes[slot] = h;
  }

  /** The id of `bytes[start, end)` (hash `h`) when judged for the current query, else -1. */
  find(bytes: Buffer, start: number, end: number, h: number): number {
    const mask = this.keys.length - 1;
    let slot = mix(h) & mask;
    while (this.stamps[slot] === this.gen) {
      if (this.hashes[slot] === h && this.docTable.equalsBytes(this.keys[slot], bytes, start, end)) return this.keys[slot];
      slot = (slot + 1) & mask;
    }
    return -1;
  }
}

function scanRun(buf: Buffer, file: string, docTable: IdTable, knownOnly: boolean, judged?: JudgedLookup): RawColumns {
  const queries = new IdTable();
  let cap = estimateLines(buf);
  let blocks: Int32Array = new Int32Array(1024);
  let blockCount = 0;
  let docs = new Int32Array(cap);
  let nums = new Float64Array(cap);
  let dStart = new Int32Array(knownOnly ? cap : 0);
  let count = 0;
  let tagStart = 0;
  let tagEnd = 0;
  const len = buf.length;
  let pos = len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let line = 0;
  let prevQ = -1;
  let prevQs = 0;
  let prevQe = 0;
  // The buffer ends with a newline (see withFinalNewline), so every loop below stops at a newline
  // byte and needs no bounds check.
  while (pos < len) {
    line++;
    let c = buf[pos];
    while (c !== 10 && c <= 32) c = buf[++pos];
    if (c === 10) {
      pos++;
      continue;
    }
    // qid
    const qs = pos;
    while (c > 32) c = buf[++pos];
    const qe = pos;
    // Q0
    while (c !== 10 && c <= 32) c = buf[++pos];
    if (c === 10) throw tooFewFields(file, line, 1, true);
    while (c > 32) c = buf[++pos];
    // docid, hashed while scanned
    while (c !== 10 && c <= 32) c = buf[++pos];
    if (c === 10) throw tooFewFields(file, line, 2, true);
    const ds = pos;
    let h = FNV_OFFSET;
    while (c > 32) {
      h = Math.imul(h ^ c, FNV_PRIME);
      c = buf[++pos];
    }
    const de = pos;
    // rank (ignored)
    while (c !== 10 && c <= 32) c = buf[++pos];
    if (c === 10) throw tooFewFields(file, line, 3, true);
    while (c > 32) c = buf[++pos];
    // score
    while (c !== 10 && c <= 32) c = buf[++pos];
    if (c === 10) throw tooFewFields(file, line, 4, true);
    // Plain decimals (sign, digits, point, <= 15 significant digits) are converted while scanned
    // (Clinger's fast path: one correctly rounded division); anything else goes to parseScore.
    const ss = pos;
    let neg = false;
    if (c === 45 || c === 43) {
      neg = c === 45;
      c = buf[++pos];
    }
    let mant = 0;
    let sig = 0;
    let frac = 0;
    let digits = 0;
    while (c >= 48 && c <= 57) {
      digits++;
      if (sig > 0 || c !== 48) {
        mant = mant * 10 + (c - 48);
        sig++;
      }
      c = buf[++pos];
    }
    if (c === 46) {
      c = buf[++pos];
      while (c >= 48 && c <= 57) {
        digits++;
        frac++;
        if (sig > 0 || c !== 48) {
          mant = mant * 10 + (c - 48);
          sig++;
        }
        c = buf[++pos];
      }
    }
    const plain = digits > 0 && sig <= 15 && frac <= 22 && c <= 32;
    while (c > 32) c = buf[++pos];
    const se = pos;
    let score: number;
    if (plain) {
      score = frac === 0 ? mant : mant / POW10[frac];
      if (neg) score = -score;
    } else {
      score = parseScore(buf, ss, se);
    }
    // tag
    while (c !== 10 && c <= 32) c = buf[++pos];
    if (c === 10) throw tooFewFields(file, line, 5, true);
    const ts = pos;
    while (c > 32) c = buf[++pos];
    const te = pos;
    // rest of the line (extra fields are ignored)
    while (c !== 10) c = buf[++pos];
    pos++;

    if (count === cap) {
      cap *= 2;
      docs = grow(docs, cap);
      nums = grow(nums, cap);
      if (knownOnly) dStart = grow(dStart, cap);
    }
    let q = -1;
    if (prevQ >= 0 && qe - qs === prevQe - prevQs) {
      let i = 0;
      const n = qe - qs;
      while (i < n && buf[qs + i] === buf[prevQs + i]) i++;
      if (i === n) q = prevQ;
    }
    if (q < 0) {
      q = queries.internBytes(buf, qs, qe);
      prevQ = q;
      prevQs = qs;
      prevQe = qe;
      if (judged !== undefined) judged.select(q, queries.strings[q]);
      blocks = pushBlock(blocks, blockCount++, count, q);
    }
    if (knownOnly) {
      docs[count] = judged !== undefined ? judged.find(buf, ds, de, h) : docTable.lookupHashed(buf, ds, de, h);
      dStart[count] = ds;
    } else {
      docs[count] = docTable.internHashed(buf, ds, de, h);
    }
    const v = score;
    if (v !== v) {
      throw new CorebError('VALIDATION', `score is NaN; trec_eval's ordering is undefined for NaN, give a number`, {
        file,
        line,
        field: 'score',
      });
    }
    nums[count] = v;
    tagStart = ts;
    tagEnd = te;
    count++;
  }
  const lastTag = count > 0 ? buf.toString('utf8', tagStart, tagEnd) : '';
  return knownOnly
    ? { queryIds: queries.strings, blocks, blockCount, docs, nums, count, lastTag, dStart }
    : { queryIds: queries.strings, blocks, blockCount, docs, nums, count, lastTag };
}

/** Scans qrels: per line `qid iter docid rel [ignored...]`; labels read like C `atol`. */
function scanQrels(buf: Buffer, file: string, docTable: IdTable): RawColumns {
  const queries = new IdTable();
  let cap = estimateLines(buf);
  let blocks: Int32Array = new Int32Array(1024);
  let blockCount = 0;
  let prevQ = -1;
  let docs = new Int32Array(cap);
  let nums = new Float64Array(cap);
  let count = 0;
  const len = buf.length;
  let pos = len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let line = 0;
  const fs = new Int32Array(4);
  const fe = new Int32Array(4);
  while (pos < len) {
    line++;
    let nf = 0;
    for (;;) {
      while (pos < len && buf[pos] !== 10 && buf[pos] <= 32) pos++;
      if (pos >= len || buf[pos] === 10) break;
      const s0 = pos;
      while (pos < len && buf[pos] > 32) pos++;
      if (nf < 4) {
        fs[nf] = s0;
        fe[nf] = pos;
      }
      nf++;
    }
    pos++;
    if (nf === 0) continue;
    if (nf < 4) throw tooFewFields(file, line, nf, false);
    if (count === cap) {
      cap *= 2;
      docs = grow(docs, cap);
      nums = grow(nums, cap);
    }
    const q = queries.internBytes(buf, fs[0], fe[0]);
    if (q !== prevQ) {
      blocks = pushBlock(blocks, blockCount++, count, q);
      prevQ = q;
    }
    docs[count] = docTable.internBytes(buf, fs[2], fe[2]);
    nums[count] = parseAtol(buf, fs[3], fe[3]);
    count++;
  }
  return { queryIds: queries.strings, blocks, blockCount, docs, nums, count, lastTag: '' };
}

/** Groups scanned entries by query (stable, first-seen query order) and rejects duplicate (qid, docid). */
function group(
  raw: RawColumns,
  docTable: IdTable,
  file: string,
  what: string,
  bytes: Buffer,
): { offsets: Int32Array; docs: Int32Array; nums: Float64Array } {
  const nq = raw.queryIds.length;
  const n = raw.count;
  const { offsets, perm } = planGroups(raw);
  let docs = raw.docs.subarray(0, n);
  let nums = raw.nums.subarray(0, n);
  const origin = perm;
  if (perm !== undefined) {
    const d2 = new Int32Array(n);
    const n2 = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      d2[p] = raw.docs[perm[p]];
      n2[p] = raw.nums[perm[p]];
    }
    docs = d2;
    nums = n2;
  }
  const seen = new Int32Array(docTable.size);
  const firstAt = new Int32Array(docTable.size);
  for (let q = 0; q < nq; q++) {
    for (let p = offsets[q]; p < offsets[q + 1]; p++) {
      const d = docs[p];
      if (seen[d] === q + 1) {
        const here = origin === undefined ? p : origin[p];
        const before = origin === undefined ? firstAt[d] : origin[firstAt[d]];
        throw new CorebError(
          'VALIDATION',
          `duplicate ${what} for query \`${raw.queryIds[q]}\` and document \`${docTable.strings[d]}\` (first on line ${lineOfEntry(bytes, before)}); each (qid, docid) may appear once`,
          { file, line: lineOfEntry(bytes, here) },
        );
      }
      seen[d] = q + 1;
      firstAt[d] = p;
    }
  }
  return { offsets, docs, nums };
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
    const g = group(raw, docTable, file, 'run line', bytes);
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
 * strcmp of the docids starting at byte offsets `a` and `b` of a run buffer (each ends at the
 * next whitespace byte, which a valid run line always has after its docid).
 */
function compareDocAt(buf: Buffer, a: number, b: number): number {
  for (let i = 0; ; i++) {
    const x = buf[a + i];
    const y = buf[b + i];
    const xe = x <= 32;
    const ye = y <= 32;
    if (xe || ye) return xe ? (ye ? 0 : -1) : 1;
    if (x !== y) return x - y;
  }
}

/** The docid starting at byte offset `start` of a run buffer. */
function docAt(buf: Buffer, start: number): string {
  let end = start;
  while (buf[end] > 32) end++;
  return buf.toString('utf8', start, end);
}

/**
 * {@link group} for knownDocsOnly runs: groups entries by query (stable) and detects duplicate
 * docids within a query with a small per-query hash set over the docid bytes (cache-resident).
 */
function groupByBytes(
  raw: RawColumns,
  file: string,
  bytes: Buffer,
): { offsets: Int32Array; docs: Int32Array; nums: Float64Array; starts: Int32Array } {
  const nq = raw.queryIds.length;
  const n = raw.count;
  const dStart = raw.dStart as Int32Array;
  const { offsets, perm } = planGroups(raw);
  let docs = raw.docs.subarray(0, n);
  let nums = raw.nums.subarray(0, n);
  let starts = dStart.subarray(0, n);
  const origin = perm;
  if (perm !== undefined) {
    const d2 = new Int32Array(n);
    const n2 = new Float64Array(n);
    const s2 = new Int32Array(n);
    for (let p = 0; p < n; p++) {
      const i = perm[p];
      d2[p] = raw.docs[i];
      n2[p] = raw.nums[i];
      s2[p] = dStart[i];
    }
    docs = d2;
    nums = n2;
    starts = s2;
  }
  let table = new Int32Array(1024);
  let stamp = new Int32Array(1024);
  let hashes = new Int32Array(1024);
  for (let q = 0; q < nq; q++) {
    const lo = offsets[q];
    const hi = offsets[q + 1];
    if (table.length < 2 * (hi - lo)) {
      let size = table.length;
      while (size < 2 * (hi - lo)) size *= 2;
      table = new Int32Array(size);
      stamp = new Int32Array(size);
      hashes = new Int32Array(size);
    }
    const mask = table.length - 1;
    const mark = q + 1;
    for (let p = lo; p < hi; p++) {
      let h = FNV_OFFSET;
      for (let i = starts[p]; bytes[i] > 32; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
      let slot = mix(h) & mask;
      while (stamp[slot] === mark) {
        const o = table[slot];
        if (hashes[slot] === h && compareDocAt(bytes, starts[o], starts[p]) === 0) {
          const here = origin === undefined ? p : origin[p];
          const before = origin === undefined ? o : origin[o];
          throw new CorebError(
            'VALIDATION',
            `duplicate run line for query \`${raw.queryIds[q]}\` and document \`${docAt(bytes, starts[p])}\` (first on line ${lineOfEntry(bytes, before)}); each (qid, docid) may appear once`,
            { file, line: lineOfEntry(bytes, here) },
          );
        }
        slot = (slot + 1) & mask;
      }
      stamp[slot] = mark;
      table[slot] = p;
      hashes[slot] = h;
    }
  }
  return { offsets, docs, nums, starts };
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
  const bytes = toBuffer(input, file);
  const raw = scanQrels(bytes, file, docTable);
  const g = group(raw, docTable, file, 'qrels line', bytes);
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
  const lines = splitLines(text.replace(/^\uFEFF/, ''));
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
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
  return parseAnchorsTsv((await loadTextFile(path)).text, path);
}
