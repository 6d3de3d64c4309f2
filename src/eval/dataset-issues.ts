/**
 * The problems of a loaded dataset, as `coreb validate` reports them and `coreb eval` refuses them:
 * one function per layout, so the two commands can never disagree on what is an error.
 */
import { TASK_CORPUS, type TaskName } from '../core/dataset.js';
import { hasErrors, type ValidationIssue } from '../core/issues.js';
import { releaseTasks, validateRelease, type LoadedBeir, type LoadedRelease } from '../dataset/index.js';
import { labelProxyIssues } from './label-proxies.js';

/** Options of {@link releaseIssues} and {@link beirIssues}. */
export interface DatasetIssueOptions {
  /** Also look for label-proxy fields (warnings; only when there is no error). Default false. */
  labelProxies?: boolean;
}

/**
 * Every problem of a loaded CoREB release: the loader's (file, line, field, type), then the
 * cross-table checks of `validateRelease` (duplicate ids and qrels, dangling qrels, ids with
 * whitespace, unknown subtasks, missing anchors, ...), then optionally label-proxy warnings.
 */
export function releaseIssues(loaded: LoadedRelease, options: DatasetIssueOptions = {}): ValidationIssue[] {
  const issues = [...loaded.issues, ...validateRelease(loaded.release)];
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
