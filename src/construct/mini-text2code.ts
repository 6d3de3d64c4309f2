/**
 * coreb-mini's text-to-code queries: the canonical (abbreviated) and full statements, language
 * agnostic and pinned to each passing language, and the authored search queries.
 */
import { RELEVANCE, type QrelRecord } from '../core/dataset.js';
import { compareCodePoints } from '../core/ids.js';
import { pad4, SEARCH_QUERY_TYPES, type AuthoredProblem } from './mini-authored.js';
import type { MiniCorpora, MiniPlanContext } from './mini-corpora.js';
import { createText2CodeQrels } from './qrels.js';
import { choose, sampleSeeded } from './seeded-choice.js';
import type { WireRow } from './wire-row.js';

/** Display names used when a search query is pinned to a language. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  python: 'Python',
  cpp: 'C++',
  java: 'Java',
  go: 'Go',
  ruby: 'Ruby',
};

/**
 * Plans the text2code queries and qrels; a query without any positive is not emitted. In the
 * official shape the search queries of each `t2c_search_<variant>` subtask are a seeded sample of
 * at most `shape.searchCap` (in sampled order, as the maker's `random.sample`), and the numbering
 * skips one id between the canonical, full and search parts (the maker's counter does).
 */
export function planText2Code(
  sorted: readonly AuthoredProblem[],
  corpora: MiniCorpora,
  ctx: MiniPlanContext,
): { queries: WireRow[]; qrels: QrelRecord[] } {
  const { createdAt, version, seed, qrelOptions, shape } = ctx;
  const official = shape.rules === 'official';
  const { allDocs, passingLanguages } = corpora;
  const t2cQueries: WireRow[] = [];
  const t2cQrels: QrelRecord[] = [];
  let t2cNo = 0;
  const addT2c = (
    p: AuthoredProblem,
    variant: 'canonical_retro' | 'full_retro' | 'search',
    constraint: string,
    subQueryType: string,
    text: string,
    originalType: string = subQueryType,
  ): boolean => {
    const lang = constraint === 'none' ? 'any' : constraint;
    const queryId = `q_t2c_${variant}_${lang}_${pad4(t2cNo + 1)}`;
    const qrels = createText2CodeQrels(queryId, p.id, allDocs, constraint, qrelOptions);
    const positives = qrels.filter((r) => r.relevance === RELEVANCE.positive);
    if (positives.length === 0) return false;
    t2cNo++;
    const isSearch = variant === 'search';
    const models = [...new Set(positives.map((r) => allDocs.find((d) => d.id === r.docId)?.model ?? ''))].sort(compareCodePoints);
    t2cQueries.push({
      query_id: queryId,
      query: text,
      split: 'text2code',
      subtask: `t2c_${variant}_${lang}`,
      query_type: constraint === 'none' ? 'language_agnostic' : 'language_specific',
      sub_query_type: subQueryType,
      language_constraint: constraint,
      meta_source_problem_id: p.id,
      meta_original_query_type: originalType,
      meta_created_at: createdAt,
      meta_generator_version: version,
      meta_num_relevant_docs: isSearch ? positives.length : null,
      meta_models_in_relevant_docs: isSearch ? models : null,
      meta_is_multi_model: isSearch ? models.length > 1 : null,
    });
    t2cQrels.push(...qrels);
    return true;
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
    if (official) t2cNo++;
  }
  if (official) {
    planCappedSearch(sorted, passingLanguages, shape.searchCap, seed, addT2c);
    return { queries: t2cQueries, qrels: t2cQrels };
  }
  for (const p of sorted) {
    const langs = passingLanguages(p.id);
    // Queries written for a variant (coreb build): as written, in the order given.
    for (const q of p.searchQueries) {
      if (q.language === undefined) continue;
      addT2c(p, 'search', q.language === 'any' ? 'none' : q.language, q.subQueryType ?? q.type, q.text, q.type);
    }
    for (const type of SEARCH_QUERY_TYPES) {
      for (const q of p.searchQueries.filter((x) => x.type === type && x.language === undefined)) {
        if (type === 'language_agnostic' || langs.length === 0) {
          addT2c(p, 'search', 'none', type, q.text);
        } else {
          const lang = langs[choose(seed, `search:${p.id}:${type}:${q.text}`, langs.length)];
          addT2c(p, 'search', lang, type, `${q.text} in ${LANGUAGE_NAMES[lang] ?? lang}`);
        }
      }
    }
  }
  return { queries: t2cQueries, qrels: t2cQrels };
}

/** One search query waiting for its subtask's cap. */
interface SearchCandidate {
  p: AuthoredProblem;
  constraint: string;
  subQueryType: string;
  text: string;
  originalType: string;
}

/**
 * The official shape's search part: every query goes to its subtask's group (`any` first, then the
 * languages in code-point order); a group larger than `cap` is cut to a seeded sample of `cap`
 * (labelled by the subtask), in sampled order; the rest keep problem and query order.
 */
function planCappedSearch(
  sorted: readonly AuthoredProblem[],
  passingLanguages: (id: string) => string[],
  cap: number | null,
  seed: number,
  add: (p: AuthoredProblem, variant: 'search', constraint: string, subQueryType: string, text: string, originalType: string) => boolean,
): void {
  const groups = new Map<string, SearchCandidate[]>();
  const put = (c: SearchCandidate): void => {
    const key = c.constraint === 'none' ? 'any' : c.constraint;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [c]);
    else group.push(c);
  };
  for (const p of sorted) {
    const langs = passingLanguages(p.id);
    for (const q of p.searchQueries) {
      if (q.language !== undefined) {
        put({
          p,
          constraint: q.language === 'any' ? 'none' : q.language,
          subQueryType: q.subQueryType ?? q.type,
          text: q.text,
          originalType: q.type,
        });
      } else if (q.type === 'language_agnostic' || langs.length === 0) {
        put({ p, constraint: 'none', subQueryType: q.type, text: q.text, originalType: q.type });
      } else {
        // An authored query without a variant counts in every variant with a passing program (the maker's expansion).
        put({ p, constraint: 'none', subQueryType: q.type, text: q.text, originalType: q.type });
        for (const lang of langs) put({ p, constraint: lang, subQueryType: q.type, text: q.text, originalType: q.type });
      }
    }
  }
  const order = [...groups.keys()].sort((a, b) => (a === 'any' ? -1 : b === 'any' ? 1 : compareCodePoints(a, b)));
  for (const key of order) {
    const group = groups.get(key) as SearchCandidate[];
    const kept = cap === null ? group : sampleSeeded(group, cap, seed, `t2c_search_${key}`);
    for (const c of kept) add(c.p, 'search', c.constraint, c.subQueryType, c.text, c.originalType);
  }
}
