/**
 * Grouping scanned TREC entries by query: CSR offsets in first-seen query order (file order kept
 * within a query, also when a query's lines are scattered) and the duplicate (qid, docid) check that
 * names both lines.
 */
import { CorebError } from '../core/errors.js';
import { mixHash, type IdTable } from './id-table.js';
import type { DocBytes, RawColumns } from './trec-scan.js';

/**
 * Query slices of the grouped entries: `offsets` per query and, when a query's lines are not
 * contiguous in the file, `perm` (grouped position -> file entry index; stable within a query).
 */
export function planGroups(raw: RawColumns): { offsets: Int32Array; perm?: Int32Array } {
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

/**
 * Maps entry indices (0-based non-blank lines) to 1-based line numbers by rescanning the input chunk
 * by chunk; used only to report an error, so the hot scanners do not store a line number per entry.
 */
export class EntryLines {
  private line = 0;
  private seen = -1;
  private first = true;
  private readonly found = new Map<number, number>();

  constructor(private readonly entries: readonly number[]) {}

  /** Feeds the next chunk of whole lines (the last chunk may lack its final newline). */
  scan(bytes: Uint8Array): void {
    let pos = 0;
    if (this.first) {
      this.first = false;
      if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) pos = 3;
    }
    while (pos < bytes.length) {
      this.line++;
      let blank = true;
      while (pos < bytes.length && bytes[pos] !== 10) {
        if (bytes[pos] > 32) blank = false;
        pos++;
      }
      pos++;
      if (!blank && this.entries.includes(++this.seen)) this.found.set(this.seen, this.line);
    }
  }

  /** The line of `entry` (the last line seen when it was not reached). */
  lineOf(entry: number): number {
    return this.found.get(entry) ?? this.line;
  }
}

/** The 1-based line of the `entry`-th non-blank line (0-based) of `bytes`. */
export function lineOfEntry(bytes: Buffer, entry: number): number {
  const lines = new EntryLines([entry]);
  lines.scan(bytes);
  return lines.lineOf(entry);
}

/**
 * A duplicate (qid, docid) found while grouping, by entry index; {@link DuplicateEntry.toError}
 * turns it into the `VALIDATION` error naming both lines once they are known.
 */
export class DuplicateEntry extends Error {
  constructor(
    readonly what: string,
    readonly qid: string,
    readonly docid: string,
    /** Entry index of the repeated line. */
    readonly entry: number,
    /** Entry index of the first line. */
    readonly firstEntry: number,
  ) {
    super(`duplicate ${what}`);
  }

  /** The user-facing error, with `lines` mapping entries to line numbers. */
  toError(file: string, lines: { lineOf(entry: number): number }): CorebError {
    return new CorebError(
      'VALIDATION',
      `duplicate ${this.what} for query \`${this.qid}\` and document \`${this.docid}\` (first on line ${lines.lineOf(this.firstEntry)}); each (qid, docid) may appear once`,
      { file, line: lines.lineOf(this.entry) },
    );
  }
}

/** Groups scanned entries by query (stable, first-seen query order) and rejects duplicate (qid, docid). */
export function groupByQuery(raw: RawColumns, docTable: IdTable, what: string): { offsets: Int32Array; docs: Int32Array; nums: Float64Array } {
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
        throw new DuplicateEntry(what, raw.queryIds[q], docTable.strings[d], here, before);
      }
      seen[d] = q + 1;
      firstAt[d] = p;
    }
  }
  return { offsets, docs, nums };
}

/**
 * Duplicate docids within one query's entries, by their bytes: a small per-query hash set
 * (cache-resident, reused between queries).
 */
export class DocidSet {
  private table = new Int32Array(1024);
  private stamp = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private mark = 0;

  /** The first repeated entry of `[lo, hi)` and the entry it repeats, or undefined. */
  findDuplicate(pool: DocBytes, starts: Float64Array, lo: number, hi: number): [number, number] | undefined {
    if (this.table.length < 2 * (hi - lo)) {
      let size = this.table.length;
      while (size < 2 * (hi - lo)) size *= 2;
      this.table = new Int32Array(size);
      this.stamp = new Int32Array(size);
      this.hashes = new Int32Array(size);
      this.mark = 0;
    }
    const { table, stamp, hashes } = this;
    const mask = table.length - 1;
    const mark = ++this.mark;
    for (let p = lo; p < hi; p++) {
      const h = pool.hash(starts[p]);
      let slot = mixHash(h) & mask;
      while (stamp[slot] === mark) {
        const o = table[slot];
        if (hashes[slot] === h && pool.compare(starts[o], starts[p]) === 0) return [p, o];
        slot = (slot + 1) & mask;
      }
      stamp[slot] = mark;
      table[slot] = p;
      hashes[slot] = h;
    }
    return undefined;
  }
}

/**
 * {@link groupByQuery} for knownDocsOnly runs: groups entries by query (stable) and detects duplicate
 * docids within a query with a small per-query hash set over the docid bytes (cache-resident).
 */
export function groupByBytes(raw: RawColumns): {
  offsets: Int32Array;
  docs: Int32Array;
  nums: Float64Array;
  starts: Float64Array;
  pool: DocBytes;
} {
  const nq = raw.queryIds.length;
  const n = raw.count;
  const dStart = raw.dStart as Float64Array;
  const pool = raw.docBytes as DocBytes;
  const { offsets, perm } = planGroups(raw);
  let docs = raw.docs.subarray(0, n);
  let nums = raw.nums.subarray(0, n);
  let starts = dStart.subarray(0, n);
  const origin = perm;
  if (perm !== undefined) {
    const d2 = new Int32Array(n);
    const n2 = new Float64Array(n);
    const s2 = new Float64Array(n);
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
  const set = new DocidSet();
  for (let q = 0; q < nq; q++) {
    const dup = set.findDuplicate(pool, starts, offsets[q], offsets[q + 1]);
    if (dup !== undefined) {
      const [p, o] = dup;
      const here = origin === undefined ? p : origin[p];
      const before = origin === undefined ? o : origin[o];
      throw new DuplicateEntry('run line', raw.queryIds[q], pool.toString(starts[p]), here, before);
    }
  }
  return { offsets, docs, nums, starts, pool };
}
