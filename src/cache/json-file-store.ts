/**
 * A content-addressed store of JSON records, one file per key under
 * `<root>/<layout>/<2 hex>/<key>.json`, each written to a temporary name, synced and renamed, so a
 * process killed at any moment leaves a record whole or absent. The chat reply cache and the judge's
 * verdict cache are two layouts of it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';

/** The judge's verdict cache (one record per program, tests and judge settings; `coreb build`). */
export const VERDICT_CACHE_LAYOUT = 'verdicts-v1';

/** A JSON record store of one layout. */
export interface JsonFileStore<T> {
  /** The layout folder (`<root>/<layout>`). */
  readonly dir: string;
  /** The record of `key`, undefined when absent. @throws CorebError `CACHE` for a torn or foreign file (naming it). */
  get(key: string): T | undefined;
  /** Stores `value` under `key` (atomically). @throws CorebError `CACHE` when the file cannot be written. */
  put(key: string, value: T): void;
  /** Path of a key's file. */
  path(key: string): string;
}

/** Counts of a store's folder (for `coreb cache stats`). */
export interface JsonFileStoreStats {
  dir: string;
  records: number;
  bytes: number;
}

/** Writes `data` to `file` through a synced temporary file and a rename. */
export function writeFileAtomicSync(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}

/**
 * Opens the store `layout` under `root` (folders are created on the first write).
 * @param check tells a valid record (read back) from a foreign or torn one; default: any object.
 */
export function openJsonFileStore<T>(
  root: string,
  layout: string,
  check: (value: unknown, key: string) => boolean = (v) => typeof v === 'object' && v !== null,
): JsonFileStore<T> {
  const dir = join(root, layout);
  const path = (key: string): string => join(dir, key.slice(0, 2), `${key}.json`);
  return {
    dir,
    path,
    get(key) {
      const file = path(key);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new CorebError('CACHE', `cannot read the cached record (${(e as Error).message})`, { file, cause: e });
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new CorebError('CACHE', `cached record is not valid JSON (${(e as Error).message}); delete the file to compute it again`, {
          file,
          cause: e,
        });
      }
      if (!check(value, key))
        throw new CorebError('CACHE', 'cached record is not a valid record (key or fields missing); delete the file to compute it again', { file });
      return value as T;
    },
    put(key, value) {
      const file = path(key);
      try {
        mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
        writeFileAtomicSync(file, JSON.stringify(value) + '\n');
      } catch (e) {
        throw new CorebError('CACHE', `cannot store the record (${(e as Error).message})`, { file, cause: e });
      }
    },
  };
}

/** Every file of a store's folder (`<dir>/<2 hex>/<name>`); nothing when the folder is absent. */
function* storeFiles(dir: string): Generator<{ file: string; name: string }> {
  let shards: string[] = [];
  try {
    shards = readdirSync(dir);
  } catch {
    return;
  }
  for (const s of shards) {
    let names: string[] = [];
    try {
      names = readdirSync(join(dir, s));
    } catch {
      continue;
    }
    for (const name of names) yield { file: join(dir, s, name), name };
  }
}

/** Files and bytes of a store's folder; an absent folder counts 0. */
export function jsonFileStoreStats(root: string, layout: string): JsonFileStoreStats {
  const dir = join(root, layout);
  let records = 0;
  let bytes = 0;
  for (const { file, name } of storeFiles(dir)) {
    if (!name.endsWith('.json')) continue;
    records++;
    bytes += statSync(file).size;
  }
  return { dir, records, bytes };
}

/**
 * Removes the records of a store written before `writtenBefore` (ms since the epoch; all when
 * undefined) and stale temporary files. Returns how many were kept and removed.
 */
export function pruneJsonFileStore(root: string, layout: string, writtenBefore?: number): { dir: string; kept: number; removed: number } {
  const dir = join(root, layout);
  let kept = 0;
  let removed = 0;
  for (const { file, name } of storeFiles(dir)) {
    const stale = name.endsWith('.tmp');
    if (!stale && writtenBefore !== undefined && statSync(file).mtimeMs >= writtenBefore) {
      kept++;
      continue;
    }
    unlinkSync(file);
    if (!stale) removed++;
  }
  return { dir, kept, removed };
}
