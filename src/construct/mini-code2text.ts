/**
 * coreb-mini's code-to-text queries: per problem a seeded "any" anchor and one anchor per passing
 * language (full then canonical descriptions), then the c2t_match positive and negative pairs.
 */
import type { QrelRecord } from '../core/dataset.js';
import { pad4, type AuthoredProblem } from './mini-authored.js';
import type { CodeDoc, MiniCorpora, MiniPlanContext } from './mini-corpora.js';
import { createCode2TextQrels } from './qrels.js';
import { choose } from './seeded-choice.js';
import type { WireRow } from './wire-row.js';

/** Plans the code2text queries and qrels. */
export function planCode2Text(
  sorted: readonly AuthoredProblem[],
  corpora: MiniCorpora,
  ctx: MiniPlanContext,
): { queries: WireRow[]; qrels: QrelRecord[] } {
  const { createdAt, version, seed } = ctx;
  const { docsByProblem, textIdOf, noiseIdsOf, passingLanguages } = corpora;
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
  const c2tBase = (queryId: string, subtask: string, p: AuthoredProblem, anchor: CodeDoc): WireRow =>
    code2TextRow(queryId, subtask, p, anchor, createdAt, version);
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
        c2tQueries.push(matchPairRow(queryId, p, anchor, { target, textId: textIdOf.get(target.id) as string, label, textType }, createdAt, version));
        c2tQrels.push(...createCode2TextQrels(queryId, label === 1 ? (textIdOf.get(p.id) as string) : null, noiseIdsOf.get(p.id) as string[]));
      }
    }
  }
  return { queries: c2tQueries, qrels: c2tQrels };
}

/** A code2text query row with every column of the release, the task-specific ones null. */
export function code2TextRow(queryId: string, subtask: string, p: AuthoredProblem, anchor: CodeDoc, createdAt: string, version: string): WireRow {
  return {
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
  };
}

/** A `c2t_match` row: `anchor`'s code paired with `target`'s text (label 1: its own problem's; 0: another's). */
export function matchPairRow(
  queryId: string,
  p: AuthoredProblem,
  anchor: CodeDoc,
  pair: { target: AuthoredProblem; textId: string; label: number; textType: 'full' | 'canonical' },
  createdAt: string,
  version: string,
): WireRow {
  const row = code2TextRow(queryId, 'c2t_match', p, anchor, createdAt, version);
  row.code = anchor.solution.code;
  row.text_id = pair.textId;
  row.label = pair.label;
  row.text_type = pair.textType;
  row.text = pair.textType === 'canonical' ? pair.target.abbreviated : null;
  row.meta_pair_type = pair.label === 1 ? 'positive' : 'negative_random';
  row.meta_negative_problem_id = pair.label === 1 ? null : pair.target.id;
  return row;
}
