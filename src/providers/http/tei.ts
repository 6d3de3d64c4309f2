/**
 * `tei`: Hugging Face text-embeddings-inference `POST /embed`. Request `{inputs[], normalize,
 * truncate}`; reply: a bare array of vectors in input order. TEI normalises server-side.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';

/** Wire description of TEI (https://huggingface.github.io/text-embeddings-inference/, `/embed`). */
export const TEI: HttpProviderSpec = {
  name: 'tei',
  defaultApiKeyEnv: 'HF_TOKEN',
  keyRequired: false,
  batchSize: 32,
  maxBatchTokens: 100_000,
  serverNormalizes: true,
  wire: ({ normalize }) => ({
    request: (texts) => ({ path: '/embed', body: { inputs: texts, normalize: normalize ?? true, truncate: true } }),
    vectors: (json) => json as unknown[],
  }),
};

/** Creates a TEI embedder (baseUrl required). */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(TEI, config, context);
}
