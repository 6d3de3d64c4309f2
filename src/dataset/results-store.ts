/**
 * A results store: every scored row of `coreb eval --results DIR` kept as plain JSON files a team
 * can keep in git and merge by pull request (like MTEB's results repository, one folder per
 * model), keyed by what makes a number what it is:
 *
 *   DIR/<retriever>__<r8>/<split>__<d8>/<protocol>__<p8>.json
 *
 * `<r8>` hashes the retriever's identity (its spec and secret-free description: model, revision,
 * parameters, reranker), `<d8>` the dataset's SHA-256 over its files, `<p8>` the protocol's
 * semantics, the measures, the depth and the tasks and subtasks scored. Each file is a complete
 * `coreb eval` results file with that one row, so every reader of results files reads an entry. A
 * changed dataset or protocol is a new file, never an overwrite; writes are atomic (temp file and
 * rename), so concurrent runs into one store lose nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CorebError } from '../core/errors.js';
import { protocolFingerprint, type EvalResults, type RetrieverResult } from '../core/eval-results.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { saveAtomic } from './atomic-write.js';
import { loadEvalResults, type LoadedResults } from './results-file.js';

/** What an entry is keyed by, besides the retriever. */
export interface StoreContext {
  dataset: EvalResults['dataset'];
  protocol: EvalResults['protocol'];
  measures: readonly string[];
  options: EvalResults['options'];
}

/** One entry as listed. */
export interface StoreEntry {
  /** Path relative to the store, `/`-separated (what `coreb results show|rm` take). */
  path: string;
  results: EvalResults;
  row: RetrieverResult;
}

/** Keys in a description that say how a model is reached, not what it computes (left out of the identity). */
const TRANSPORT_KEYS = new Set([
  'endpoints',
  'endpoint',
  'baseUrl',
  'baseUrls',
  'concurrency',
  'timeoutMs',
  'maxRetries',
  'backoffMs',
  'maxBackoffMs',
  'requestsPerMinute',
  'batchSize',
]);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .filter((k) => !TRANSPORT_KEYS.has(k))
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** The shape of an entry's path ({@link entryPath}); other files in a store's folder (a README, a build's tables) are not entries. */
const ENTRY_PATH = /^[^/]+__[^/]{8}\/[^/]+__[^/]{8}\/[^/]+__[^/]{8}\.json$/;
const hash8 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 8);

/** A file-name-safe form of a name: letters, digits, `.`, `_`, `-`; at most 80 characters. */
function safeName(s: string): string {
  return (
    s
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 80) || 'retriever'
  );
}

/**
 * The identity of a row: its secret-free description (kind, model, revision, parameters; for a
 * reranked row the first stage's and the reranker's) without transport settings (endpoints, batch
 * sizes, timeouts), so moving a model to another server keeps its entry. The entry folder also
 * carries the row's name, so two names never share a file.
 */
export function retrieverIdentity(row: Pick<RetrieverResult, 'description'>): string {
  return JSON.stringify(canonical({ description: row.description }));
}

/** The entry path of `row` in a store, relative and `/`-separated. */
export function entryPath(row: Pick<RetrieverResult, 'name' | 'spec' | 'description'>, ctx: StoreContext): string {
  const r = `${safeName(row.name)}__${hash8(retrieverIdentity(row))}`;
  const d = `${safeName(ctx.dataset.split)}__${ctx.dataset.sha256.slice(0, 8)}`;
  const scoring = JSON.stringify({
    protocol: protocolFingerprint(ctx.protocol),
    measures: ctx.measures,
    depth: ctx.options.depth,
    tasks: ctx.options.tasks,
    subtasks: ctx.options.subtasks,
  });
  return `${r}/${d}/${safeName(ctx.protocol.name)}__${hash8(scoring)}.json`;
}

