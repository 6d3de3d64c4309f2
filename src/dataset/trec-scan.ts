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
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
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

/** The `PARSE` error of a line with too few fields. */
function tooFewFields(file: string, line: number, nf: number, isRun: boolean): CorebError {
  return new CorebError(
    'PARSE',
    isRun ? `expected 6 fields \`qid Q0 docid rank score tag\`, got ${nf}` : `expected 4 fields \`qid iter docid rel\`, got ${nf}`,
    { file, line },
  );
}

/** `buf`, or a copy with a final newline appended when it lacks one (the run scanner relies on it). */
export function withFinalNewline(buf: Buffer): Buffer {
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
 * Scans a run: per line `qid Q0 docid rank score tag [ignored...]`. One pass over the bytes; the
 * docid is hashed while it is tokenised, the qid is compared with the previous line's first.
 * Blank lines are skipped; a leading UTF-8 BOM and `\r` count as whitespace.
 */
export function scanRun(buf: Buffer, file: string, docTable: IdTable, knownOnly: boolean, judged?: JudgedLookup): RawColumns {
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
    if (Number.isNaN(v)) {
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
export function scanQrels(buf: Buffer, file: string, docTable: IdTable): RawColumns {
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
    if (nf > 4) {
      // trec_eval rejects these too: a 5th column is usually a run line or a score given as qrels.
      throw new CorebError('PARSE', `qrels line has ${nf} fields; expected 4 (qid iter docid rel), as trec_eval does`, { file, line });
    }
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
    nums[count] = parseAtolBytes(buf, fs[3], fe[3]);
    count++;
  }
  return { queryIds: queries.strings, blocks, blockCount, docs, nums, count, lastTag: '' };
}
