/** `coreb build`'s public API: run or plan a build, its shapes, and the stage helpers other commands share. */
export { isInterrupted, modelLabel, shapeRoles } from './context.js';
export { planBuild, type BuildPlan } from './plan.js';
export { runBuild } from './run.js';
export { fallbackAbbreviation } from './stages/abbreviate.js';
export { negativeTemperature, STRATEGY_DESCRIPTIONS } from './stages/negatives.js';
export { SEARCH_QUERY_KINDS, SEARCH_SUB_QUERY_TYPE, type SearchQueryKind } from './stages/queries.js';
export { HUB_DIR } from './stages/release.js';
export { LOCAL_STAGES, STAGE_MODULES } from './stages/index.js';
export {
  BUILD_STAGES,
  type BuildFailure,
  type BuildModels,
  type BuildOptions,
  type BuildResult,
  type BuildStage,
  type BuildWork,
  type StageUsage,
} from './types.js';
export type { BuildStageModule } from './context.js';
