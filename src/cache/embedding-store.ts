/**
 * A persistent, content-addressed store of embedding vectors on plain files: append-only segment
 * files of checksummed records (one writer per segment, so processes never interleave), an index
 * in memory, torn tails ignored on open. Survives kill -9 at any point: a record is either whole
 * and verified or ignored.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  appendFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { CorebError } from '../core/errors.js';
import { processAlive } from '../core/process-alive.js';

/** Record magic `CEB1` (little-endian u32). */
const MAGIC = 0x31424543;
/** magic u32 | payload length u32 | crc32(payload) u32 */
const HEADER = 12;
/** namespace 16 | key 32 | writtenAt f64 (ms since epoch) | dim u32 */
const FIXED = 16 + 32 + 8 + 4;
/** Store format version; a new layout gets a new folder. */
const LAYOUT = 'embeddings-v1';
const SEGMENT_EXT = '.ceb';
/** A writer starts a new segment past this size (bytes). */
const MAX_SEGMENT_BYTES = 512 * 1024 * 1024;

/** Where one record's payload lives. */
interface Loc {
  seg: number;
  /** Byte offset of the payload. */
  off: number;
  len: number;
  dim: number;
  ns: string;
  writtenAt: number;
}

/** Counts from opening and using a store. */
export interface StoreStats {
  dir: string;
  segments: number;
  bytes: number;
  /** Valid records read on open plus records written since. */
  records: number;
  /** Distinct keys (the latest record of a key wins). */
  keys: number;
  /** Incomplete records at segment ends (interrupted writes), ignored. */
  tornTails: number;
  /** Records dropped because their checksum or framing was wrong. */
  corrupt: number;
  /** Distinct keys per namespace (hex), with the namespace's identity when known. */
  namespaces: { ns: string; keys: number; bytes: number; identity?: Record<string, unknown> }[];
}

/** Options of {@link openEmbeddingStore}. */
export interface OpenStoreOptions {
  /**
   * fdatasync written records at most this often (ms) and on close. Every flush is written to
   * the file at once, which already survives kill -9; syncing bounds what a power loss can take.
   * 0 = sync on every flush. Default 1000.
   */
  syncIntervalMs?: number;
  /**
   * Folder name under the cache root: `embeddings-v1` (default) or another store of the same
   * record format (e.g. `rerank-scores-v1`, see rerank-cache.ts).
   */
  layout?: string;
}

/** An open store. Not safe for concurrent use from several threads; several processes are fine. */
export interface EmbeddingStore {
  readonly dir: string;
  /** The vector stored under `key` (32 bytes), or undefined (also when its checksum fails). */
  get(key: Uint8Array): Float32Array | undefined;
  has(key: Uint8Array): boolean;
  /** Queues a record; written by the next {@link EmbeddingStore.flush}. */
  put(ns: Uint8Array, key: Uint8Array, vector: Float32Array): void;
  /** Writes queued records in one append (synced per `syncIntervalMs`). */
  flush(): void;
  /** Records the identity behind a namespace id (for stats and prune filters). Idempotent. */
  registerNamespace(ns: Uint8Array, identity: Record<string, unknown>): void;
  stats(): StoreStats;
  /** Flushes and closes. */
  close(): void;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** The folder of the store under cache root `root` (`<root>/embeddings-v1`, or `layout`); creates nothing. */
export function embeddingStoreDir(root: string, layout: string = LAYOUT): string {
  return join(root, layout);
}

function listSegments(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(SEGMENT_EXT))
    .sort();
}

/** Total size in bytes of the segment files `names` of `dir`. */
function segmentBytes(dir: string, names: readonly string[]): number {
  let bytes = 0;
  for (const name of names) bytes += statSync(join(dir, name)).size;
  return bytes;
}

function readNamespaces(dir: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const file = join(dir, 'namespaces.jsonl');
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const rec = JSON.parse(line) as { ns?: string; identity?: Record<string, unknown> };
      if (typeof rec.ns === 'string' && rec.identity) out.set(rec.ns, rec.identity);
    } catch {
      // a torn last line from an interrupted append: ignored, rewritten on next registration
    }
  }
  return out;
}

interface ScanResult {
  tornTails: number;
  corrupt: number;
  records: number;
}