/** Whether the store already has `row`'s entry. */
export function hasEntry(dir: string, row: Pick<RetrieverResult, 'name' | 'spec' | 'description'>, ctx: StoreContext): boolean {
  return existsSync(join(dir, entryPath(row, ctx)));
}

/**
 * Writes one row as its entry (a results file holding that row only), atomically.
 * @returns the entry's relative path.
 */
export async function writeEntry(dir: string, results: EvalResults, row: RetrieverResult): Promise<string> {
  const path = entryPath(row, results);
  const { failed: _failed, ...rest } = results;
  const entry: EvalResults = { ...rest, retrievers: [row] };
  await saveAtomic(join(dir, ...path.split('/')), `${JSON.stringify(entry, null, 2)}\n`);
  return path;
}

/** Reads an entry by its relative path. @throws CorebError `NOT_FOUND` when there is none. */
export async function readEntry(dir: string, path: string): Promise<StoreEntry> {
  const file = join(dir, ...path.split('/'));
  if (!existsSync(file)) throw new CorebError('NOT_FOUND', `no entry ${path} in the results store`, { file: dir });
  const { results } = await loadEvalResults(file);
  return { path, results, row: results.retrievers[0] };
}

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.json') && !name.endsWith('.tmp')) out.push(p);
  }
  return out;
}

/**
 * Every entry of a store, in path order (an absent store has none).
 * @throws CorebError naming the file, for an entry that is not a results file.
 */
export async function listEntries(dir: string, progress: Progress = silentProgress, signal?: AbortSignal): Promise<StoreEntry[]> {
  if (!existsSync(dir)) return [];
  const files = walk(dir, [])
    .map((f) => relative(dir, f).split(sep).join('/'))
    .filter((p) => ENTRY_PATH.test(p))
    .sort();
  const out: StoreEntry[] = [];
  progress.start(`reading ${dir}`, files.length);
  for (const p of files) {
    signal?.throwIfAborted();
    out.push(await readEntry(dir, p));
    progress.tick();
  }
  progress.done();
  return out;
}

/** Removes entries by relative path (and folders left empty). @throws CorebError `NOT_FOUND` for a path that is not an entry. */
export function removeEntries(dir: string, paths: readonly string[]): void {
  for (const p of paths) {
    if (p.split('/').length !== 3 || !p.endsWith('.json') || p.split('/').some((x) => x === '..' || x === '')) {
      throw new CorebError('USAGE', `\`${p}\` is not an entry path (<retriever>/<dataset>/<protocol>.json, as \`coreb results ls\` prints)`);
    }
    if (!existsSync(join(dir, ...p.split('/')))) throw new CorebError('NOT_FOUND', `no entry ${p} in the results store`, { file: dir });
  }
  for (const p of paths) {
    const parts = p.split('/');
    rmSync(join(dir, ...parts));
    for (let i = parts.length - 1; i > 0; i--) {
      const folder = join(dir, ...parts.slice(0, i));
      if (readdirSync(folder).length === 0) rmSync(folder, { recursive: true });
    }
  }
}

/**
 * The results an input names: a results file; a folder with a results.json; or a results store
 * (every entry).
 * @throws CorebError `NOT_FOUND` for a path that is none of them.
 */
export async function loadResultsInput(path: string, progress: Progress = silentProgress, signal?: AbortSignal): Promise<LoadedResults[]> {
  if (!existsSync(path)) throw new CorebError('NOT_FOUND', 'no such results file, folder or store', { file: path });
  if (!statSync(path).isDirectory()) return [await loadEvalResults(path)];
  if (existsSync(join(path, 'results.json'))) return [await loadEvalResults(join(path, 'results.json'))];
  const entries = await listEntries(path, progress, signal);
  if (entries.length === 0) {
    throw new CorebError('NOT_FOUND', 'the folder has no results.json and no results-store entry (coreb eval --out DIR or --results DIR)', {
      file: path,
    });
  }
  return entries.map((e) => ({ file: join(path, ...e.path.split('/')), results: e.results }));
}
