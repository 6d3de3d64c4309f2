/**
 * SHA-256s of large input files (an embeddings matrix of gigabytes) kept by the file's identity on
 * disk, so a second eval over the same vectors reads them without hashing them again: the record
 * holds the device, inode, size and the modification and status-change times in nanoseconds. Any
 * write to the file changes its status-change time (which no user call can set back), so a record
 * that matches is the hash of the bytes now there. A record is written only when the file's identity
 * was the same before and after it was read and hashed. Records live in `<dir>/<sha256 of the
 * absolute path>.json`; one that is unreadable or stale is ignored (and replaced).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The identity of `file` on disk: device, inode, size, mtime and ctime (ns). */
export function fileIdentity(file: string): string {
  const s = statSync(file, { bigint: true });
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

function recordPath(dir: string, file: string): string {
  return join(dir, `${createHash('sha256').update(resolve(file)).digest('hex')}.json`);
}

/** The kept SHA-256 of `file` when its record matches `identity` ({@link fileIdentity}), else undefined. */
export function keptSha256(dir: string, file: string, identity: string): string | undefined {
  try {
    const r = JSON.parse(readFileSync(recordPath(dir, file), 'utf8')) as { identity?: unknown; sha256?: unknown };
    return r.identity === identity && typeof r.sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.sha256) ? r.sha256 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `sha256` for `file` when the file's identity is still `identity` (taken before it was read).
 * A cache: a failed write costs the next run the hashing, nothing else.
 */
export function keepSha256(dir: string, file: string, identity: string, sha256: string): void {
  try {
    if (fileIdentity(file) !== identity) return;
    mkdirSync(dir, { recursive: true });
    const path = recordPath(dir, file);
    const part = `${path}.${process.pid}.part`;
    writeFileSync(part, `${JSON.stringify({ file: resolve(file), identity, sha256 })}\n`);
    renameSync(part, path);
  } catch {
    // See above.
  }
}
