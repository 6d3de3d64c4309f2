/**
 * Crash- and Ctrl-C-safe file writes: content goes to a temporary file beside the target, which is
 * renamed over it only when complete, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { saveFileAtomic } from '../dataset/index.js';

/** `mkdir -p` of the file's directory; an `IO` error naming the directory when that fails. */
async function ensureDir(file: string): Promise<void> {
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new CorebError('IO', `cannot create directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: dir, cause: e });
  }
}

function tmpPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Writes `data` to `file` atomically (tmp + rename), creating the directory; dataset's
 * `saveFileAtomic` after a `mkdir -p` (so a `.gz` name is gzipped there too).
 */
export async function saveAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await ensureDir(file);
  await saveFileAtomic(file, data);
}

/**
 * Streams `lines` (each without its newline) to `file` atomically. Checks `signal` between chunks;
 * when aborted the temporary file is removed and the target is left as it was.
 */
export async function saveLinesAtomic(file: string, lines: Iterable<string>, signal?: AbortSignal): Promise<void> {
  await ensureDir(file);
  const tmp = tmpPath(file);
  const out = createWriteStream(tmp);
  const done = new Promise<void>((resolve, reject) => {
    out.once('finish', resolve);
    out.once('error', reject);
  });
  done.catch(() => undefined);
  try {
    let buf = '';
    for (const line of lines) {
      buf += line + '\n';
      if (buf.length >= 1 << 16) {
        if (signal?.aborted) throw signal.reason;
        if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
        buf = '';
      }
    }
    out.end(buf);
    await done;
    if (signal?.aborted) throw signal.reason;
    await rename(tmp, file);
  } catch (e) {
    out.destroy();
    await rm(tmp, { force: true });
    if (signal?.aborted) throw e;
    throw new CorebError('IO', `cannot write file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file, cause: e });
  }
}
