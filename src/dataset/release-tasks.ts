/**
 * Converts a loaded CoREB release into the plain shapes the evaluator uses: per main task a
 * corpus of Docs, Queries with task/subtask/language/anchor, and a qrels Map.
 */
import type { Doc, Qrels, Query, QueryRecord, Release, RetrievalTask, TaskName } from '../core/dataset.js';
import { TASK_CORPUS, TASKS } from '../core/dataset.js';
import { subtaskFamily } from './release-schema.js';

/**
 * The problem a release row belongs to: for an LLM-written near-miss text the problem it was
 * written from (`meta.original_problem_id`; such texts carry their own ids like `lcb_3487_noise1`
 * as `source_problem_id`, which name no problem), else its `source_problem_id`; undefined when
 * neither is a non-empty string.
 */
export function owningProblemId(sourceProblemId: unknown, originalProblemId: unknown): string | undefined {
  if (typeof originalProblemId === 'string' && originalProblemId !== '') return originalProblemId;
  return typeof sourceProblemId === 'string' && sourceProblemId !== '' ? sourceProblemId : undefined;
}

/** Builds a qrels Map (query id -> doc id -> relevance) from rows; a repeated pair keeps the last label. */
export function createQrels(rows: Iterable<{ queryId: string; docId: string; relevance: number }>): Qrels {
  const qrels: Qrels = new Map();
  for (const r of rows) {
    let m = qrels.get(r.queryId);
    if (m === undefined) {
      m = new Map();
      qrels.set(r.queryId, m);
    }
    m.set(r.docId, r.relevance);
  }
  return qrels;
}

/** The query's language slice: t2c `language_constraint` (`none` -> `any`), c2t/c2c `anchor_language`. */
function queryLanguage(task: TaskName, q: QueryRecord): string | undefined {
  if (task === 'text2code') {
    const lc = q.languageConstraint;
    return lc == null ? undefined : lc === 'none' ? 'any' : lc;
  }
  return q.anchorLanguage ?? undefined;
}

/**
 * The query's type slice: t2c `sub_query_type`, c2t `meta.text_type` (else the top-level
 * `text_type`); c2c queries have none (undefined or null).
 */
export function querySubQueryType(task: TaskName, q: QueryRecord): string | null | undefined {
  return task === 'text2code' ? q.subQueryType : task === 'code2text' ? (q.meta.textType ?? q.textType) : undefined;
}

function toQuery(task: TaskName, q: QueryRecord): Query {
  const subQueryType = querySubQueryType(task, q);
  const { queryId, query, subtask, meta, ...rest } = q;
  const out: Query = { id: queryId, text: query, task, subtask };
  const language = queryLanguage(task, q);
  if (language !== undefined) out.language = language;
  if (subQueryType != null) out.subQueryType = subQueryType;
  if (meta.anchorCodeId != null) out.anchorId = meta.anchorCodeId;
  if (meta.sourceProblemId != null) out.problemId = meta.sourceProblemId;
  const merged: Record<string, unknown> = { ...rest };
  for (const [k, v] of Object.entries(meta)) if (v != null || !(k in merged)) merged[k] = v;
  out.meta = merged;
  return out;
}

/**
 * Splits a release into its three retrieval tasks.
 *
 * - Code corpus rows become Docs (`id` code_id, `text` code, `language`, `problemId`
 *   = meta.source_problem_id; model, pass/fail and the rest in `meta`). text2code and code2code share
 *   the same corpus array.
 * - Text corpus rows become Docs (`text` = the full `text`; `meta.abbreviatedText` keeps the short
 *   version).
 * - Queries get `task`, `subtask`, `language` (t2c `language_constraint` with `none` -> `any`;
 *   c2t/c2c `anchor_language`), `subQueryType` (t2c `sub_query_type`; c2t `meta.text_type`, else
 *   `text_type`), `anchorId` (`meta.anchor_code_id`, removed from c2c rankings by the evaluator) and
 *   `problemId`; every other top-level and meta field goes into `meta` (a null meta field never hides
 *   a non-null top-level one, e.g. c2t_match `text_type`).
 *
 * Queries whose subtask has no known family prefix (`t2c_`, `c2t_`, `c2c_`) are left out (validation
 * warns about each); a new subtask of a known family is kept and scored as a subtask of its own.
 *
 * c2t canonical_retro: in v202602 these queries' qrels point at the same text row as full_retro
 * (the original problem description); the canonical (short) text is that row's `abbreviated_text`,
 * which is not a separate corpus document. Scoring ranks the one text corpus for every c2t
 * subtask, so canonical and full retro differ only in the code query, never in the corpus.
 */
export function releaseTasks(release: Release): Record<TaskName, RetrievalTask> {
  const code: Doc[] = release.codeCorpus.map((r) => {
    const doc: Doc = { id: r.codeId, text: r.code, language: r.language };
    if (r.meta.sourceProblemId != null) doc.problemId = r.meta.sourceProblemId;
    doc.meta = { model: r.model, codeLength: r.codeLength, ...r.meta };
    return doc;
  });
  const text: Doc[] = release.textCorpus.map((r) => {
    const doc: Doc = { id: r.textId, text: r.text };
    if (r.meta.sourceProblemId != null) doc.problemId = r.meta.sourceProblemId;
    doc.meta = {
      textStyle: r.textStyle,
      textLength: r.textLength,
      abbreviatedText: r.abbreviatedText,
      abbreviatedTextLength: r.abbreviatedTextLength,
      ...r.meta,
    };
    return doc;
  });
  const out = {} as Record<TaskName, RetrievalTask>;
  for (const task of TASKS) {
    const t = release.tasks[task];
    out[task] = {
      name: task,
      task,
      corpus: TASK_CORPUS[task] === 'code' ? code : text,
      queries: t.queries.filter((q) => subtaskFamily(q.subtask) !== undefined).map((q) => toQuery(task, q)),
      qrels: createQrels(t.qrels),
    };
  }
  return out;
}

/**
 * The anchor map of a task: query id -> the query's own code item (`Query.anchorId`), the shape the
 * metrics' anchor exclusion takes (CoREB removes the anchor from c2c rankings before scoring).
 */
export function taskAnchors(task: RetrievalTask): Map<string, string> {
  const anchors = new Map<string, string>();
  for (const q of task.queries) if (q.anchorId !== undefined) anchors.set(q.id, q.anchorId);
  return anchors;
}
