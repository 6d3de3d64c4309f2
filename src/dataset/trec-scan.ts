/**
 * The byte scanners of TREC runs and qrels: one pass over a file's bytes that tokenises each line,
 * hashes and interns ids on the fly and converts scores and labels like C, leaving entries in file
 * order for grouping (trec-group.ts).
 */
import { gunzipSync } from 'node:zlib';
import { CorebError } from '../core/errors.js';
import { FNV_OFFSET, FNV_PRIME, IdTable, mixHash } from './id-table.js';
import { parseAtolBytes, parseStrtodBytes, POW10 } from './strtod.js';
import { isGzip } from './text-file.js';

/** Judged docs per query (qrels in CSR form, ids of the same {@link IdTable}). */
export interface JudgedDocs {
  readonly queryIds: readonly string[];
  readonly offsets: Int32Array;
  readonly docs: Int32Array;
}

/** The bytes of `input` (UTF-8 of a string; gunzipped when gzip magic bytes start it). */
export function toBuffer(input: Uint8Array | string, file: string): Buffer {
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

/** `a`, or a copy at least `need` long (doubling). */
function grow<T extends Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(need);
  b.set(a);
  return b;
}

/**
 * The docid bytes of run entries (knownDocsOnly), copied out of the input so nothing points into a
 * file-sized buffer: segments of up to 16 MiB, each id followed by a 0 byte. A position is
 * `segment * 2^24 + offset` (exact in a double, so the total may pass 2^31 and 2^32 bytes).
 */
export class DocBytes {
  private static readonly SEG = 1 << 24;
  private readonly segs: Uint8Array[] = [];
  private cur: Uint8Array = new Uint8Array(0);
  private used = 0;

  /** Copies `buf[start, end)` and returns its position. */
  add(buf: Uint8Array, start: number, end: number): number {
    const len = end - start;
    if (this.used + len + 1 > this.cur.length) {
      this.cur = new Uint8Array(Math.max(DocBytes.SEG, len + 1));
      this.segs.push(this.cur);
      this.used = 0;
    }
    const at = (this.segs.length - 1) * DocBytes.SEG + this.used;
    const cur = this.cur;
    let u = this.used;
    for (let i = start; i < end; i++) cur[u++] = buf[i];
    cur[u++] = 0;
    this.used = u;
    return at;
  }

  /** Forgets every id (positions given before are invalid), keeping the first segment for reuse. */
  reset(): void {
    if (this.segs.length > 1) this.segs.length = 1;
    this.cur = this.segs[0] ?? new Uint8Array(0);
    this.used = 0;
  }

  /** Copies the id at position `a` of `from` into this pool and returns its new position. */
  copyFrom(from: DocBytes, a: number): number {
    const s = from.segs[Math.floor(a / DocBytes.SEG)];
    const start = a % DocBytes.SEG;
    let end = start;
    while (s[end] !== 0) end++;
    return this.add(s, start, end);
  }

  /** strcmp of the ids at positions `a` and `b` (UTF-8 bytes). */
  compare(a: number, b: number): number {
    const sa = this.segs[Math.floor(a / DocBytes.SEG)];
    const sb = this.segs[Math.floor(b / DocBytes.SEG)];
    let i = a % DocBytes.SEG;
    let j = b % DocBytes.SEG;
    for (;;) {
      const x = sa[i++];
      const y = sb[j++];
      if (x === 0 || y === 0) return x === 0 ? (y === 0 ? 0 : -1) : 1;
      if (x !== y) return x - y;
    }
  }

  /** FNV-1a hash of the id at `a`. */
  hash(a: number): number {
    const s = this.segs[Math.floor(a / DocBytes.SEG)];
    let h = FNV_OFFSET;
    for (let i = a % DocBytes.SEG; s[i] !== 0; i++) h = Math.imul(h ^ s[i], FNV_PRIME);
    return h;
  }

  /** The id at position `a`. */
  toString(a: number): string {
    const s = this.segs[Math.floor(a / DocBytes.SEG)];
    const from = a % DocBytes.SEG;
    let end = from;
    while (s[end] !== 0) end++;
    return Buffer.from(s.buffer, s.byteOffset + from, end - from).toString('utf8');
  }
}

