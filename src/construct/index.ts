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
  HARD_NEGATIVE_STRATEGIES,
  SEARCH_QUERY_TYPES,
  outcomeKey,
  type AuthoredProblem,
  type AuthoredSolution,
  type SolutionOutcome,
} from './mini-authored.js';
export { planMiniRelease, type MiniReleaseOptions, type PlannedRelease } from './mini-release.js';
export { FLOAT_COLUMNS, renderWireRow, type WireRow } from './wire-row.js';
