/**
 * The forward list of a BM25 build: the (term id, term frequency) pairs of each document's distinct
 * terms, in document order, kept in chunks. Small lists stay in memory; a large one goes to an
 * unlinked temporary file as it grows, so the build never holds the forward list and the postings
 * made from it at once.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';

/** Entries per chunk of a {@link Bm25ForwardList}: 2^20 (4 MiB of term ids and 2 or 4 MiB of frequencies). */
export const FORWARD_CHUNK_ENTRIES = 1 << 20;
/**
 * Entries a {@link Bm25ForwardList} keeps in memory before it moves to a temporary file: 2^21
 * (12-16 MiB; a corpus of about 40,000 code documents).
 */
export const FORWARD_IN_MEMORY_ENTRIES = 1 << 21;

/** One chunk: `count` term ids and their frequencies (16-bit when every one of them is below 65,536). */
export interface ForwardChunk {
  terms: Int32Array;
  tf: Uint16Array | Int32Array;
  count: number;
}

/** Where a chunk sits in the temporary file. */
interface SpilledChunk {
  count: number;
  wide: boolean;
  at: number;
}

/** Options of {@link Bm25ForwardList}; the defaults are what a build uses, the rest is for tests. */
export interface ForwardListOptions {
  /** Entries per chunk. Default {@link FORWARD_CHUNK_ENTRIES}. */
  chunkEntries?: number;
  /** Entries kept in memory before the list moves to a file. Default {@link FORWARD_IN_MEMORY_ENTRIES}. */
  inMemoryEntries?: number;
  /** Directory of the temporary file. Default `os.tmpdir()` (`TMPDIR`). */
  dir?: string;
}

/**
 * An append-only list of (term id, frequency) entries read back once, in order, chunk by chunk.
 *
 * Past `inMemoryEntries` entries, every chunk is written to a file created in a fresh directory
 * under `dir` and unlinked at once (on Linux nothing is left behind, even after a kill), and
 * memory holds one chunk (8 MiB). At a million code documents that is 316 MB of forward list the
 * build no longer holds beside the postings. {@link close} closes the file; call it when done or
 * on failure.
 */
export class Bm25ForwardList {
  /** Entries appended. */
  length = 0;
  /** The largest frequency appended. */
  maxTf = 0;
  private readonly chunkEntries: number;
  private readonly inMemoryEntries: number;
  private readonly dir: string;
  private terms: Int32Array;
  private tf: Int32Array;
  private used = 0;
  private tf16: Uint16Array | undefined;
  private readonly memory: ForwardChunk[] = [];
  private readonly spilled: SpilledChunk[] = [];
  private fd: number | undefined;
  private path: string | undefined;
  /** The directory and file to remove at {@link close} when they could not be unlinked at once. */
  private leftover: string | undefined;
  private fileBytes = 0;

  constructor(options: ForwardListOptions = {}) {
    this.chunkEntries = options.chunkEntries ?? FORWARD_CHUNK_ENTRIES;
    this.inMemoryEntries = options.inMemoryEntries ?? FORWARD_IN_MEMORY_ENTRIES;
    this.dir = options.dir ?? tmpdir();
    const first = Math.min(this.chunkEntries, 1024);
    this.terms = new Int32Array(first);
    this.tf = new Int32Array(first);
  }

  /** Appends `(terms[i], tf[i])` for `i < count`. */
  append(terms: Int32Array, tf: Int32Array, count: number): void {
    let i = 0;
    while (i < count) {
      if (this.used === this.terms.length) {
        if (this.used === this.chunkEntries) this.flush();
        else this.grow();
      }
      const n = Math.min(count - i, this.terms.length - this.used);
      this.terms.set(terms.subarray(i, i + n), this.used);
      this.tf.set(tf.subarray(i, i + n), this.used);
      for (let k = i; k < i + n; k++) if (tf[k] > this.maxTf) this.maxTf = tf[k];
      this.used += n;
      this.length += n;
      i += n;
    }
  }

