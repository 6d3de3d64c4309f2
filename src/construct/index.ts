/** Public API of `construct` (barrel; owned by that area): qrels rules and the coreb-mini planner. */
export {
  DEFAULT_MAX_HARD_NEGATIVES,
  createCode2CodeQrels,
  createCode2TextQrels,
  createText2CodeQrels,
  resolveCrossLanguageTargets,
  type CodeQrelsOptions,
  type JudgedCandidate,
} from './qrels.js';
export {
  FLOAT_COLUMNS,
  HARD_NEGATIVE_STRATEGIES,
  SEARCH_QUERY_TYPES,
  outcomeKey,
  planMiniRelease,
  renderWireRow,
  type AuthoredProblem,
  type AuthoredSolution,
  type MiniReleaseOptions,
  type PlannedRelease,
  type SolutionOutcome,
  type WireRow,
} from './mini-release.js';
