/**
 * `cohere`: Cohere `POST /v2/embed`. Request `{model, texts[], input_type (search_query |
 * search_document), embedding_types: [float], output_dimension?, truncate}`; reply
 * `{embeddings: {float: number[][]}}` in input order.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';
import { ResponseShapeError } from './validate.js';

/** Wire description of Cohere (https://docs.cohere.com/reference/embed). */
export const COHERE: HttpProviderSpec = {
  name: 'cohere',
  defaultBaseUrl: 'https://api.cohere.com/v2',
  defaultApiKeyEnv: 'COHERE_API_KEY',
  keyRequired: true,
  batchSize: 96,
  maxBatchTokens: 100_000,
  defaultInputTypes: { default: { query: 'search_query', document: 'search_document' } },
  wire: ({ model, dimensions, inputType }) => ({
    request: (texts) => ({
      path: '/embed',
      body: {
        model,
        texts,
        embedding_types: ['float'],
        truncate: 'END',
        ...(inputType !== undefined ? { input_type: inputType } : {}),
        ...(dimensions !== undefined ? { output_dimension: dimensions } : {}),
      },
    }),
    vectors: (json) => {
      const e = (json as { embeddings?: { float?: unknown } } | null)?.embeddings;
      if (e === undefined || e === null || typeof e !== 'object') throw new ResponseShapeError('reply has no `embeddings` object');
      return e.float as unknown[];
    },
  }),
};

/** Creates a Cohere embedder. */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(COHERE, config, context);
}
