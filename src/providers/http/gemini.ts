/**
 * `gemini`: the Gemini API. Several texts go to `POST /models/{model}:batchEmbedContents`
 * (`{requests: [{model, content: {parts: [{text}]}, taskType, outputDimensionality?}]}` ->
 * `{embeddings: [{values}]}`); with batchSize=1, `:embedContent` (-> `{embedding: {values}}`).
 * The key goes in the `x-goog-api-key` header, never in the URL.
 */
import type { Embedder } from '../../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { createHttpEmbedder, type HttpProviderSpec } from './embedder.js';
import { ResponseShapeError } from './validate.js';

function values(item: unknown, i: number): unknown {
  const v = (item as { values?: unknown } | null)?.values;
  if (v === undefined) throw new ResponseShapeError(`embedding ${i} has no \`values\``);
  return v;
}

/** Wire description of Gemini (https://ai.google.dev/api/embeddings). */
export const GEMINI: HttpProviderSpec = {
  name: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  defaultApiKeyEnv: 'GEMINI_API_KEY',
  keyRequired: true,
  batchSize: 100,
  maxBatchTokens: 150_000,
  defaultInputTypes: { default: { query: 'RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' } },
  auth: (key) => ({ 'x-goog-api-key': key }),
  wire: ({ model, dimensions, inputType }) => {
    const name = model.startsWith('models/') ? model : `models/${model}`;
    const one = (text: string): Record<string, unknown> => ({
      model: name,
      content: { parts: [{ text }] },
      ...(inputType !== undefined ? { taskType: inputType } : {}),
      ...(dimensions !== undefined ? { outputDimensionality: dimensions } : {}),
    });
    return {
      request: (texts) =>
        texts.length === 1
          ? { path: `/${name}:embedContent`, body: one(texts[0]) }
          : { path: `/${name}:batchEmbedContents`, body: { requests: texts.map(one) } },
      vectors: (json, count) => {
        const j = json as { embeddings?: unknown; embedding?: unknown } | null;
        if (count === 1 && j?.embedding !== undefined) return [values(j.embedding, 0)];
        if (!Array.isArray(j?.embeddings)) throw new ResponseShapeError('reply has no `embeddings` array');
        return (j.embeddings as unknown[]).map(values);
      },
    };
  },
};

/** Creates a Gemini embedder. */
export function create(config: EmbedderConfig, context: ProviderContext): Embedder {
  return createHttpEmbedder(GEMINI, config, context);
}
