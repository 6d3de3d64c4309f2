/**
 * `ollama`: Ollama's native `POST /api/embed`. Request `{model, input[], truncate, dimensions?}`;
 * reply `{embeddings: number[][]}` in input order.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';

/** Wire description of Ollama (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings). */
export const OLLAMA: HttpProviderSpec = {
  name: 'ollama',
  defaultBaseUrl: 'http://127.0.0.1:11434',
  keyRequired: false,
  batchSize: 64,
  maxBatchTokens: 100_000,
  wire: ({ model, dimensions }) => ({
    request: (texts) => ({
      path: '/api/embed',
      body: { model, input: texts, truncate: true, ...(dimensions !== undefined ? { dimensions } : {}) },
    }),
    vectors: (json) => (json as { embeddings?: unknown } | null)?.embeddings as unknown[],
  }),
};

/** Creates an Ollama embedder. */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(OLLAMA, config, context);
}
