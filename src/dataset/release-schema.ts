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

function variants(prefix: string, kinds: readonly string[]): string[] {
  return kinds.flatMap((k) => SUBTASK_LANGUAGES.map((l) => `${prefix}_${k}_${l}`));
}

/** Every subtask id a CoREB release may use, per main task (paper §A.3, Table 1). */
export const SUBTASKS: Readonly<Record<TaskName, readonly string[]>> = {
  text2code: variants('t2c', ['canonical_retro', 'full_retro', 'search']),
  code2text: [...variants('c2t', ['canonical_retro', 'full_retro']), 'c2t_match'],
  code2code: ['c2c_cross_lang'],
};