/** One query's entries handed out by {@link RunScanner.takeGroups}: `[start, end)` of the arrays. */
export interface ScannedGroup {
  qid: string;
  /** Doc index per entry (-1 for docs not judged for the query). */
  docs: Int32Array;
  /** Score per entry (C `atof`). */
  nums: Float64Array;
  start: number;
  end: number;
  /** File-wide index of entry `start` (0-based non-blank line), for error messages. */
  firstEntry: number;
  /** Docid position of each entry in `pool`. */
  starts: Float64Array;
  pool: DocBytes;
}

/** Scanned entries in file order, before grouping by query. */
export interface RawColumns {
  queryIds: string[];
  /** Runs of consecutive lines with one qid: pairs (first entry, query index), `blockCount` of them. */
  blocks: Int32Array;
  blockCount: number;
  docs: Int32Array;
  nums: Float64Array;
  count: number;
  lastTag: string;
  /** knownDocsOnly: position of each entry's docid in `docBytes`. */
  dStart?: Float64Array;
  docBytes?: DocBytes;
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

/** Most entries (lines) one file may hold: entry indices are Int32. */
export const MAX_ENTRIES = 0x7fffffff - 16;

/** The `PARSE` error of a line with too few fields. */
function tooFewFields(file: string, line: number, nf: number, isRun: boolean): CorebError {
  return new CorebError(
    'PARSE',
    isRun ? `expected 6 fields \`qid Q0 docid rank score tag\`, got ${nf}` : `expected 4 fields \`qid iter docid rel\`, got ${nf}`,
    { file, line },
  );
}

/** The capacity after `cap` when it is full, or a clear error past {@link MAX_ENTRIES}. */
function nextCap(cap: number, file: string, line: number): number {
  if (cap >= MAX_ENTRIES) {
    throw new CorebError('VALIDATION', `more than ${MAX_ENTRIES} entries in one file; split the run by query`, { file, line });
  }
  return Math.min(cap * 2, MAX_ENTRIES);
}

/** `buf`, or a copy with a final newline appended when it lacks one (the run scanner relies on it). */
export function withFinalNewline(buf: Buffer): Buffer {
  if (buf.length > 0 && buf[buf.length - 1] === 10) return buf;
  const out = Buffer.allocUnsafe(buf.length + 1);
  buf.copy(out, 0);
  out[buf.length] = 10;
  return out;
}

/** Estimates the line count of `total` bytes from the first MB of `buf` (5% head room). */
export function estimateLines(buf: Uint8Array, total: number = buf.length): number {
  const sample = Math.min(buf.length, 1 << 20);
  let lines = 0;
  for (let i = 0; i < sample; i++) if (buf[i] === 10) lines++;
  if (sample === total) return lines + 1;
  return Math.min(MAX_ENTRIES, Math.ceil(Math.max(lines, 1) * (total / Math.max(sample, 1)) * 1.05) + 16);
}

/** Per-query lookup of judged (and anchor) docs for {@link scanRun}: a tiny cache-resident table. */
export class JudgedLookup {
  private readonly index = new Map<string, number>();
  private keys = new Int32Array(64);
  private hashes = new Int32Array(64);
  private stamps = new Int32Array(64);
  private gen = 0;
  private forQuery = -1;

  constructor(
    private readonly docTable: IdTable,
    private readonly judged: JudgedDocs,
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
    let slot = mixHash(h) & mask;
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
    let slot = mixHash(h) & mask;
    while (this.stamps[slot] === this.gen) {
      if (this.hashes[slot] === h && this.docTable.equalsBytes(this.keys[slot], bytes, start, end)) return this.keys[slot];
      slot = (slot + 1) & mask;
    }
    return -1;
  }
}

/**
 * Scans a run chunk by chunk: per line `qid Q0 docid rank score tag [ignored...]`. Each chunk is
 * whole lines (it ends with a newline) and nothing points into it after {@link RunScanner.scan}
 * returns, so a file of any size streams through with memory for its entries only. The docid is
 * hashed while it is tokenised, the qid compared with the previous line's first. Blank lines are
 * skipped; a leading UTF-8 BOM and `\r` count as whitespace.
 */
export class RunScanner {
  private readonly queries = new IdTable();
  private blocks: Int32Array = new Int32Array(1024);
  private blockCount = 0;
  private cap: number;
  private docs: Int32Array;
  private nums: Float64Array;
  private dStart: Float64Array;
  private docBytes: DocBytes | undefined;
  private count = 0;
  private lastTag = '';
  private line = 0;
  private blockQ = -1;
  private first = true;
  /** Entries and blocks dropped by {@link RunScanner.takeGroups} (global entry = dropped + local). */
  private dropped = 0;
  private blocksDropped = 0;
  private spare: DocBytes | undefined;

