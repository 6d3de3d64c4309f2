/**
 * The `core` namespace of coreb's public API (`import { core } from 'coreb'`): Errors with codes,
 * validation issues, progress reporting and the data model's constants (tasks, languages, relevance
 * levels): what every area shares.
 * @packageDocumentation
 */
export {
  CorebError,
  ERROR_CODES,
  EXIT_CODES,
  formatLocation,
  isCorebError,
  type CorebErrorOptions,
  type ErrorCode,
  type SourceLocation,
} from '../core/errors.js';
export { hasErrors, renderIssue, type IssueSeverity, type ValidationIssue } from '../core/issues.js';
export { silentLogger, silentProgress, type Logger, type Progress } from '../core/progress.js';

export {
  LANGUAGES,
  RELEASE_TABLES,
  RELEVANCE,
  TASKS,
  TASK_SHORT,
  TASK_SHORT_NAME,
  type CodeRecord,
  type Doc,
  type Language,
  type QrelRecord,
  type Qrels,
  type Query,
  type QueryRecord,
  type Release,
  type ReleaseTable,
  type ReleaseTask,
  type RetrievalTask,
  type Run,
  type TaskName,
  type TaskShort,
  type TextRecord,
} from '../core/dataset.js';
