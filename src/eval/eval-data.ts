/**
 * The data `coreb eval` scores, loaded and checked: a CoREB release's tasks (after `--tasks` and
 * `--subtasks`) or a BEIR directory's one task, refused on every error `coreb validate` reports.
 * Shared by eval, serve, audit and `providers embed --data`.
 */
import { basename } from 'node:path';
import { TASK_CORPUS, TASK_SHORT, TASKS, type Release, type RetrievalTask, type TaskName } from '../core/dataset.js';
import type { DatasetIdentity } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { renderIssue, renderIssueBody, type ValidationIssue } from '../core/issues.js';
import type { Logger } from '../core/progress.js';
import { isBeirDir, loadBeir } from '../dataset/beir.js';
import { loadRelease } from '../dataset/release.js';
import { releaseTasks } from '../dataset/release-tasks.js';
import { beirIssues, releaseIssues } from './dataset-issues.js';

/** What {@link loadEvalData} needs to know (a part of `EvalOptions`). */
export interface EvalDataOptions {
  /**
   * Split to read: a parquet release's split directory (e.g. `release_v2603`) or a BEIR qrels split
   * (`qrels/<split>.tsv`). Default: the loaders' (the only split there is; BEIR `test`).
   */
  split?: string;
  /** Tasks to evaluate, short (`t2c`) or long (`text2code`) names. Default: all three. Release only. */
  tasks?: readonly string[];
  /** Comma-separated subtask globs (`*` and `?`), e.g. `t2c_search_*,c2c_*`. Default: all. Release only. */
  subtasks?: string | null;
  /** Stops loading when aborted. */
  signal?: AbortSignal;
  /**
   * BEIR directories: where the corpus texts are kept while the run goes on (see
   * `LoadBeirOptions.texts`): `auto` (default) leaves them in a plain `corpus.jsonl` of 256 MiB or
   * more and reads each text again when a retriever, reranker or report asks for it.
   */
  corpusTexts?: 'memory' | 'file' | 'auto';
}

/** The tasks of a loaded dataset, keyed by task name. */
export interface EvalData {
  identity: Omit<DatasetIdentity, 'files' | 'sha256'>;
  tasks: Map<string, RetrievalTask>;
  /** Corpus key per task: tasks sharing a key share one index. */
  corpusKey: Map<string, string>;
  /** The loaded release (a CoREB release only), for its descriptive statistics. */
  release?: Release;
}

/** Detects the dataset layout: BEIR when `corpus.jsonl[.gz]` is present, else a CoREB release. */
export async function detectDataLayout(dir: string): Promise<'beir' | 'coreb-release'> {
  return (await isBeirDir(dir)) ? 'beir' : 'coreb-release';
}

/**
 * Logs the first warnings (and, apart, the errors let through because what they are in is not
 * scored), then throws a VALIDATION error naming the first problems when `issues` holds errors.
 */
export function failOnErrors(dir: string, issues: readonly ValidationIssue[], logger: Logger): void {
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  const ignored = warnings.filter((i) => i.notScored !== undefined);
  const outOfScope = warnings.filter((i) => i.outOfScope !== undefined && i.notScored === undefined);
  const others = warnings.filter((i) => i.notScored === undefined && i.outOfScope === undefined);
  for (const w of others.slice(0, 5)) logger.warn(renderIssueBody(w));
  if (others.length > 5) logger.warn(`${others.length - 5} more warning(s); \`coreb validate ${dir}\` lists them all`);
  // Warnings about what this run does not score are counted in one line, not shown.
  if (outOfScope.length > 0)
    logger.info(`${outOfScope.length} warning(s) about what is not scored (${outOfScope[0].outOfScope}); \`coreb validate ${dir}\` lists them`);
  if (ignored.length > 0) {
    const reasons = [...new Set(ignored.map((i) => i.notScored))];
    logger.warn(
      `${ignored.length} problem(s) in what is not scored let through (${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? '; ...' : ''}); first: ${renderIssue(ignored[0])}`,
    );
  }
  if (errors.length > 0) {
    throw new CorebError(
      'VALIDATION',
      `dataset has ${errors.length} problem(s); first: ${errors.slice(0, 3).map(renderIssue).join('; ')}. Run \`coreb validate ${dir}\` for all of them`,
      { file: dir },
    );
  }
}

