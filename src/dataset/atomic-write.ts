/**
 * Crash- and Ctrl-C-safe file writes: content goes to a temporary file beside the target, which is
 * renamed over it only when complete, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CorebError } from '../core/errors.js';
import { processAlive } from '../core/process-alive.js';

/** `mkdir -p` of the file's directory; an `IO` error naming the directory when that fails. */
async function ensureDir(file: string): Promise<void> {
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new CorebError('IO', `cannot create directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir, cause: e });
  }
}

/** A fresh temporary name beside `file` (a dot-file, so directory walks skip it), holding the writer's pid. */
function tmpPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** The temporary names {@link tmpPath} makes: `.<name>.<pid>.<8 hex>.tmp`. */
const TMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temporary files that atomic writes of a killed process left in `dir` (not in its
 * subdirectories): names `.<file>.<pid>.<hex>.tmp` whose pid is no live process (nor this one,
 * whose own writes remove their temporary files). A missing directory holds none.
 * @returns the names removed.
 * @throws CorebError `IO` naming a file that cannot be removed.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw new CorebError('IO', `cannot list directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir, cause: e });
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TMP_NAME.exec(name);
    if (m === null || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    try {
      await rm(join(dir, name), { force: true });
    } catch (e) {
      throw new CorebError('IO', `cannot remove a stale temporary file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
        file: join(dir, name),
        cause: e,
      });
    }
    removed.push(name);
  }
  return removed;
}

/** Plain words for the write errors a user can fix. */
const WRITE_REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
};

/** The `IO` error of a failed write of `file`. */
function writeError(file: string, e: unknown): CorebError {
  const code = (e as NodeJS.ErrnoException).code;
  const reason = code !== undefined && code in WRITE_REASONS ? `${WRITE_REASONS[code]}, ${code}` : (code ?? (e as Error).message);
  return new CorebError('IO', `cannot write file (${reason})`, { file, cause: e });
}

/**
 * Writes `data` to `path` atomically: a temporary file in the same directory, then a rename, so a
 * reader never sees a half-written file. Gzip-compresses when `path` ends in `.gz`. The directory
 * must exist ({@link saveAtomic} creates it).
 * @throws CorebError `IO` when the directory is missing or not writable.
 */
export async function saveFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const out = path.endsWith('.gz') ? gzipSync(bytes) : bytes;
  const tmp = tmpPath(path);
  try {
    await writeFile(tmp, out);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw writeError(path, e);
  }
}

/**
 * Writes `data` to `file` atomically (tmp + rename), creating the directory: {@link saveFileAtomic}
 * after a `mkdir -p` (so a `.gz` name is gzipped too).
 * @throws CorebError `IO` naming the directory or file that could not be created or written.
 */
export async function saveAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await ensureDir(file);
  await saveFileAtomic(file, data);
}

/**
 * Streams `lines` (each without its newline) to `file` atomically, creating the directory;
 * gzip-compressed when `file` ends in `.gz`. Checks `signal` between 64 KiB chunks; when aborted
 * the temporary file is removed, the target is left as it was and the abort reason is rethrown.
 * A write error (a full disk) fails the call at once, with the temporary file removed.
 * @throws CorebError `IO` naming the file when it cannot be written.
 */
export async function saveLinesAtomic(file: string, lines: Iterable<string>, signal?: AbortSignal): Promise<void> {
  await saveChunksAtomic(file, batchLines(lines), signal);
}

/** `lines` joined with newlines into strings of about 64 KiB. */
function* batchLines(lines: Iterable<string>): Generator<string> {
  let buf = '';
  for (const line of lines) {
    buf += line + '\n';
    if (buf.length >= 1 << 16) {
      yield buf;
      buf = '';
    }
  }
  if (buf !== '') yield buf;
}

/** Bytes of input gathered into one gzip member by {@link saveChunksAtomic}: 256 KiB (UTF-16 units for strings). */
const GZIP_MEMBER_INPUT = 1 << 18;

/**
 * Streams `chunks` to `file` atomically (a temporary file, then a rename), creating the directory;
 * gzip-compressed (level 1, the fastest) when `file` ends in `.gz`. Chunks are produced as they are
 * written, so memory holds about one. Checks `signal` before each chunk; when aborted the temporary
 * file is removed, the target is left as it was and the abort reason is rethrown. A write error (a
 * full disk) fails the call at once (a failed stream never drains: the wait races the error), the
 * temporary file removed.
 *
 * A `.gz` file is a series of gzip members of ~256 KiB of input each (RFC 1952 section 2.2: a gzip
 * file is one or more members; `zcat`, Python's `gzip`, Java's `GZIPInputStream` and Node's `zlib`
 * read them as one text), each compressed on this thread by `gzipSync`: a zlib stream sends every
 * chunk through the thread pool and back, which cost `coreb eval --out` about 40 ms more CPU on
 * v202602's 18 MB of runs (120 -> 80 ms; 0.3% more bytes).
 * @throws CorebError `IO` naming the file when it cannot be written.
 */
export async function saveChunksAtomic(file: string, chunks: Iterable<string | Uint8Array>, signal?: AbortSignal): Promise<void> {
  await ensureDir(file);
  const tmp = tmpPath(file);
  const out = createWriteStream(tmp);
  let failure: unknown;
  const failed = new Promise<never>((_, reject) => {
    out.once('error', (e: unknown) => {
      failure ??= e;
      reject(failure);
    });
  });
  failed.catch(() => undefined);
  const finished = new Promise<void>((resolve) => out.once('close', () => resolve()));
  // Waits for `event` on `out`, or fails with the first write error.
  const until = (event: 'drain' | 'close') =>
    Promise.race([event === 'close' ? finished : new Promise<void>((resolve) => out.once('drain', () => resolve())), failed]);
  const write = async (data: string | Uint8Array): Promise<void> => {
    if (failure !== undefined) throw failure;
    if (!out.write(data)) await until('drain');
  };
  const gzip = file.endsWith('.gz');
  let pending: Array<string | Uint8Array> = [];
  let pendingSize = 0;
  let members = 0;
  // Level 1: half the CPU of zlib's default 6 for about 8% more bytes on TREC runs; memLevel 9
  // (zlib's largest hash table, 256 KiB more memory): ~10% less CPU again, the same bytes here.
  const flushMember = async (): Promise<void> => {
    if (pendingSize === 0) return;
    const input = pending.length === 1 ? pending[0]! : joinChunks(pending);
    pending = [];
    pendingSize = 0;
    members++;
    await write(gzipSync(input, { level: 1, memLevel: 9 }));
  };
  try {
    for (const chunk of chunks) {
      if (signal?.aborted) throw signal.reason;
      if (!gzip) {
        await write(chunk);
        continue;
      }
      pending.push(chunk);
      pendingSize += chunk.length;
      if (pendingSize >= GZIP_MEMBER_INPUT) await flushMember();
    }
    if (signal?.aborted) throw signal.reason;
    await flushMember();
    // An empty .gz file is still one (empty) gzip member, as zlib's stream wrote it.
    if (gzip && members === 0) await write(gzipSync(''));
    out.end();
    await until('close');
    if (failure !== undefined) throw failure;
    if (signal?.aborted) throw signal.reason;
    await rename(tmp, file);
  } catch (e) {
    out.destroy();
    await rm(tmp, { force: true });
    if (signal?.aborted && e === signal.reason) throw e;
    throw writeError(file, e);
  }
}

/** `parts` as one string when all are strings, else as one byte buffer (strings UTF-8 encoded). */
function joinChunks(parts: ReadonlyArray<string | Uint8Array>): string | Buffer {
  if (parts.every((p) => typeof p === 'string')) return (parts as string[]).join('');
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}
