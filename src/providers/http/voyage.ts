/**
 * `voyage`: Voyage AI `POST /v1/embeddings`. Request `{model, input[], input_type (query |
 * document), truncation, output_dimension?}`; reply `{data: [{index, embedding}]}`.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';
import { orderByIndex } from './validate.js';

/** Wire description of Voyage (https://docs.voyageai.com/reference/embeddings-api). */
export const VOYAGE: HttpProviderSpec = {
  name: 'voyage',
  defaultBaseUrl: 'https://api.voyageai.com/v1',
  defaultApiKeyEnv: 'VOYAGE_API_KEY',
  keyRequired: true,
  batchSize: 128,
  maxBatchTokens: 100_000,
  defaultInputTypes: { default: { query: 'query', document: 'document' } },
  wire: ({ model, dimensions, inputType }) => ({
    request: (texts) => ({
      path: '/embeddings',
      body: {
        model,
        input: texts,
        truncation: true,
        ...(inputType !== undefined ? { input_type: inputType } : {}),
        ...(dimensions !== undefined ? { output_dimension: dimensions } : {}),
      },
    }),
    vectors: (json, count) => orderByIndex((json as { data?: unknown } | null)?.data, count),
  }),
};

/** Creates a Voyage embedder. */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(VOYAGE, config, context);
}
