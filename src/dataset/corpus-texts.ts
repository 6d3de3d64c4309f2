/**
 * Corpus texts left in their JSONL file. A million-document corpus is mostly text (1.35 GB for the
 * code corpus of bench/search-bm25-scale.ts), and most retrievers read each text once, to index or
 * embed it; so a large plain `corpus.jsonl` is loaded as ids, titles and byte spans, and each
 * `doc.text` is read again from the file when it is asked for (a reranker's candidates, a report's
 * snippet, an index build reading them in order).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Doc } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { parseJsonLenient } from './jsonl.js';
import type { LineSpan } from './text-file.js';

/** Bytes read ahead of a text when texts are asked for in file order (256 KiB). */
const READ_AHEAD = 256 << 10;

/** The row of a file-backed document, in its {@link CorpusTextFile}. */
const ROW = Symbol('coreb.corpusRow');

const closeLater = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/**
 * The texts of one JSONL corpus file, by row: each row's line span (byte offset and length), its
 * line number and its id. {@link docAt} makes the documents whose `text` reads through it.
 */
export class CorpusTextFile {
  private at = new Float64Array(1024);
  private bytes = new Uint32Array(1024);
  private lines = new Uint32Array(1024);
  private n = 0;
  private fd = -1;
  private buf = Buffer.allocUnsafe(READ_AHEAD);
  /** The file's bytes [bufAt, bufAt + bufLen) are in `buf`. */
  private bufAt = 0;
  private bufLen = 0;
  private lastRow = -2;
  private readonly getter: PropertyDescriptor;

  /**
   * @param file the JSONL file (plain, not gzip).
   * @param size its size in bytes when it was read; a file of another size or modification time
   * when the first text is read again is refused (CorebError `IO`).
   * @param mtimeMs its modification time then (ms).
   */
  constructor(
    readonly file: string,
    private readonly size: number,
    private readonly mtimeMs: number,
  ) {
    const texts = this;
    this.getter = {
      get(this: Doc & { [ROW]: number }): string {
        return texts.text(this[ROW], this.id);
      },
      enumerable: true,
      configurable: true,
    };
  }

  /**
   * A document whose `text` is read from `span` of the file when asked for; `id` is checked
   * against the line's `_id` at each read. The object has its own enumerable `text` (a getter),
   * so `JSON.stringify` and spreading see the text (a
   * spread copy holds the text itself).
   */
  docAt(id: string, span: LineSpan, line: number): Doc {
    const row = this.add(span, line);
    const doc = { id } as Doc;
    // Not enumerable: a spread copy holds the text itself, not the row.
    Object.defineProperty(doc, ROW, { value: row, enumerable: false, writable: false, configurable: false });
    Object.defineProperty(doc, 'text', this.getter);
    return doc;
  }

  private add(span: LineSpan, line: number): number {
    if (this.n === this.at.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.at = grow(this.at);
      this.bytes = grow(this.bytes);
      this.lines = grow(this.lines);
    }
    this.at[this.n] = span.at;
    this.bytes[this.n] = span.bytes;
    this.lines[this.n] = line;
    return this.n++;
  }

  /**
   * The text of `row`, read from the file: one `pread` of its line, or of the next 256 KiB when rows
   * are read in file order.
   * @throws CorebError `IO` when the file is gone, changed since it was loaded, or the line no
   * longer holds document `id`.
   */
  text(row: number, id: string): string {
    const at = this.at[row];
    const n = this.bytes[row];
    if (at < this.bufAt || at + n > this.bufAt + this.bufLen) {
      const fd = this.open();
      const want = row === this.lastRow + 1 ? Math.max(READ_AHEAD, n) : n;
      if (want > this.buf.length) this.buf = Buffer.allocUnsafe(want);
      let got = 0;
      while (got < want) {
        const r = readSync(fd, this.buf, got, want - got, at + got);
        if (r === 0) break;
        got += r;
      }
      this.bufAt = at;
      this.bufLen = got;
      if (got < n) throw this.changed(row, 'it is shorter');
    }
    this.lastRow = row;
    const s = at - this.bufAt;
    let value: unknown;
    try {
      value = parseJsonLenient(this.buf.toString('utf8', s, s + n));
    } catch {
      throw this.changed(row, 'the line is no longer a JSON record');
    }
    const rec = value as { _id?: unknown; text?: unknown } | null;
    if (rec === null || typeof rec !== 'object' || String(rec._id) !== id || typeof rec.text !== 'string') {
      throw this.changed(row, `the line no longer holds document \`${id}\``);
    }
    return rec.text;
  }

  private open(): number {
    if (this.fd >= 0) return this.fd;
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (e) {
      throw new CorebError(
        'IO',
        `cannot read the corpus texts again (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the texts stay in the file while the run needs them`,
        {
          file: this.file,
          cause: e,
        },
      );
    }
    const st = fstatSync(fd);
    if (st.size !== this.size || st.mtimeMs !== this.mtimeMs) {
      closeSync(fd);
      throw new CorebError(
        'IO',
        `changed since it was loaded (${this.size} bytes then, ${st.size} now); the texts stay in the file while the run needs them, so leave it as it is until the run ends`,
        {
          file: this.file,
        },
      );
    }
    this.fd = fd;
    closeLater.register(this, fd);
    return fd;
  }

  private changed(row: number, what: string): CorebError {
    return new CorebError(
      'IO',
      `changed since it was loaded: ${what}; the texts stay in the file while the run needs them, so leave it as it is until the run ends`,
      {
        file: this.file,
        line: this.lines[row],
        field: 'text',
      },
    );
  }
}

/** True when `doc`'s text is read from its file when asked for (see {@link CorpusTextFile}). */
export function isFileBackedDoc(doc: Doc): boolean {
  return (doc as { [ROW]?: number })[ROW] !== undefined;
}
