/**
 * Relevance rules of CoREB's v2 qrels scheme (paper §3, §A.2, §A.3), as pure functions from
 * execution results to judgments. The release builders (coreb-mini now, the full pipeline later)
 * call these so that every release labels documents the same way.
 */
import { RELEVANCE, type QrelRecord } from '../core/dataset.js';
import { compareCodePoints } from '../core/ids.js';
import { sampleSeeded } from './seeded-choice.js';

/** Default cap on hard negatives (relevance 1) per code-corpus query: 3, as in release v202602. */
export const DEFAULT_MAX_HARD_NEGATIVES = 3;

/** One code candidate of a problem with its execution outcome. */
export interface JudgedCandidate {
  /** Corpus id (`code_id`). */
  id: string;
  /** Seed problem the candidate was written for. */
  problemId: string;
  /** Programming language (`python`, `java`, `cpp`, `ruby`, `go`). */
  language: string;
  /** Model (or author) that produced it. */
  model: string;
  /** True when it passed every test of its problem. */
  passed: boolean;
}

/** Options of the code qrels rules. */
export interface CodeQrelsOptions {
  /** Most hard negatives (relevance 1) to judge per query; default {@link DEFAULT_MAX_HARD_NEGATIVES}. */
  maxHardNegatives?: number;
  /**
   * Pick hard negatives as the official maker does (`_select_t2c_hard_negatives`,
   * `_select_c2c_hard_negatives`): the failed programs that fit the subtask's own constraint; when
   * fewer than the cap, every failed program of the problem; when still fewer, its correct programs
   * that are not positives; then a seeded sample of the cap from that pool (labelled by query id).
   * Without it: failed first, then non-qualifying correct, in id order, truncated (coreb-mini).
   */
  sample?: { seed: number; firstTier?: 'constraint' | 'failed' };
}

const byId = (a: JudgedCandidate, b: JudgedCandidate): number => compareCodePoints(a.id, b.id);

/**
 * Picks hard negatives for a code query: failed candidates first, then correct candidates that do
 * not qualify under the subtask's constraint ("when the failed pool is insufficient", §A.2), each
 * group in code-point id order, truncated to `max`.
 */
function pickHardNegatives(failed: JudgedCandidate[], nonQualifyingCorrect: JudgedCandidate[], max: number): JudgedCandidate[] {
  return [...failed.sort(byId), ...nonQualifyingCorrect.sort(byId)].slice(0, Math.max(0, max));
}

/**
 * The official maker's pick: a pool grown tier by tier while it is smaller than `max` (each tier
 * in id order, nothing twice), then a seeded sample of `max` from the pool.
 */
function sampleHardNegatives(tiers: ReadonlyArray<readonly JudgedCandidate[]>, max: number, seed: number, label: string): JudgedCandidate[] {
  const pool: JudgedCandidate[] = [];
  const seen = new Set<string>();
  for (const tier of tiers) {
    if (pool.length >= max) break;
    for (const c of [...tier].sort(byId)) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      pool.push(c);
    }
  }
  return sampleSeeded(pool, Math.max(0, max), seed, `hard-negatives:${label}`);
}

/**
 * The shared code-corpus rule: among the query's own candidates, those that passed and `fit` the
 * subtask are positives (id order); hard negatives are picked by {@link pickHardNegatives}, or by
 * {@link sampleHardNegatives} with `options.sample` (`firstTier`: the failed programs that fit the
 * subtask's own constraint, tried before the others).
 */
function createCodeQrels(
  queryId: string,
  own: readonly JudgedCandidate[],
  fits: (c: JudgedCandidate) => boolean,
  options: CodeQrelsOptions,
  firstTier: (c: JudgedCandidate) => boolean = () => true,
): QrelRecord[] {
  const positives = own.filter((c) => c.passed && fits(c));
  const max = options.maxHardNegatives ?? DEFAULT_MAX_HARD_NEGATIVES;
  const failed = own.filter((c) => !c.passed);
  const nonQualifying = own.filter((c) => c.passed && !fits(c));
  const negatives =
    options.sample === undefined
      ? pickHardNegatives(failed, nonQualifying, max)
      : sampleHardNegatives(
          options.sample.firstTier === 'failed' ? [failed, nonQualifying] : [failed.filter(firstTier), failed, nonQualifying],
          max,
          options.sample.seed,
          queryId,
        );
  return [
    ...positives.sort(byId).map((c) => ({ queryId, docId: c.id, relevance: RELEVANCE.positive })),
    ...negatives.map((c) => ({ queryId, docId: c.id, relevance: RELEVANCE.hardNegative })),
  ];
}

