/**
 * A content-addressed store of whole binary files (e.g. BM25 indexes): one file per key under
 * `<root>/<layout>/`, written to a temporary name, synced and renamed, so a reader sees a complete
 * file or none, whatever interrupts the writer. Files of any size (read and written in 1 GiB slices).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';

/** Folder of the BM25 index files under a cache root. */
export const BM25_INDEX_LAYOUT = 'bm25-index-v1';
const SLICE = 1 << 30;

/** A store of binary files by key (hex). Structurally a `Bm25IndexStore` of the search layer. */
export interface IndexFileStore {
  /** The folder holding the files. */
  readonly dir: string;
  /** The bytes stored under `key` and their file, or undefined when there is none. */
  load(key: string): { bytes: Uint8Array; where: string } | undefined;
  /** Writes `chunks` (concatenated) as the file of `key`, atomically; returns the file name. */
  save(key: string, chunks: readonly Uint8Array[]): string;
}

/**
 * Opens (lazily creates) the store in `<root>/<layout>` (default {@link BM25_INDEX_LAYOUT}).
 * Keys must be hex (as produced by SHA-256); files are `<key>.bin`.
 * @throws CorebError `USAGE` on a key that is not hex; `IO` naming the file when a read or write fails.
 */
export function openIndexFileStore(root: string, layout: string = BM25_INDEX_LAYOUT): IndexFileStore {
  const dir = join(root, layout);
  const fileOf = (key: string): string => {
    if (!/^[0-9a-f]{8,128}$/.test(key)) throw new CorebError('USAGE', `index store key must be 8-128 lowercase hex digits, got "${key}"`);
    return join(dir, `${key}.bin`);
  };
  return {
    dir,
    load(key) {
      const file = fileOf(key);
      let fd: number;
      try {
        fd = openSync(file, 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new CorebError('IO', `cannot open stored index (${(e as Error).message})`, { file, cause: e });
      }
      try {
        const size = fstatSync(fd).size;
        const bytes = new Uint8Array(size);
        for (let off = 0; off < size; ) {
          const n = readSync(fd, bytes, off, Math.min(SLICE, size - off), off);
          if (n === 0) throw new Error(`file ended at byte ${off} of ${size}`);
          off += n;
        }
        return { bytes, where: file };
      } catch (e) {
        throw new CorebError('IO', `cannot read stored index (${(e as Error).message})`, { file, cause: e });
      } finally {
        closeSync(fd);
      }
    },
    save(key, chunks) {
      const file = fileOf(key);
      const tmp = join(dir, `.${key}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      try {
        mkdirSync(dir, { recursive: true });
        const fd = openSync(tmp, 'w');
        try {
          for (const c of chunks) {
            for (let off = 0; off < c.length; ) off += writeSync(fd, c, off, Math.min(SLICE, c.length - off));
          }
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        renameSync(tmp, file);
        return file;
      } catch (e) {
        try {
          unlinkSync(tmp);
        } catch {
          // never created, or already renamed
        }
        throw new CorebError('IO', `cannot write stored index (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file, cause: e });
      }
    },
  };
}
