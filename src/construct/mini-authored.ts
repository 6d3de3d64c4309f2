/**
 * The authored inputs of coreb-mini: problems with statements, hard negatives, search queries and
 * solutions, and the judge's outcome per solution, as the build script reads them from the sources.
 */

/** The hard-negative strategies of paper §A.2, in the order their texts are numbered (`_noise1`..`_noise4`). */
export const HARD_NEGATIVE_STRATEGIES = ['operation_type', 'optimization_objective', 'algorithmic_approach', 'problem_domain'] as const;

/** Search query kinds an author writes; `language_agnostic` becomes the `t2c_search_any` query. */
export const SEARCH_QUERY_TYPES = ['description_search', 'algorithm_search', 'language_agnostic'] as const;

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
  /**
   * Search queries. Without `language` (coreb-mini's authored ones) a query of a
   * {@link SEARCH_QUERY_TYPES} kind is pinned to a passing language chosen by seed (`language_agnostic`:
   * none). With `language` (`any` or a language; `coreb build`'s per-language queries) it is used
   * as written, under `t2c_search_<language>`, with `subQueryType` (default `type`) as its
   * `sub_query_type` and `type` as `meta_original_query_type`.
   */
  searchQueries: Array<{ type: string; text: string; language?: string; subQueryType?: string }>;
  solutions: AuthoredSolution[];
}

/** The judge's outcome for one solution. */
export interface SolutionOutcome {
  passed: boolean;
  testsPassed: number;
  testsTotal: number;
}

/** Key of an outcome: `<problem id>/<solution file>`. */
export function outcomeKey(problemId: string, file: string): string {
  return `${problemId}/${file}`;
}

/** A zero-padded 5-digit number (corpus ids). */
export const pad5 = (n: number): string => String(n).padStart(5, '0');
/** A zero-padded 4-digit number (query ids). */
export const pad4 = (n: number): string => String(n).padStart(4, '0');