/**
 * Text-to-code judgments for one query about one problem.
 *
 * - relevance 2: candidates of the problem that passed every test and, when `languageConstraint`
 *   names a language, are written in it (`'none'` or `'any'` accepts every language);
 * - relevance 1: the problem's failed candidates, then its correct candidates in another language,
 *   at most `maxHardNegatives` (default 3);
 * - candidates of other problems are never judged (easy negatives).
 *
 * Positives come first in id order, then hard negatives in the order picked. An empty positive set
 * is returned as is; callers decide whether such a query is kept.
 */
export function createText2CodeQrels(
  queryId: string,
  problemId: string,
  candidates: readonly JudgedCandidate[],
  languageConstraint: string,
  options: CodeQrelsOptions = {},
): QrelRecord[] {
  const own = candidates.filter((c) => c.problemId === problemId);
  const anyLanguage = languageConstraint === 'none' || languageConstraint === 'any';
  const fits = (c: JudgedCandidate): boolean => anyLanguage || c.language === languageConstraint;
  return createCodeQrels(queryId, own, fits, options, fits);
}

/**
 * Code-to-code (cross-language) judgments for one anchor.
 *
 * - relevance 2: candidates of the anchor's problem that passed every test and are written in one
 *   of `targetLanguages` (never the anchor itself);
 * - relevance 1: the problem's failed candidates (the anchor excluded), then its correct candidates
 *   outside the target languages, at most `maxHardNegatives` (default 3).
 */
export function createCode2CodeQrels(
  queryId: string,
  anchor: JudgedCandidate,
  candidates: readonly JudgedCandidate[],
  targetLanguages: readonly string[],
  options: CodeQrelsOptions = {},
): QrelRecord[] {
  const own = candidates.filter((c) => c.problemId === anchor.problemId && c.id !== anchor.id);
  return createCodeQrels(
    queryId,
    own,
    (c) => targetLanguages.includes(c.language),
    options,
    (c) => c.language !== anchor.language,
  );
}

/**
 * Code-to-code judgments for one anchor under an explicit positive rule (the official subtasks:
 * `c2c_mono_lang`, `c2c_cross_lang`, `c2c_cross_model`).
 *
 * - relevance 2: candidates of the anchor's problem that passed and satisfy `isPositive` (never the anchor);
 * - relevance 1: hard negatives as {@link CodeQrelsOptions.sample} describes, `firstTier` naming the
 *   failed programs the subtask prefers (for example another model's, in the anchor's language).
 */
export function createCode2CodeQrelsWhere(
  queryId: string,
  anchor: JudgedCandidate,
  candidates: readonly JudgedCandidate[],
  isPositive: (c: JudgedCandidate) => boolean,
  firstTier: (c: JudgedCandidate) => boolean,
  options: CodeQrelsOptions = {},
): QrelRecord[] {
  const own = candidates.filter((c) => c.problemId === anchor.problemId && c.id !== anchor.id);
  return createCodeQrels(queryId, own, isPositive, options, firstTier);
}

/**
 * Code-to-text judgments: relevance 2 for the problem's own description (`positiveTextId`, or
 * `null` for a negative c2t_match pair, which then has no positive), relevance 1 for each of the
 * problem's hard-negative descriptions (§A.2: four per problem), in the order given.
 */
export function createCode2TextQrels(queryId: string, positiveTextId: string | null, hardNegativeTextIds: readonly string[]): QrelRecord[] {
  const out: QrelRecord[] = [];
  if (positiveTextId !== null) out.push({ queryId, docId: positiveTextId, relevance: RELEVANCE.positive });
  for (const docId of hardNegativeTextIds) {
    if (docId !== positiveTextId) out.push({ queryId, docId, relevance: RELEVANCE.hardNegative });
  }
  return out;
}

/**
 * Target languages of a cross-language anchor: the languages after the anchor's own, in code-point
 * order, that have at least one passing candidate of the problem. Each unordered language pair is
 * thus asked once (cpp -> go, java, ...; ruby anchors have no targets), as in release v202602.
 */
export function resolveCrossLanguageTargets(anchor: JudgedCandidate, candidates: readonly JudgedCandidate[]): string[] {
  const langs = new Set<string>();
  for (const c of candidates) {
    if (c.problemId === anchor.problemId && c.passed && compareCodePoints(c.language, anchor.language) > 0) {
      langs.add(c.language);
    }
  }
  return [...langs].sort(compareCodePoints);
}
