/**
 * The problems of a loaded dataset, as `coreb validate` reports them and `coreb eval` refuses them:
 * one function per layout, so the two commands can never disagree on what is an error.
 */
import { TASK_CORPUS, TASKS, type TaskName } from '../core/dataset.js';
import { hasErrors, type ValidationIssue } from '../core/issues.js';
import { releaseTasks } from '../dataset/release-tasks.js';
import { TASK_TABLES } from '../dataset/release-schema.js';
import { validateRelease } from '../dataset/validate-release.js';
import type { LoadedBeir } from '../dataset/beir.js';
import type { LoadedRelease } from '../dataset/release.js';
import { labelProxyIssues } from './audit/label-proxies.js';

/** Options of {@link releaseIssues} and {@link beirIssues}. */
export interface DatasetIssueOptions {
  /** Also look for label-proxy fields (warnings; only when there is no error). Default false. */
  labelProxies?: boolean;
  /**
   * The tasks that will be scored (a release only). An error in a table none of them reads (a
   * missing `code2text_qrels` when only text-to-code is scored) cannot make their results wrong, so
   * it is reported as a warning saying so. Default: all three tasks.
   */
  tasks?: readonly TaskName[];
  /**
   * The subtasks that will be scored (`--subtasks`): an error about a query of a subtask left out
   * (a c2c query without an anchor in a subtask not scored) is reported as a warning saying so.
   * Default: every subtask.
   */
  subtasks?: (subtask: string) => boolean;
  /** How the subtask selection reads, for those messages (e.g. `--subtasks c2c_cross_lang`). */
  subtasksLabel?: string;
}

/** The release tables a task reads: its queries and qrels, its corpus, and the code corpus for anchors. */
function tablesRead(task: TaskName): string[] {
  const { queries, qrels } = TASK_TABLES[task];
  return [queries, qrels, TASK_CORPUS[task] === 'code' ? 'code_corpus' : 'text_corpus', 'code_corpus'];
}

/**
 * Every problem of a loaded CoREB release: the loader's (file, line, field, type), then the
 * cross-table checks of `validateRelease` (duplicate ids and qrels, dangling qrels, ids with
 * whitespace, unknown subtasks, missing anchors, ...), then optionally label-proxy warnings.
 */
export function releaseIssues(loaded: LoadedRelease, options: DatasetIssueOptions = {}): ValidationIssue[] {
  const issues = [...loaded.issues, ...validateRelease(loaded.release)];
  const read = options.tasks === undefined ? undefined : new Set(options.tasks.flatMap(tablesRead));
  const keep = options.subtasks;
  // A table of a task not selected: one it reads, or one named after it (a table a later release adds).
  const known = new Set(TASKS.flatMap(tablesRead));
  const unselected = options.tasks === undefined ? [] : TASKS.filter((t) => !options.tasks!.includes(t)).map((t) => `${t}_`);
  const outside = (table: string): boolean =>
    read !== undefined && !read.has(table) && (known.has(table) || unselected.some((p) => table.startsWith(p)));
  for (const [i, issue] of issues.entries()) {
    let why: string | undefined;
    const inUnread = issue.table !== undefined && (issue.severity === 'error' ? read !== undefined && !read.has(issue.table) : outside(issue.table));
    if (inUnread) why = `only ${options.tasks!.join(', ')} selected`;
    else if (keep !== undefined && issue.subtask !== undefined && !keep(issue.subtask))
      why = `${issue.subtask} is not selected by ${options.subtasksLabel ?? '--subtasks'}`;
    if (why === undefined) continue;
    // An error in what is not scored is let through as a warning; a warning there is out of scope.
    issues[i] =
      issue.severity === 'error'
        ? { ...issue, severity: 'warning', message: `${issue.message} (not scored: ${why})`, notScored: why }
        : { ...issue, outOfScope: why };
  }
  if (options.labelProxies && !hasErrors(issues)) {
    const tasks = Object.entries(releaseTasks(loaded.release));
    issues.push(...labelProxyIssues(tasks, (t) => (TASK_CORPUS[t as TaskName] === 'code' ? 'code_corpus' : 'text_corpus')));
  }
  return issues;
}

/**
 * Every problem of a loaded BEIR directory: the loader's (duplicate ids, ids with whitespace,
 * dangling or duplicate qrels, malformed lines), then optionally label-proxy warnings.
 */
export function beirIssues(loaded: LoadedBeir, options: DatasetIssueOptions = {}): ValidationIssue[] {
  const issues = [...loaded.issues];
  if (options.labelProxies && !hasErrors(issues)) {
    issues.push(...labelProxyIssues([[loaded.task.name || 'corpus', loaded.task]], () => 'corpus.jsonl'));
  }
  return issues;
}
