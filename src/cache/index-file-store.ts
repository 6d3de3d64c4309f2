/**
 * A content-addressed store of whole binary files (e.g. BM25 indexes): one file per key under
 * `<root>/<layout>/`, written to a temporary name, synced and renamed, so a reader sees a complete
 * file or none, whatever interrupts the writer. Reads and writes go in slices, so a signal stops
 * them between two slices; temporary files of killed writers are removed by the next save.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { processAlive } from '../core/process-alive.js';

/** Folder of the BM25 index files under a cache root. */
export const BM25_INDEX_LAYOUT = 'bm25-index-v1';
/** Bytes per read or write call; the signal is checked between two. */
const SLICE = 32 << 20;
/** Temporary names: `.<key>.<pid>.<8 hex>.tmp`. */
const TMP_NAME = /^\.[0-9a-f]+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** A store of binary files by key (hex). Structurally a `Bm25IndexStore` of the search layer. */
export interface IndexFileStore {
  /** The folder holding the files. */
  readonly dir: string;
  /** The bytes stored under `key` and their file, or undefined when there is none. */
  load(key: string, options?: { signal?: AbortSignal }): Promise<{ bytes: Uint8Array; where: string } | undefined>;
  /** Writes `chunks` (concatenated) as the file of `key`, atomically; resolves to the file name. */
  save(key: string, chunks: readonly Uint8Array[], options?: { signal?: AbortSignal }): Promise<string>;
}

/** Throws `INTERRUPTED` (naming `what` and the file) when `signal` has aborted. */
function stopIfAborted(signal: AbortSignal | undefined, what: string, file: string): void {
  if (signal?.aborted === true) {
    const reason = signal.reason instanceof Error ? signal.reason.message : 'interrupted';
    throw new CorebError('INTERRUPTED', `${what} stopped: ${reason}`, { file, cause: signal.reason });
  }
}

/**
 * Opens (lazily creates) the store in `<root>/<layout>` (default {@link BM25_INDEX_LAYOUT}).
 * Keys must be hex (as produced by SHA-256); files are `<key>.bin`. Reads and writes go in slices of
 * 32 MiB and stop between two when `signal` aborts (`INTERRUPTED`; an interrupted save removes its
 * temporary file). A save first removes the temporary files that writers killed before their
 * rename left behind (their pid is no live process).
 * @throws CorebError `USAGE` on a key that is not hex; `IO` naming the file when a read or write fails;
 * `INTERRUPTED` when the signal aborts.
 */
export function openIndexFileStore(root: string, layout: string = BM25_INDEX_LAYOUT): IndexFileStore {
  const dir = join(root, layout);
  const fileOf = (key: string): string => {
    if (!/^[0-9a-f]{8,128}$/.test(key)) throw new CorebError('USAGE', `index store key must be 8-128 lowercase hex digits, got "${key}"`);
    return join(dir, `${key}.bin`);
  };
  return {
    dir,
    async load(key, options = {}) {
      const file = fileOf(key);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(file, 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new CorebError('IO', `cannot open stored index (${(e as Error).message})`, { file, cause: e });
      }
      try {
        const size = (await handle.stat()).size;
        const bytes = new Uint8Array(size);
        for (let off = 0; off < size; ) {
          stopIfAborted(options.signal, 'reading the stored index', file);
          const { bytesRead } = await handle.read(bytes, off, Math.min(SLICE, size - off), off);
          if (bytesRead === 0) throw new Error(`file ended at byte ${off} of ${size}`);
          off += bytesRead;
        }
        return { bytes, where: file };
      } catch (e) {
        if (e instanceof CorebError) throw e;
        throw new CorebError('IO', `cannot read stored index (${(e as Error).message})`, { file, cause: e });
      } finally {
        await handle.close();
      }
    },
    async save(key, chunks, options = {}) {
      const file = fileOf(key);
      const tmp = join(dir, `.${key}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      try {
        await mkdir(dir, { recursive: true });
        await removeStaleTemps(dir);
        const handle = await open(tmp, 'w');
        try {
          for (const c of chunks) {
            for (let off = 0; off < c.length; ) {
              stopIfAborted(options.signal, 'writing the index', file);
              off += (await handle.write(c, off, Math.min(SLICE, c.length - off))).bytesWritten;
            }
          }
          await handle.sync();
        } finally {
          await handle.close();
        }
        stopIfAborted(options.signal, 'writing the index', file);
        await rename(tmp, file);
        return file;
      } catch (e) {
        await rm(tmp, { force: true }).catch(() => {});
        if (e instanceof CorebError) throw e;
        throw new CorebError('IO', `cannot write stored index (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file, cause: e });
      }
    },
  };
}

/** Removes the temporary files in `dir` whose writer (the pid in the name) is no longer running. */
async function removeStaleTemps(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const m = TMP_NAME.exec(name);
    if (m === null || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    await rm(join(dir, name), { force: true });
  }
}
