/**
 * coreb's public library API (`import { ... } from 'coreb'`), shaped as Orama's is: the verbs most
 * programs need and the shapes they pass around at the top, everything else in one namespace per
 * area (`metrics`, `search`, `judge`, ...), each a curated list in `src/api/`. The CLI is built on the
 * same functions. What is not listed is internal and may change without notice; `src/index.test.ts`
 * checks the list against the built package and `test/public-api.txt`.
 *
 * | namespace | what it holds |
 * |---|---|
 * | `core` | errors and their codes, validation issues, progress, the data model's constants |
 * | `dataset` | CoREB releases, BEIR, TREC runs and qrels, JSONL, LiveCodeBench, candidates, embeddings files |
 * | `metrics` | trec_eval-exact measures, measure specs and presets, columnar evaluation |
 * | `search` | BM25, the expansion bridge, exact dense top-k, RRF, tokenizers |
 * | `providers` | embedders, chat models, rerankers and their registries; Elasticsearch |
 * | `cache` | embedding, rerank, chat and index-file stores |
 * | `judge` | the execution judge: languages, limits, local and remote backends, agreement |
 * | `evaluation` | `coreb eval`'s runner, retriever specs, protocols, execution-aware reranking |
 * | `audit` | dataset audits and near-duplicates |
 * | `build` | the CoREB qrels rules for new releases |
 * | `report` | leaderboards, HTML report, MTEB export, paired significance tests |
 * | `tensors` | safetensors and 16-bit floats |
 * | `train` | reranker training records and LoRA soups |
 *
 * @example Evaluate BM25 on a CoREB release, as `coreb eval` does
 * ```ts
 * import { runEval, renderResults } from 'coreb';
 * const { results } = await runEval({ data: 'release_v2602', retrievers: ['bm25'] });
 * console.log(renderResults(results));
 * ```
 *
 * @example trec_eval-exact measures of a run, and a measure preset from its namespace
 * ```ts
 * import { evaluate, loadTrecQrelsMap, loadTrecRunMap, metrics } from 'coreb';
 * const qrels = await loadTrecQrelsMap('qrels.txt');
 * const run = await loadTrecRunMap('run.txt');
 * const { aggregate } = evaluate(qrels, run, { measures: ['ndcg_cut.10', 'recall.100'] });
 * console.log(aggregate.ndcg_cut_10, aggregate.recall_100, metrics.measurePreset('coreb'));
 * ```
 * @packageDocumentation
 */

// The verbs: load data, measure, retrieve, embed, rerank, judge, evaluate, report.
export { CorebError, isCorebError, type CorebErrorOptions, type ErrorCode } from './core/errors.js';
export { loadBeir, loadRelease, loadTrecQrelsMap, loadTrecRunMap, validateRelease } from './dataset/index.js';
export { evaluate } from './metrics/index.js';
export { createBm25Retriever, createDenseRetriever } from './search/index.js';
export { createChatModel, createEmbedder, createReranker } from './providers/index.js';
export { createJudge, runJudging } from './sandbox/index.js';
export { createRetriever, runAudit, runEval } from './eval/index.js';
export { compareResults, renderResults, writeHtmlReport } from './report/index.js';
export { mineRerankRecords } from './train/index.js';

// The shapes those verbs take and return.
export type { ValidationIssue } from './core/issues.js';
export type { Logger, Progress } from './core/progress.js';
export type { Doc, Qrels, Query, Release, RetrievalTask, Run, TaskName } from './core/dataset.js';
export type { LoadedRelease } from './dataset/index.js';
export type { EvaluateOptions, Evaluation } from './metrics/index.js';
export type { Retriever } from './search/index.js';
export type { Embedder } from './core/embedding.js';
export type { ChatModel } from './core/chat.js';
export type { Reranker } from './core/rerank.js';
export type { Program, ProgramResult, TestCase, Verdict } from './core/execution.js';
export type { EvalOptions, EvalResults } from './eval/index.js';

// Everything else, one namespace per area.
export * as audit from './api/audit.js';
export * as build from './api/build.js';
export * as cache from './api/cache.js';
export * as core from './api/core.js';
export * as dataset from './api/dataset.js';
export * as evaluation from './api/evaluation.js';
export * as judge from './api/judge.js';
export * as metrics from './api/metrics.js';
export * as providers from './api/providers.js';
export * as report from './api/report.js';
export * as search from './api/search.js';
export * as tensors from './api/tensors.js';
export * as train from './api/train.js';
