/**
 * Crash- and Ctrl-C-safe file writes: content goes to a temporary file beside the target, which is
 * renamed over it only when complete, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CorebError } from '../core/errors.js';

/** `mkdir -p` of the file's directory; an `IO` error naming the directory when that fails. */
async function ensureDir(file: string): Promise<void> {
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new CorebError('IO', `cannot create directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir, cause: e });
  }
}

/** A fresh temporary name beside `file` (a dot-file, so directory walks skip it). */
function tmpPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** The `IO` error of a failed write of `file`. */
function writeError(file: string, e: unknown): CorebError {
  return new CorebError('IO', `cannot write file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file, cause: e });
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
 * Streams `lines` (each without its newline) to `file` atomically, creating the directory. Checks
 * `signal` between 64 KiB chunks; when aborted the temporary file is removed, the target is left as
 * it was and the abort reason is rethrown.
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

/**
 * Streams `chunks` to `file` atomically (a temporary file, then a rename), creating the directory;
 * chunks are produced as they are written, so memory holds one. Checks `signal` before each chunk;
 * when aborted the temporary file is removed, the target is left as it was and the abort reason is
 * rethrown.
 * @throws CorebError `IO` naming the file when it cannot be written.
 */
export async function saveChunksAtomic(file: string, chunks: Iterable<string | Uint8Array>, signal?: AbortSignal): Promise<void> {
  await ensureDir(file);
  const tmp = tmpPath(file);
  const out = createWriteStream(tmp);
  const done = new Promise<void>((resolve, reject) => {
    out.once('finish', resolve);
    out.once('error', reject);
  });
  done.catch(() => undefined);
  try {
    for (const chunk of chunks) {
      if (signal?.aborted) throw signal.reason;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    out.end();
    await done;
    if (signal?.aborted) throw signal.reason;
    await rename(tmp, file);
  } catch (e) {
    out.destroy();
    await rm(tmp, { force: true });
    if (signal?.aborted) throw e;
    throw writeError(file, e);
  }
}
