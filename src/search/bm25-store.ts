/**
 * The on-disk form of a BM25 index: a versioned, checksummed binary encoding of the corpus-derived
 * arrays ({@link Bm25IndexData}), keyed by a hash of the corpus and the parameters that shape them,
 * so a store can hand an index back to a later run instead of rebuilding it. Pure: bytes in, bytes
 * out; where the bytes live is the store's business ({@link Bm25IndexStore}).
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Doc } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { Bm25IndexData, ResolvedBm25Options } from './bm25-types.js';
import { EventLoopTurns, runSteps, runStepsAsync } from './common.js';

/**
 * Where stored indexes live: bytes under a key. Implemented on files by the cache layer
 * (`openIndexFileStore`). Both methods read or write in slices and stop between two slices when
 * `signal` aborts (rejecting with `INTERRUPTED`), and a save interrupted at any point (even by a
 * kill) never leaves a half-written index under `key`.
 */
export interface Bm25IndexStore {
  /** The stored bytes of `key` and where they came from (a file name, for messages), or undefined. */
  load(key: string, options?: { signal?: AbortSignal }): Promise<{ bytes: Uint8Array; where: string } | undefined>;
  /** Stores `chunks` (concatenated) under `key`, atomically; resolves to where. */
  save(key: string, chunks: readonly Uint8Array[], options?: { signal?: AbortSignal }): Promise<string>;
}

/** Format version; a change of layout or of what the arrays mean gets a new one (older files are rebuilt). */
export const BM25_INDEX_FORMAT = 1;
/** `CBM25IX` + NUL. */
const MAGIC = Buffer.from('CBM25IX\0', 'latin1');

/** UTF-16 code units of corpus text gathered before one hash update in {@link bm25IndexKey}. */
const KEY_CHUNK_CHARS = 1 << 20;

/**
 * The store key of an index of `docs` under `options`: SHA-256 (hex) over the format version, the
 * parameters that change the stored arrays (indexed fields and every tokeniser option; not k1, b,
 * the query-side options or RM3, which are applied when the index is loaded) and, per document, its
 * id and indexed field texts (each preceded by NUL separators). One pass of hashing over the corpus
 * text, fed to the hash in slices of about a million characters, giving the event loop a turn every
 * `run.yieldMs` milliseconds (default 50) so `run.signal` stops it.
 * @param run.onDocs called with the number of documents hashed so far at each turn.
 * @throws CorebError `INTERRUPTED` when `run.signal` aborts.
 */
export async function bm25IndexKey(
  docs: readonly Doc[],
  options: ResolvedBm25Options,
  run: { signal?: AbortSignal; yieldMs?: number; onDocs?: (done: number) => void } = {},
): Promise<string> {
  const h = createHash('sha256');
  const params = {
    format: BM25_INDEX_FORMAT,
    fields: options.fields,
    stopwords: options.stopwords,
    splitIdentifiers: options.splitIdentifiers,
    keepWhole: options.keepWhole,
    minLength: options.minLength,
    keepNumbers: options.keepNumbers,
    stem: options.stem,
  };
  h.update(JSON.stringify(params));
  const turns = new EventLoopTurns(run.signal, run.yieldMs);
  // Separators keep adjacent texts apart, so hashing them joined gives the bytes of one update each.
  let pending = '';
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d];
    pending += `\0\0${doc.id}`;
    for (const f of options.fields) {
      const v = f === 'text' ? doc.text : f === 'title' ? doc.title : f.startsWith('meta.') ? doc.meta?.[f.slice(5)] : undefined;
      pending += '\0';
      if (typeof v === 'string') pending += v;
    }
    if (pending.length >= KEY_CHUNK_CHARS) {
      h.update(pending);
      pending = '';
      if (turns.due()) {
        run.onDocs?.(d + 1);
        await turns.take(() => `hashing the corpus for the bm25 index stopped after ${d + 1} of ${docs.length} documents`);
      }
    }
  }
  h.update(pending);
  return h.digest('hex');
}

/** Header of an encoded index (JSON after the magic). */
interface Header {
  format: number;
  key: string;
  docs: number;
  terms: number;
  postings: number;
  /** Bytes of the JSON array of document ids. */
  idBytes: number;
  /** Bytes of the newline-joined terms. */
  termBytes: number;
  /** Term frequencies stored as uint16 (all < 65536) or int32. */
  tf16: boolean;
}

