/**
 * The static, lazily loaded table of reranker providers: importing this module loads no provider
 * code; `createReranker` imports only the chosen one (so onnxruntime loads only for `onnx`).
 */
import { loadRegistered } from '../lazy-registry.js';
import type { Reranker } from '../../core/rerank.js';
import type { ProviderContext } from '../types.js';
import type { RerankerConfig } from './config.js';

/** A reranker provider module: one factory. */
export interface RerankerModule {
  create(config: RerankerConfig, context: ProviderContext): Reranker | Promise<Reranker>;
}

/** One registry entry. */
export interface RerankerEntry {
  /** One line for `coreb providers`. */
  summary: string;
  kind: 'http' | 'local';
  load(): Promise<RerankerModule>;
}

const api = (): Promise<RerankerModule> => import('./http-rerank.js');
const yesno = (): Promise<RerankerModule> => import('./yesno.js');

/** Provider name -> entry. */
export const RERANKERS = {
  vllm: { summary: 'vLLM POST {baseUrl}/rerank (Jina/Cohere shape: documents, top_n, results[].relevance_score)', kind: 'http', load: api },
  tei: { summary: 'text-embeddings-inference POST /rerank (texts; bare array of {index, score})', kind: 'http', load: api },
  llamacpp: { summary: 'llama.cpp server POST /v1/rerank (--reranking; documents, results)', kind: 'http', load: api },
  jina: { summary: 'Jina AI POST /v1/rerank (JINA_API_KEY)', kind: 'http', load: api },
  cohere: { summary: 'Cohere POST /v2/rerank (COHERE_API_KEY)', kind: 'http', load: api },
  voyage: { summary: 'Voyage AI POST /v1/rerank (top_k, data; VOYAGE_API_KEY)', kind: 'http', load: api },
  'yesno:openai': {
    summary: 'causal LLM judged by log P(yes) - log P(no) via OpenAI-compatible POST /completions with logprobs',
    kind: 'http',
    load: yesno,
  },
  'yesno:ollama': { summary: 'causal LLM judged by log P(yes) - log P(no) via Ollama POST /api/generate with logprobs', kind: 'http', load: yesno },
  onnx: {
    summary: 'local cross-encoder (sequence classification) through transformers.js; sigmoid of the logit',
    kind: 'local',
    load: () => import('./onnx.js'),
  },
} as const satisfies Record<string, RerankerEntry>;

/** A registered reranker provider name. */
export type RerankerName = keyof typeof RERANKERS;

/** Creates the reranker `config` describes, loading only its provider's code. */
export async function createReranker(config: RerankerConfig, context: ProviderContext): Promise<Reranker> {
  const mod = await loadRegistered<RerankerModule>(RERANKERS, config.provider, 'reranker provider', 'valid');
  return mod.create(config, context);
}
