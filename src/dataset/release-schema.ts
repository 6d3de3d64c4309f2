/**
 * The field schema of the 8 CoREB release tables (paper §A.4 and the published v202602 data), and
 * the subtask ids a release may use. One table here drives loading, conversion and validation.
 */
import type { ReleaseTable, TaskName } from '../core/dataset.js';
import { LANGUAGES } from '../core/dataset.js';
import type { FieldSpec, TableSchema } from './coerce.js';

const req = (wire: string, type: FieldSpec['type']): FieldSpec => ({ wire, type, required: true });
const opt = (wire: string, type: FieldSpec['type']): FieldSpec => ({ wire, type });

const QUERY_COMMON: readonly FieldSpec[] = [req('query_id', 'string'), req('query', 'string'), opt('split', 'string'), req('subtask', 'string')];
const META_COMMON: readonly FieldSpec[] = [opt('source_problem_id', 'string'), opt('created_at', 'string'), opt('generator_version', 'string')];
const QRELS: TableSchema = { fields: [req('query_id', 'string'), req('doc_id', 'string'), req('relevance', 'int')], meta: [] };

/** Schema of every release table. */
export const RELEASE_SCHEMAS: Readonly<Record<ReleaseTable, TableSchema>> = {
  code_corpus: {
    fields: [req('code_id', 'string'), req('code', 'string'), req('language', 'string'), opt('model', 'string'), opt('code_length', 'int')],
    meta: [
      opt('source_problem_id', 'string'),
      opt('solution_key', 'string'),
      opt('passed', 'bool'),
      opt('pass_rate', 'number'),
      opt('test_passed', 'int'),
      opt('test_total', 'int'),
      opt('created_at', 'string'),
      opt('corpus_version', 'string'),
    ],
  },
  text_corpus: {
    fields: [
      req('text_id', 'string'),
      req('text', 'string'),
      opt('text_style', 'string'),
      opt('text_length', 'int'),
      opt('abbreviated_text', 'string'),
      opt('abbreviated_text_length', 'int'),
    ],
    meta: [
      opt('source_problem_id', 'string'),
      opt('original_text_id', 'string'),
      opt('original_problem_id', 'string'),
      opt('is_noise_sample', 'bool'),
      opt('noise_type', 'string'),
      opt('noise_variation', 'number'),
      opt('created_at', 'string'),
      opt('corpus_version', 'string'),
    ],
  },
  text2code_queries: {
    fields: [...QUERY_COMMON, opt('query_type', 'string'), opt('sub_query_type', 'string'), opt('language_constraint', 'string')],
    meta: [
      ...META_COMMON,
      opt('original_query_type', 'string'),
      opt('num_relevant_docs', 'int'),
      opt('models_in_relevant_docs', 'strings'),
      opt('is_multi_model', 'bool'),
    ],
  },
  code2text_queries: {
    fields: [
      ...QUERY_COMMON,
      opt('anchor_language', 'string'),
      opt('anchor_model', 'string'),
      opt('code', 'string'),
      opt('text_id', 'string'),
      opt('label', 'int'),
      opt('text_type', 'string'),
      opt('text', 'string'),
    ],
    meta: [
      ...META_COMMON,
      opt('anchor_code_id', 'string'),
      opt('task_type', 'string'),
      opt('text_type', 'string'),
      opt('available_languages', 'strings'),
      opt('pair_type', 'string'),
      opt('negative_problem_id', 'string'),
    ],
  },
  code2code_queries: {
    fields: [...QUERY_COMMON, opt('anchor_language', 'string'), opt('anchor_model', 'string')],
    meta: [...META_COMMON, opt('anchor_code_id', 'string'), opt('target_languages', 'strings'), opt('num_target_solutions', 'int')],
  },
  text2code_qrels: QRELS,
  code2code_qrels: QRELS,
  code2text_qrels: QRELS,
};

/** The queries and qrels table of each task. */
export const TASK_TABLES: Readonly<Record<TaskName, { queries: ReleaseTable; qrels: ReleaseTable }>> = {
  text2code: { queries: 'text2code_queries', qrels: 'text2code_qrels' },
  code2text: { queries: 'code2text_queries', qrels: 'code2text_qrels' },
  code2code: { queries: 'code2code_queries', qrels: 'code2code_qrels' },
};

/** Language slices of t2c/c2t subtasks: `any` plus the five CoREB languages. */
export const SUBTASK_LANGUAGES = ['any', ...LANGUAGES] as const;

/**
 * The language slice a subtask id ends in (`t2c_search_go` -> `go`, `..._any` -> `any`), or
 * undefined when its last `_` part is not one of {@link SUBTASK_LANGUAGES} (`c2t_match`).
 */
export function subtaskLanguage(subtask: string): string | undefined {
  const last = subtask.slice(subtask.lastIndexOf('_') + 1);
  return (SUBTASK_LANGUAGES as readonly string[]).includes(last) ? last : undefined;
}

