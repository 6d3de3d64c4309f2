/**
 * A tiny hand-made CoREB release (all 8 tables, flattened `meta_*` wire format) and writers that
 * lay it out as JSONL or as published-style parquet (flattened or nested `meta`), for the dataset
 * unit tests and the `coreb validate` end-to-end tests.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as hyparquetWriter from 'hyparquet-writer';
import { encodeParquetWith, nestMetaColumns, type ParquetWriter } from '../../src/dataset/parquet-write.js';
import type { ReleaseTable } from '../../src/core/dataset.js';

/** Rows per table in wire form. */
export type WireTables = Record<ReleaseTable, Record<string, unknown>[]>;

const code = (id: string, lang: string, problem: string, passed: boolean, model = 'model-a'): Record<string, unknown> => ({
  code_id: id,
  code: `// ${lang} solution ${id}\nprint(1)`,
  language: lang,
  model,
  code_length: 20,
  meta_source_problem_id: problem,
  meta_solution_key: `${model}_${lang}`,
  meta_passed: passed,
  meta_pass_rate: passed ? 1 : 0.5,
  meta_test_passed: passed ? 4 : 2,
  meta_test_total: 4,
  meta_created_at: '2026-01-15T05:55:09Z',
  meta_corpus_version: 'v1.0',
});

const text = (id: string, problem: string, noiseOf: string | null): Record<string, unknown> => ({
  text_id: id,
  text: `Problem ${problem}${noiseOf ? ' (variant)' : ''}: count the things.`,
  text_style: 'title_plus_description',
  text_length: 40,
  abbreviated_text: noiseOf ? null : `Count things for ${problem}.`,
  abbreviated_text_length: noiseOf ? null : 22,
  meta_source_problem_id: noiseOf ? `${problem}_noise1` : problem,
  meta_created_at: '2026-01-15T05:55:09Z',
  meta_corpus_version: 'v1.0',
  meta_original_text_id: noiseOf,
  meta_original_problem_id: noiseOf ? problem : null,
  meta_is_noise_sample: noiseOf ? true : null,
  meta_noise_type: noiseOf ? 'llm_generated' : null,
  meta_noise_variation: noiseOf ? 1 : null,
});

const t2c = (id: string, subtask: string, constraint: string, sqt: string, problem: string): Record<string, unknown> => ({
  query_id: id,
  query: `find code for ${problem}`,
  split: 'text2code',
  subtask,
  query_type: constraint === 'none' ? 'language_agnostic' : 'language_specific',
  sub_query_type: sqt,
  language_constraint: constraint,
  meta_source_problem_id: problem,
  meta_original_query_type: sqt,
  meta_created_at: '2026-01-18T12:16:39Z',
  meta_generator_version: 'v1.0',
  meta_num_relevant_docs: null,
  meta_models_in_relevant_docs: null,
  meta_is_multi_model: null,
});

const c2t = (
  id: string,
  subtask: string,
  lang: string,
  anchor: string,
  problem: string,
  match: null | { textId: string; label: number; textType: string },
): Record<string, unknown> => ({
  query_id: id,
  query: `// code of ${anchor}`,
  split: 'code2text',
  subtask,
  anchor_language: lang,
  anchor_model: 'model-a',
  code: match ? `// code of ${anchor}` : null,
  text_id: match ? match.textId : null,
  label: match ? match.label : null,
  text_type: match ? match.textType : null,
  text: match ? 'paired text' : null,
  meta_source_problem_id: problem,
  meta_anchor_code_id: anchor,
  meta_task_type: match ? null : 'description_retrieval',
  meta_text_type: match ? null : subtask.includes('canonical') ? 'canonical_description' : 'full_description',
  meta_created_at: '2026-01-18T12:16:39Z',
  meta_generator_version: 'v1.0',
  meta_available_languages: match ? null : ['python', 'java'],
  meta_pair_type: match ? (match.label === 1 ? 'positive' : 'negative_random') : null,
  meta_negative_problem_id: match && match.label === 0 ? 'p2' : null,
});

const qrel = (q: string, d: string, r: number): Record<string, unknown> => ({ query_id: q, doc_id: d, relevance: r });

/**
 * A fresh copy of the fixture release. Contents (hand-checked figures the tests assert):
 * code 5 docs (python 3, java 2; 4 passed; problems p1, p2); text 3 (2 originals, 1 hard negative);
 * t2c 3 queries (any 1, python 1, java 1), c2c 1 (anchor java c2), c2t 3 (python 1, any 1, match 1);
 * qrels t2c 7 (rel2 4, rel1 3), c2c 2 (rel2 1, rel1 1), c2t 4 (rel2 2, rel1 2).
 */