/**
 * Walks the records of one segment, calling `visit` with each well-framed record's location.
 * Stops at the first incomplete or unframed record (a torn tail or garbage), counting it.
 */
function scanSegment(fd: number, seg: number, visit: (loc: Loc, key: string) => void): ScanResult {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(HEADER + FIXED);
  let off = 0;
  const r: ScanResult = { tornTails: 0, corrupt: 0, records: 0 };
  while (off < size) {
    if (size - off < HEADER + FIXED) {
      r.tornTails++;
      break;
    }
    readSync(fd, head, 0, HEADER + FIXED, off);
    const magic = head.readUInt32LE(0);
    const len = head.readUInt32LE(4);
    if (magic !== MAGIC || len < FIXED) {
      r.corrupt++;
      break;
    }
    if (off + HEADER + len > size) {
      r.tornTails++;
      break;
    }
    const dim = head.readUInt32LE(HEADER + 56);
    if (FIXED + dim * 4 !== len) {
      r.corrupt++;
      break;
    }
    const ns = head.subarray(HEADER, HEADER + 16).toString('hex');
    const key = head.subarray(HEADER + 16, HEADER + 48).toString('hex');
    const writtenAt = head.readDoubleLE(HEADER + 48);
    visit({ seg, off: off + HEADER, len, dim, ns, writtenAt }, key);
    r.records++;
    off += HEADER + len;
  }
  return r;
}

/** Encodes one record (header + payload). */
function encodeRecord(ns: Uint8Array, key: Uint8Array, vector: Float32Array, writtenAt: number): Buffer {
  const len = FIXED + vector.length * 4;
  const buf = Buffer.alloc(HEADER + len);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(len, 4);
  buf.set(ns.subarray(0, 16), HEADER);
  buf.set(key.subarray(0, 32), HEADER + 16);
  buf.writeDoubleLE(writtenAt, HEADER + 48);
  buf.writeUInt32LE(vector.length, HEADER + 56);
  Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(buf, HEADER + FIXED);
  buf.writeUInt32LE(crc32(buf.subarray(HEADER)), 8);
  return buf;
}

let segmentCounter = 0;

/**
 * `seg-<ms since epoch, 13 digits>-<pid>-<counter>-<random>.ceb`: names sort by creation time,
 * and within one process by creation order, so a scan in name order meets later writes last.
 */
function newSegmentName(): string {
  const ms = String(Date.now()).padStart(13, '0');
  const n = String(segmentCounter++).padStart(6, '0');
  return `seg-${ms}-${process.pid}-${n}-${randomBytes(4).toString('hex')}${SEGMENT_EXT}`;
}

/** True when the process that owns segment `name` (pid in its name) is alive and not us. */
function ownedByLiveProcess(name: string): boolean {
  const m = /^seg-\d{13}-(\d+)-/.exec(name);
  if (m === null) return false;
  const pid = Number(m[1]);
  return pid !== process.pid && processAlive(pid);
}

/**
 * Opens (creating if needed) the store under `root` (`<root>/embeddings-v1/`) and indexes every
 * segment. Cost: one small read per record; vectors are read on demand.
 */
