/**
 * Release statistics in the shape of the CoREB paper's Tables 2, 5, 11 and 12: rows per table,
 * corpus composition, queries per main task / subtask / language, qrels per relevance level and
 * positives per query; plus a plain-text rendering for `coreb validate`.
 */
import { counted } from '../core/words.js';
import { tableLines } from '../core/table.js';
import type { Release, ReleaseTable, RetrievalTask, TaskName } from '../core/dataset.js';
import { RELEASE_TABLES, RELEVANCE, TASK_CORPUS, TASK_SHORT_NAME, TASKS } from '../core/dataset.js';
import { describeSubtaskFamily, SUBTASK_LANGUAGES, subtaskFamily, subtaskLanguage } from './release-schema.js';
import { querySubQueryType } from './release-tasks.js';

/** Min / median / mean / max of a list of counts (all 0 for an empty list). */
export interface CountSummary {
  /** How many values were summarised. */
  n: number;
  min: number;
  /** Middle value; the mean of the two middle values for an even count. */
  median: number;
  mean: number;
  max: number;
}

/** Per-task query and qrels statistics. */
export interface TaskStats {
  queries: number;
  /** Subtask id -> queries (paper Table 11). */
  bySubtask: Record<string, number>;
  /** Language slice (`any`, `python`, ...; see {@link sliceLanguage}) -> queries. */
  byLanguage: Record<string, number>;
  /** Subtask variant (`canonical_retro`, `search`, `match`, `cross_lang`, ...) -> language -> queries. */
  byVariantLanguage: Record<string, Record<string, number>>;
  /** `sub_query_type` (t2c) / text type (c2t) -> queries. */
  bySubQueryType: Record<string, number>;
  /**
   * Subtasks of no known family (`x2y_probe`) -> queries: not scored, and left out of the subtask,
   * language and query-type counts above (they are in {@link queries}, the table's rows).
   */
  skippedSubtasks: Record<string, number>;
  /** Qrels rows. */
  qrels: number;
  /** Relevance label -> qrels rows (paper Table 5). */
  qrelsByRelevance: Record<string, number>;
  /** Relevance-2 documents per query, over every query of the task (queries with none count as 0). */
  positivesPerQuery: CountSummary;
  /** Relevance-1 documents per query. */
  hardNegativesPerQuery: CountSummary;
  /** Queries with no relevance-2 document. */
  queriesWithoutPositive: number;
  /** Qrels whose query id is not in the task's queries. */
  danglingQueryIds: number;
  /** Qrels whose document id is not in the task's corpus. */
  danglingDocIds: number;
  /** Queries whose `meta.anchor_code_id` is not in the code corpus. */
  danglingAnchors: number;
  /** Subtask variant -> model of the query's anchor program (`anchor_model`, else the anchor's row) -> queries. */
  anchorModels: Record<string, Record<string, number>>;
}

/** Statistics of a whole release. */
export interface ReleaseStats {
  split: string;
  /** Rows loaded per table. */
  tables: Record<ReleaseTable, number>;
  /** Code corpus composition (paper Table 12). */
  code: {
    total: number;
    byLanguage: Record<string, number>;
    byModel: Record<string, number>;
    /** Verified-correct candidates (`meta.passed` true). */
    passed: number;
    /** Distinct seed problems. */
    problems: number;
  };
  /** Text corpus composition (paper Table 12). */
  text: {
    total: number;
    /** Original descriptions (not `meta.is_noise_sample`). */
    originals: number;
    /** LLM-made hard negatives (`meta.is_noise_sample` true). */
    hardNegatives: number;
    /** Rows with an `abbreviated_text`. */
    withAbbreviatedText: number;
  };
  /** Total queries over the three tasks. */
  queries: number;
  tasks: Record<TaskName, TaskStats>;
}

/** Summarises counts: min, median, mean, max. */
export function summarizeCounts(values: readonly number[]): CountSummary {
  const n = values.length;
  if (n === 0) return { n: 0, min: 0, median: 0, mean: 0, max: 0 };
  const s = [...values].sort((a, b) => a - b);
  const median = n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  let sum = 0;
  for (const v of s) sum += v;
  return { n, min: s[0], median, mean: sum / n, max: s[n - 1] };
}

function inc(m: Record<string, number>, key: string, by = 1): void {
  m[key] = (m[key] ?? 0) + by;
}

