/**
 * coreb's public library API (`import { ... } from 'coreb'`): named exports grouped by area. The CLI
 * is built on the same functions. What is not listed here is internal and may change without notice;
 * `src/index.test.ts` checks the list against the built package.
 *
 * @example Evaluate BM25 on a CoREB release, as `coreb eval` does
 * ```ts
 * import { runEval, renderResults } from 'coreb';
 * const { results } = await runEval({ data: 'release_v2602', retrievers: ['bm25'], corebVersion: '0.1.0' });
 * console.log(renderResults(results));
 * ```
 *
 * @example trec_eval-exact measures of a run
 * ```ts
 * import { evaluate, loadTrecQrelsMap, loadTrecRunMap } from 'coreb';
 * const qrels = await loadTrecQrelsMap('qrels.txt');
 * const run = await loadTrecRunMap('run.txt');
 * const { aggregate } = evaluate(qrels, run, { measures: ['ndcg_cut.10', 'recall.100'] });
 * console.log(aggregate.ndcg_cut_10, aggregate.recall_100);
 * ```
 * @packageDocumentation
 */

// Errors, validation issues and progress reporting (every area uses these).
export {
  CorebError,
  ERROR_CODES,
  EXIT_CODES,
  formatLocation,
  isCorebError,
  type CorebErrorOptions,
  type ErrorCode,
  type SourceLocation,
} from './core/errors.js';
export { hasErrors, renderIssue, type IssueSeverity, type ValidationIssue } from './core/issues.js';
export { silentLogger, silentProgress, type Logger, type Progress } from './core/progress.js';

// The data model: release records, retrieval tasks, qrels and runs.
export {
  LANGUAGES,
  RELEASE_TABLES,
  RELEVANCE,
  TASKS,
  TASK_SHORT,
  TASK_SHORT_NAME,
  type CodeRecord,
  type Doc,
  type Language,
  type QrelRecord,
  type Qrels,
  type Query,
  type QueryRecord,
  type Release,
  type ReleaseTable,
  type ReleaseTask,
  type RetrievalTask,
  type Run,
  type TaskName,
  type TaskShort,
  type TextRecord,
} from './core/dataset.js';

// Loading, validating and saving datasets: CoREB releases (JSONL or parquet), BEIR directories,
// TREC runs and qrels, JSONL files, LiveCodeBench problems, candidate programs, embeddings files.
export {
  RELEASE_FORMATS,
  SUBTASKS,
  LCB_TEST_SETS,
  createLcbTestLookup,
  hashDatasetDir,
  isBeirDir,
  listBeirSplits,
  loadAnchorsTsv,
  loadBeir,
  loadCandidates,
  loadEmbeddingsFile,
  loadLcbProblems,
  loadRelease,
  loadTrecQrelsColumns,
  loadTrecQrelsMap,
  loadTrecRunColumns,
  loadTrecRunMap,
  parseAnchorsTsv,
  parseJsonl,
  parseTrecQrels,
  parseTrecRun,
  readJsonl,
  readParquetRows,
  releaseStats,
  releaseTasks,
  renderReleaseStats,
  renderRetrievalTaskStats,
  renderTrecQrels,
  renderTrecRun,
  retrievalTaskStats,
  saveRelease,
  saveTrecQrels,
  saveTrecRun,
  selectLcbTests,
  subtaskLanguage,
  taskAnchors,
  trecQrelsToMap,
  trecRunToMap,
  validateRelease,
  writeJsonl,
  type EmbeddingsFile,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlResult,
  type LcbProblem,
  type LcbTestSet,
  type LoadBeirOptions,
  type LoadedBeir,
  type LoadedRelease,
  type LoadReleaseOptions,
  type ReleaseFormat,
  type ReleaseStats,
  type RetrievalTaskStats,
  type TaskStats,
  type TrecParseOptions,
  type TrecQrelsColumns,
  type TrecRunColumns,
} from './dataset/index.js';

// Metrics: trec_eval 9.0.8 / pytrec_eval-exact measures over qrels and runs.
export {
  MEASURE_FAMILIES,
  TREC_DEFAULT_CUTOFFS,
  createColumns,
  evaluate,
  evaluateColumns,
  QueryEvaluator,
  measureKey,
  measureKeys,
  measureLabel,
  parseMeasures,
  renderTrec,
  measurePreset,
  toEvaluation,
  type ColumnarEvaluation,
  type ColumnarOptions,
  type EvaluateOptions,
  type Evaluation,
  type EvaluationColumn,
  type MeasureFamilyName,
  type MeasureSemantics,
  type MeasureSpec,
  type NdcgMode,
  type RenderTrecOptions,
  type ScorePrecision,
} from './metrics/index.js';
export type { QrelsColumns, RunColumns } from './core/columns.js';

