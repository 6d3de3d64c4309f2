/**
 * Plans the coreb-mini release: turns authored problems (statements, hard negatives, search
 * queries, solutions) plus their execution outcomes into the 8 official CoREB tables, as plain
 * wire rows with flattened `meta_*` columns. Pure: the build script reads sources and writes files.
 */
import { compareCodePoints } from '../core/ids.js';
import { CorebError } from '../core/errors.js';
import { RELEASE_TABLES, RELEVANCE, type QrelRecord, type ReleaseTable } from '../core/dataset.js';
import {
  createCode2CodeQrels,
  createCode2TextQrels,
  createText2CodeQrels,
  resolveCrossLanguageTargets,
  type JudgedCandidate,
} from './qrels.js';

/** The hard-negative strategies of paper §A.2, in the order their texts are numbered (`_noise1`..`_noise4`). */
export const HARD_NEGATIVE_STRATEGIES = [
  'operation_type',
  'optimization_objective',
  'algorithmic_approach',
  'problem_domain',
] as const;

/** Search query kinds an author writes; `language_agnostic` becomes the `t2c_search_any` query. */
export const SEARCH_QUERY_TYPES = ['description_search', 'algorithm_search', 'language_agnostic'] as const;

/** Display names used when a search query is pinned to a language. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  python: 'Python',
  cpp: 'C++',
  java: 'Java',
  go: 'Go',
  ruby: 'Ruby',
};

/** One authored solution with its source text. */
export interface AuthoredSolution {
  /** File name under `solutions/`. */
  file: string;
  language: string;
  /** `author-a` or `author-b`; becomes the corpus `model`. */
  author: string;
  /** What the author meant; the judge's verdict decides the labels, not this. */
  intent: 'correct' | 'incorrect';
  note?: string;
  code: string;
}

/** One authored problem (the `problem.json` of a source folder, camelCased, with solution code). */
export interface AuthoredProblem {
  id: string;
  title: string;
  statement: string;
  abbreviated: string;
  tests: Array<{ input: string; output: string }>;
  hardNegatives: Array<{ strategy: string; text: string }>;
  searchQueries: Array<{ type: string; text: string }>;
  solutions: AuthoredSolution[];
}

/** The judge's outcome for one solution. */
export interface SolutionOutcome {
  passed: boolean;
  testsPassed: number;
  testsTotal: number;
}

/** Options of {@link planMiniRelease}. */
export interface MiniReleaseOptions {
  /** Id tag inside every id (`code_<tag>_00001`); default `mini`. */
  idTag?: string;
  /** Timestamp written to every `meta_created_at` (fixed so rebuilds are byte-identical). */
  createdAt: string;
  /** `meta_corpus_version` / `meta_generator_version`; default `v1.0`. */
  version?: string;
  /** Seed of the deterministic choices (anchors, search-query languages, negative pairs); default 2602. */
  seed?: number;
  /** Hard negatives per code query (relevance 1); default `DEFAULT_MAX_HARD_NEGATIVES` (3). */
  maxHardNegatives?: number;
}

/** A wire row: snake_case keys, flattened `meta_*` columns, JSON values. */
export type WireRow = Record<string, string | number | boolean | null | string[]>;

/** The planned release. */
export interface PlannedRelease {
  tables: Record<ReleaseTable, WireRow[]>;
  /** Row counts per table and query counts per subtask. */
  counts: { tables: Record<ReleaseTable, number>; subtasks: Record<string, number> };
}

/** Key of an outcome: `<problem id>/<solution file>`. */
export function outcomeKey(problemId: string, file: string): string {
  return `${problemId}/${file}`;
}

/** 32-bit FNV-1a hash of a string (seeds the per-problem choices). */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A deterministic choice: index into `n` items from the seed and a label, so adding a problem never
 * changes the choices made for the others.
 */
function choose(seed: number, label: string, n: number): number {
  let x = hash32(`${seed}:${label}`) || 1;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return (x >>> 0) % n;
}