/** `t2c_canonical_retro_python` -> `canonical_retro`; `c2t_match` -> `match`. */
export function subtaskVariant(subtask: string): string {
  const parts = subtask.split('_').slice(1);
  if (parts.length > 1 && subtaskLanguage(subtask) !== undefined) parts.pop();
  return parts.join('_');
}

/**
 * The language column of paper Table 11: the subtask's language slice (`t2c_search_go` -> `go`,
 * `..._any` -> `any`), else t2c `language_constraint` (`none` -> `any`) or c2t/c2c `anchor_language`.
 */
export function sliceLanguage(task: TaskName, subtask: string, languageConstraint?: string | null, anchorLanguage?: string | null): string {
  const slice = subtaskLanguage(subtask);
  if (slice !== undefined) return slice;
  if (task === 'text2code') return languageConstraint == null ? 'unknown' : languageConstraint === 'none' ? 'any' : languageConstraint;
  return anchorLanguage ?? 'unknown';
}

/** Computes a release's statistics (counts only; see `validateRelease` for problems). */
export function releaseStats(release: Release): ReleaseStats {
  const codeIds = new Set(release.codeCorpus.map((r) => r.codeId));
  const codeModels = new Map(release.codeCorpus.map((r) => [r.codeId, r.model]));
  const textIds = new Set(release.textCorpus.map((r) => r.textId));
  const code = { total: release.codeCorpus.length, byLanguage: {}, byModel: {}, passed: 0, problems: 0 } as ReleaseStats['code'];
  const problems = new Set<string>();
  for (const r of release.codeCorpus) {
    inc(code.byLanguage, r.language);
    inc(code.byModel, r.model ?? 'unknown');
    if (r.meta.passed === true) code.passed++;
    if (r.meta.sourceProblemId != null) problems.add(r.meta.sourceProblemId);
  }
  code.problems = problems.size;
  const text = { total: release.textCorpus.length, originals: 0, hardNegatives: 0, withAbbreviatedText: 0 };
  for (const r of release.textCorpus) {
    if (r.meta.isNoiseSample === true) text.hardNegatives++;
    else text.originals++;
    if (r.abbreviatedText != null) text.withAbbreviatedText++;
  }
  const tables = {} as Record<ReleaseTable, number>;
  for (const t of RELEASE_TABLES) tables[t] = 0;
  tables.code_corpus = release.codeCorpus.length;
  tables.text_corpus = release.textCorpus.length;
  const tasks = {} as Record<TaskName, TaskStats>;
  let queries = 0;
  for (const task of TASKS) {
    const { queries: qs, qrels } = release.tasks[task];
    tables[`${task}_queries`] = qs.length;
    tables[`${task}_qrels`] = qrels.length;
    queries += qs.length;
    const corpus = TASK_CORPUS[task] === 'code' ? codeIds : textIds;
    const st: TaskStats = {
      queries: qs.length,
      bySubtask: {},
      byLanguage: {},
      byVariantLanguage: {},
      bySubQueryType: {},
      skippedSubtasks: {},
      qrels: qrels.length,
      qrelsByRelevance: {},
      positivesPerQuery: summarizeCounts([]),
      hardNegativesPerQuery: summarizeCounts([]),
      queriesWithoutPositive: 0,
      danglingQueryIds: 0,
      danglingDocIds: 0,
      danglingAnchors: 0,
      anchorModels: {},
    };
    const qids = new Set<string>();
    for (const q of qs) {
      qids.add(q.queryId);
      if (subtaskFamily(q.subtask) === undefined) {
        inc(st.skippedSubtasks, q.subtask);
        continue;
      }
      inc(st.bySubtask, q.subtask);
      const lang = sliceLanguage(task, q.subtask, q.languageConstraint, q.anchorLanguage);
      inc(st.byLanguage, lang);
      const variant = subtaskVariant(q.subtask);
      inc((st.byVariantLanguage[variant] ??= {}), lang);
      const sqt = querySubQueryType(task, q);
      if (sqt != null) inc(st.bySubQueryType, sqt);
      if (q.meta.anchorCodeId != null && !codeIds.has(q.meta.anchorCodeId)) st.danglingAnchors++;
      const anchorModel = q.anchorModel ?? (q.meta.anchorCodeId != null ? codeModels.get(q.meta.anchorCodeId) : undefined);
      if (anchorModel != null) inc((st.anchorModels[variant] ??= {}), anchorModel);
    }
    const pos = new Map<string, number>();
    const neg = new Map<string, number>();
    for (const r of qrels) {
      inc(st.qrelsByRelevance, String(r.relevance));
      if (!qids.has(r.queryId)) st.danglingQueryIds++;
      if (!corpus.has(r.docId)) st.danglingDocIds++;
      if (r.relevance >= RELEVANCE.positive) pos.set(r.queryId, (pos.get(r.queryId) ?? 0) + 1);
      else if (r.relevance === RELEVANCE.hardNegative) neg.set(r.queryId, (neg.get(r.queryId) ?? 0) + 1);
    }
    const unique = [...qids];
    st.positivesPerQuery = summarizeCounts(unique.map((q) => pos.get(q) ?? 0));
    st.hardNegativesPerQuery = summarizeCounts(unique.map((q) => neg.get(q) ?? 0));
    st.queriesWithoutPositive = unique.filter((q) => !pos.has(q)).length;
    tasks[task] = st;
  }
  return { split: release.split, tables, code, text, queries, tasks };
}

