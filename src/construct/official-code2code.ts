/**
 * Code-to-code queries in the official shape (the maintainers' maker: `_generate_mono_lang_similarity`,
 * `_generate_cross_lang_similarity`, `_generate_cross_model_cross_lang_similarity`), with the models
 * named by role instead of hard-coded: model A is the primary, model B the second.
 *
 * - `c2c_mono_lang`: per problem with passing programs of both models in the anchor language
 *   (Python): the anchor is model B's first such program; positives are model A's programs there.
 * - `c2c_cross_lang`: model A's passing programs only; each one whose id is below that of a passing
 *   program of model A in another language is an anchor, and those programs are its positives (each
 *   pair asked once).
 * - `c2c_cross_model`: every passing program of model B in the anchor language is an anchor; its
 *   positives are model A's passing programs in the other languages.
 *
 * Hard negatives: three, sampled from the tiers of {@link createCode2CodeQrelsWhere}; the tier the
 * subtask prefers is the failed programs of its own constraint (cross_lang: another language;
 * mono_lang: the other model in the anchor language; cross_model: the other model, another language).
 * Ids are numbered over the table in subtask order, one id skipped between subtasks (as the maker's
 * counter does).
 */
import { RELEVANCE, type QrelRecord } from '../core/dataset.js';
import { compareCodePoints } from '../core/ids.js';
import { pad4, type AuthoredProblem } from './mini-authored.js';
import type { CodeDoc, MiniCorpora, MiniPlanContext } from './mini-corpora.js';
import { createCode2CodeQrelsWhere, type JudgedCandidate } from './qrels.js';
import type { Code2CodeSubtask } from './release-shape.js';
import type { WireRow } from './wire-row.js';

/** One planned anchor: its positives rule and preferred hard-negative tier. */
interface AnchorPlan {
  anchor: CodeDoc;
  isPositive: (c: JudgedCandidate) => boolean;
  firstTier: (c: JudgedCandidate) => boolean;
}

/** The anchors of one subtask for one problem's programs (corpus order). */
function anchorsOf(subtask: Code2CodeSubtask, docs: readonly CodeDoc[], ctx: MiniPlanContext): AnchorPlan[] {
  const { primary, secondary } = ctx.roles;
  const lang = ctx.shape.anchorLanguage;
  const passing = docs.filter((d) => d.passed);
  const ofA = passing.filter((d) => d.model === primary);
  const ofB = secondary === undefined ? [] : passing.filter((d) => d.model === secondary);
  if (subtask === 'mono_lang') {
    const anchor = ofB.find((d) => d.language === lang);
    if (anchor === undefined || !ofA.some((d) => d.language === lang)) return [];
    return [
      {
        anchor,
        isPositive: (c) => c.model === primary && c.language === lang,
        firstTier: (c) => c.model !== anchor.model && c.language === lang,
      },
    ];
  }
  if (subtask === 'cross_model') {
    if (!ofA.some((d) => d.language !== lang)) return [];
    return ofB
      .filter((d) => d.language === lang)
      .map((anchor) => ({
        anchor,
        isPositive: (c: JudgedCandidate) => c.model === primary && c.language !== lang,
        firstTier: (c: JudgedCandidate) => c.model !== anchor.model && c.language !== anchor.language,
      }));
  }
  if (new Set(ofA.map((d) => d.language)).size < 2) return [];
  return ofA.map((anchor) => ({
    anchor,
    isPositive: (c: JudgedCandidate) => c.model === primary && c.language !== anchor.language && compareCodePoints(anchor.id, c.id) < 0,
    firstTier: (c: JudgedCandidate) => c.language !== anchor.language,
  }));
}

/** Plans the code2code queries and qrels of the official shape. */
export function planOfficialCode2Code(
  sorted: readonly AuthoredProblem[],
  corpora: MiniCorpora,
  ctx: MiniPlanContext,
): { queries: WireRow[]; qrels: QrelRecord[] } {
  const { createdAt, version, qrelOptions, shape } = ctx;
  const { docsByProblem, allDocs } = corpora;
  const queries: WireRow[] = [];
  const qrels: QrelRecord[] = [];
  const docOf = new Map(allDocs.map((d) => [d.id, d]));
  let no = 0;
  for (const subtask of shape.code2code) {
    for (const p of sorted) {
      for (const { anchor, isPositive, firstTier } of anchorsOf(subtask, docsByProblem.get(p.id) ?? [], ctx)) {
        const queryId = `q_c2c_${subtask}_${pad4(no + 1)}`;
        const rows = createCode2CodeQrelsWhere(queryId, anchor, allDocs, isPositive, firstTier, qrelOptions);
        const positives = rows.filter((r) => r.relevance === RELEVANCE.positive);
        if (positives.length === 0) continue;
        no++;
        const targets = [...new Set(positives.map((r) => docOf.get(r.docId)?.language ?? ''))].sort(compareCodePoints);
        queries.push({
          query_id: queryId,
          query: anchor.solution.code,
          split: 'code2code',
          subtask: `c2c_${subtask}`,
          anchor_language: anchor.language,
          anchor_model: anchor.model,
          meta_source_problem_id: p.id,
          meta_anchor_code_id: anchor.id,
          meta_target_languages: targets,
          meta_num_target_solutions: positives.length,
          meta_created_at: createdAt,
          meta_generator_version: version,
        });
        qrels.push(...rows);
      }
    }
    no++;
  }
  return { queries, qrels };
}