export function fixtureTables(): WireTables {
  return {
    code_corpus: [
      code('c1', 'python', 'p1', true),
      code('c2', 'java', 'p1', true, 'model-b'),
      code('c3', 'python', 'p1', false),
      code('c4', 'java', 'p2', true),
      code('c5', 'python', 'p2', true, 'model-b'),
    ],
    text_corpus: [text('t1', 'p1', null), text('t2', 'p1', 't1'), text('t3', 'p2', null)],
    text2code_queries: [
      t2c('q_t2c_1', 't2c_canonical_retro_any', 'none', 'abbreviated', 'p1'),
      t2c('q_t2c_2', 't2c_search_python', 'python', 'algorithm_search', 'p1'),
      t2c('q_t2c_3', 't2c_full_retro_java', 'java', 'full_description', 'p2'),
    ],
    text2code_qrels: [
      qrel('q_t2c_1', 'c1', 2),
      qrel('q_t2c_1', 'c2', 2),
      qrel('q_t2c_1', 'c3', 1),
      qrel('q_t2c_2', 'c1', 2),
      qrel('q_t2c_2', 'c3', 1),
      qrel('q_t2c_2', 'c2', 1),
      qrel('q_t2c_3', 'c4', 2),
    ],
    code2code_queries: [
      {
        query_id: 'q_c2c_1',
        query: '// code of c2',
        split: 'code2code',
        subtask: 'c2c_cross_lang',
        anchor_language: 'java',
        anchor_model: 'model-b',
        meta_source_problem_id: 'p1',
        meta_anchor_code_id: 'c2',
        meta_target_languages: ['python'],
        meta_num_target_solutions: 1,
        meta_created_at: '2026-01-18T12:16:39Z',
        meta_generator_version: 'v1.0',
      },
    ],
    code2code_qrels: [qrel('q_c2c_1', 'c1', 2), qrel('q_c2c_1', 'c3', 1)],
    code2text_queries: [
      c2t('q_c2t_1', 'c2t_full_retro_python', 'python', 'c1', 'p1', null),
      c2t('q_c2t_2', 'c2t_canonical_retro_any', 'java', 'c4', 'p2', null),
      c2t('q_c2t_3', 'c2t_match', 'python', 'c5', 'p2', { textId: 't1', label: 0, textType: 'full' }),
    ],
    code2text_qrels: [qrel('q_c2t_1', 't1', 2), qrel('q_c2t_1', 't2', 1), qrel('q_c2t_2', 't3', 2), qrel('q_c2t_3', 't1', 1)],
  };
}

/** A new empty temporary directory. */
export function tempDir(prefix = 'coreb-validate-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes tables as `<table>.jsonl` (Python-style `json.dumps` spacing); returns `dir`. */
export function writeJsonlRelease(dir: string, tables: WireTables = fixtureTables()): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, rows] of Object.entries(tables)) {
    writeFileSync(join(dir, `${name}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
  }
  return dir;
}

/** Moves `meta_*` columns into a nested `meta` object (the published parquet's shape): coreb's own. */
export const nestMeta = nestMetaColumns;

/** Encodes rows as a parquet file (schema inferred per column; ints as INT64, lists, structs): coreb's own writer. */
export function parquetBytes(rows: Record<string, unknown>[]): Uint8Array {
  return encodeParquetWith(hyparquetWriter as unknown as ParquetWriter, rows);
}

/**
 * Writes tables in the published parquet layout `<dir>/<split>/<table>-<split>-00000-of-00001.parquet`,
 * with `meta` nested (as published) or flattened; returns `dir`.
 */
export function writeParquetRelease(dir: string, options: { split?: string; meta?: 'nested' | 'flat'; tables?: WireTables } = {}): string {
  const split = options.split ?? 'release_test';
  const tables = options.tables ?? fixtureTables();
  mkdirSync(join(dir, split), { recursive: true });
  for (const [name, rows] of Object.entries(tables)) {
    const shaped = options.meta === 'flat' ? rows : rows.map(nestMeta);
    writeFileSync(join(dir, split, `${name}-${split}-00000-of-00001.parquet`), parquetBytes(shaped));
  }
  return dir;
}
