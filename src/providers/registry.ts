/**
 * The static, lazily loaded table of embedding providers: importing this module loads no provider
 * code; `createEmbedder` imports only the chosen one (so onnxruntime loads only for `onnx`).
 */
import { loadRegistered } from './lazy-registry.js';
import type { Embedder } from '../core/embedding.js';
import type { EmbedderConfig, ProviderContext } from './types.js';

/** A provider module: one factory. */
export interface ProviderModule {
  create(config: EmbedderConfig, context: ProviderContext): Embedder | Promise<Embedder>;
}

/** One registry entry. */
export interface ProviderEntry {
  /** One line for `coreb providers`. */
  summary: string;
  /** `http` or `local`. */
  kind: 'http' | 'local';
  /** Default API key variable, if any. */
  apiKeyEnv?: string;
  load(): Promise<ProviderModule>;
}

/** Provider name -> entry. */
export const PROVIDERS = {
  openai: {
    summary: 'OpenAI-compatible POST /embeddings (OpenAI, vLLM, llama.cpp, LM Studio, Ollama /v1, Together)',
    kind: 'http',
    apiKeyEnv: 'OPENAI_API_KEY',
    load: () => import('./http/openai.js'),
  },
  tei: {
    summary: 'Hugging Face text-embeddings-inference POST /embed (baseUrl required)',
    kind: 'http',
    apiKeyEnv: 'HF_TOKEN',
    load: () => import('./http/tei.js'),
  },
  ollama: { summary: 'Ollama native POST /api/embed', kind: 'http', load: () => import('./http/ollama.js') },
  voyage: {
    summary: 'Voyage AI POST /v1/embeddings with input_type',
    kind: 'http',
    apiKeyEnv: 'VOYAGE_API_KEY',
    load: () => import('./http/voyage.js'),
  },
  gemini: {
    summary: 'Gemini embedContent / batchEmbedContents with taskType',
    kind: 'http',
    apiKeyEnv: 'GEMINI_API_KEY',
    load: () => import('./http/gemini.js'),
  },
  jina: {
    summary: 'Jina AI POST /v1/embeddings with task',
    kind: 'http',
    apiKeyEnv: 'JINA_API_KEY',
    load: () => import('./http/jina.js'),
  },
  cohere: {
    summary: 'Cohere POST /v2/embed with input_type',
    kind: 'http',
    apiKeyEnv: 'COHERE_API_KEY',
    load: () => import('./http/cohere.js'),
  },
  onnx: {
    summary: 'local ONNX model through transformers.js (optional dependency @huggingface/transformers)',
    kind: 'local',
    load: () => import('./local/onnx.js'),
  },
} as const satisfies Record<string, ProviderEntry>;

/** A registered provider name. */
export type ProviderName = keyof typeof PROVIDERS;

/**
 * Creates the embedder `config` describes, loading only its provider's code. No cache: see
 * `createDenseEmbedder` for the cached embedder `coreb eval` uses.
 * @example
 * ```ts
 * import { createEmbedder, providers } from 'coreb';
 * const config = providers.parseEmbedderSpec('dense:openai:Qwen/Qwen3-Embedding-0.6B?baseUrl=http://127.0.0.1:8000/v1');
 * const embedder = await createEmbedder(config, { env: process.env });
 * const matrix = await embedder.embed(['binary search over a sorted array'], { role: 'query', task: 'text2code' });
 * ```
 */
export async function createEmbedder(config: EmbedderConfig, context: ProviderContext): Promise<Embedder> {
  const mod = await loadRegistered<ProviderModule>(PROVIDERS, config.provider, 'provider', 'valid providers');
  return mod.create(config, context);
}
