/**
 * A full disk for tests: a tiny tmpfs mounted in a temporary directory and filled up, so writes
 * fail with ENOSPC as on a real full disk. Needs root (mount); otherwise a skip reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted, full tmpfs: `dir` is its mount point; `release()` unmounts and removes it. */
export interface FullDisk {
  dir: string;
  release(): void;
}

/**
 * Mounts a 64 KiB tmpfs and fills it but for `freePages` 4 KiB pages (room for a lock file, say);
 * returns a skip reason when mounting is not possible here.
 */
export function mountFullDisk(freePages = 0): FullDisk | string {
  if (process.getuid?.() !== 0) return 'needs root to mount a small tmpfs';
  const dir = mkdtempSync(join(tmpdir(), 'coreb-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs: ${(e as Error).message.split('\n')[0]}`;
  }
  try {
    writeFileSync(join(dir, 'filler'), Buffer.alloc(freePages === 0 ? 1 << 20 : (16 - freePages) * 4096));
  } catch {
    // ENOSPC: the disk is now full.
  }
  return {
    dir,
    release() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
