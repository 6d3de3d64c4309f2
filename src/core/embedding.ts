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
  /**
   * Called as soon as some rows are ready (e.g. one HTTP batch), before `embed` resolves, so a
   * cache can persist them and an interrupted run resumes without re-requesting them. `rows` are
   * indices into `texts`; `vectors` holds one row per index, in the same order.
   */
  onRows?: (rows: readonly number[], vectors: EmbeddingMatrix) => void;
}

/** What an embedder actually sends for one text: the instruction template used and the result. */
export interface PreparedText {
  /** The template applied (`{text}` marks the input), `'{text}'` when none. */
  template: string;
  /** The exact text sent to the model. */
  text: string;
  /** Provider-native input type sent with it (Voyage `input_type`, Gemini `taskType`, ...), if any. */
  inputType?: string;
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
  /**
   * The fields that determine a vector, without transport details (endpoints, batching, keys):
   * provider, model, revision, dimensions, pooling, normalisation. A cache uses it as namespace.
   * When absent, {@link Embedder.describe} is used.
   */
  identity?(): Record<string, unknown>;
  /**
   * The exact text `embed` sends for `text` in this role and task (instruction template applied).
   * When absent the text is sent as is.
   */
  prepare?(text: string, options: Pick<EmbedOptions, 'role' | 'task'>): PreparedText;
  /** Encodes `texts` in order; one row per text. Never returns silent zero vectors. */
  embed(texts: readonly string[], options: EmbedOptions): Promise<EmbeddingMatrix>;
}

/**
 * Scales every row of `data` (row length `dim` >= 1) to unit L2 norm, in place, so that the dot
 * product of two rows is their cosine similarity. The norm is summed in double and each value is
 * multiplied by `1 / sqrt(sum)` and rounded back to float32; all-zero rows stay zero. The one
 * definition providers (client-side `normalize`) and search (cosine) share.
 */
export function normalizeRows(data: Float32Array, dim: number): void {
  for (let off = 0; off < data.length; off += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += data[off + j] * data[off + j];
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let j = 0; j < dim; j++) data[off + j] *= inv;
    }
  }
}

/** A copy of `m` with every row scaled to unit L2 norm ({@link normalizeRows}); `m` is left untouched. */
export function normalizeMatrix(m: EmbeddingMatrix): EmbeddingMatrix {
  const data = new Float32Array(m.data);
  normalizeRows(data, m.dim);
  return { rows: m.rows, dim: m.dim, data };
}

/**
 * A zeroed Float32Array of `length` values in a SharedArrayBuffer: embedders allocate their output
 * matrix with it so dense search can hand it to worker threads and keep it as its one copy.
 */
export function sharedFloat32(length: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(length * 4));
}
