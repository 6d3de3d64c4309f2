/**
 * Downloads an official CoREB release from the Hugging Face Hub through its HTTP API: the file list
 * from `/api/datasets/<id>/tree/<revision>?recursive=true` (paged by `Link: rel="next"`), each file
 * from `/datasets/<id>/resolve/<revision>/<path>` (redirects to the CDN followed), streamed to a temp
 * file, checked against the listed size and LFS sha256, then renamed. Files already present with the
 * right size are skipped, so an interrupted download resumes. 429/5xx are retried with the shared
 * HTTP client's backoff rules.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CorebError } from '../core/errors.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../core/progress.js';
import { backoffMs, isRetryableStatus, parseRetryAfterMs, sleep } from '../core/retry.js';

/** The Hub dataset of the official CoREB releases (8 configs x splits `release_v2602`, `release_v2603`). */
export const COREB_HUB_DATASET = 'hq-bench/coreb';
/** The Hub's public endpoint. */
export const HUB_ENDPOINT = 'https://huggingface.co';

/** Options of {@link downloadRelease}. */
export interface DownloadReleaseOptions {
  /** Target directory (created); the repository's paths are kept below it. */
  outDir: string;
  /** Hub dataset id; default {@link COREB_HUB_DATASET}. */
  dataset?: string;
  /** Branch, tag or commit; default `main`. */
  revision?: string;
  /** Only files of this split (a path segment or file-name part, e.g. `release_v2602`); default every split. */
  split?: string;
  /** Hub endpoint (a mirror, or a test server); default {@link HUB_ENDPOINT}. */
  endpoint?: string;
  /** Access token for gated or private datasets (sent as a Bearer token, never logged). */
  token?: string;
  /** Retries of a 429/5xx/network failure per request; default 4. */
  maxRetries?: number;
  /** First backoff, ms (doubled per retry, jittered); default 500. */
  backoffMs?: number;
  /** A file's transfer is stopped when no byte arrives for this long, ms; default 60,000. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  progress?: Progress;
  logger?: Logger;
}

/** One file of the download. */
export interface DownloadedFile {
  /** Path in the repository (and below `outDir`). */
  path: string;
  bytes: number;
  /** True when it was already there with the listed size. */
  skipped: boolean;
}

/** What {@link downloadRelease} did. */
export interface DownloadResult {
  dataset: string;
  revision: string;
  outDir: string;
  files: DownloadedFile[];
  /** Splits found among the downloaded files' paths. */
  splits: string[];
}

interface TreeEntry {
  type: string;
  path: string;
  size: number;
  lfs?: { oid: string; size: number };
}

/** Data files of a release (parquet or JSONL tables) and the dataset card. */
const WANTED = /(\.parquet|\.jsonl|\.jsonl\.gz)$|(^|\/)README\.md$/;
const SPLIT_RE = /release_v\d+/g;

function offlineHelp(dataset: string, revision: string): string {
  return (
    `coreb download needs network access to the Hugging Face Hub. Offline, copy the release from a machine that has it, made with ` +
    `\`hf download ${dataset} --repo-type dataset --revision ${revision} --local-dir DIR\` or ` +
    `\`git lfs install && git clone https://huggingface.co/datasets/${dataset} DIR\`, then \`coreb eval --data DIR\``
  );
}

/**
 * GET with retries on 429/5xx and network errors; returns the response of the first other status.
 * @throws CorebError `HTTP` when the Hub cannot be reached (with the offline alternatives).
 */
async function get(
  url: string,
  o: Required<Pick<DownloadReleaseOptions, 'maxRetries' | 'backoffMs'>> & DownloadReleaseOptions,
  dataset: string,
  revision: string,
): Promise<Response> {
  const headers: Record<string, string> = { 'user-agent': 'coreb' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: 'follow', signal: o.signal });
    } catch (e) {
      if (o.signal?.aborted) throw o.signal.reason;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (e as Error).message;
      if (attempt < o.maxRetries && why !== 'ENOTFOUND' && why !== 'EAI_AGAIN') {
        await sleep(backoffMs(attempt, o.backoffMs, 30_000), o.signal);
        continue;
      }
      throw new CorebError('HTTP', `cannot reach ${new URL(url).origin} (${why}). ${offlineHelp(dataset, revision)}`, { cause: e });
    }
    if (isRetryableStatus(res.status) && attempt < o.maxRetries) {
      await res.body?.cancel();
      await sleep(parseRetryAfterMs(res.headers) ?? backoffMs(attempt, o.backoffMs, 30_000), o.signal);
      continue;
    }
    return res;
  }
}

