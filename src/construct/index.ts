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
export {
  CODE2CODE_SUBTASKS,
  DEFAULT_BUILD_SHAPE,
  RELEASE_SHAPES,
  resolveReleaseShape,
  type Code2CodeSubtask,
  type ReleaseShape,
  type ShapeOverrides,
  type ShapeRoles,
} from './release-shape.js';
export {
  loadExcludedProblems,
  NEAR_DUPLICATE_STATEMENTS,
  parseSelectionDate,
  sameStatement,
  selectProblems,
  statementFingerprint,
  type DroppedProblem,
  type ExcludedProblems,
  type ProblemSelection,
  type StatementFingerprint,
} from './problem-selection.js';
export { FLOAT_COLUMNS, renderWireRow, type WireRow } from './wire-row.js';
export {
  BUILD_STAGES,
  SEARCH_QUERY_KINDS,
  SEARCH_SUB_QUERY_TYPE,
  STRATEGY_DESCRIPTIONS,
  fallbackAbbreviation,
  modelLabel,
  negativeTemperature,
  planBuild,
  runBuild,
  shapeRoles,
  type BuildFailure,
  type BuildModels,
  type BuildOptions,
  type BuildPlan,
  type BuildResult,
  type BuildStage,
  type SearchQueryKind,
  type StageUsage,
} from './pipeline/index.js';
export {
  PROMPT_NAMES,
  defaultPromptsDir,
  loadPromptSet,
  renderMessages,
  renderTemplate,
  type PromptName,
  type PromptSet,
} from './pipeline/prompts.js';
export {
  ContractError,
  extractProgram,
  isContextIndependent,
  parseAbbreviation,
  parseJsonObject,
  parseNegative,
  parsePlainText,
  parseRewriteReply,
  parseSearchQueriesReply,
  parseTestsReply,
  searchVariantKey,
  stripComments,
  stripOneFence,
} from './pipeline/contracts.js';
export { wordCount } from '../core/words.js';
export {
  CONTAMINATION_ARMS,
  contaminationItem,
  runContamination,
  type ContaminationArm,
  type ContaminationOptions,
  type ContaminationResult,
  type ContaminationRow,
} from './pipeline/contamination.js';
export { diffWords, type DiffSegment, type WordDiffOptions } from './review/word-diff.js';
export {
  REVIEW_CHECKS,
  missingNumbers,
  nearMissScores,
  numbersIn,
  queryLeak,
  runReviewChecks,
  samplesKept,
  textSimilarity,
  type CheckedProblem,
  type NearMissScore,
  type ReviewCheck,
  type ReviewCheckName,
  type ReviewCheckThresholds,
} from './review/checks.js';
export {
  REVIEW_DECISIONS,
  REVIEW_FILE,
  appendReviewDecision,
  applyReviewInPlace,
  createReviewState,
  loadReviewDecisions,
  loadReviewState,
  parseReviewItem,
  reviewStatus,
  summarizeReview,
  validateReviewDecision,
  type ProblemReview,
  type ReviewDecision,
  type ReviewDecisionInput,
  type ReviewItemRef,
  type ReviewRecord,
  type ReviewState,
  type ReviewStatus,
} from './review/decisions.js';
export { createReviewItems, loadBuildWork, type BuildWork, type ReviewItem } from './review/items.js';
export { startReviewServer, type ReviewServer, type ReviewServerOptions } from './review/server.js';
