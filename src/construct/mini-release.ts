/**
 * Plans the coreb-mini release: turns authored problems (statements, hard negatives, search
 * queries, solutions) plus their execution outcomes into the 8 official CoREB tables, as plain
 * wire rows with flattened `meta_*` columns. Pure: the build script reads sources and writes files.
 * The corpora and each task's queries are planned in their own modules (mini-*.ts).
 */
import { RELEASE_TABLES, type QrelRecord, type ReleaseTable } from '../core/dataset.js';
import { compareCodePoints } from '../core/ids.js';
import type { AuthoredProblem, SolutionOutcome } from './mini-authored.js';
import { planCode2Code } from './mini-code2code.js';
import { planCode2Text } from './mini-code2text.js';
import { planCorpora, type MiniPlanContext } from './mini-corpora.js';
import { planText2Code } from './mini-text2code.js';
import { planOfficialCode2Code } from './official-code2code.js';
import { planOfficialCode2Text } from './official-code2text.js';
import { RELEASE_SHAPES, type ReleaseShape, type ShapeRoles } from './release-shape.js';
import type { WireRow } from './wire-row.js';

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
  /** Hard negatives per code query (relevance 1); default the shape's (3). */
  maxHardNegatives?: number;
  /** The release shape; default `RELEASE_SHAPES['coreb-mini']` (coreb-mini's own rules). */
  shape?: ReleaseShape;
  /**
   * Which model is the primary (model A) and which the second (model B) in the official shape's
   * code-to-code and code-to-text rules; default the models in code-point order.
   */
  roles?: ShapeRoles;
}

/** The planned release. */
export interface PlannedRelease {
  tables: Record<ReleaseTable, WireRow[]>;
  /** Row counts per table and query counts per subtask. */
  counts: { tables: Record<ReleaseTable, number>; subtasks: Record<string, number> };
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
  const shape = options.shape ?? RELEASE_SHAPES['coreb-mini'];
  const seed = options.seed ?? 2602;
  const models = [...new Set(problems.flatMap((p) => p.solutions.map((s) => s.author)))].sort(compareCodePoints);
  const ctx: MiniPlanContext = {
    tag: options.idTag ?? 'mini',
    createdAt: options.createdAt,
    version: options.version ?? 'v1.0',
    seed,
    qrelOptions: {
      maxHardNegatives: options.maxHardNegatives ?? shape.maxHardNegatives,
      ...(shape.rules === 'official' ? { sample: { seed, firstTier: shape.hardNegativeFirstTier } } : {}),
    },
    shape,
    roles: options.roles ?? { primary: models[0] ?? '', ...(models[1] !== undefined ? { secondary: models[1] } : {}) },
  };
  const sorted = [...problems].sort((a, b) => compareCodePoints(a.id, b.id));
  const corpora = planCorpora(sorted, outcomes, ctx);
  const { codeCorpus, textCorpus } = corpora;
  const official = shape.rules === 'official';
  const { queries: t2cQueries, qrels: t2cQrels } = planText2Code(sorted, corpora, ctx);
  const { queries: c2tQueries, qrels: c2tQrels } = (official ? planOfficialCode2Text : planCode2Text)(sorted, corpora, ctx);
  const { queries: c2cQueries, qrels: c2cQrels } = (official ? planOfficialCode2Code : planCode2Code)(sorted, corpora, ctx);

  const qrelRows = (rows: QrelRecord[]): WireRow[] => rows.map((r) => ({ query_id: r.queryId, doc_id: r.docId, relevance: r.relevance }));
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