async function failure(res: Response, what: string, dataset: string): Promise<CorebError> {
  const body = (await res.text().catch(() => '')).slice(0, 200).replace(/\s+/g, ' ');
  if (res.status === 401 || res.status === 403) {
    return new CorebError(
      'HTTP',
      `${what}: HTTP ${res.status} (${body}); the dataset is gated or private: accept its terms on huggingface.co and set HF_TOKEN`,
    );
  }
  if (res.status === 404) return new CorebError('NOT_FOUND', `${what}: HTTP 404 (${body}); check the dataset id \`${dataset}\` and the revision`);
  return new CorebError('HTTP', `${what}: HTTP ${res.status} (${body})`);
}

/** The repository's files, following the tree API's `Link: <...>; rel="next"` pages. */
async function listFiles(base: string, o: Parameters<typeof get>[1], dataset: string, revision: string): Promise<TreeEntry[]> {
  const files: TreeEntry[] = [];
  let url: string | undefined = `${base}/api/datasets/${dataset}/tree/${encodeURIComponent(revision)}?recursive=true&expand=false`;
  while (url !== undefined) {
    const res = await get(url, o, dataset, revision);
    if (!res.ok) throw await failure(res, `listing ${dataset}@${revision}`, dataset);
    let page: unknown;
    try {
      page = await res.json();
    } catch (e) {
      throw new CorebError('HTTP', `listing ${dataset}@${revision}: the Hub answered with malformed JSON`, { cause: e });
    }
    if (!Array.isArray(page)) throw new CorebError('HTTP', `listing ${dataset}@${revision}: expected a JSON array of files`);
    for (const e of page as TreeEntry[]) {
      if (e?.type === 'file' && typeof e.path === 'string' && typeof e.size === 'number') files.push(e);
    }
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '');
    url = next === null ? undefined : new URL(next[1], url).toString();
  }
  return files;
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

/**
 * Downloads a CoREB release (by default every split of {@link COREB_HUB_DATASET}) into `outDir`.
 * @throws CorebError `HTTP` when the Hub is unreachable (the message gives the `hf` and `git lfs`
 * alternatives) or answers with an error, `NOT_FOUND` for an unknown dataset, revision or split,
 * `IO` when a file cannot be written or does not match its listed size / sha256.
 */
