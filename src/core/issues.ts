/**
 * Validation issues: validators collect every problem they find (never stopping at the first)
 * as plain values with a location, so the CLI can print them all and tests can count them.
 */
import type { SourceLocation } from './errors.js';
import { formatLocation } from './errors.js';

/** How bad an issue is: `error` makes validation fail, `warning` is reported only. */
export type IssueSeverity = 'error' | 'warning';

/** One problem found in user input. */
export interface ValidationIssue extends SourceLocation {
  severity: IssueSeverity;
  /** Short stable kind, e.g. `malformed-json`, `duplicate-id`, `dangling-doc`. */
  kind: string;
  /** Human message: what is wrong, the offending value, what was expected. */
  message: string;
  /** The dataset table the issue is in (e.g. `code2code_queries`), where the dataset has tables. */
  table?: string;
  /** The subtask of the query the issue is about (a query row, or a qrels row of a known query). */
  subtask?: string;
  /** Set on an error turned into a warning because what it is in is not scored (`--tasks`, `--subtasks`): why. */
  notScored?: string;
  /** Set on a warning about what this run does not score (`--tasks`, `--subtasks`): why; counted, not shown, by `coreb eval`. */
  outOfScope?: string;
}

/** Renders an issue as one line: `error file:12: field \`x\`: message [kind]`. */
export function renderIssue(issue: ValidationIssue): string {
  return `${issue.severity} ${renderIssueBody(issue)}`;
}

/** An issue without its severity, for a logger that says it (`warning: file:12: …`). */
export function renderIssueBody(issue: ValidationIssue): string {
  return `${formatLocation(issue)}${issue.message} [${issue.kind}]`;
}

/** True when any issue is an error. */
export function hasErrors(issues: readonly ValidationIssue[]): boolean {
  return issues.some((i) => i.severity === 'error');
}
