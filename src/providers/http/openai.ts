/**
 * `openai`: the OpenAI-compatible `POST /embeddings` API (OpenAI, vLLM, Ollama's and llama.cpp's
 * compatible endpoints, LM Studio, Together, ...). Request `{model, input[], dimensions?,
 * encoding_format}`; reply `{data: [{index, embedding}]}` reordered by `index`.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';
import { orderByIndex } from './validate.js';

/** Wire description of the OpenAI-compatible API (https://platform.openai.com/docs/api-reference/embeddings). */
export const OPENAI: HttpProviderSpec = {
  name: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  defaultApiKeyEnv: 'OPENAI_API_KEY',
  keyRequired: true,
  batchSize: 128,
  maxBatchTokens: 250_000,
  wire: ({ model, dimensions }) => ({
    request: (texts) => ({
      path: '/embeddings',
      body: { model, input: texts, encoding_format: 'float', ...(dimensions !== undefined ? { dimensions } : {}) },
    }),
    vectors: (json, count) => orderByIndex((json as { data?: unknown } | null)?.data, count),
  }),
};

/** Creates an OpenAI-compatible embedder. */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(OPENAI, config, context);
}
