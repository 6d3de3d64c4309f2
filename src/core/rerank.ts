/**
 * The reranker shapes shared by providers (which score query-document pairs), the cache (which
 * stores the scores) and eval (which reorders a first stage's lists with them). No I/O here.
 */
import type { Doc, Query, TaskName } from './dataset.js';
import type { Progress } from './progress.js';

/** One (query, document) pair to score, as texts. */
export interface RerankPair {
  query: string;
  doc: string;
  /**
   * The records behind the texts, for rerankers that read more than text (the execution-aware
   * reranker reads languages and runs programs): the query, the document and the document's 0-based
   * rank in the first stage. Set by eval's rerank stage; text rerankers and the score cache ignore it.
   */
  records?: { query: Query; doc: Doc; firstRank: number };
}

/** Options for one {@link Reranker.score} call. */
export interface RerankOptions {
  /** The CoREB task; picks the task's instruction. Default: the reranker's `default` instruction. */
  task?: TaskName;
  signal?: AbortSignal;
  progress?: Progress;
  /**
   * Called as soon as some scores are known (one HTTP request, one local batch), before `score`
   * resolves, so a cache can persist them and an interrupted run resumes without re-sending them.
   * `positions` index into `pairs`; `scores[i]` belongs to `positions[i]`.
   */
  onScores?: (positions: readonly number[], scores: Float64Array) => void;
}

/**
 * Anything that scores query-document pairs: rerank HTTP APIs, yes/no LLMs, local cross-encoders.
 * Higher scores mean more relevant; the scale is the model's (log-odds, logits or probabilities),
 * so only the order within one query is meaningful.
 */
export interface Reranker {
  /** `provider:model`, for messages. */
  readonly id: string;
  /**
   * Everything that changes a score: provider, model, revision, prompt template (system, pair
   * layout, suffix), truncation. Hashed into the cache namespace; secret-free.
   */
  identity(): Record<string, unknown>;
  /** {@link identity} plus the instructions per task and the transport settings; goes into results. */
  describe(): Record<string, unknown>;
  /** The instruction used for `task` ('' when the reranker takes none); part of every cache key. */
  instruction(task?: TaskName): string;
  /** Scores every pair, in input order. Scores are finite numbers. */
  score(pairs: readonly RerankPair[], options?: RerankOptions): Promise<Float64Array>;
}
