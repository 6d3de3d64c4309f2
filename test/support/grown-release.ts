/**
 * A release shaped like the official v202603 test split, derived from the bundled coreb-mini: its
 * code-to-code table gains `c2c_mono_lang` and `c2c_cross_model` queries built by the official
 * rules, an invented `c2c_future_x` subtask, a query of a family no release has, an unknown table
 * and an unknown meta field. What a later release may look like to a coreb that predates it.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './shared.js';

type Row = Record<string, unknown>;

function readRows(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

function writeRows(file: string, rows: readonly Row[]): void {
  writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/** What {@link writeGrownRelease} added, per subtask: query count. */
export interface GrownRelease {
  dir: string;
  added: Record<string, number>;
}

/**
 * Copies coreb-mini's release to `dir` and grows it. The primary model is `author-a`, the second
 * `author-b` (v202603: claude-sonnet-4-5 and gemini-3-flash):
 * - `c2c_mono_lang`: a passing program of author-b (Python in v202603; here a new document in the
 *   language of author-a's first passing program); positive author-a's passing program in that
 *   language, hard negatives the problem's programs in other languages;
 * - `c2c_cross_model`: the same anchor; positives author-a's passing programs in the other
 *   languages, hard negatives the problem's other non-positive programs there;
 * - `c2c_future_x`: a passing Go program of author-b; positives every other passing program;
 * - `x2y_probe`: one query of an unknown family (skipped by coreb, with a warning);
 * - `code2code_notes.jsonl`: a table coreb does not know; `meta_difficulty` on every c2c query.
 */
export function writeGrownRelease(dir: string): GrownRelease {
  cpSync(join(projectRoot, 'data', 'coreb-mini', 'release'), dir, { recursive: true });
  const code = readRows(join(dir, 'code_corpus.jsonl'));
  const queries: Row[] = readRows(join(dir, 'code2code_queries.jsonl')).map((q) => ({ ...q, meta_difficulty: 'medium' }));
  const qrels = readRows(join(dir, 'code2code_qrels.jsonl'));
  const byProblem = new Map<string, Row[]>();
  for (const c of code) {
    const p = String(c.meta_source_problem_id);
    byProblem.set(p, [...(byProblem.get(p) ?? []), c]);
  }
  const added: Record<string, number> = {};
  const add = (subtask: string, anchor: Row, rels: ReadonlyArray<[Row, number]>): void => {
    if (!rels.some(([, r]) => r === 2)) return;
    const n = (added[subtask] = (added[subtask] ?? 0) + 1);
    const queryId = `q_${subtask}_${String(n).padStart(4, '0')}`;
    queries.push({
      query_id: queryId,
      query: anchor.code,
      split: 'code2code',
      subtask,
      anchor_language: anchor.language,
      anchor_model: anchor.model,
      meta_source_problem_id: anchor.meta_source_problem_id,
      meta_anchor_code_id: anchor.code_id,
      meta_target_languages: [...new Set(rels.filter(([, r]) => r === 2).map(([d]) => d.language))],
      meta_difficulty: 'hard',
    });
    for (const [d, r] of rels) qrels.push({ query_id: queryId, doc_id: d.code_id, relevance: r });
  };
  for (const programs of byProblem.values()) {
    const passing = (c: Row): boolean => c.meta_passed === true;
    // v202603's anchor is the second model's passing Python program. coreb-mini's two authors never
    // both pass in one language, so the second author's anchor is added: the first author's passing
    // program with a comment line of its own, as a new code document.
    const primary = programs.find((c) => c.model === 'author-a' && passing(c));
    if (primary !== undefined) {
      const lang = primary.language;
      const mark = lang === 'python' || lang === 'ruby' ? '#' : '//';
      const anchor: Row = {
        ...primary,
        code_id: `code_grown_${String(code.length + 1).padStart(5, '0')}`,
        code: `${mark} the second model's program\n${String(primary.code)}`,
        model: 'author-b',
      };
      code.push(anchor);
      const others = programs;
      const mono = others.filter((c) => c.model === 'author-a' && c.language === lang && passing(c));
      add('c2c_mono_lang', anchor, [
        ...mono.map((d): [Row, number] => [d, 2]),
        ...others.filter((c) => c.language !== lang).map((d): [Row, number] => [d, 1]),
      ]);
      const cross = others.filter((c) => c.model === 'author-a' && c.language !== lang && passing(c));
      add('c2c_cross_model', anchor, [
        ...cross.map((d): [Row, number] => [d, 2]),
        ...others.filter((c) => c.language !== lang && !cross.includes(c)).map((d): [Row, number] => [d, 1]),
      ]);
    }
    const go = programs.find((c) => c.model === 'author-b' && c.language === 'go' && passing(c));
    if (go !== undefined)
      add(
        'c2c_future_x',
        go,
        programs.filter((c) => c !== go && passing(c)).map((d): [Row, number] => [d, 2]),
      );
  }
  const probe = queries[0];
  queries.push({ ...probe, query_id: 'q_x2y_probe_0001', subtask: 'x2y_probe' });
  writeRows(join(dir, 'code_corpus.jsonl'), code);
  writeRows(join(dir, 'code2code_queries.jsonl'), queries);
  writeRows(join(dir, 'code2code_qrels.jsonl'), qrels);
  writeRows(join(dir, 'code2code_notes.jsonl'), [{ query_id: 'q_c2c_mono_lang_0001', note: 'added by a later release' }]);
  return { dir, added };
}
