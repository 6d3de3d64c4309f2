/**
 * Code-to-text queries in the official shape (the maintainers' maker: `_generate_c2t_full_retro_any`,
 * `_generate_c2t_full_retro_lang_specific`, the canonical pair of them and `_generate_c2t_match`):
 *
 * - `_any`: one query per problem; its anchor is model A's passing program in the anchor language
 *   (Python), else any passing program there, else the problem's first passing program;
 * - `_<lang>`: only for problems with passing programs in at least two languages, one query per
 *   such language (in corpus order), anchored on the first passing program in it;
 * - every query judges the problem's text at relevance 2 and a seeded sample of `shape.c2tHardTexts`
 *   (3) of its four near-miss texts at relevance 1 (`shape.c2tNearMissFrom` `other-problems`: of
 *   the other problems' near-miss texts, as v202602 was published);
 * - `c2t_match`: per problem the `_any` anchor paired with its own text (full, canonical: label 1)
 *   and, per text type, with the text of another problem picked by seed (label 0).
 *
 * Parts come in the maker's order (full any, full per language, canonical any, canonical per
 * language, match), one id skipped between parts.
 */
import type { QrelRecord } from '../core/dataset.js';
import { pad4, type AuthoredProblem } from './mini-authored.js';
import { code2TextRow, matchPairRow } from './mini-code2text.js';
import type { CodeDoc, MiniCorpora, MiniPlanContext } from './mini-corpora.js';
import { createCode2TextQrels } from './qrels.js';
import { choose, sampleSeeded } from './seeded-choice.js';
import type { WireRow } from './wire-row.js';

/** The `_any` anchor and the per-language anchors of one problem. */
interface ProblemAnchors {
  any: CodeDoc;
  /** Empty unless the problem passes in two languages or more. */
  perLanguage: CodeDoc[];
  languages: string[];
}

function anchorsOf(docs: readonly CodeDoc[], ctx: MiniPlanContext): ProblemAnchors | undefined {
  const passing = docs.filter((d) => d.passed);
  if (passing.length === 0) return undefined;
  const lang = ctx.shape.anchorLanguage;
  const any = passing.find((d) => d.language === lang && d.model === ctx.roles.primary) ?? passing.find((d) => d.language === lang) ?? passing[0];
  const perLanguage: CodeDoc[] = [];
  for (const d of passing) if (!perLanguage.some((x) => x.language === d.language)) perLanguage.push(d);
  const languages = perLanguage.map((d) => d.language).sort();
  return { any, perLanguage: perLanguage.length >= 2 ? perLanguage : [], languages };
}

/** Plans the code2text queries and qrels of the official shape. */
export function planOfficialCode2Text(
  sorted: readonly AuthoredProblem[],
  corpora: MiniCorpora,
  ctx: MiniPlanContext,
): { queries: WireRow[]; qrels: QrelRecord[] } {
  const { createdAt, version, seed, shape } = ctx;
  const { docsByProblem, textIdOf, noiseIdsOf } = corpora;
  const anchored = sorted.flatMap((p) => {
    const a = anchorsOf(docsByProblem.get(p.id) ?? [], ctx);
    return a === undefined ? [] : [{ p, a }];
  });
  const queries: WireRow[] = [];
  const qrels: QrelRecord[] = [];
  let no = 0;
  const allNoise = sorted.flatMap((p) => noiseIdsOf.get(p.id) ?? []);
  const judge = (queryId: string, p: AuthoredProblem, positive: string | null): void => {
    const pool = shape.c2tNearMissFrom === 'own' ? (noiseIdsOf.get(p.id) ?? []) : allNoise;
    const nearMisses = sampleSeeded(pool, shape.c2tHardTexts, seed, `near-miss:${queryId}`);
    qrels.push(...createCode2TextQrels(queryId, positive, nearMisses));
  };
  for (const [variant, textType] of [
    ['full_retro', 'full_description'],
    ['canonical_retro', 'canonical_description'],
  ] as const) {
    for (const perLanguage of [false, true]) {
      for (const { p, a } of anchored) {
        for (const anchor of perLanguage ? a.perLanguage : [a.any]) {
          const lang = perLanguage ? anchor.language : 'any';
          const subtask = `c2t_${variant}_${lang}`;
          const queryId = `q_${subtask}_${pad4(++no)}`;
          const row = code2TextRow(queryId, subtask, p, anchor, createdAt, version);
          row.meta_task_type = perLanguage ? 'cross_language_invariance' : 'description_retrieval';
          row.meta_text_type = textType;
          if (perLanguage) row.meta_available_languages = a.languages;
          queries.push(row);
          judge(queryId, p, textIdOf.get(p.id) as string);
        }
      }
      no++;
    }
  }
  if (!shape.c2tMatch) return { queries, qrels };
  for (const { p, a } of anchored) {
    const others = anchored.filter((o) => o.p.id !== p.id).map((o) => o.p);
    const pairs: Array<{ target: AuthoredProblem; label: number; textType: 'full' | 'canonical' }> = [
      { target: p, label: 1, textType: 'full' },
      { target: p, label: 1, textType: 'canonical' },
    ];
    if (others.length > 0) {
      for (const textType of ['full', 'canonical'] as const) {
        pairs.push({ target: others[choose(seed, `match:${p.id}:${textType}`, others.length)], label: 0, textType });
      }
    }
    for (const { target, label, textType } of pairs) {
      const queryId = `q_c2t_match_${pad4(++no)}`;
      queries.push(matchPairRow(queryId, p, a.any, { target, textId: textIdOf.get(target.id) as string, label, textType }, createdAt, version));
      judge(queryId, p, label === 1 ? (textIdOf.get(p.id) as string) : null);
    }
  }
  return { queries, qrels };
}
