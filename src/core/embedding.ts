/**
 * The embedding shapes shared by providers (which produce vectors), the cache (which stores them)
 * and search (which ranks with them): one row-major Float32Array per matrix.
 */
import type { TaskName } from './dataset.js';
import type { Progress } from './progress.js';

/** Whether a text is encoded as a query or as a corpus document (models use different prompts). */
export type EmbedRole = 'query' | 'document';

/** A dense matrix of `rows` vectors of `dim` float32 values, row-major in `data`. */
export interface EmbeddingMatrix {
  rows: number;
  dim: number;
  /** Length `rows * dim`; row i is `data.subarray(i * dim, (i + 1) * dim)`. */
  data: Float32Array;
}

/** Options for one {@link Embedder.embed} call. */
export interface EmbedOptions {
  role: EmbedRole;
  /** The CoREB task, so presets can pick the task's instruction template. */
  task?: TaskName;
  signal?: AbortSignal;
  progress?: Progress;
}

/** Anything that turns texts into vectors: an HTTP provider, a local ONNX model, a cache wrapper. */
export interface Embedder {
  /** Short identity, e.g. `openai:text-embedding-3-small`. */
  readonly id: string;
  /**
   * Secret-free JSON description (provider, model, revision, dimensions, pooling, normalisation,
   * instruction templates, endpoints without credentials). Goes into every result file and into
   * the cache key.
   */
  describe(): Record<string, unknown>;
  /** Encodes `texts` in order; one row per text. Never returns silent zero vectors. */
  embed(texts: readonly string[], options: EmbedOptions): Promise<EmbeddingMatrix>;
}
