/** Public API of `sandbox` (barrel; owned by that area): the execution judge. */
export type { JudgeBackend, JudgeCallOptions, JudgeStats } from './backend.js';
export { compareAny, compareOutput, canonicalDecimal, jsonEqual, type CompareOptions, type CompareOutcome } from './compare.js';
export {
  DEFAULT_LIMITS,
  LANGUAGE_TOOLS,
  TOOLS,
  findTool,
  missingPackages,
  requireTool,
  type RunLimits,
  type Tool,
  type ToolName,
} from './languages.js';
export { createLocalJudge, type LocalJudgeOptions } from './local-judge.js';
export { CXX_FLAGS, buildPch } from './runners/cpp.js';
export { RUNNERS, type BuildContext, type LanguageRunner } from './runners/index.js';
export { classifyRun, createProgramResult, type ClassifyOptions, type ProgramOutcome } from './verdict.js';
export { computeAgreement, renderAgreement, type AgreementRow, type JudgedProgram } from './judge-agreement.js';
export {
  judgeKey,
  readJudgeRecords,
  renderJudgeSummary,
  runJudging,
  toJudgeRecord,
  type JudgeRecord,
  type JudgeRunOptions,
  type JudgeRunSummary,
} from './judge-run.js';
export {
  NORMALISATIONS,
  javaMainClass,
  javaPublicClass,
  prepareSource,
  type NormalisationName,
  type PrepareOptions,
  type PreparedSource,
} from './normalise.js';
export {
  OFFICIAL_CXX_FLAGS,
  OFFICIAL_HARNESS,
  cppStrayMainCalls,
  removeCppStrayMainCalls,
  officialCppRewrite,
  officialSource,
  stripCommentsAsOfficial,
} from './official-harness.js';
export {
  JUDGE_KEY_ENV,
  JUDGE_KINDS,
  createJudge,
  judgeAuthHeaders,
  parseJudgeSpec,
  type CreateJudgeOptions,
  type JudgeKind,
  type JudgeSpec,
} from './judge-spec.js';
export { createRemoteJudge, type RemoteJudgeOptions } from './remote/remote-judge.js';
export type { RemoteRun, RemoteService, RemoteSubmission, ServiceInfo } from './remote/service.js';
export { createSandboxFusionService } from './remote/sandboxfusion.js';
export { createJudge0Service, type Judge0Options } from './remote/judge0.js';
export { createPistonService } from './remote/piston.js';
export type { ServiceHttpOptions } from './remote/http.js';
export { createSlotPool, type SlotPool } from '../core/bounded-work.js';
export { RUN_HELPER_SOURCE, buildRunHelper } from './run-helper.js';
export { createBwrapArgs, createCommandLine, runProcess, type Mount, type ProcessLimits, type ProcessSpec, type SandboxConfig } from './sandbox.js';
