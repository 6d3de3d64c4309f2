/**
 * `jina`: Jina AI `POST /v1/embeddings`. Request `{model, input[], task?, dimensions?,
 * embedding_type: float}` (task e.g. `retrieval.query`, `nl2code.passage`); reply `{data: [{index,
 * embedding}]}`.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';
import { orderByIndex } from './validate.js';

/** Wire description of Jina (https://api.jina.ai/redoc#tag/embeddings). */
export const JINA: HttpProviderSpec = {
  name: 'jina',
  defaultBaseUrl: 'https://api.jina.ai/v1',
  defaultApiKeyEnv: 'JINA_API_KEY',
  keyRequired: true,
  batchSize: 128,
  maxBatchTokens: 100_000,
  defaultInputTypes: { default: { query: 'retrieval.query', document: 'retrieval.passage' } },
  wire: ({ model, dimensions, inputType }) => ({
    request: (texts) => ({
      path: '/embeddings',
      body: {
        model,
        input: texts,
        embedding_type: 'float',
        truncate: true,
        ...(inputType !== undefined ? { task: inputType } : {}),
        ...(dimensions !== undefined ? { dimensions } : {}),
      },
    }),
    vectors: (json, count) => orderByIndex((json as { data?: unknown } | null)?.data, count),
  }),
};

/** Creates a Jina embedder. */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(JINA, config, context);
}
