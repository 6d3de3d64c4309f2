/**
 * coreb-mini's code-to-code queries: every passing solution whose problem has passing solutions in
 * later languages is an anchor; its targets are those solutions (qrels rules in qrels.ts).
 */
import { RELEVANCE, type QrelRecord } from '../core/dataset.js';
import { compareCodePoints } from '../core/ids.js';
import { pad4, type AuthoredProblem } from './mini-authored.js';
import type { CodeDoc, MiniCorpora, MiniPlanContext } from './mini-corpora.js';
import { createCode2CodeQrels, resolveCrossLanguageTargets } from './qrels.js';
import type { WireRow } from './wire-row.js';

/** Plans the code2code queries and qrels. */
export function planCode2Code(
  sorted: readonly AuthoredProblem[],
  corpora: MiniCorpora,
  ctx: MiniPlanContext,
): { queries: WireRow[]; qrels: QrelRecord[] } {
  const { createdAt, version, qrelOptions } = ctx;
  const { docsByProblem, allDocs } = corpora;
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
  return { queries: c2cQueries, qrels: c2cQrels };
}