  /** `capacity`: expected entry count (arrays grow by doubling past it). */
  constructor(
    private readonly file: string,
    private readonly docTable: IdTable,
    private readonly knownOnly: boolean,
    private readonly judged: JudgedLookup | undefined,
    capacity: number,
  ) {
    this.cap = Math.max(16, Math.min(capacity, MAX_ENTRIES));
    this.docs = new Int32Array(this.cap);
    this.nums = new Float64Array(this.cap);
    this.dStart = new Float64Array(knownOnly ? this.cap : 0);
    this.docBytes = knownOnly ? new DocBytes() : undefined;
  }

  /** Scans `buf`, whole lines ending with a newline byte (10) as its last byte. */
  scan(buf: Buffer): void {
    const { file, docTable, knownOnly, judged } = this;
    const len = buf.length;
    if (len === 0) return;
    let pos = 0;
    if (this.first) {
      this.first = false;
      if (len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    }
    let { docs, nums, dStart, count, cap, line, blocks, blockCount } = this;
    let tagStart = -1;
    let tagEnd = -1;
    let prevQ = -1;
    let prevQs = 0;
    let prevQe = 0;
    // The chunk ends with a newline, so every loop below stops at a newline byte and needs no
    // bounds check.
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
      // (Clinger's fast path: one correctly rounded division); anything else goes to parseStrtodBytes.
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
        score = parseStrtodBytes(buf, ss, se);
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
        cap = nextCap(cap, file, line);
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
        q = this.queries.internBytes(buf, qs, qe);
        prevQ = q;
        prevQs = qs;
        prevQe = qe;
        if (q !== this.blockQ) {
          this.blockQ = q;
          if (judged !== undefined) judged.select(q, this.queries.strings[q]);
          blocks = pushBlock(blocks, blockCount++, count, q);
        }
      }
      if (Number.isNaN(score)) {
        throw new CorebError('VALIDATION', `score is NaN; trec_eval's ordering is undefined for NaN, give a number`, {
          file,
          line,
          field: 'score',
        });
      }
      if (knownOnly) {
        docs[count] = judged !== undefined ? judged.find(buf, ds, de, h) : docTable.lookupHashed(buf, ds, de, h);
        dStart[count] = (this.docBytes as DocBytes).add(buf, ds, de);
      } else {
        docs[count] = docTable.internHashed(buf, ds, de, h);
      }
      nums[count] = score;
      tagStart = ts;
      tagEnd = te;
      count++;
    }
    if (tagStart >= 0) this.lastTag = buf.toString('utf8', tagStart, tagEnd);
    Object.assign(this, { docs, nums, dStart, count, cap, line, blocks, blockCount });
  }

  /**
   * True while every query's lines seen so far are contiguous (the file is grouped by query, as
   * trec_eval's own output and most runs are); false once a query's lines resume after another's.
   */
  get grouped(): boolean {
    return this.blocksDropped + this.blockCount === this.queries.size;
  }

  /** Run query ids in first-seen order. */
  get queryIds(): readonly string[] {
    return this.queries.strings;
  }

  /** The tag (6th column) of the last line scanned. */
  get runTag(): string {
    return this.lastTag;
  }

  /**
   * knownDocsOnly, grouped files: hands each complete query group scanned so far to `onGroup` (all
   * but the last, still open group; all of them with `final`) and then drops those entries, so the
   * scanner holds one chunk plus the open query, whatever the file size. `group` is reused between
   * calls and valid only during its call.
   */
  takeGroups(final: boolean, onGroup: (group: ScannedGroup) => void): void {
    const { blocks, count } = this;
    const done = final ? this.blockCount : this.blockCount - 1;
    const pool = this.docBytes as DocBytes;
    const dStart = this.dStart;
    const group: ScannedGroup = {
      qid: '',
      docs: this.docs,
      nums: this.nums,
      start: 0,
      end: 0,
      firstEntry: 0,
      starts: dStart,
      pool,
    };
    for (let b = 0; b < done; b++) {
      group.qid = this.queries.strings[blocks[2 * b + 1]];
      group.start = blocks[2 * b];
      group.end = b + 1 < this.blockCount ? blocks[2 * b + 2] : count;
      group.firstEntry = this.dropped + group.start;
      onGroup(group);
    }
    if (done <= 0) return;
    const keep = final ? count : blocks[2 * done];
    const tail = count - keep;
    this.docs.copyWithin(0, keep, count);
    this.nums.copyWithin(0, keep, count);
    const fresh = this.spare ?? new DocBytes();
    fresh.reset();
    for (let i = 0; i < tail; i++) dStart[i] = fresh.copyFrom(pool, dStart[keep + i]);
    this.spare = pool;
    this.docBytes = fresh;
    this.dropped += keep;
    this.count = tail;
    this.blocksDropped += done;
    if (final) this.blockCount = 0;
    else {
      blocks[0] = 0;
      blocks[1] = blocks[2 * done + 1];
      this.blockCount = 1;
    }
  }

