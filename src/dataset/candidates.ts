/**
 * Programs to judge: candidates JSONL `{id, problem_id, language, code}`, or a CoREB `code_corpus`
 * table (`code_id`, `code`, `language`, `meta_source_problem_id` or nested `meta.source_problem_id`)
 * as JSONL or parquet. Both become core `Program` records; language names are normalised once here.
 */
import { CorebError } from '../core/errors.js';
import { EXEC_LANGUAGES, type ExecLanguage, type Program } from '../core/execution.js';
import { loadJsonlRecords } from './jsonl.js';
import { readParquetRows } from './parquet.js';

/** Accepted spellings of each judge language (lower-cased). */
const LANGUAGE_ALIASES: Readonly<Record<string, ExecLanguage>> = {
  python: 'python',
  python3: 'python',
  py: 'python',
  py3: 'python',
  cpp: 'cpp',
  'c++': 'cpp',
  'c++17': 'cpp',
  cxx: 'cpp',
  java: 'java',
  java17: 'java',
  go: 'go',
  golang: 'go',
  ruby: 'ruby',
  rb: 'ruby',
};

/** The judge language for a name such as `Python3`, `C++` or `golang`; undefined when unknown. */
export function parseExecLanguage(name: string): ExecLanguage | undefined {
  return LANGUAGE_ALIASES[name.trim().toLowerCase()];
}

/**
 * Turns one record into a program. Accepts the candidates shape `{id, problem_id, language, code}`
 * and the CoREB code_corpus shape (`code_id`, `meta_source_problem_id` / `meta.source_problem_id`).
 * @throws CorebError `VALIDATION` naming the field and what is valid.
 */
export function parseCandidate(raw: Record<string, unknown>, file?: string, line?: number): Program {
  const meta = raw.meta !== null && typeof raw.meta === 'object' ? (raw.meta as Record<string, unknown>) : {};
  const id = raw.id ?? raw.code_id;
  const problemId = raw.problem_id ?? raw.meta_source_problem_id ?? meta.source_problem_id;
  const check = (v: unknown, field: string): string => {
    if (typeof v !== 'string' || v === '') {
      throw new CorebError(
        'VALIDATION',
        `field \`${field}\` missing or not a string; a candidate needs {id, problem_id, language, code} ` +
          '(or a CoREB code_corpus row: code_id, code, language, meta_source_problem_id)',
        { file, line, field },
      );
    }
    return v;
  };
  const lang = check(raw.language, 'language');
  const language = parseExecLanguage(lang);
  if (language === undefined) {
    throw new CorebError('VALIDATION', `unknown language \`${lang}\`; valid: ${EXEC_LANGUAGES.join(', ')}`, { file, line, field: 'language' });
  }
  if (typeof raw.code !== 'string') throw new CorebError('VALIDATION', 'field `code` missing or not a string', { file, line, field: 'code' });
  return {
    id: check(id, raw.id === undefined ? 'code_id' : 'id'),
    problemId: check(problemId, raw.problem_id === undefined ? 'meta_source_problem_id' : 'problem_id'),
    language,
    code: raw.code,
  };
}

/**
 * Loads programs from a candidates JSONL, a code_corpus JSONL or a code_corpus parquet file.
 * @throws CorebError `PARSE` / `VALIDATION` (with file and line) or `VALIDATION` on duplicate ids.
 */
export async function loadCandidates(file: string): Promise<Program[]> {
  return (await loadCandidatesWithLabels(file)).programs;
}

/** Programs with the pass/fail labels their rows carry (CoREB `meta_passed` or nested `meta.passed`). */
export interface LabelledCandidates {
  programs: Program[];
  /** Program id -> released label, for rows with a boolean label. */
  labels: Map<string, boolean>;
}

/**
 * {@link loadCandidates} keeping each row's released pass/fail label (`meta_passed`, `meta.passed` or
 * `passed`), for comparing a judge's verdicts with a release's.
 */
export async function loadCandidatesWithLabels(file: string): Promise<LabelledCandidates> {
  const rows: Array<{ value: Record<string, unknown>; line?: number; row?: number }> = [];
  if (file.endsWith('.parquet')) {
    (await readParquetRows(file)).forEach((value, row) => rows.push({ value, row }));
  } else {
    for (const r of await loadJsonlRecords(file)) rows.push({ value: r.value, line: r.line });
  }
  const seen = new Set<string>();
  const labels = new Map<string, boolean>();
  const programs = rows.map(({ value, line, row }) => {
    const p = parseCandidate(value, file, line ?? (row === undefined ? undefined : row + 1));
    if (seen.has(p.id)) throw new CorebError('VALIDATION', `duplicate program id \`${p.id}\``, { file, line, field: 'id' });
    seen.add(p.id);
    const meta = value.meta !== null && typeof value.meta === 'object' ? (value.meta as Record<string, unknown>) : {};
    const label = value.meta_passed ?? meta.passed ?? value.passed;
    if (typeof label === 'boolean') labels.set(p.id, label);
    return p;
  });
  return { programs, labels };
}
