/** Public API of `sandbox` (barrel; owned by that area): the execution judge. */
export type { JudgeBackend, JudgeCallOptions, JudgeStats } from './backend.js';
export { compareAny, compareOutput, canonicalDecimal, jsonEqual, type CompareOptions, type CompareOutcome } from './compare.js';
export { BASE_LIMITS, TOOLS, findTool, requireTool, type RunLimits, type Tool, type ToolName, type ToolRef } from './languages/tools.js';
export {
  BUILT_IN_LANGUAGES,
  DEFAULT_LIMITS,
  LANGUAGE_TOOLS,
  findJudgeLanguage,
  judgeLanguage,
  judgeLanguageIds,
  missingPackages,
  registerJudgeLanguage,
  type BuildContext,
  type DirectCompile,
  type JudgeLanguage,
  type LanguageSource,
  type LanguageState,
  type LanguageStateContext,
} from './languages/index.js';
export { appendTestProgram, interpretedCommands } from './languages/language.js';
export type { SealedProgram, TestProof } from './languages/sealing.js';
export { javaMainClass, javaPublicClass, javaRunFlags } from './languages/java.js';
export { createLocalJudge, type LocalJudgeOptions } from './local-judge.js';
export { CXX_FLAGS, buildPch } from './languages/cpp.js';
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
