/**
 * Partitioning a TREC run that is not grouped by query into files that are small enough to group
 * in memory: each line goes, unchanged, to the partition of its qid's hash, and its original line
 * number to a side file, so an error found in a partition still names the original file and line.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FNV_OFFSET, FNV_PRIME, mixHash } from './id-table.js';
import { readLineChunks } from './text-file.js';
import type { TrecOrigin } from './trec.js';

/** One partition written by {@link partitionTrecRun}. */
export interface TrecRunPartition {
  /** The partition's lines (every line of its queries, in file order; no blank lines). */
  run: string;
  /** Original line number of each of its lines: little-endian float64s. */
  lines: string;
  /** Number of lines. */
  count: number;
  /** Original line number of its last line (0 when empty). */
  lastLine: number;
}

const BUFFER_BYTES = 1 << 18;
const LINE_SLOTS = 1 << 13;

/** Buffered appends to one partition's two files. */
class PartitionWriter {
  private readonly runFd: number;
  private readonly linesFd: number;
  private readonly buf = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  private readonly lineNos = new Float64Array(LINE_SLOTS);
  private lineCount = 0;
  count = 0;
  lastLine = 0;

  constructor(readonly part: TrecRunPartition) {
    this.runFd = openSync(part.run, 'w');
    this.linesFd = openSync(part.lines, 'w');
  }

  add(src: Buffer, start: number, end: number, line: number): void {
    const len = end - start;
    if (this.used + len > BUFFER_BYTES) this.flushRun();
    if (len > BUFFER_BYTES) writeSync(this.runFd, src, start, len);
    else {
      src.copy(this.buf, this.used, start, end);
      this.used += len;
    }
    if (this.lineCount === LINE_SLOTS) this.flushLines();
    this.lineNos[this.lineCount++] = line;
    this.count++;
    this.lastLine = line;
  }

  private flushRun(): void {
    if (this.used > 0) writeSync(this.runFd, this.buf, 0, this.used);
    this.used = 0;
  }

  private flushLines(): void {
    if (this.lineCount > 0) writeSync(this.linesFd, new Uint8Array(this.lineNos.buffer, 0, this.lineCount * 8));
    this.lineCount = 0;
  }

  close(): TrecRunPartition {
    this.flushRun();
    this.flushLines();
    closeSync(this.runFd);
    closeSync(this.linesFd);
    return { ...this.part, count: this.count, lastLine: this.lastLine };
  }
}

/**
 * Splits the run at `path` (plain or gzip) into `parts` files under `dir` by a hash of the qid, so
 * all lines of a query land in one partition, in file order. Streams: memory is one chunk plus a
 * 256 KiB buffer per partition. Lines are copied unchanged (the parser validates them later).
 * `onBytes` is given the file's bytes as read (to hash it in the same pass).
 */
export async function partitionTrecRun(
  path: string,
  dir: string,
  parts: number,
  signal?: AbortSignal,
  onBytes?: (bytes: Uint8Array) => void,
): Promise<TrecRunPartition[]> {
  const writers: PartitionWriter[] = [];
  try {
    for (let i = 0; i < parts; i++)
      writers.push(new PartitionWriter({ run: join(dir, `part-${i}.run`), lines: join(dir, `part-${i}.lines`), count: 0, lastLine: 0 }));
    let line = 0;
    let first = true;
    for await (const buf of readLineChunks(path, { signal, onBytes })) {
      const len = buf.length;
      let pos = 0;
      if (first) {
        first = false;
        if (len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
      }
      // Each chunk ends with a newline, so the scans below stop at one without a bounds check.
      while (pos < len) {
        line++;
        const from = pos;
        let c = buf[pos];
        while (c !== 10 && c <= 32) c = buf[++pos];
        if (c === 10) {
          pos++;
          continue;
        }
        let h = FNV_OFFSET;
        while (c > 32) {
          h = Math.imul(h ^ c, FNV_PRIME);
          c = buf[++pos];
        }
        while (c !== 10) c = buf[++pos];
        pos++;
        writers[(mixHash(h) >>> 0) % parts].add(buf, from, pos, line);
      }
    }
    return writers.map((w) => w.close());
  } catch (e) {
    for (const w of writers) {
      try {
        w.close();
      } catch {
        // already closed or never opened; the caller removes the directory
      }
    }
    throw e;
  }
}

/** The {@link TrecOrigin} of a partition of `file`: reads the original line numbers on demand. */
export function partitionOrigin(file: string, part: TrecRunPartition): TrecOrigin {
  return {
    file,
    lineOf(line: number): number {
      const fd = openSync(part.lines, 'r');
      try {
        const b = Buffer.alloc(8);
        return readSync(fd, b, 0, 8, (line - 1) * 8) === 8 ? b.readDoubleLE(0) : line;
      } finally {
        closeSync(fd);
      }
    },
  };
}