const fmtInt = (n: number): string => n.toLocaleString('en-US');
const fmtNum = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));

function table(header: string[], rows: string[][]): string[] {
  return tableLines({ header, rows });
}

function sortedKeys(m: Record<string, number>): string[] {
  return Object.keys(m).sort((a, b) => m[b] - m[a] || a.localeCompare(b));
}

/** Renders statistics as plain-text tables (numbers with thousands separators). */
export function renderReleaseStats(s: ReleaseStats): string {
  const out: string[] = [`CoREB release ${s.split}`, ''];
  out.push(
    ...table(
      ['table', 'rows'],
      RELEASE_TABLES.map((t) => [t, fmtInt(s.tables[t])]),
    ),
    '',
  );
  out.push(
    `code corpus: ${fmtInt(s.code.total)} docs, ${fmtInt(s.code.passed)} verified-correct, ${fmtInt(s.code.problems)} problems`,
    `  by language: ${sortedKeys(s.code.byLanguage)
      .map((k) => `${k} ${fmtInt(s.code.byLanguage[k])}`)
      .join(', ')}`,
    `  by model: ${sortedKeys(s.code.byModel)
      .map((k) => `${k} ${fmtInt(s.code.byModel[k])}`)
      .join(', ')}`,
    `text corpus: ${fmtInt(s.text.total)} texts (${fmtInt(s.text.originals)} originals, ${fmtInt(s.text.hardNegatives)} hard negatives, ${fmtInt(s.text.withAbbreviatedText)} with abbreviated_text)`,
    '',
    `queries: ${fmtInt(s.queries)} (${TASKS.map((t) => `${t} ${fmtInt(s.tasks[t].queries)}`).join(', ')})`,
    '',
  );
  const langs: readonly string[] = SUBTASK_LANGUAGES;
  for (const task of TASKS) {
    const t = s.tasks[task];
    const extra = Object.keys(t.byLanguage).filter((l) => !langs.includes(l));
    const cols = [...langs, ...extra].filter((l) => (t.byLanguage[l] ?? 0) > 0);
    out.push(`${task}: ${counted(t.queries, 'query', 'queries', fmtInt)}`);
    const rows = Object.keys(t.byVariantLanguage)
      .sort()
      .map((v) => {
        const m = t.byVariantLanguage[v];
        const total = Object.values(m).reduce((a, b) => a + b, 0);
        return [v, ...cols.map((l) => fmtInt(m[l] ?? 0)), fmtInt(total)];
      });
    const skipped = Object.values(t.skippedSubtasks).reduce((a, b) => a + b, 0);
    rows.push(['total', ...cols.map((l) => fmtInt(t.byLanguage[l] ?? 0)), fmtInt(t.queries - skipped)]);
    out.push(...table(['subtask', ...cols, 'total'], rows).map((l) => '  ' + l));
    // The primary and second models as this release names them (code-to-code anchors).
    const top = (m: Record<string, number> | undefined) => (m === undefined ? undefined : sortedKeys(m)[0]);
    const models = { primary: top(s.tasks.code2code?.anchorModels?.cross_lang), second: top(s.tasks.code2code?.anchorModels?.mono_lang) };
    for (const v of Object.keys(t.byVariantLanguage).sort()) {
      const what = describeSubtaskFamily(`${TASK_SHORT_NAME[task]}_${v}`, {
        ...(models.primary !== undefined ? { primary: models.primary } : {}),
        ...(models.second !== undefined ? { second: models.second } : {}),
      });
      out.push(`  ${v}: ${what ?? 'new to this coreb: scored as a subtask of its own'}`);
    }
    if (skipped > 0) {
      const names = sortedKeys(t.skippedSubtasks).map((k) => `${k} ${fmtInt(t.skippedSubtasks[k])}`);
      out.push(`  skipped, not scored (no known subtask family): ${names.join(', ')}`);
    }
    if (Object.keys(t.bySubQueryType).length > 0) {
      out.push(
        `  query types: ${sortedKeys(t.bySubQueryType)
          .map((k) => `${k} ${fmtInt(t.bySubQueryType[k])}`)
          .join(', ')}`,
      );
    }
    const levels = Object.keys(t.qrelsByRelevance).sort((a, b) => Number(b) - Number(a));
    out.push(
      `  qrels: ${fmtInt(t.qrels)} (${levels.map((l) => `rel=${l}: ${fmtInt(t.qrelsByRelevance[l])}`).join(', ')})`,
      `  positives per query: min ${t.positivesPerQuery.min}, median ${fmtNum(t.positivesPerQuery.median)}, mean ${fmtNum(t.positivesPerQuery.mean)}, max ${t.positivesPerQuery.max}; ${fmtInt(t.queriesWithoutPositive)} queries without a positive`,
      `  hard negatives per query: min ${t.hardNegativesPerQuery.min}, median ${fmtNum(t.hardNegativesPerQuery.median)}, mean ${fmtNum(t.hardNegativesPerQuery.mean)}, max ${t.hardNegativesPerQuery.max}`,
      `  dangling ids: ${t.danglingQueryIds + t.danglingDocIds + t.danglingAnchors} (qrels query ids ${t.danglingQueryIds}, qrels doc ids ${t.danglingDocIds}, anchors ${t.danglingAnchors})`,
      '',
    );
  }
  return out.join('\n');
}

