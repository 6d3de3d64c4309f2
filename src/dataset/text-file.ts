/**
 * Reading and writing the text files every loader shares: plain or gzip (detected by its magic
 * bytes), strict UTF-8, BOM and CRLF noticed and reported, never modified (atomic writes: atomic-write.ts).
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { pipeline, Readable, type Transform } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { CorebError } from '../core/errors.js';
import { EventLoopTurns } from '../core/event-loop-turns.js';

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
    throw ioError(path, e);
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

/** What {@link forEachLine} found out about a file while streaming it. */
export interface LineScan {
  /** Lines delivered (a final line without `\n` counts; the empty piece after a final `\n` does not). */
  lines: number;
  bom: boolean;
  gzip: boolean;
  /** 1-based number of the first line that ended in `\r\n`, or 0. */
  firstCrlfLine: number;
}

/** True when the file at `path` starts with the gzip magic number. */
export async function sniffGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const head = new Uint8Array(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return bytesRead === 2 && isGzip(head);
  } finally {
    await fh.close();
  }
}

/** The `PARSE` error of a line of `path` that is not valid UTF-8. */
function invalidUtf8(path: string, line: number, cause?: unknown): CorebError {
  return new CorebError('PARSE', `not valid UTF-8 text (in line ${line}); save the file as UTF-8`, {
    file: path,
    line,
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** The `NOT_FOUND` / `IO` error of an unreadable `path`. */
export function ioError(path: string, e: unknown): CorebError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new CorebError('NOT_FOUND', 'file not found; check the path', { file: path, cause: e });
  if (code === 'EISDIR') return new CorebError('IO', 'is a directory, expected a file', { file: path, cause: e });
  return new CorebError('IO', `cannot read file (${code ?? (e as Error).message})`, { file: path, cause: e });
}

/**
 * Streams a text file (plain or gzip, detected by content) line by line without holding it whole in
 * memory, so inputs larger than the ~512 MB string limit of V8 can be read. Each line is delivered
 * without its `\n` / `\r\n`; a leading BOM is removed and reported in the result.
 * The event loop gets a turn at least every 50 ms of work, and an aborted `signal` stops the read there.
 * @param onLine called with the line text and its 1-based number.
 * @throws CorebError `NOT_FOUND` / `IO` when unreadable; `PARSE` (with `line`) for bad gzip or
 * invalid UTF-8; `INTERRUPTED` when `signal` aborts (the message names the file and the line reached).
 */
export async function forEachLine(path: string, onLine: (text: string, line: number) => void, signal?: AbortSignal): Promise<LineScan> {
  signal?.throwIfAborted();
  let gzip: boolean;
  try {
    gzip = await sniffGzip(path);
  } catch (e) {
    throw ioError(path, e);
  }
  const raw = createReadStream(path);
  const stream: Readable = gzip ? raw.pipe(createGunzip()) : raw;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const scan: LineScan = { lines: 0, bom: false, gzip, firstCrlfLine: 0 };
  const turns = new EventLoopTurns(signal);
  // The unfinished last line, as pieces joined only when its newline arrives: searching and
  // concatenating the whole pending text per chunk made a long line quadratic.
  let pending: string[] = [];
  let first = true;
  const emit = (text: string): void => {
    scan.lines++;
    if (text.charCodeAt(text.length - 1) === 13) {
      if (scan.firstCrlfLine === 0) scan.firstCrlfLine = scan.lines;
      text = text.slice(0, -1);
    }
    onLine(text, scan.lines);
  };
  const take = (chunk: string): void => {
    if (first && chunk.length > 0) {
      first = false;
      if (chunk.charCodeAt(0) === 0xfeff) {
        scan.bom = true;
        chunk = chunk.slice(1);
      }
    }
    let nl = chunk.indexOf('\n');
    if (nl < 0) {
      if (chunk.length > 0) pending.push(chunk);
      return;
    }
    if (pending.length > 0) {
      pending.push(chunk.slice(0, nl));
      emit(pending.join(''));
      pending = [];
    } else emit(chunk.slice(0, nl));
    let start = nl + 1;
    nl = chunk.indexOf('\n', start);
    while (nl >= 0) {
      emit(chunk.slice(start, nl));
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) pending.push(chunk.slice(start));
  };
  try {
    for await (const chunk of stream) {
      let decoded: string;
      try {
        decoded = decoder.decode(chunk as Uint8Array, { stream: true });
      } catch (e) {
        // Deliver the complete lines before the bad bytes, so the error names the right line.
        const lenient = new TextDecoder('utf-8', { ignoreBOM: true }).decode(chunk as Uint8Array);
        const cut = lenient.indexOf('\ufffd');
        const before = lenient.slice(0, cut < 0 ? 0 : cut);
        take(before.slice(0, before.lastIndexOf('\n') + 1));
        throw invalidUtf8(path, scan.lines + 1, e);
      }
      take(decoded);
      if (turns.due()) await turns.take(() => `reading ${path} stopped at line ${scan.lines}`);
    }
    try {
      take(decoder.decode());
    } catch (e) {
      throw invalidUtf8(path, scan.lines + 1, e);
    }
  } catch (e) {
    raw.destroy();
    if (e instanceof CorebError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (gzip && typeof code === 'string' && code.startsWith('Z_')) {
      throw new CorebError('PARSE', `not a valid gzip stream (${(e as Error).message}); re-compress it or give the plain file`, {
        file: path,
        cause: e,
      });
    }
    throw ioError(path, e);
  }
  if (pending.length > 0) emit(pending.join(''));
  return scan;
}

/**
 * Where a line of a plain file lies: its first byte and its length in bytes, without the `\n` and
 * without a `\r` before it.
 */
export interface LineSpan {
  at: number;
  bytes: number;
}

/**
 * Streams a plain (not gzip) UTF-8 text file line by line as {@link forEachLine} does, and also
 * gives each line's byte span in the file, so a caller can keep the spans and read a line again
 * later without holding its text. Lines are found as bytes (`\n`), each span of complete lines is
 * checked as UTF-8 in one call, and each line is decoded on its own; a read buffer of 4 MiB is
 * reused (a longer line grows it).
 * @param onLine called with the line text (no `\n`, no `\r` before it), its 1-based number and its span.
 * @throws CorebError `NOT_FOUND` / `IO` when unreadable; `USAGE` when the file is gzip (no byte
 * spans in a compressed file: use {@link forEachLine}); `PARSE` (with `line`) for invalid UTF-8,
 * after the lines before it were delivered; `INTERRUPTED` when `signal` aborts.
 */
export async function forEachLineAt(
  path: string,
  onLine: (text: string, line: number, span: LineSpan) => void,
  signal?: AbortSignal,
): Promise<LineScan> {
  signal?.throwIfAborted();
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw ioError(path, e);
  }
  const scan: LineScan = { lines: 0, bom: false, gzip: false, firstCrlfLine: 0 };
  const turns = new EventLoopTurns(signal);
  const span: LineSpan = { at: 0, bytes: 0 };
  try {
    let buf = Buffer.allocUnsafe(4 << 20);
    // buf[0, have) holds the file's bytes from `base` on; lines before `base` were delivered.
    let base = 0;
    let have = 0;
    let eof = false;
    const deliver = (s: number, e: number): void => {
      scan.lines++;
      let end = e;
      if (end > s && buf[end - 1] === 13) {
        end--;
        if (scan.firstCrlfLine === 0) scan.firstCrlfLine = scan.lines;
      }
      span.at = base + s;
      span.bytes = end - s;
      onLine(buf.toString('utf8', s, end), scan.lines, span);
    };
    const badUtf8 = (s: number, e: number): never => {
      // Find the line that holds the bad bytes, delivering the good ones before it.
      for (let nl = buf.indexOf(10, s); s < e; nl = buf.indexOf(10, s)) {
        const stop = nl < 0 || nl > e ? e : nl;
        if (!isUtf8(buf.subarray(s, stop))) break;
        deliver(s, stop);
        s = stop + 1;
      }
      throw invalidUtf8(path, scan.lines + 1);
    };
    for (;;) {
      if (!eof) {
        if (have === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, have);
          buf = bigger;
        }
        const { bytesRead } = await fh.read(buf, have, buf.length - have, base + have);
        if (bytesRead === 0) eof = true;
        have += bytesRead;
      }
      let s = 0;
      if (base === 0 && scan.lines === 0) {
        if (isGzip(buf.subarray(0, have))) {
          throw new CorebError('USAGE', 'is gzip-compressed: its lines have no byte offsets in the file; read it with forEachLine', { file: path });
        }
        if (have >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
          scan.bom = true;
          s = 3;
        }
      }
      // The complete lines: up to the last newline, or to the end of the file.
      const last = eof ? have : buf.lastIndexOf(10, have - 1);
      if (last >= s) {
        if (!isUtf8(buf.subarray(s, last))) badUtf8(s, last);
        for (let nl = buf.indexOf(10, s); nl >= 0 && nl < last; nl = buf.indexOf(10, s)) {
          deliver(s, nl);
          s = nl + 1;
        }
        // The line that ends at the last newline (possibly empty), or the file's unterminated last line.
        if (!eof || s < have) deliver(s, last);
        s = last + 1;
      }
      if (eof) break;
      if (s > 0) {
        // Keep the unfinished line at the start of the buffer.
        if (s < have) buf.copy(buf, 0, s, have);
        base += s;
        have -= s;
      }
      if (turns.due()) await turns.take(() => `reading ${path} stopped at line ${scan.lines}`);
    }
  } catch (e) {
    if (e instanceof CorebError) throw e;
    throw ioError(path, e);
  } finally {
    await fh.close();
  }
  return scan;
}

/** Options of {@link readLineChunks}. */
export interface LineChunkOptions {
  /** Smallest chunk to deliver (bytes; the last may be shorter). Default 4 MiB (an abort waits for at most one chunk). */
  chunkBytes?: number;
  /** Checked between chunks: an aborted signal stops the read with its reason. */
  signal?: AbortSignal;
  /** Given every piece of the file's bytes as read, before gunzip (e.g. to hash the file in the same pass). */
  onBytes?: (bytes: Uint8Array) => void;
}

/**
 * Reads a file (plain or gzip, detected by content) as chunks of whole lines: every chunk but the
 * last ends with `\n` (the last is given one when the file lacks it), a line is never split, and
 * no chunk is kept after the next is read, so files of any size (past 2 GiB, past the 4 GiB Buffer
 * limit) stream with memory for one chunk. The event loop turns between chunks, so signals are
 * handled while a big file is read.
 * @throws CorebError `NOT_FOUND` / `IO` when unreadable, `PARSE` for a corrupt gzip stream.
 */
export async function* readLineChunks(path: string, options: LineChunkOptions = {}): AsyncGenerator<Buffer> {
  const target = options.chunkBytes ?? 1 << 22;
  const { signal, onBytes } = options;
  signal?.throwIfAborted();
  // One open, sniffed from the first bytes read, so a pipe (`--run <(zcat run.gz)`) works too.
  const raw = createReadStream(path, { highWaterMark: target });
  let gunzip: Transform | undefined;
  const stop = (): void => {
    const reason = signal?.reason as Error;
    raw.destroy(reason);
    gunzip?.destroy(reason);
  };
  signal?.addEventListener('abort', stop, { once: true });
  const bytes = async function* (): AsyncGenerator<Uint8Array> {
    const it = raw[Symbol.asyncIterator]();
    const head: Buffer[] = [];
    let headLen = 0;
    for (;;) {
      const next = await it.next();
      if (next.done) break;
      onBytes?.(next.value as Buffer);
      head.push(next.value as Buffer);
      headLen += (next.value as Buffer).length;
      if (headLen >= 2) break;
    }
    // Usually one piece (the read size is far over 2 bytes): no copy.
    const first = head.length === 1 ? head[0] : Buffer.concat(head, headLen);
    const rest = async function* (): AsyncGenerator<Buffer> {
      yield first;
      for (;;) {
        const next = await it.next();
        if (next.done) return;
        onBytes?.(next.value as Buffer);
        yield next.value as Buffer;
      }
    };
    if (!isGzip(first)) {
      yield* rest();
      return;
    }
    const gz = createGunzip({ chunkSize: 1 << 20 });
    gunzip = gz;
    pipeline(Readable.from(rest()), gz, () => undefined);
    yield* gz;
  };
  try {
    yield* lineChunks(bytes(), target, signal, (e) => {
      raw.destroy();
      if (signal?.aborted === true && e === signal.reason) return e;
      if (e instanceof CorebError) return e;
      const code = (e as NodeJS.ErrnoException).code;
      if (typeof code === 'string' && code.startsWith('Z_')) {
        return new CorebError('PARSE', `not a valid gzip stream (${(e as Error).message}); re-compress it or give the plain file`, {
          file: path,
          cause: e,
        });
      }
      return ioError(path, e);
    });
  } finally {
    signal?.removeEventListener('abort', stop);
    raw.destroy();
    gunzip?.destroy();
  }
}

/**
 * Regroups a byte stream into chunks of whole lines of at least `target` bytes (see
 * {@link readLineChunks}); `onError` maps a failure of the source to the error thrown.
 */
/** `read`, or a rejection with the signal's reason as soon as `signal` aborts (the read is left to settle). */
function raceAbort<T>(read: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    read.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

export async function* lineChunks(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  target = 1 << 24,
  signal?: AbortSignal,
  onError: (e: unknown) => unknown = (e) => e,
): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  // A read that stalls (a pipe whose writer went quiet) must not delay an abort: each wait races it,
  // with a listener of its own removed when the read settles (racing one long-lived promise instead
  // would keep every chunk read reachable from it, memory growing with the file).
  const iter =
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
      : (source as Iterable<Uint8Array>)[Symbol.iterator]();
  try {
    for (;;) {
      const next = signal === undefined ? await iter.next() : await raceAbort(Promise.resolve(iter.next()), signal);
      if (next.done === true) break;
      const piece = next.value;
      signal?.throwIfAborted();
      const b = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      if (b.length === 0) continue;
      parts.push(b);
      held += b.length;
      if (held < target) continue;
      const last = b.lastIndexOf(10);
      if (last < 0) continue;
      const before = held - b.length;
      const rest = b.subarray(last + 1);
      if (parts.length === 1) yield b.subarray(0, last + 1);
      else if (before < b.length >> 2) {
        // A small carried part (the end of the last piece's last line): joined with this piece's
        // first line only, and the rest of the piece given as it is, so a big piece is not copied.
        const nl = b.indexOf(10);
        parts[parts.length - 1] = b.subarray(0, nl + 1);
        yield Buffer.concat(parts, before + nl + 1);
        if (nl < last) yield b.subarray(nl + 1, last + 1);
      } else yield Buffer.concat(parts, held).subarray(0, before + last + 1);
      parts = rest.length > 0 ? [Buffer.from(rest)] : [];
      held = rest.length;
    }
  } catch (e) {
    void iter.return?.();
    throw onError(e);
  }
  signal?.throwIfAborted();
  if (held === 0) return;
  const tail = Buffer.concat(parts, held);
  yield tail[tail.length - 1] === 10 ? tail : Buffer.concat([tail, Buffer.from([10])]);
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
