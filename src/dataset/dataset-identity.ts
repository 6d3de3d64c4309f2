/**
 * Dataset identity for results files: every data file's path, size and SHA-256, and one combined
 * hash, so two results can be checked to come from byte-identical data.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { DatasetFile } from '../core/eval-results.js';

/** File name endings counted as data (tables, qrels, runs). */
const DATA_SUFFIXES = ['.jsonl', '.jsonl.gz', '.parquet', '.tsv', '.tsv.gz', '.json', '.txt'] as const;

/**
 * Hashes every data file under `dir` (recursively; dot-files skipped), in path order.
 * @param signal checked after every 1 MiB read: an abort stops the hashing with its reason.
 * @returns the files and the combined SHA-256 of the lines `path\tbytes\tsha256\n`.
 */
export async function hashDatasetDir(dir: string, signal?: AbortSignal): Promise<{ files: DatasetFile[]; sha256: string }> {
  const paths: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const p = join(d, entry.name);
      if (entry.isDirectory()) await walk(p);
      else if (entry.isFile() && DATA_SUFFIXES.some((s) => entry.name.endsWith(s))) paths.push(p);
    }
  };
  await walk(dir);
  const rel = paths.map((p) => relative(dir, p).split(sep).join('/')).sort();
  const files: DatasetFile[] = [];
  const all = createHash('sha256');
  for (const r of rel) {
    const p = join(dir, r);
    const bytes = (await stat(p)).size;
    const sha256 = await hashFile(p, signal);
    files.push({ path: r, bytes, sha256 });
    all.update(`${r}\t${bytes}\t${sha256}\n`);
  }
  return { files, sha256: all.digest('hex') };
}

/**
 * SHA-256 of one file's bytes, read through one reused 1 MiB buffer (a stream's fresh chunk per
 * read left a multi-GB file's worth of garbage buffers in memory until the next collection).
 */
export async function hashFile(file: string, signal?: AbortSignal): Promise<string> {
  const h = createHash('sha256');
  await hashFileInto(h, file, signal);
  return h.digest('hex');
}

/** Feeds every byte of `file` to `hash`, through one reused 1 MiB buffer (see {@link hashFile}). */
export async function hashFileInto(hash: Hash, file: string, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      signal?.throwIfAborted();
    }
  } finally {
    await fh.close();
  }
}