export function openEmbeddingStore(root: string, options: OpenStoreOptions = {}): EmbeddingStore {
  const syncIntervalMs = options.syncIntervalMs ?? 1000;
  let lastSync = 0;
  let unsynced = false;
  const dir = embeddingStoreDir(root, options.layout);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new CorebError('CACHE', `cannot create cache directory ${dir}: ${(e as Error).message}; set COREB_CACHE_DIR to a writable folder`, {
      cause: e,
    });
  }
  const names = listSegments(dir);
  const fds: number[] = [];
  const index = new Map<string, Loc>();
  let tornTails = 0;
  let corrupt = 0;
  let records = 0;
  names.forEach((name, seg) => {
    const fd = openSync(join(dir, name), 'r');
    fds.push(fd);
    const r = scanSegment(fd, seg, (loc, key) => {
      const prev = index.get(key);
      if (prev === undefined || loc.writtenAt >= prev.writtenAt) index.set(key, loc);
    });
    tornTails += r.tornTails;
    corrupt += r.corrupt;
    records += r.records;
  });
  const namespaces = readNamespaces(dir);
  let writeFd = -1;
  let writeSeg = -1;
  let writeSize = 0;
  let pending: Buffer[] = [];
  let pendingLocs: { key: string; loc: Omit<Loc, 'seg' | 'off'>; rel: number }[] = [];
  let pendingBytes = 0;
  let closed = false;

  const openWriter = (): void => {
    const name = newSegmentName();
    writeFd = openSync(join(dir, name), 'a+');
    names.push(name);
    fds.push(writeFd);
    writeSeg = fds.length - 1;
    writeSize = 0;
  };

  const read = (loc: Loc): Float32Array | undefined => {
    const buf = Buffer.alloc(loc.len);
    const n = readSync(fds[loc.seg], buf, 0, loc.len, loc.off);
    if (n !== loc.len) return undefined;
    const crc = Buffer.alloc(4);
    readSync(fds[loc.seg], crc, 0, 4, loc.off - 4);
    if (crc.readUInt32LE(0) !== crc32(buf)) return undefined;
    const out = new Float32Array(loc.dim);
    Buffer.from(out.buffer).set(buf.subarray(FIXED));
    return out;
  };

  const store: EmbeddingStore = {
    dir,
    get(key) {
      const k = hex(key);
      const loc = index.get(k);
      if (loc === undefined) return undefined;
      if (loc.seg < 0) {
        store.flush();
        return store.get(key);
      }
      const v = read(loc);
      if (v === undefined) {
        index.delete(k);
        corrupt++;
      }
      return v;
    },
    has(key) {
      return index.has(hex(key));
    },
    put(ns, key, vector) {
      if (closed) throw new CorebError('INTERNAL', `cache store ${dir} used after close`);
      const writtenAt = Date.now();
      const rec = encodeRecord(ns, key, vector, writtenAt);
      const k = hex(key);
      const loc = { len: rec.length - HEADER, dim: vector.length, ns: hex(ns.subarray(0, 16)), writtenAt };
      pendingLocs.push({ key: k, loc, rel: pendingBytes });
      pending.push(rec);
      pendingBytes += rec.length;
      // Not yet on disk: `get` flushes first (seg -1).
      index.set(k, { ...loc, seg: -1, off: -1 });
    },
    flush() {
      if (pending.length === 0) return;
      if (writeFd < 0 || writeSize > MAX_SEGMENT_BYTES) openWriter();
      const buf = Buffer.concat(pending);
      try {
        let done = 0;
        while (done < buf.length) done += writeSync(writeFd, buf, done, buf.length - done);
        unsynced = true;
        const now = performance.now();
        if (now - lastSync >= syncIntervalMs) {
          fdatasyncSync(writeFd);
          lastSync = now;
          unsynced = false;
        }
      } catch (e) {
        throw new CorebError('CACHE', `cannot write to cache ${dir}: ${(e as Error).message}`, { cause: e });
      }
      for (const p of pendingLocs) {
        index.set(p.key, { ...p.loc, seg: writeSeg, off: writeSize + p.rel + HEADER });
      }
      records += pendingLocs.length;
      writeSize += buf.length;
      pending = [];
      pendingLocs = [];
      pendingBytes = 0;
    },
    registerNamespace(ns, identity) {
      const k = hex(ns.subarray(0, 16));
      if (namespaces.has(k)) return;
      namespaces.set(k, identity);
      const file = join(dir, 'namespaces.jsonl');
      try {
        appendFileSync(file, JSON.stringify({ ns: k, identity, firstSeen: new Date().toISOString() }) + '\n');
      } catch (e) {
        throw new CorebError(
          'CACHE',
          `cannot write to cache (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); free space or use --no-cache / another --cache-dir`,
          { file, cause: e },
        );
      }
    },
    stats() {
      const per = new Map<string, { keys: number; bytes: number }>();
      for (const loc of index.values()) {
        const e = per.get(loc.ns) ?? { keys: 0, bytes: 0 };
        e.keys++;
        e.bytes += loc.len + HEADER;
        per.set(loc.ns, e);
      }
      return {
        dir,
        segments: names.length,
        bytes: segmentBytes(dir, names),
        records,
        keys: index.size,
        tornTails,
        corrupt,
        namespaces: [...per.entries()].map(([ns, e]) => ({ ns, ...e, identity: namespaces.get(ns) })),
      };
    },
    close() {
      if (closed) return;
      store.flush();
      if (unsynced) fdatasyncSync(writeFd);
      closed = true;
      for (const fd of fds) closeSync(fd);
    },
  };
  return store;
}