  /**
   * The chunks in order. The arrays of a chunk read from the file are reused for the next one: use
   * a chunk before asking for the next. Call once, after the last {@link append}.
   */
  *chunks(): Generator<ForwardChunk, void, void> {
    if (this.used > 0) this.flush();
    this.terms = new Int32Array(0);
    this.tf = this.terms;
    this.tf16 = undefined;
    if (this.fd === undefined) {
      yield* this.memory;
      return;
    }
    const terms = new Int32Array(this.chunkEntries);
    const tf32 = new Int32Array(this.chunkEntries);
    const tf16 = new Uint16Array(tf32.buffer, 0, this.chunkEntries);
    for (const c of this.spilled) {
      this.read(terms, c.count * 4, c.at);
      const tf = c.wide ? tf32 : tf16;
      this.read(tf, c.count * tf.BYTES_PER_ELEMENT, c.at + c.count * 4);
      yield { terms, tf, count: c.count };
    }
  }

  /** Closes and removes the temporary file, if any. Safe to call twice. */
  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    if (this.leftover !== undefined) {
      rmSync(this.leftover, { recursive: true, force: true });
      this.leftover = undefined;
    }
  }

  private grow(): void {
    const size = Math.min(this.chunkEntries, this.terms.length * 2);
    const terms = new Int32Array(size);
    const tf = new Int32Array(size);
    terms.set(this.terms.subarray(0, this.used));
    tf.set(this.tf.subarray(0, this.used));
    this.terms = terms;
    this.tf = tf;
  }

  /** Ends the current chunk: kept in memory, or written to the file once the list is past `inMemoryEntries`. */
  private flush(): void {
    const count = this.used;
    let wide = false;
    for (let i = 0; i < count; i++) if (this.tf[i] > 0xffff) wide = true;
    if (this.fd === undefined && this.length <= this.inMemoryEntries) {
      const tf = wide ? this.tf.slice(0, count) : Uint16Array.from(this.tf.subarray(0, count));
      this.memory.push({ terms: this.terms.subarray(0, count), tf, count });
      // The frequencies were copied: their buffer serves the next chunk; the term ids stay where they are.
      this.terms = new Int32Array(this.tf.length);
    } else {
      if (this.fd === undefined) this.open();
      let tf: Uint16Array | Int32Array = this.tf;
      if (!wide) {
        // One 16-bit buffer for every chunk written (no garbage per chunk).
        this.tf16 ??= new Uint16Array(this.chunkEntries);
        tf = this.tf16;
        for (let i = 0; i < count; i++) tf[i] = this.tf[i];
      }
      this.spill({ terms: this.terms, tf, count });
    }
    this.used = 0;
  }

  /** Opens the temporary file and moves the chunks held in memory to it. */
  private open(): void {
    let dir: string;
    try {
      dir = mkdtempSync(join(this.dir, 'coreb-bm25-'));
    } catch (e) {
      throw this.ioError('create', undefined, e);
    }
    const path = join(dir, 'forward.bin');
    try {
      this.fd = openSync(path, 'w+', 0o600);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw this.ioError('create', path, e);
    }
    this.path = path;
    try {
      unlinkSync(path);
      rmdirSync(dir);
    } catch {
      this.leftover = dir;
    }
    for (const c of this.memory) this.spill(c);
    this.memory.length = 0;
  }

  private spill(c: ForwardChunk): void {
    const at = this.fileBytes;
    this.write(new Uint8Array(c.terms.buffer, c.terms.byteOffset, c.count * 4));
    this.write(new Uint8Array(c.tf.buffer, c.tf.byteOffset, c.count * c.tf.BYTES_PER_ELEMENT));
    this.spilled.push({ count: c.count, wide: c.tf instanceof Int32Array, at });
  }

  private write(bytes: Uint8Array): void {
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.fd as number, bytes, done, bytes.length - done, this.fileBytes + done);
    } catch (e) {
      throw this.ioError('write', this.path, e);
    }
    this.fileBytes += bytes.length;
  }

  private read(into: Int32Array | Uint16Array, bytes: number, at: number): void {
    const view = new Uint8Array(into.buffer, into.byteOffset, bytes);
    let done = 0;
    try {
      while (done < bytes) {
        const n = readSync(this.fd as number, view, done, bytes - done, at + done);
        if (n === 0) throw new Error(`the file ended at byte ${at + done}, ${bytes - done} bytes short`);
        done += n;
      }
    } catch (e) {
      throw this.ioError('read', this.path, e);
    }
  }

  private ioError(what: string, path: string | undefined, e: unknown): CorebError {
    return new CorebError(
      'IO',
      `bm25: could not ${what} the build's temporary forward list ${path ?? this.dir} (${(e as Error).message}); ` +
        'set TMPDIR to a directory with room for about 6 bytes per posting',
      { cause: e },
    );
  }
}