// Retrieval: BM25, exact dense top-k and reciprocal-rank fusion behind one Retriever interface.
export {
  BM25_DEFAULTS,
  QUERY_TF_MODES,
  RRF_DEFAULT_K,
  STOP_LISTS,
  bm25IndexKey,
  createBm25Index,
  createBm25Retriever,
  createBridgedBm25Retriever,
  trainBridge,
  expandQuery,
  translationScore,
  type BridgeTables,
  type BridgeFile,
  type BridgeSearchOptions,
  createDenseRetriever,
  createEmbedderEncoder,
  createRrfRetriever,
  createTokenizer,
  denseTopK,
  denseTopKParallel,
  denseTopKStreamed,
  normalizedStore,
  allocateStore,
  fuseRrf,
  loadOrBuildBm25Index,
  type Bm25Index,
  type Bm25IndexRun,
  type Bm25IndexStore,
  type Bm25Options,
  type Bm25RetrieverContext,
  type DenseEncoder,
  type DenseRetrieverOptions,
  type DenseTopKOptions,
  type DenseTopKResult,
  type DenseTopKParallelOptions,
  type DenseTopKStreamedOptions,
  type DenseChunkSource,
  type DenseStore,
  type DenseDtype,
  type IndexOptions,
  type QueryTfMode,
  type RankedList,
  type Retriever,
  type RetrieverDescription,
  type RetrieverIndex,
  type RrfOptions,
  type RrfRetrieverOptions,
  type SearchOptions,
  type StopListName,
  type Tokenizer,
  type TokenizerOptions,
} from './search/index.js';

// Embedding providers (HTTP APIs and local ONNX) behind one Embedder interface, with a lazy registry.
export type { EmbedOptions, EmbedRole, Embedder, EmbeddingMatrix } from './core/embedding.js';
export {
  MODEL_PRESETS,
  POOLINGS,
  PROVIDERS,
  createEmbedder,
  findConfigFile,
  findPreset,
  loadEmbedderConfigs,
  parseEmbedderSpec,
  type EmbedderConfig,
  type InputTypes,
  type ModelPreset,
  type Pooling,
  type ProviderContext,
  type ProviderEntry,
  type ProviderName,
  type RoleTemplates,
  type TaskTemplates,
} from './providers/index.js';

// Chat models (OpenAI-compatible, Anthropic, Gemini, Ollama) behind one ChatModel interface, with a lazy registry.
export type { ChatCallOptions, ChatMessage, ChatModel, ChatReply, ChatRequest, ChatUsage } from './core/chat.js';
export {
  CHAT_PROVIDERS,
  createChatModel,
  parseChatSpec,
  type ChatModelConfig,
  type ChatProviderName,
} from './providers/index.js';

// Rerankers (rerank HTTP APIs, yes/no LLMs, local cross-encoders) behind one Reranker interface, with a lazy registry.
export type { RerankOptions, RerankPair, Reranker } from './core/rerank.js';
export {
  DEFAULT_INSTRUCTIONS,
  RERANKERS,
  TEMPLATE_NAMES,
  createReranker,
  parseRerankerSpec,
  type RerankerConfig,
  type RerankerName,
  type TemplateName,
} from './providers/index.js';

// Elasticsearch/OpenSearch as a retriever (`es:INDEX`): BM25 at scale from an existing index over HTTP.
export { ES_DEFAULTS, createEsRetriever, resolveEsOptions, type EsRetrieverContext, type EsRetrieverOptions } from './providers/index.js';

// The persistent caches: embeddings, rerank scores, and chat replies keyed by the full request.
export {
  createCachedReranker,
  openRerankStore,
  type CachedReranker,
  type RerankCacheCounters,
} from './cache/index.js';
export {
  createCachedChatModel,
  type CachedChatModel,
} from './cache/index.js';
export { openIndexFileStore, type IndexFileStore } from './cache/index.js';
export {
  createCachedEmbedder,
  openEmbeddingStore,
  pruneEmbeddingStore,
  resolveCacheDir,
  type CacheCounters,
  type CachedEmbedder,
  type EmbeddingStore,
  type OpenStoreOptions,
  type PruneOptions,
  type PruneReport,
  type StoreStats,
} from './cache/index.js';

// The execution judge: programs and tests in, verdicts out (bubblewrap sandbox, five languages, more
// through registerJudgeLanguage).
export {
  COMPARATORS,
  EXEC_LANGUAGES,
  TEST_KINDS,
  VERDICTS,
  type ComparatorName,
  isExecLanguage,
  type ExecLanguage,
  type ExecutionResult,
  type LanguageId,
  type Program,
  type ProgramResult,
  type TestCase,
  type TestKind,
  type TestResult,
  type Verdict,
} from './core/execution.js';
export {
  BASE_LIMITS,
  DEFAULT_LIMITS,
  appendLine,
  beforeEndOfMain,
  interpretedCommands,
  judgeLanguageIds,
  registerJudgeLanguage,
  type JudgeLanguage,
  type LanguageState,
  type LanguageStateContext,
  type BuildContext,
  compareOutput,
  computeAgreement,
  createJudge,
  createLocalJudge,
  createRemoteJudge,
  missingPackages,
  parseJudgeSpec,
  renderAgreement,
  renderJudgeSummary,
  runJudging,
  type AgreementRow,
  type CompareOptions,
  type CompareOutcome,
  type JudgeBackend,
  type JudgeCallOptions,
  type JudgedProgram,
  type JudgeRecord,
  type JudgeRunOptions,
  type JudgeRunSummary,
  type JudgeStats,
  type JudgeSpec,
  type LocalJudgeOptions,
  type RemoteJudgeOptions,
  type RemoteService,
  type RunLimits,
} from './sandbox/index.js';

