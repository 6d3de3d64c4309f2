/**
 * Reading and writing the text files every loader shares: plain or gzip (detected by its magic
 * bytes), strict UTF-8, BOM and CRLF noticed and reported, never modified; writes are atomic.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CorebError } from '../core/errors.js';

/** A text file as read, with the facts validators report about its encoding. */
export interface TextFile {
  /** Path as given. */
  path: string;
  /** Decoded text with any leading BOM removed. */
  text: string;
  /** True when the file started with a UTF-8 byte-order mark (U+FEFF). */
  bom: boolean;
  /** True when at least one line ends in `\r\n`. */
  crlf: boolean;
  /** True when the bytes were gzip-compressed. */
  gzip: boolean;
  /** Size on disk in bytes (compressed size for gzip). */
  bytes: number;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** True when `bytes` start with the gzip magic number. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === GZIP_MAGIC_0 && bytes[1] === GZIP_MAGIC_1;
}

/**
 * Decodes raw file bytes (gunzipping when they are gzip) into a {@link TextFile}.
 * @throws CorebError `PARSE` for a corrupt gzip stream or bytes that are not valid UTF-8.
 */
export function decodeTextFile(path: string, raw: Uint8Array): TextFile {
  const gzip = isGzip(raw);
  let bytes = raw;
  if (gzip) {
    try {
      bytes = gunzipSync(raw);
    } catch (e) {
      throw new CorebError('PARSE', `not a valid gzip stream (${(e as Error).message}); re-compress it or give the plain file`, {
        file: path,
        cause: e,
      });
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (e) {
    throw new CorebError('PARSE', `not valid UTF-8 text (at or after byte ${firstInvalidUtf8(bytes)}); save the file as UTF-8`, {
      file: path,
      cause: e,
    });
  }
  const bom = text.charCodeAt(0) === 0xfeff;
  if (bom) text = text.slice(1);
  return { path, text, bom, crlf: text.includes('\r\n'), gzip, bytes: raw.length };
}

/** Byte offset of the first invalid UTF-8 sequence (a best effort for error messages). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const dec = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = bytes.length;
  while (hi - lo > 4) {
    const mid = (lo + hi) >>> 1;
    try {
      dec.decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid;
    }
  }
  return lo;
}

/**
 * Reads a text file, plain or gzip-compressed (detected by content, not by name).
 * @throws CorebError `NOT_FOUND` when missing, `IO` when unreadable, `PARSE` for bad gzip / UTF-8.
 */
export async function loadTextFile(path: string): Promise<TextFile> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CorebError('NOT_FOUND', `file not found; check the path`, { file: path, cause: e });
    if (code === 'EISDIR') throw new CorebError('IO', `is a directory, expected a file`, { file: path, cause: e });
    throw new CorebError('IO', `cannot read file (${code ?? (e as Error).message})`, { file: path, cause: e });
  }
  return decodeTextFile(path, raw);
}

/**
 * Splits text into lines on `\n`, dropping one `\r` before each `\n` and the empty piece after a
 * final newline. Line `i` of the result is line `i + 1` of the file.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/** True when `path` exists and is a regular file. */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** True when `path` exists and is a directory. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Writes `data` to `path` atomically: a temporary file in the same directory, then a rename, so a
 * reader never sees a half-written file. Gzip-compresses when `path` ends in `.gz`.
 * @throws CorebError `IO` when the directory is not writable.
 */
export async function saveFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const out = path.endsWith('.gz') ? gzipSync(bytes) : bytes;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, out);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new CorebError('IO', `cannot write file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      file: path,
      cause: e,
    });
  }
}