  /** The entries scanned so far. */
  result(): RawColumns {
    const { blocks, blockCount, docs, nums, count, lastTag } = this;
    const queryIds = this.queries.strings;
    return this.knownOnly
      ? { queryIds, blocks, blockCount, docs, nums, count, lastTag, dStart: this.dStart, docBytes: this.docBytes }
      : { queryIds, blocks, blockCount, docs, nums, count, lastTag };
  }
}

/** Scans a whole run held in memory (see {@link RunScanner}). */
export function scanRun(buf: Buffer, file: string, docTable: IdTable, knownOnly: boolean, judged?: JudgedLookup): RawColumns {
  const scanner = new RunScanner(file, docTable, knownOnly, judged, estimateLines(buf));
  scanner.scan(withFinalNewline(buf));
  return scanner.result();
}

/** Scans qrels chunk by chunk (whole lines each): per line `qid iter docid rel [ignored...]`; labels read like C `atol`. */
export class QrelsScanner {
  private readonly queries = new IdTable();
  private blocks: Int32Array = new Int32Array(1024);
  private blockCount = 0;
  private prevQ = -1;
  private cap: number;
  private docs: Int32Array;
  private nums: Float64Array;
  private count = 0;
  private line = 0;
  private first = true;
  private readonly fs = new Int32Array(4);
  private readonly fe = new Int32Array(4);

  constructor(
    private readonly file: string,
    private readonly docTable: IdTable,
    capacity: number,
  ) {
    this.cap = Math.max(16, Math.min(capacity, MAX_ENTRIES));
    this.docs = new Int32Array(this.cap);
    this.nums = new Float64Array(this.cap);
  }

  /** Scans `buf` (whole lines; a last line without a newline is accepted). */
  scan(buf: Buffer): void {
    const len = buf.length;
    let pos = 0;
    if (this.first && len > 0) {
      this.first = false;
      if (len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    }
    const { fs, fe, file, docTable } = this;
    while (pos < len) {
      const line = ++this.line;
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
      if (nf > 4) {
        // trec_eval rejects these too: a 5th column is usually a run line or a score given as qrels.
        throw new CorebError('PARSE', `qrels line has ${nf} fields; expected 4 (qid iter docid rel), as trec_eval does`, { file, line });
      }
      if (this.count === this.cap) {
        this.cap = nextCap(this.cap, file, line);
        this.docs = grow(this.docs, this.cap);
        this.nums = grow(this.nums, this.cap);
      }
      const q = this.queries.internBytes(buf, fs[0], fe[0]);
      if (q !== this.prevQ) {
        this.blocks = pushBlock(this.blocks, this.blockCount++, this.count, q);
        this.prevQ = q;
      }
      this.docs[this.count] = docTable.internBytes(buf, fs[2], fe[2]);
      this.nums[this.count] = parseAtolBytes(buf, fs[3], fe[3]);
      this.count++;
    }
  }

  /** The entries scanned so far. */
  result(): RawColumns {
    const { blocks, blockCount, docs, nums, count } = this;
    return { queryIds: this.queries.strings, blocks, blockCount, docs, nums, count, lastTag: '' };
  }
}

/** Scans whole qrels held in memory (see {@link QrelsScanner}). */
export function scanQrels(buf: Buffer, file: string, docTable: IdTable): RawColumns {
  const scanner = new QrelsScanner(file, docTable, estimateLines(buf));
  scanner.scan(buf);
  return scanner.result();
}