const pad4 = (n: number): number => (4 - (n % 4)) % 4;

/**
 * Encodes index data for key `key`: magic, header length (u32 LE), JSON header, then 4-byte
 * aligned sections (document ids as a JSON array, terms joined by `\n` — terms never contain one —,
 * document lengths, document frequencies, term starts, posting documents (int32), posting term
 * frequencies (uint16 when all fit, else int32)), then the CRC-32 of everything before it (u32 LE).
 * Returns chunks to write in order (the typed arrays are not copied).
 */
export function encodeBm25IndexData(data: Bm25IndexData, key: string): Uint8Array[] {
  const postingTf = data.postingTf;
  if (postingTf === undefined) {
    throw new CorebError('USAGE', 'bm25: index data built with searchOnly has no term frequencies and cannot be stored; build it again without');
  }
  const ids = Buffer.from(JSON.stringify(data.docIds), 'utf8');
  const terms = Buffer.from(data.terms.join('\n'), 'utf8');
  let maxTf = 0;
  if (!(postingTf instanceof Uint16Array)) for (let i = 0; i < postingTf.length; i++) if (postingTf[i] > maxTf) maxTf = postingTf[i];
  const tf16 = maxTf < 65536;
  const header: Header = {
    format: BM25_INDEX_FORMAT,
    key,
    docs: data.docIds.length,
    terms: data.terms.length,
    postings: data.postingDocs.length,
    idBytes: ids.length,
    termBytes: terms.length,
    tf16,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(MAGIC.length + 4);
  MAGIC.copy(head);
  head.writeUInt32LE(json.length + pad4(MAGIC.length + 4 + json.length), MAGIC.length);
  const bytesOf = (a: Int32Array | Uint16Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const chunks: Uint8Array[] = [head, json, Buffer.alloc(pad4(head.length + json.length), 0x20)];
  chunks.push(ids, Buffer.alloc(pad4(ids.length)), terms, Buffer.alloc(pad4(terms.length)));
  chunks.push(bytesOf(data.docLengths), bytesOf(data.documentFrequency), bytesOf(data.termStart), bytesOf(data.postingDocs));
  const tf = !tf16 || postingTf instanceof Uint16Array ? postingTf : Uint16Array.from(postingTf);
  chunks.push(bytesOf(tf), Buffer.alloc(pad4(tf.byteLength)));
  let crc = 0;
  for (const c of chunks) crc = crc32(c, crc);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc >>> 0);
  chunks.push(tail);
  return chunks;
}

/**
 * Decodes bytes written by {@link encodeBm25IndexData}, checking the magic, the format version, the
 * key, the section sizes, the CRC-32 of all the bytes (zlib's, about 5 GB/s) and the arrays'
 * structure: term starts that span the postings in order and agree with the document frequencies,
 * every posting's document in range, lengths not negative. The int32 sections are views on
 * `bytes` when aligned (no copy).
 * @throws CorebError `VALIDATION` saying what does not match (the caller rebuilds the index).
 */
export function decodeBm25IndexData(bytes: Uint8Array, key: string): Bm25IndexData {
  return runSteps(decodeSteps(bytes, key));
}

/**
 * {@link decodeBm25IndexData} in steps, giving the event loop a turn every `run.yieldMs`
 * milliseconds (default 50) so `run.signal` stops it. Same result.
 * @throws CorebError `VALIDATION` as {@link decodeBm25IndexData}; `INTERRUPTED` when `run.signal` aborts.
 */
export function decodeBm25IndexDataAsync(
  bytes: Uint8Array,
  key: string,
  run: { signal?: AbortSignal; yieldMs?: number } = {},
): Promise<Bm25IndexData> {
  return runStepsAsync(decodeSteps(bytes, key), run, () => 'reading the stored bm25 index stopped');
}

/** Array elements checked between two yields of {@link decodeSteps}. */
const CHECK_STEP = 1 << 22;

/** The decoding of {@link decodeBm25IndexData}, yielding between sections and every {@link CHECK_STEP} elements checked. */
function* decodeSteps(bytes: Uint8Array, key: string): Generator<void, Bm25IndexData, void> {
  const bad = (what: string): never => {
    throw new CorebError('VALIDATION', `stored BM25 index: ${what}`);
  };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < MAGIC.length + 8 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) bad('not a coreb BM25 index file (magic bytes differ)');
  const jsonLength = buf.readUInt32LE(MAGIC.length);
  let start = MAGIC.length + 4 + jsonLength;
  if (start > buf.length - 4) bad(`header length ${jsonLength} runs past the end of the ${buf.length} bytes`);
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', MAGIC.length + 4, start)) as Header;
  } catch (e) {
    return bad(`header is not JSON (${(e as Error).message})`);
  }
  if (h.format !== BM25_INDEX_FORMAT) bad(`format ${h.format}, this coreb reads format ${BM25_INDEX_FORMAT}`);
  if (h.key !== key) bad(`built for key ${String(h.key).slice(0, 12)}, expected ${key.slice(0, 12)} (another corpus or other parameters)`);
  const { docs: n, terms: v, postings: p } = h;
  for (const [name, x] of Object.entries({ docs: n, terms: v, postings: p, idBytes: h.idBytes, termBytes: h.termBytes })) {
    if (!Number.isSafeInteger(x) || x < 0) bad(`header field ${name} is ${String(x)}, expected an integer >= 0`);
  }
  const expected =
    start + h.idBytes + pad4(h.idBytes) + h.termBytes + pad4(h.termBytes) + 4 * (n + v + v + 1 + p) + (h.tf16 ? 2 * p + pad4(2 * p) : 4 * p) + 4;
  if (buf.length !== expected) bad(`${buf.length} bytes, the header describes ${expected} (truncated or overwritten)`);
  let crc = 0;
  for (let at = 0, end = buf.length - 4; at < end; at += 64 * CHECK_STEP) {
    crc = crc32(buf.subarray(at, Math.min(end, at + 64 * CHECK_STEP)), crc);
    yield;
  }
  if (crc >>> 0 !== buf.readUInt32LE(buf.length - 4)) bad('checksum mismatch (the file is corrupt)');
  const take = (length: number): Buffer => {
    const out = buf.subarray(start, start + length);
    start += length + pad4(length);
    return out;
  };
  const int32 = (count: number): Int32Array => {
    const b = take(4 * count);
    return (b.byteOffset & 3) === 0 ? new Int32Array(b.buffer, b.byteOffset, count) : new Int32Array(new Uint8Array(b).buffer);
  };
  let docIds: string[];
  try {
    docIds = JSON.parse(take(h.idBytes).toString('utf8')) as string[];
  } catch (e) {
    return bad(`document ids are not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(docIds) || docIds.length !== n) bad(`${docIds.length} document ids, header says ${n}`);
  yield;
  const termText = take(h.termBytes).toString('utf8');
  const terms = v === 0 ? [] : termText.split('\n');
  if (terms.length !== v) bad(`${terms.length} terms, header says ${v}`);
  yield;
  const docLengths = int32(n);
  const documentFrequency = int32(v);
  const termStart = int32(v + 1);
  const postingDocs = int32(p);
  let postingTf: Uint16Array | Int32Array;
  if (h.tf16) {
    const b = take(2 * p);
    postingTf = (b.byteOffset & 1) === 0 ? new Uint16Array(b.buffer, b.byteOffset, p) : new Uint16Array(new Uint8Array(b).buffer);
  } else {
    postingTf = int32(p);
  }
  yield;
  if (termStart[0] !== 0 || termStart[v] !== p) bad('term starts do not span the postings');
  for (let t = 0; t < v; t++) {
    if (documentFrequency[t] < 0 || termStart[t + 1] - termStart[t] !== documentFrequency[t])
      bad(`term ${t}: document frequency differs from its postings`);
  }
  for (let d = 0; d < n; d++) if (docLengths[d] < 0) bad(`document ${d}: negative length ${docLengths[d]}`);
  yield;
  for (let i = 0; i < p; i++) {
    if (postingDocs[i] >>> 0 >= n) bad(`posting ${i}: document ${postingDocs[i]} out of range`);
    if ((i & (CHECK_STEP - 1)) === CHECK_STEP - 1) yield;
  }
  return { docIds, terms, documentFrequency, docLengths, termStart, postingDocs, postingTf };
}
