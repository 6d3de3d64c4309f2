/**
 * The `providers` namespace of coreb's public API (`import { providers } from 'coreb'`): Embedders,
 * chat models and rerankers behind one interface each, with lazy registries of their HTTP and local
 * providers; Elasticsearch/OpenSearch as a retriever.
 * @packageDocumentation
 */
export type { EmbedOptions, EmbedRole, Embedder, EmbeddingMatrix } from '../core/embedding.js';
export {
  MODEL_PRESETS,
  POOLINGS,
  PROVIDERS,
  createEmbedder,
  findConfigFile,
  findPreset,
  loadEmbedderConfigs,
  parseEmbedderSpec,
  type EmbedderConfig,
  type InputTypes,
  type ModelPreset,
  type Pooling,
  type ProviderContext,
  type ProviderEntry,
  type ProviderName,
  type RoleTemplates,
  type TaskTemplates,
} from '../providers/index.js';

export type { ChatCallOptions, ChatMessage, ChatModel, ChatReply, ChatRequest, ChatUsage } from '../core/chat.js';
export {
  CHAT_PROVIDERS,
  createChatModel,
  parseChatSpec,
  type ChatModelConfig,
  type ChatProviderName,
} from '../providers/index.js';

export type { RerankOptions, RerankPair, Reranker } from '../core/rerank.js';
export {
  DEFAULT_INSTRUCTIONS,
  RERANKERS,
  TEMPLATE_NAMES,
  createReranker,
  parseRerankerSpec,
  type RerankerConfig,
  type RerankerName,
  type TemplateName,
} from '../providers/index.js';

export { ES_DEFAULTS, createEsRetriever, resolveEsOptions, type EsRetrieverContext, type EsRetrieverOptions } from '../providers/index.js';