/**
 * A subtask's family with its languages pooled: the id without its language slice
 * (`t2c_search_go` -> `t2c_search`); ids without one (`c2t_match`, `c2c_mono_lang`) unchanged.
 */
export function subtaskFamilyName(subtask: string): string {
  const lang = subtaskLanguage(subtask);
  return lang === undefined ? subtask : subtask.slice(0, -lang.length - 1);
}

function variants(prefix: string, kinds: readonly string[]): string[] {
  return kinds.flatMap((k) => SUBTASK_LANGUAGES.map((l) => `${prefix}_${k}_${l}`));
}

/**
 * The subtask family prefixes and the task each belongs to: a subtask belongs to its task by its
 * prefix (`t2c_`, `c2t_`, `c2c_`), so a name a later release adds is still placed and scored.
 */
export const SUBTASK_FAMILIES = { t2c_: 'text2code', c2t_: 'code2text', c2c_: 'code2code' } as const satisfies Record<string, TaskName>;

/**
 * The task a subtask id belongs to by its family prefix (`c2c_future_x` -> `code2code`), or
 * undefined when it has none of {@link SUBTASK_FAMILIES} (such a query is not scored).
 */
export function subtaskFamily(subtask: string): TaskName | undefined {
  for (const [prefix, task] of Object.entries(SUBTASK_FAMILIES)) if (subtask.startsWith(prefix)) return task;
  return undefined;
}

/** Every subtask id an official CoREB release is known to use, per main task (paper §A.3, Table 1; v202603's data card). */
export const SUBTASKS: Readonly<Record<TaskName, readonly string[]>> = {
  text2code: variants('t2c', ['canonical_retro', 'full_retro', 'search']),
  code2text: [...variants('c2t', ['canonical_retro', 'full_retro']), 'c2t_match'],
  code2code: ['c2c_cross_lang', 'c2c_mono_lang', 'c2c_cross_model'],
};

const QUERY_KIND: Readonly<Record<string, string>> = {
  t2c_canonical_retro: 'the abbreviated (50-150 word) problem statement finds its verified-correct programs',
  t2c_full_retro: 'the full rewritten problem statement finds its verified-correct programs',
  t2c_search: 'a short developer search query finds the verified-correct programs',
  c2t_canonical_retro: 'a verified-correct program finds its problem (the abbreviated description); its near-miss texts are hard negatives',
  c2t_full_retro: 'a verified-correct program finds its full problem description; its near-miss texts are hard negatives',
};

/** The models a release's code-to-code anchors come from (derived from its data; see `releaseStats`). */
export interface AnchorModels {
  /** The model of the `c2c_cross_lang` anchors (v202602: claude-4-sonnet). */
  primary?: string;
  /** The model of the `c2c_mono_lang` anchors (v202602: gemini-3-flash). */
  second?: string;
}

const NAMED: Readonly<Record<string, (m: AnchorModels) => string>> = {
  c2t_match: () =>
    'a program and one text, labelled 1 (its own problem) or 0 (another problem); negatives have no relevance-2 text and count as 0 by default',
  c2c_cross_lang: (m) =>
    `a passing program of the primary model${m.primary !== undefined ? ` (${m.primary})` : ''} finds that model's passing programs of the same problem in the other languages`,
  c2c_mono_lang: (m) =>
    `a passing Python program of the second model${m.second !== undefined ? ` (${m.second})` : ''} finds the primary model's passing Python program`,
  c2c_cross_model: () => "a passing Python program of the second model finds the primary model's passing programs in the other languages",
};

/**
 * One line saying what a known subtask measures (`t2c_search_go`, `c2c_mono_lang`, ...), or
 * undefined for a name no known release uses (it is still scored, as a subtask of its own).
 */
export function describeSubtask(subtask: string, models: AnchorModels = {}): string | undefined {
  const named = NAMED[subtask];
  if (named !== undefined) return named(models);
  const lang = subtaskLanguage(subtask);
  if (lang === undefined) return undefined;
  const kind = QUERY_KIND[subtaskFamilyName(subtask)];
  if (kind === undefined) return undefined;
  return lang === 'any' ? `${kind} (any language)` : `${kind} (${lang} only)`;
}

/**
 * One line saying what a subtask family measures, its languages pooled (`t2c_search`,
 * `c2c_mono_lang`), or undefined for a family no known release has.
 */
export function describeSubtaskFamily(family: string, models: AnchorModels = {}): string | undefined {
  return NAMED[family]?.(models) ?? QUERY_KIND[family];
}

/** True when `subtask` is one an official release is known to use (see {@link SUBTASKS}). */
export function isKnownSubtask(subtask: string): boolean {
  const task = subtaskFamily(subtask);
  return task !== undefined && SUBTASKS[task].includes(subtask);
}
