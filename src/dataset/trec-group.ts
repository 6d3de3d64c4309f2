/**
 * Grouping scanned TREC entries by query: CSR offsets in first-seen query order (file order kept
 * within a query, also when a query's lines are scattered) and the duplicate (qid, docid) check that
 * names both lines.
 */
import { CorebError } from '../core/errors.js';
import { FNV_OFFSET, FNV_PRIME, mixHash, type IdTable } from './id-table.js';
import type { RawColumns } from './trec-scan.js';

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
 * The 1-based line of the `entry`-th non-blank line (0-based), found by rescanning; used only to
 * report an error, so the hot scanner does not store a line number per entry.
 */
export function lineOfEntry(bytes: Buffer, entry: number): number {
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

/** Groups scanned entries by query (stable, first-seen query order) and rejects duplicate (qid, docid). */
export function groupByQuery(
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
 * strcmp of the docids starting at byte offsets `a` and `b` of a run buffer (each ends at the
 * next whitespace byte, which a valid run line always has after its docid).
 */
export function compareDocAt(buf: Buffer, a: number, b: number): number {
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
export function docAt(buf: Buffer, start: number): string {
  let end = start;
  while (buf[end] > 32) end++;
  return buf.toString('utf8', start, end);
}

/**
 * {@link groupByQuery} for knownDocsOnly runs: groups entries by query (stable) and detects duplicate
 * docids within a query with a small per-query hash set over the docid bytes (cache-resident).
 */
export function groupByBytes(
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
      let slot = mixHash(h) & mask;
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