export async function downloadRelease(options: DownloadReleaseOptions): Promise<DownloadResult> {
  const dataset = options.dataset ?? COREB_HUB_DATASET;
  const revision = options.revision ?? 'main';
  const base = (options.endpoint ?? HUB_ENDPOINT).replace(/\/+$/, '');
  const o = { ...options, maxRetries: options.maxRetries ?? 4, backoffMs: options.backoffMs ?? 500 };
  const progress = options.progress ?? silentProgress;
  const logger = options.logger ?? silentLogger;
  const all = await listFiles(base, o, dataset, revision);
  const data = all.filter((f) => WANTED.test(f.path));
  const splitsOf = (path: string): string[] => [...path.matchAll(SPLIT_RE)].map((m) => m[0]);
  const splits = [...new Set(data.flatMap((f) => splitsOf(f.path)))].sort();
  const split = options.split;
  const chosen = split === undefined ? data : data.filter((f) => f.path.endsWith('README.md') || splitsOf(f.path).includes(split));
  if (!chosen.some((f) => !f.path.endsWith('README.md'))) {
    throw new CorebError(
      'NOT_FOUND',
      options.split === undefined
        ? `${dataset}@${revision} has no parquet or JSONL files (${all.length} files listed)`
        : `${dataset}@${revision} has no files of split \`${options.split}\`; splits: ${splits.join(', ') || 'none'}`,
    );
  }
  const total = chosen.reduce((s, f) => s + f.size, 0);
  logger.info(`${dataset}@${revision}: ${chosen.length} file(s), ${(total / 1e6).toFixed(1)} MB -> ${options.outDir}`);
  progress.start('downloading', chosen.length);
  const files: DownloadedFile[] = [];
  try {
    for (const f of chosen) {
      if (f.path.split('/').some((p) => p === '..' || p === '') || f.path.includes(sep === '/' ? '\0' : '\\')) {
        throw new CorebError('HTTP', `the Hub listed an unsafe path \`${f.path}\`; refusing to write it`);
      }
      const dest = join(options.outDir, ...f.path.split('/'));
      if ((await sizeOf(dest)) === f.size) {
        files.push({ path: f.path, bytes: f.size, skipped: true });
        progress.tick();
        continue;
      }
      const url = `${base}/datasets/${dataset}/resolve/${encodeURIComponent(revision)}/${f.path.split('/').map(encodeURIComponent).join('/')}`;
      const res = await get(url, o, dataset, revision);
      if (!res.ok || res.body === null) throw await failure(res, `downloading ${f.path}`, dataset);
      await mkdir(dirname(dest), { recursive: true }).catch((e: unknown) => {
        throw new CorebError('IO', `cannot create directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
          file: dirname(dest),
          cause: e,
        });
      });
      const tmp = `${dest}.${process.pid}.part`;
      const hash = createHash('sha256');
      let bytes = 0;
      try {
        const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
        // Stop at the listed size (a mirror that streams more is wrong, and may never stop) and
        // when the stream goes idle (a server that stalls would hang the download).
        const idleMs = options.idleTimeoutMs ?? 60_000;
        const stop = new AbortController();
        let stalled = false;
        const onIdle = (): void => {
          stalled = true;
          stop.abort();
        };
        let idle = setTimeout(onIdle, idleMs);
        const onAbort = (): void => stop.abort(options.signal?.reason);
        options.signal?.addEventListener('abort', onAbort, { once: true });
        const limit = new Transform({
          transform(c: Buffer, _enc, done) {
            clearTimeout(idle);
            idle = setTimeout(onIdle, idleMs);
            bytes += c.length;
            if (bytes > f.size) {
              done(
                new CorebError('IO', `the server sent more than the ${f.size} bytes the Hub lists for ${f.path}; stopped at ${bytes}`, {
                  file: dest,
                }),
              );
              return;
            }
            hash.update(c);
            done(null, c);
          },
        });
        try {
          await pipeline(body, limit, createWriteStream(tmp), { signal: stop.signal });
        } catch (e) {
          if (stalled) {
            throw new CorebError(
              'HTTP',
              `downloading ${f.path}: no data for ${idleMs / 1000} s after ${bytes} of ${f.size} bytes; run coreb download again to resume`,
              {
                cause: e,
              },
            );
          }
          throw e;
        } finally {
          clearTimeout(idle);
          options.signal?.removeEventListener('abort', onAbort);
        }
        if (bytes !== f.size) throw new CorebError('IO', `got ${bytes} bytes, the Hub lists ${f.size}; run coreb download again`, { file: dest });
        const sha = hash.digest('hex');
        if (f.lfs?.oid !== undefined && sha !== f.lfs.oid)
          throw new CorebError('IO', `sha256 ${sha} differs from the Hub's ${f.lfs.oid}; run coreb download again`, { file: dest });
        await rename(tmp, dest);
      } catch (e) {
        await rm(tmp, { force: true });
        if (options.signal?.aborted) throw options.signal.reason;
        if (e instanceof CorebError) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        if (typeof code === 'string' && code.startsWith('E')) throw new CorebError('IO', `cannot write file (${code})`, { file: dest, cause: e });
        throw new CorebError('HTTP', `downloading ${f.path}: ${(e as Error).message}`, { cause: e });
      }
      files.push({ path: f.path, bytes, skipped: false });
      progress.tick();
    }
  } finally {
    progress.done();
  }
  return { dataset, revision, outDir: options.outDir, files, splits: options.split === undefined ? splits : [options.split] };
}
