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
export {
  BUILD_STAGES,
  STRATEGY_DESCRIPTIONS,
  fallbackAbbreviation,
  modelLabel,
  negativeTemperature,
  planBuild,
  runBuild,
  type BuildFailure,
  type BuildModels,
  type BuildOptions,
  type BuildPlan,
  type BuildResult,
  type BuildStage,
  type StageUsage,
} from './build/pipeline.js';
export { PROMPT_NAMES, defaultPromptsDir, loadPromptSet, renderMessages, renderTemplate, type PromptName, type PromptSet } from './build/prompts.js';
export {
  ContractError,
  extractProgram,
  isContextIndependent,
  parseAbbreviation,
  parseJsonObject,
  parseNegative,
  parsePlainText,
  parseQueriesReply,
  parseRewriteReply,
  parseTestsReply,
  stripComments,
  stripOneFence,
  wordCount,
} from './build/contracts.js';
export {
  CONTAMINATION_ARMS,
  contaminationItem,
  runContamination,
  type ContaminationArm,
  type ContaminationOptions,
  type ContaminationResult,
  type ContaminationRow,
} from './build/contamination.js';