/** What {@link pruneEmbeddingStore} removes. With no criterion, only duplicates and damage go. */
export interface PruneOptions {
  /** Drop records written before this time (ms since epoch). */
  writtenBefore?: number;
  /** Drop records whose namespace identity matches (e.g. `{ provider: 'openai', model: 'x' }`). */
  match?: Record<string, unknown>;
  /** Drop everything. */
  all?: boolean;
  /** Store folder under the root. Default `embeddings-v1`. */
  layout?: string;
}

/** What a prune did. */
export interface PruneReport {
  segmentsBefore: number;
  segmentsAfter: number;
  /** Segments left alone because a live process is still writing them. */
  segmentsBusy: number;
  bytesBefore: number;
  bytesAfter: number;
  kept: number;
  dropped: number;
}

/**
 * Compacts the store: rewrites every idle segment into one, keeping the latest valid record of
 * each key that no criterion drops. Crash-safe: the new segment is written to a temporary name,
 * synced and renamed before old segments are deleted (a crash leaves duplicates, never losses).
 */
export function pruneEmbeddingStore(root: string, options: PruneOptions = {}): PruneReport {
  const dir = embeddingStoreDir(root, options.layout);
  if (!existsSync(dir)) {
    return { segmentsBefore: 0, segmentsAfter: 0, segmentsBusy: 0, bytesBefore: 0, bytesAfter: 0, kept: 0, dropped: 0 };
  }
  // Leftovers of a prune that crashed before its rename: incomplete by definition.
  for (const f of readdirSync(dir)) if (f.endsWith(SEGMENT_EXT + '.tmp') && !ownedByLiveProcess(f)) unlinkSync(join(dir, f));
  const names = listSegments(dir);
  const busy = names.filter(ownedByLiveProcess);
  const idle = names.filter((n) => !busy.includes(n));
  const namespaces = readNamespaces(dir);
  const matches = (ns: string): boolean => {
    if (options.match === undefined) return false;
    const id = namespaces.get(ns);
    if (id === undefined) return false;
    return Object.entries(options.match).every(([k, v]) => String(id[k]) === String(v));
  };
  const bytesBefore = segmentBytes(dir, names);
  const latest = new Map<string, { fd: number; loc: Loc }>();
  const fds = idle.map((n) => openSync(join(dir, n), 'r'));
  idle.forEach((_, seg) => {
    scanSegment(fds[seg], seg, (loc, key) => {
      const prev = latest.get(key);
      if (prev === undefined || loc.writtenAt >= prev.loc.writtenAt) latest.set(key, { fd: fds[seg], loc });
    });
  });
  let kept = 0;
  let dropped = 0;
  const tmp = join(dir, newSegmentName() + '.tmp');
  const out = openSync(tmp, 'w');
  try {
    for (const { fd, loc } of latest.values()) {
      const drop = options.all === true || (options.writtenBefore !== undefined && loc.writtenAt < options.writtenBefore) || matches(loc.ns);
      const rec = Buffer.alloc(HEADER + loc.len);
      readSync(fd, rec, 0, HEADER + loc.len, loc.off - HEADER);
      if (drop || rec.readUInt32LE(8) !== crc32(rec.subarray(HEADER))) {
        dropped++;
        continue;
      }
      writeSync(out, rec);
      kept++;
    }
    fdatasyncSync(out);
  } finally {
    closeSync(out);
    for (const fd of fds) closeSync(fd);
  }
  if (kept > 0) renameSync(tmp, tmp.slice(0, -'.tmp'.length));
  else unlinkSync(tmp);
  for (const n of idle) unlinkSync(join(dir, n));
  const after = listSegments(dir);
  return {
    segmentsBefore: names.length,
    segmentsAfter: after.length,
    segmentsBusy: busy.length,
    bytesBefore,
    bytesAfter: segmentBytes(dir, after),
    kept,
    dropped,
  };
}
