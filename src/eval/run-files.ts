/**
 * The files `coreb eval --out` writes beside results.json: TREC run files (plain or gzip, at the
 * depth the reported measures read), MTEB `top_ranked` candidate lists, and the output folder's
 * readying (a killed run's temporary files removed, earlier results refused unless replaced).
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Query } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { Logger } from '../core/progress.js';
import type { RankedList } from '../core/retrieval.js';
import { removeStaleTemps } from '../dataset/atomic-write.js';
import { measureReadDepth, parseMeasures } from '../metrics/measures.js';
import { runScoreText } from '../core/trec-order.js';

/** How run files are written: plain TREC, gzip-compressed TREC, or not at all. */
export const RUN_FILE_FORMATS = ['plain', 'gz', 'none'] as const;
/** A run file format (see {@link EvalOptions.runs}). */
export type RunFileFormat = (typeof RUN_FILE_FORMATS)[number];

/** Names of the files `runEval` writes under `runs/` (what `--overwrite` may remove). */
const RUN_OUTPUT = /\.(trec|trec\.gz|top_ranked\.jsonl)$/;

/**
 * Readies an output directory: removes the temporary files a killed run left in it and in its
 * `runs/`, then refuses it when it holds results (a results.json, or any file but run files)
 * unless `overwrite`. Run files alone are what an interrupted run leaves (it writes results.json
 * last): such a directory is taken over, as with `overwrite`.
 * @returns true when earlier run files may be there (to remove those this run does not rewrite).
 * @throws CorebError `USAGE` when `dir` is a file, or holds results and `overwrite` is not set.
 */
export async function prepareOutDir(dir: string, overwrite: boolean, logger: Logger): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ENOTDIR')
      throw new CorebError('USAGE', `--out ${dir} is a file; --out names a directory for results.json, leaderboard.md and runs/`);
    throw new CorebError('IO', `cannot read the output directory (${code ?? (e as Error).message})`, { file: dir, cause: e });
  }
  const stale = [...(await removeStaleTemps(dir)), ...(await removeStaleTemps(join(dir, 'runs'))).map((n) => `runs/${n}`)];
  if (stale.length > 0) logger.info(`${dir}: removed ${stale.length} temporary file(s) left by an interrupted run (${stale.slice(0, 3).join(', ')})`);
  if (overwrite) return true;
  entries = await readdir(dir);
  const held: string[] = [];
  let runFiles = 0;
  for (const name of entries) {
    if (name === 'runs') {
      const runs = await readdir(join(dir, 'runs')).catch(() => null);
      if (runs === null) held.push('runs');
      else {
        held.push(...runs.filter((r) => !RUN_OUTPUT.test(r)).map((r) => `runs/${r}`));
        runFiles += runs.filter((r) => RUN_OUTPUT.test(r)).length;
      }
    } else held.push(name);
  }
  if (held.length > 0) {
    held.sort((a, b) => Number(b === 'results.json') - Number(a === 'results.json'));
    throw new CorebError(
      'USAGE',
      `--out ${dir} already holds ${held.length} file(s) (${held.slice(0, 3).join(', ')}${held.length > 3 ? ', ...' : ''}): ` +
        'earlier results are never replaced silently; pass --overwrite to replace them, or choose an empty or new directory',
    );
  }
  if (runFiles > 0) logger.info(`${dir}: ${runFiles} run file(s) of an interrupted run (no results.json) will be replaced`);
  return runFiles > 0;
}

/** After an `--overwrite` run (or one taking over an interrupted run's directory): removes the run files of earlier results that this run did not write. */
export async function removeOldRuns(outDir: string, written: ReadonlySet<string>, logger: Logger): Promise<void> {
  const names = await readdir(join(outDir, 'runs')).catch(() => [] as string[]);
  const old = names.filter((n) => RUN_OUTPUT.test(n) && !written.has(`runs/${n}`));
  for (const n of old) await rm(join(outDir, 'runs', n), { force: true });
  if (old.length > 0) logger.info(`${outDir}: removed ${old.length} run file(s) of the replaced results`);
}

/** A file-name-safe slug of a retriever spec. */
export function slugify(spec: string): string {
  const s = spec.replace(/[^A-Za-z0-9._=-]+/g, '_').replace(/^_+|_+$/g, '');
  return (s || 'retriever').slice(0, 80);
}

/**
 * How many of `list`'s documents a run file holds at `depth`: the first `depth` and those tied in
 * score with the last of them (every document without `depth`).
 */
function runLength(list: RankedList, depth: number | undefined): number {
  let n = list.docIds.length;
  if (depth !== undefined && depth < n) {
    const last = list.scores[depth - 1];
    n = depth;
    while (n < list.docIds.length && list.scores[n] === last) n++;
  }
  return n;
}

/**
 * TREC run lines (`qid Q0 docid rank score tag`) of ranked lists, in query order; with `depth`, each
 * list's first `depth` documents and those tied in score with the last of them ({@link trecRunChunks}
 * cut into lines).
 */
export function* trecRunLines(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, tag: string, depth?: number): Generator<string> {
  for (const chunk of trecRunChunks(queries, lists, tag, depth)) yield* chunk.slice(0, -1).split('\n');
}

/** Characters per chunk {@link trecRunChunks} gathers before handing it on: 256 Ki. */
const RUN_CHUNK_CHARS = 1 << 18;

/**
 * The TREC run lines of {@link trecRunLines} with their newlines, gathered into strings of about
 * 256 Ki characters (no generator step per line), each ending with a newline.
 */
export function* trecRunChunks(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, tag: string, depth?: number): Generator<string> {
  const tail = ` ${tag}\n`;
  let out = '';
  for (const q of queries) {
    const l = lists.get(q.id);
    if (l === undefined) continue;
    const head = `${q.id} Q0 `;
    const n = runLength(l, depth);
    const f32 = l.scores instanceof Float32Array;
    for (let i = 0; i < n; i++) {
      out += `${head}${l.docIds[i]} ${i + 1} ${runScoreText(l.scores[i], f32)}${tail}`;
      if (out.length >= RUN_CHUNK_CHARS) {
        yield out;
        out = '';
      }
    }
  }
  if (out !== '') yield out;
}

/**
 * The documents per query a run file needs for `measures` to read the values reported: their read
 * depth ({@link measureReadDepth}), or undefined (every document) when one reads the whole list.
 */
export function runFileDepth(measures: readonly string[]): number | undefined {
  return measureReadDepth(parseMeasures(measures));
}

/** Lists cut to their first `depth` entries. */
export function cutLists(lists: ReadonlyMap<string, RankedList>, depth: number): Map<string, RankedList> {
  const out = new Map<string, RankedList>();
  for (const [q, l] of lists) out.set(q, l.docIds.length <= depth ? l : { docIds: l.docIds.slice(0, depth), scores: l.scores.slice(0, depth) });
  return out;
}

/** MTEB `top_ranked` lines (`{"query-id", "corpus-ids"}`) of each query's first `n` documents, in query order. */
export function* topRankedLines(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, n: number): Generator<string> {
  for (const q of queries) {
    const l = lists.get(q.id);
    if (l !== undefined) yield JSON.stringify({ 'query-id': q.id, 'corpus-ids': l.docIds.slice(0, n) });
  }
}