/** Resolves `--tasks` values to task names. */
export function resolveTasks(names: readonly string[] | undefined): TaskName[] {
  if (names === undefined || names.length === 0) return [...TASKS];
  const out: TaskName[] = [];
  for (const raw of names.flatMap((n) => n.split(','))) {
    const n = raw.trim();
    if (n === '') continue;
    const t = (TASK_SHORT as Record<string, TaskName>)[n] ?? ((TASKS as readonly string[]).includes(n) ? (n as TaskName) : undefined);
    if (t === undefined) {
      throw new CorebError('USAGE', `unknown task \`${n}\`; valid tasks: ${Object.keys(TASK_SHORT).join(', ')} (or ${TASKS.join(', ')})`);
    }
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/** Compiles comma-separated globs (`*` any run, `?` one character) into one predicate. */
export function compileSubtaskGlob(globs: string): (subtask: string | undefined) => boolean {
  const res = globs
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '')
    .map(
      (g) =>
        new RegExp(
          '^' +
            g
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '.*')
              .replace(/\?/g, '.') +
            '$',
        ),
    );
  return (s) => s !== undefined && res.some((re) => re.test(s));
}

/**
 * Loads what `coreb eval` scores (and `coreb providers embed --data` embeds): a CoREB release's
 * tasks (after `tasks`/`subtasks`) or a BEIR directory's one task, refusing every error
 * `coreb validate` reports.
 * @throws CorebError `VALIDATION` naming the first problems; `USAGE` when no query is selected.
 */
export async function loadEvalData(dir: string, layout: 'beir' | 'coreb-release', options: EvalDataOptions, logger: Logger): Promise<EvalData> {
  const tasks = new Map<string, RetrievalTask>();
  const corpusKey = new Map<string, string>();
  if (layout === 'beir') {
    if (options.tasks !== undefined && options.tasks.length > 0)
      throw new CorebError('USAGE', '--tasks applies to CoREB releases only; a BEIR directory is one task');
    if (options.subtasks) throw new CorebError('USAGE', '--subtasks applies to CoREB releases only');
    const loaded = await loadBeir(dir, {
      ...(options.split !== undefined ? { split: options.split } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.corpusTexts !== undefined ? { texts: options.corpusTexts } : {}),
    });
    failOnErrors(dir, beirIssues(loaded), logger);
    const { task, split } = loaded;
    const name = task.name || basename(dir);
    tasks.set(name, task);
    corpusKey.set(name, 'corpus');
    return { identity: { kind: 'beir', dir, split, counts: counts(tasks) }, tasks, corpusKey };
  }
  const loaded = await loadRelease(dir, options.split !== undefined ? { split: options.split } : {});
  // The same checks as `coreb validate`: eval never scores what validate rejects.
  const selected = resolveTasks(options.tasks);
  const keep = options.subtasks ? compileSubtaskGlob(options.subtasks) : null;
  const subtaskSelection = keep === null ? {} : { subtasks: keep, subtasksLabel: `--subtasks ${options.subtasks}` };
  failOnErrors(dir, releaseIssues(loaded, { tasks: selected, ...subtaskSelection }), logger);
  const { release } = loaded;
  const all = releaseTasks(release);
  for (const t of selected) {
    const task = all[t];
    const queries = keep === null ? task.queries : task.queries.filter((q) => keep(q.subtask));
    if (queries.length === 0) continue;
    tasks.set(t, { ...task, queries });
    corpusKey.set(t, TASK_CORPUS[t]);
  }
  if (tasks.size === 0) {
    throw new CorebError('USAGE', `no queries match --tasks ${options.tasks?.join(',') ?? '(all)'} --subtasks ${options.subtasks ?? '(all)'}`);
  }
  const identity = {
    kind: 'coreb-release' as const,
    dir,
    split: release.split,
    ...(release.releaseDate !== undefined ? { releaseDate: release.releaseDate } : {}),
    counts: counts(tasks),
  };
  return { identity, tasks, corpusKey, release };
}

function counts(tasks: ReadonlyMap<string, RetrievalTask>): Record<string, { corpus: number; queries: number }> {
  const out: Record<string, { corpus: number; queries: number }> = {};
  for (const [name, t] of tasks) out[name] = { corpus: t.corpus.length, queries: t.queries.length };
  return out;
}
