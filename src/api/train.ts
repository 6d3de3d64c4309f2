/**
 * The `train` namespace of coreb's public API (`import { train } from 'coreb'`): Reranker training:
 * records mined from runs and their exports (`coreb mine`), LoRA adapter soups (`coreb soup`).
 * @packageDocumentation
 */
export { RERANK_TASK_LABEL, type RerankPassage, type RerankTrainRecord } from '../core/rerank-training.js';
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
} from '../train/index.js';