/** Statistics of one plain retrieval task (e.g. a BEIR directory). */
export interface RetrievalTaskStats {
  name: string;
  corpus: number;
  queries: number;
  /** Queries with at least one qrels row. */
  judgedQueries: number;
  qrels: number;
  /** Relevance label -> qrels rows. */
  qrelsByRelevance: Record<string, number>;
  /** Documents with relevance >= `positiveLevel` per judged query. */
  positivesPerQuery: CountSummary;
  /** The level that counts as positive. */
  positiveLevel: number;
}

/**
 * Counts a retrieval task's corpus, queries and qrels.
 * @param positiveLevel minimum relevance counted as a positive; default 1 (BEIR convention).
 */
export function retrievalTaskStats(task: RetrievalTask, positiveLevel = 1): RetrievalTaskStats {
  const byRel: Record<string, number> = {};
  let qrels = 0;
  const positives: number[] = [];
  for (const docs of task.qrels.values()) {
    let p = 0;
    for (const rel of docs.values()) {
      inc(byRel, String(rel));
      qrels++;
      if (rel >= positiveLevel) p++;
    }
    positives.push(p);
  }
  return {
    name: task.name,
    corpus: task.corpus.length,
    queries: task.queries.length,
    judgedQueries: task.qrels.size,
    qrels,
    qrelsByRelevance: byRel,
    positivesPerQuery: summarizeCounts(positives),
    positiveLevel,
  };
}

/** Renders {@link RetrievalTaskStats} as plain text. */
export function renderRetrievalTaskStats(s: RetrievalTaskStats): string {
  const levels = Object.keys(s.qrelsByRelevance).sort((a, b) => Number(b) - Number(a));
  const p = s.positivesPerQuery;
  return [
    `${s.name}: ${fmtInt(s.corpus)} documents, ${fmtInt(s.queries)} queries (${fmtInt(s.judgedQueries)} judged)`,
    `  qrels: ${fmtInt(s.qrels)} (${levels.map((l) => `rel=${l}: ${fmtInt(s.qrelsByRelevance[l])}`).join(', ')})`,
    `  positives (rel>=${s.positiveLevel}) per judged query: min ${p.min}, median ${fmtNum(p.median)}, mean ${fmtNum(p.mean)}, max ${p.max}`,
    '',
  ].join('\n');
}
