/**
 * Builds kept for reuse across judge calls (the local judge's `keepBuildsMb`): a program built once
 * serves every later call with the same prepared source, language and compile flags, until the
 * cache passes its size budget and the least recently used builds are removed. Used by callers that
 * judge the same program many times (the exec reranker runs a candidate on the samples of many
 * statements, in two screening rounds and across tasks). Only builds that succeeded or failed to
 * compile on their own (not killed by a limit, not a sandbox failure) are kept.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A build the cache holds: at least its directory. */
export interface CachedBuild {
  /** Host directory with the source and build output. */
  dir: string;
}

interface Entry<B extends CachedBuild> {
  build: Promise<B>;
  /** Calls using the build now: it is not removed while any is. */
  users: number;
  bytes: number;
  lastUse: number;
  /** The build, once settled and worth keeping (then counted in the cache's bytes). */
  value?: B;
}

/** Counters of a {@link BuildCache}. */
export interface BuildCacheStats {
  /** Builds served from the cache (no compile). */
  hits: number;
  /** Builds removed to stay under the budget. */
  evicted: number;
  /** Bytes held now. */
  bytes: number;
}

/** Builds by content, least recently used removed past a size budget. */
export interface BuildCache<B extends CachedBuild> {
  /**
   * The build for `key`: the kept one, one in progress, or `make()`'s. Call `release` when the
   * build's runs are done; `keep(build)` says whether a settled build may serve later calls.
   */
  acquire(key: string, make: () => Promise<B>, keep: (build: B) => boolean): Promise<{ build: B; made: boolean; release: () => void }>;
  stats(): BuildCacheStats;
  /** Removes every build no call is using (and the rest when their calls release them). */
  clear(): void;
}

/** The content key of a prepared build: every input that changes what a compile makes. */
export function buildKey(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Bytes under `dir` (files and links; directories counted as 4 KiB). */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    total += st.isDirectory() ? 4096 + dirBytes(p) : st.size;
  }
  return total;
}

/**
 * Creates a build cache holding at most `maxBytes` of settled builds (a build bigger than the budget
 * is used by its call and removed).
 */
export function createBuildCache<B extends CachedBuild>(maxBytes: number): BuildCache<B> {
  const entries = new Map<string, Entry<B>>();
  const stats: BuildCacheStats = { hits: 0, evicted: 0, bytes: 0 };
  let clock = 0;
  let closed = false;

  /** Removes an idle entry; only kept (so settled) entries are idle in the map. */
  const remove = (key: string, e: Entry<B>): void => {
    entries.delete(key);
    if (e.value === undefined) return;
    stats.bytes -= e.bytes;
    rmSync(e.value.dir, { recursive: true, force: true });
  };
  const evict = (): void => {
    if (stats.bytes <= maxBytes) return;
    const idle = [...entries].filter(([, e]) => e.value !== undefined && e.users === 0).sort((a, b) => a[1].lastUse - b[1].lastUse);
    for (const [key, e] of idle) {
      if (stats.bytes <= maxBytes) break;
      remove(key, e);
      stats.evicted++;
    }
  };

  return {
    async acquire(key, make, keep) {
      let e = entries.get(key);
      const made = e === undefined;
      if (e !== undefined) stats.hits++;
      else {
        const entry: Entry<B> = { build: make(), users: 0, bytes: 0, lastUse: ++clock };
        e = entry;
        entries.set(key, entry);
        entry.build.then(
          (b) => {
            if (entries.get(key) !== entry) return;
            if (!keep(b) || closed) {
              // not worth keeping: the calls using it remove it when they are done
              entries.delete(key);
              return;
            }
            entry.value = b;
            entry.bytes = dirBytes(b.dir);
            stats.bytes += entry.bytes;
          },
          () => entries.delete(key),
        );
      }
      const entry = e;
      entry.users++;
      entry.lastUse = ++clock;
      let build: B;
      try {
        build = await entry.build;
      } catch (err) {
        entry.users--;
        throw err;
      }
      let released = false;
      return {
        build,
        made,
        release: () => {
          if (released) return;
          released = true;
          entry.users--;
          if (entries.get(key) !== entry) {
            // not kept (or cleared): the last user removes it
            if (entry.users === 0) rmSync(build.dir, { recursive: true, force: true });
            return;
          }
          evict();
        },
      };
    },
    stats: () => ({ ...stats }),
    clear() {
      closed = true;
      for (const [key, e] of [...entries]) {
        if (e.users === 0) remove(key, e);
        else {
          // in use (or still building): its last user removes it
          entries.delete(key);
          if (e.value !== undefined) stats.bytes -= e.bytes;
        }
      }
    },
  };
}