// Evaluation: the runner behind `coreb eval`, retriever specs, protocols, scoring and the results shape.
export {
  EVAL_MEASURES,
  EVAL_RESULTS_SCHEMA,
  PROTOCOLS,
  createDenseEmbedder,
  createRetriever,
  createRunRetriever,
  loadRunRankings,
  parseRetrieverSpec,
  resolveDenseSpec,
  createExecReranker,
  createExecRerankerFromSpec,
  parseExecRerankerSpec,
  createLanguageFilteredRetriever,
  createExpansionRetriever,
  collectBridgePairs,
  trainReleaseBridge,
  loadBridgeFile,
  type ExecReranker,
  type ExecRerankerSettings,
  type ExecRerankReport,
  type ExpansionSettings,
  resolveProtocol,
  runEval,
  scoreTask,
  type CreateRetrieverContext,
  type RunRankings,
  type RunSearchPlan,
  type DatasetFile,
  type DatasetIdentity,
  type DenseEmbedder,
  type DenseEmbedderOptions,
  type EvalOptions,
  type EvalOutput,
  type EvalResults,
  type GroupResult,
  type HardNegativeDiagnostics,
  type MetricValues,
  type ProtocolName,
  type ProtocolOptions,
  type ProtocolSemantics,
  type QueryResult,
  type RetrieverResult,
  type RetrieverSpec,
  type RetrieverTimings,
  type ScoredTask,
  type ScoreTaskInput,
  type TaskResult,
} from './eval/index.js';

// Dataset audits (`coreb audit`): qrels cardinality, lexical triviality, label proxies, near-duplicates.
export type { AuditReport, CorpusAudit, LabelProxy, TaskAudit } from './core/audit-report.js';
export { findNearDuplicates, runAudit, type AuditOptions, type NearDuplicateOptions, type NearDuplicatePair } from './eval/index.js';

// Building releases: the CoREB qrels rules from judged candidates.
export {
  DEFAULT_MAX_HARD_NEGATIVES,
  createCode2CodeQrels,
  createCode2TextQrels,
  createText2CodeQrels,
  resolveCrossLanguageTargets,
  type CodeQrelsOptions,
  type JudgedCandidate,
} from './construct/index.js';

// Reports: leaderboards and tables of results.json, the HTML report, and paired significance tests between retrievers.
export {
  COMPARE_TESTS,
  compareResults,
  holmAdjust,
  loadEvalResults,
  pairedBootstrap,
  pairedTTest,
  parseEvalResults,
  randomizationTest,
  renderAuditTable,
  renderCompareTable,
  exportMteb,
  renderHtmlReport,
  renderResults,
  writeHtmlReport,
  type CompareReport,
  type HtmlReportOptions,
  type MtebExportOptions,
  type HtmlReportOutput,
  type CompareResultsOptions,
  type CompareTest,
  type Comparison,
  type LoadedResults,
  type PairedTestResult,
  type RenderOptions,
  type ReportFormat,
} from './report/index.js';

// Tensors: safetensors files read and written tensor by tensor, and 16-bit float conversions.
export {
  FLOAT_DTYPES,
  bf16ToFloat64,
  decodeFloats,
  encodeFloats,
  f16ToFloat64,
  float64ToBf16,
  float64ToF16,
  openSafetensors,
  saveSafetensors,
  type FloatDtype,
  type SafetensorsReader,
  type SaveSafetensorsOptions,
  type TensorInfo,
  type TensorPlan,
} from './tensors/index.js';

// Reranker training: records mined from runs and their exports (`coreb mine`), LoRA adapter soups (`coreb soup`).
export { RERANK_TASK_LABEL, type RerankPassage, type RerankTrainRecord } from './core/rerank-training.js';
export { loadRerankRecords, saveRerankRecords } from './dataset/index.js';
export { retrieveTasks, type RetrieveTasksOptions, type RetrievedTasks } from './eval/index.js';
export { evaluateTrecFiles, type TrecFileMetrics, type TrecFileMetricsOptions } from './eval/index.js';
export {
  EXPORT_FORMATS,
  balancedPairs,
  exportLines,
  loadProblemSet,
  mineRerankRecords,
  recordPairs,
  type ExportFormat,
  type ExportOptions,
  type MineOptions,
  type MineResult,
  type MineTaskStats,
  SOUP_METHODS,
  checkSoup,
  loadLoraAdapter,
  soupAdapters,
  type LoraAdapter,
  type SoupCheckOptions,
  type SoupCheckReport,
  type SoupMethod,
  type SoupOptions,
  type SoupResult,
} from './train/index.js';
