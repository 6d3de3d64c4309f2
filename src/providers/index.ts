/** Public API of `providers` (barrel; owned by that area). */
export * from './types.js';
export * from './config.js';
export * from './presets.js';
export * from './registry.js';
export * from './normalize.js';
export * from './config-file.js';
export { createHttpClient, redact } from './http/client.js';
export type { HttpClient, HttpClientOptions, HttpClientStats, WireFormat, HttpEmbedOptions } from './http/client.js';
export { planBatches, estimateTokens } from './http/batching.js';
export { parseRetryAfterMs, backoffMs, isRetryableStatus } from './http/retry.js';
export { createHttpEmbedder, HTTP_DEFAULTS } from './http/embedder.js';
export type { HttpProviderSpec } from './http/embedder.js';
export { poolHidden } from './local/pooling.js';
export type { HttpRequestOptions } from './http/client.js';
export * from './chat/config.js';
export * from './chat/registry.js';
export { CHAT_DEFAULTS, TRACE_HEADERS, createHttpChatModel, type ChatWireSpec, type ResolvedChatRequest } from './chat/chat-model.js';