const pad5 = (n: number): string => String(n).padStart(5, '0');
const pad4 = (n: number): string => String(n).padStart(4, '0');

interface CodeDoc extends JudgedCandidate {
  solution: AuthoredSolution;
}

/**
 * Plans the 8 tables from authored problems and judge outcomes.
 *
 * Ids: problems in code-point order of their ids; code rows per problem by (author, language, file);
 * originals `text_<tag>_NNNNN` numbered by problem, hard negatives `<original>_noiseK` with K the
 * strategy's position in {@link HARD_NEGATIVE_STRATEGIES}; query ids `q_<task>_<variant>_<lang>_NNNN`
 * numbered per task file. Labels come from the judge (`passed`), never from the authors' intent.
 * Queries without any positive are not emitted (as in the official release).
 *
 * @throws CorebError `VALIDATION` when a solution has no outcome or a problem lacks a strategy.
 */
export function planMiniRelease(
  problems: readonly AuthoredProblem[],
  outcomes: ReadonlyMap<string, SolutionOutcome>,
  options: MiniReleaseOptions,
): PlannedRelease {
  const tag = options.idTag ?? 'mini';
  const createdAt = options.createdAt;
  const version = options.version ?? 'v1.0';
  const seed = options.seed ?? 2602;
  const qrelOptions = { maxHardNegatives: options.maxHardNegatives };
  const sorted = [...problems].sort((a, b) => compareCodePoints(a.id, b.id));

  // Corpora.
  const codeCorpus: WireRow[] = [];
  const textCorpus: WireRow[] = [];
  const docsByProblem = new Map<string, CodeDoc[]>();
  const textIdOf = new Map<string, string>();
  const noiseIdsOf = new Map<string, string[]>();
  let codeNo = 0;
  for (const [pi, p] of sorted.entries()) {
    const sols = [...p.solutions].sort(
      (a, b) =>
        compareCodePoints(a.author, b.author) ||
        compareCodePoints(a.language, b.language) ||
        compareCodePoints(a.file, b.file),
    );
    const docs: CodeDoc[] = [];
    for (const s of sols) {
      const o = outcomes.get(outcomeKey(p.id, s.file));
      if (o === undefined) {
        throw new CorebError('VALIDATION', `no execution outcome for ${p.id}/${s.file}; run the judge on every solution first`);
      }
      const id = `code_${tag}_${pad5(++codeNo)}`;
      docs.push({ id, problemId: p.id, language: s.language, model: s.author, passed: o.passed, solution: s });
      codeCorpus.push({
        code_id: id,
        code: s.code,
        language: s.language,
        model: s.author,
        code_length: s.code.length,
        meta_source_problem_id: p.id,
        meta_solution_key: `${s.author}_${s.file}`,
        meta_passed: o.passed,
        meta_pass_rate: o.testsTotal === 0 ? 0 : o.testsPassed / o.testsTotal,
        meta_test_passed: o.testsPassed,
        meta_test_total: o.testsTotal,
        meta_created_at: createdAt,
        meta_corpus_version: version,
      });
    }
    docsByProblem.set(p.id, docs);

    const textId = `text_${tag}_${pad5(pi + 1)}`;
    textIdOf.set(p.id, textId);
    textCorpus.push({
      text_id: textId,
      text: p.statement,
      text_style: 'title_plus_description',
      text_length: p.statement.length,
      abbreviated_text: p.abbreviated,
      abbreviated_text_length: p.abbreviated.length,
      meta_source_problem_id: p.id,
      meta_created_at: createdAt,
      meta_corpus_version: version,
      meta_original_text_id: null,
      meta_original_problem_id: null,
      meta_is_noise_sample: null,
      meta_noise_type: null,
      meta_noise_variation: null,
    });
  }
  for (const p of sorted) {
    const textId = textIdOf.get(p.id) as string;
    const ids: string[] = [];
    for (const [k, strategy] of HARD_NEGATIVE_STRATEGIES.entries()) {
      const hn = p.hardNegatives.find((h) => h.strategy === strategy);
      if (hn === undefined) {
        throw new CorebError('VALIDATION', `${p.id}: no hard negative for strategy \`${strategy}\`; every problem needs all four`);
      }
      const id = `${textId}_noise${k + 1}`;
      ids.push(id);
      textCorpus.push({
        text_id: id,
        text: hn.text,
        text_style: 'llm_generated_noise',
        text_length: hn.text.length,
        abbreviated_text: null,
        abbreviated_text_length: null,
        meta_source_problem_id: `${p.id}_noise${k + 1}`,
        meta_created_at: createdAt,
        meta_corpus_version: version,
        meta_original_text_id: textId,
        meta_original_problem_id: p.id,
        meta_is_noise_sample: true,
        meta_noise_type: 'llm_generated',
        meta_noise_variation: k + 1,
      });
    }
    noiseIdsOf.set(p.id, ids);
  }
  const allDocs = sorted.flatMap((p) => docsByProblem.get(p.id) as CodeDoc[]);
  const passingLanguages = (pid: string): string[] =>
    [...new Set((docsByProblem.get(pid) as CodeDoc[]).filter((d) => d.passed).map((d) => d.language))].sort(compareCodePoints);

  // text2code.
  const t2cQueries: WireRow[] = [];
  const t2cQrels: QrelRecord[] = [];
  let t2cNo = 0;
  const addT2c = (
    p: AuthoredProblem,
    variant: 'canonical_retro' | 'full_retro' | 'search',
    constraint: string,
    subQueryType: string,
    text: string,
  ): void => {
    const lang = constraint === 'none' ? 'any' : constraint;
    const queryId = `q_t2c_${variant}_${lang}_${pad4(t2cNo + 1)}`;
    const qrels = createText2CodeQrels(queryId, p.id, allDocs, constraint, qrelOptions);
    const positives = qrels.filter((r) => r.relevance === RELEVANCE.positive);
    if (positives.length === 0) return;
    t2cNo++;
    const isSearch = variant === 'search';
    const models = [...new Set(positives.map((r) => allDocs.find((d) => d.id === r.docId)?.model ?? ''))].sort(
      compareCodePoints,
    );
    t2cQueries.push({
      query_id: queryId,
      query: text,
      split: 'text2code',
      subtask: `t2c_${variant}_${lang}`,
      query_type: constraint === 'none' ? 'language_agnostic' : 'language_specific',
      sub_query_type: subQueryType,
      language_constraint: constraint,
      meta_source_problem_id: p.id,
      meta_original_query_type: subQueryType,
      meta_created_at: createdAt,
      meta_generator_version: version,
      meta_num_relevant_docs: isSearch ? positives.length : null,
      meta_models_in_relevant_docs: isSearch ? models : null,
      meta_is_multi_model: isSearch ? models.length > 1 : null,
    });
    t2cQrels.push(...qrels);
  };
  for (const [variant, subType] of [
    ['canonical_retro', 'abbreviated'],
    ['full_retro', 'full_description'],
  ] as const) {
    for (const p of sorted) {
      const text = variant === 'canonical_retro' ? p.abbreviated : p.statement;
      addT2c(p, variant, 'none', subType, text);
      for (const lang of passingLanguages(p.id)) addT2c(p, variant, lang, subType, text);
    }
  }
  for (const p of sorted) {
    const langs = passingLanguages(p.id);
    for (const type of SEARCH_QUERY_TYPES) {
      for (const q of p.searchQueries.filter((x) => x.type === type)) {
        if (type === 'language_agnostic' || langs.length === 0) {
          addT2c(p, 'search', 'none', type, q.text);
        } else {
          const lang = langs[choose(seed, `search:${p.id}:${type}:${q.text}`, langs.length)];
          addT2c(p, 'search', lang, type, `${q.text} in ${LANGUAGE_NAMES[lang] ?? lang}`);
        }
      }
    }
  }

  // code2text: one "any" anchor per problem (a passing solution chosen by seed), one anchor per
  // passing language; full then canonical; then 4 match pairs per problem.
  const anchorsOf = new Map<string, { any: CodeDoc | undefined; perLanguage: CodeDoc[] }>();
  for (const p of sorted) {
    const passing = (docsByProblem.get(p.id) as CodeDoc[]).filter((d) => d.passed);
    const any = passing.length > 0 ? passing[choose(seed, `c2t-any:${p.id}`, passing.length)] : undefined;
    const perLanguage = passingLanguages(p.id).map((lang) => {
      const inLang = passing.filter((d) => d.language === lang);
      return any !== undefined && any.language === lang ? any : inLang[choose(seed, `c2t:${p.id}:${lang}`, inLang.length)];
    });
    anchorsOf.set(p.id, { any, perLanguage });
  }
  const c2tQueries: WireRow[] = [];
  const c2tQrels: QrelRecord[] = [];
  let c2tNo = 0;
  const c2tBase = (queryId: string, subtask: string, p: AuthoredProblem, anchor: CodeDoc): WireRow => ({
    query_id: queryId,
    query: anchor.solution.code,
    split: 'code2text',
    subtask,
    anchor_language: anchor.language,
    anchor_model: anchor.model,
    code: null,
    text_id: null,
    label: null,
    text_type: null,
    text: null,
    meta_source_problem_id: p.id,
    meta_anchor_code_id: anchor.id,
    meta_task_type: null,
    meta_text_type: null,
    meta_created_at: createdAt,
    meta_generator_version: version,
    meta_available_languages: null,
    meta_pair_type: null,
    meta_negative_problem_id: null,
  });
  for (const [variant, textType] of [
    ['full_retro', 'full_description'],
    ['canonical_retro', 'canonical_description'],
  ] as const) {
    const slices: Array<{ lang: string; anchor: CodeDoc; p: AuthoredProblem }> = [];
    for (const p of sorted) {
      const a = anchorsOf.get(p.id);
      if (a?.any !== undefined) slices.push({ lang: 'any', anchor: a.any, p });
    }
    for (const p of sorted) {
      for (const anchor of anchorsOf.get(p.id)?.perLanguage ?? []) slices.push({ lang: anchor.language, anchor, p });
    }
    for (const { lang, anchor, p } of slices) {
      const subtask = `c2t_${variant}_${lang}`;
      const queryId = `q_${subtask}_${pad4(++c2tNo)}`;
      const row = c2tBase(queryId, subtask, p, anchor);
      row.meta_task_type = lang === 'any' ? 'description_retrieval' : 'cross_language_invariance';
      row.meta_text_type = textType;
      if (lang !== 'any') row.meta_available_languages = passingLanguages(p.id);
      c2tQueries.push(row);
      c2tQrels.push(...createCode2TextQrels(queryId, textIdOf.get(p.id) as string, noiseIdsOf.get(p.id) as string[]));
    }
  }
  for (const p of sorted) {
    const anchor = anchorsOf.get(p.id)?.any;
    if (anchor === undefined) continue;
    const others = sorted.filter((o) => o.id !== p.id);
    const negative = others.length > 0 ? others[choose(seed, `match:${p.id}`, others.length)] : undefined;
    const pairs: Array<{ target: AuthoredProblem; label: number }> = [{ target: p, label: 1 }];
    if (negative !== undefined) pairs.push({ target: negative, label: 0 });
    for (const { target, label } of pairs) {
      for (const textType of ['full', 'canonical'] as const) {
        const queryId = `q_c2t_match_${pad4(++c2tNo)}`;
        const row = c2tBase(queryId, 'c2t_match', p, anchor);
        row.code = anchor.solution.code;
        row.text_id = textIdOf.get(target.id) as string;
        row.label = label;
        row.text_type = textType;
        row.text = textType === 'canonical' ? target.abbreviated : null;
        row.meta_pair_type = label === 1 ? 'positive' : 'negative_random';
        row.meta_negative_problem_id = label === 1 ? null : target.id;
        c2tQueries.push(row);
        c2tQrels.push(
          ...createCode2TextQrels(queryId, label === 1 ? (textIdOf.get(p.id) as string) : null, noiseIdsOf.get(p.id) as string[]),
        );
      }
    }
  }

  // code2code: every passing solution whose language has later passing languages is an anchor.
  const c2cQueries: WireRow[] = [];
  const c2cQrels: QrelRecord[] = [];
  let c2cNo = 0;
  for (const p of sorted) {
    const anchors = (docsByProblem.get(p.id) as CodeDoc[])
      .filter((d) => d.passed)
      .sort((a, b) => compareCodePoints(a.language, b.language) || compareCodePoints(a.id, b.id));
    for (const anchor of anchors) {
      const targets = resolveCrossLanguageTargets(anchor, allDocs);
      if (targets.length === 0) continue;
      const queryId = `q_c2c_cross_lang_${pad4(++c2cNo)}`;
      const qrels = createCode2CodeQrels(queryId, anchor, allDocs, targets, qrelOptions);
      c2cQueries.push({
        query_id: queryId,
        query: anchor.solution.code,
        split: 'code2code',
        subtask: 'c2c_cross_lang',
        anchor_language: anchor.language,
        anchor_model: anchor.model,
        meta_source_problem_id: p.id,
        meta_anchor_code_id: anchor.id,
        meta_target_languages: targets,
        meta_num_target_solutions: qrels.filter((r) => r.relevance === RELEVANCE.positive).length,
        meta_created_at: createdAt,
        meta_generator_version: version,
      });
      c2cQrels.push(...qrels);
    }
  }

  const qrelRows = (rows: QrelRecord[]): WireRow[] =>
    rows.map((r) => ({ query_id: r.queryId, doc_id: r.docId, relevance: r.relevance }));
  const tables: Record<ReleaseTable, WireRow[]> = {
    code_corpus: codeCorpus,
    text_corpus: textCorpus,
    text2code_queries: t2cQueries,
    text2code_qrels: qrelRows(t2cQrels),
    code2code_queries: c2cQueries,
    code2code_qrels: qrelRows(c2cQrels),
    code2text_queries: c2tQueries,
    code2text_qrels: qrelRows(c2tQrels),
  };
  const subtasks: Record<string, number> = {};
  for (const rows of [t2cQueries, c2cQueries, c2tQueries]) {
    for (const r of rows) subtasks[r.subtask as string] = (subtasks[r.subtask as string] ?? 0) + 1;
  }
  const tableCounts = Object.fromEntries(RELEASE_TABLES.map((t) => [t, tables[t].length])) as Record<ReleaseTable, number>;
  const sortedSubtasks = Object.fromEntries(Object.entries(subtasks).sort(([a], [b]) => compareCodePoints(a, b)));
  return { tables, counts: { tables: tableCounts, subtasks: sortedSubtasks } };
}

/**
 * Columns the official tables store as floating point (pandas wrote them): integers in them are
 * rendered `1.0`, so readers that keep JSON number types see the same types as in release v202602.
 */
export const FLOAT_COLUMNS: ReadonlySet<string> = new Set([
  'meta_pass_rate',
  'abbreviated_text_length',
  'meta_noise_variation',
  'meta_num_relevant_docs',
  'label',
]);

/**
 * Renders one wire row as a JSONL line in the official tables' style (Python `json.dumps` spacing:
 * `", "` between items and `": "` after keys, non-ASCII kept as is, {@link FLOAT_COLUMNS} as floats).
 * No trailing newline.
 */
export function renderWireRow(row: WireRow): string {
  const value = (k: string, v: WireRow[string]): string => {
    if (Array.isArray(v)) return `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
    if (typeof v === 'number' && Number.isInteger(v) && FLOAT_COLUMNS.has(k)) return `${v}.0`;
    return JSON.stringify(v);
  };
  return `{${Object.entries(row)
    .map(([k, v]) => `${JSON.stringify(k)}: ${value(k, v)}`)
    .join(', ')}}`;
}
