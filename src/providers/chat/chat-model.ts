/**
 * Turns a provider's chat wire format plus a config into a {@link ChatModel}: resolves the API key
 * from the named environment variable, sends through the shared HTTP client (retries, backoff,
 * Retry-After, concurrency, timeouts), adds the `X-Coreb-Stage` / `X-Coreb-Item` tracing headers.
 */
import type { ChatCallOptions, ChatModel, ChatReply, ChatRequest } from '../../core/chat.js';
import { CorebError } from '../../core/errors.js';
import type { ProviderContext } from '../types.js';
import { redact } from '../http/client.js';
import { createHttpAccess } from '../http/embedder.js';
import type { ChatModelConfig } from './config.js';

/** A request with every default applied (what is sent and what the cache key covers). */
export type ResolvedChatRequest = ReturnType<ChatModel['resolve']>;

/** What distinguishes one chat provider. */
export interface ChatWireSpec {
  name: string;
  /** Public API base URL; undefined = baseUrl required. */
  defaultBaseUrl?: string;
  defaultApiKeyEnv?: string;
  /** Requests without a key are refused by the public API. */
  keyRequired: boolean;
  /** Auth headers for a key. */
  auth(key: string): Record<string, string>;
  /** Path and JSON body of one request. */
  request(model: string, r: ResolvedChatRequest): { path: string; body: unknown };
  /** The reply of a parsed response (throw ResponseShapeError when malformed). */
  reply(json: unknown): ChatReply;
}

/** Defaults of chat models (see {@link ChatModelConfig}). */
export const CHAT_DEFAULTS = {
  maxTokens: 4096,
  concurrency: 4,
  timeoutMs: 600_000,
  maxRetries: 6,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
} as const;

/** The header names of the tracing labels. */
export const TRACE_HEADERS = { stage: 'X-Coreb-Stage', item: 'X-Coreb-Item' } as const;

/** Header values must be visible ASCII; anything else is percent-encoded. */
function headerValue(s: string): string {
  return /^[\x20-\x7e]*$/.test(s) ? s : encodeURIComponent(s);
}

/** Creates a chat model for an HTTP provider; reads the key once; no I/O until `complete`. */
export function createHttpChatModel(spec: ChatWireSpec, config: ChatModelConfig, context: ProviderContext): ChatModel {
  const { name, defaultBaseUrl, defaultApiKeyEnv, keyRequired, auth } = spec;
  // One request per call: chat is never batched, so batch size 1 and no token budget.
  const access = createHttpAccess(
    { name, defaultBaseUrl, defaultApiKeyEnv, keyRequired, auth, batchSize: 1, maxBatchTokens: Number.MAX_SAFE_INTEGER },
    {
      model: config.model,
      baseUrl: config.baseUrl,
      apiKeyEnv: config.apiKeyEnv,
      concurrency: config.concurrency ?? CHAT_DEFAULTS.concurrency,
      requestsPerMinute: config.requestsPerMinute,
      balance: 'least-busy',
      timeoutMs: config.timeoutMs ?? CHAT_DEFAULTS.timeoutMs,
      maxRetries: config.maxRetries ?? CHAT_DEFAULTS.maxRetries,
      backoffMs: config.backoffMs ?? CHAT_DEFAULTS.backoffMs,
      maxBackoffMs: config.maxBackoffMs ?? CHAT_DEFAULTS.maxBackoffMs,
    },
    context,
    '',
    'http://127.0.0.1:8000/v1',
  );
  const { client, endpoints, keyEnv, secrets } = access;
  const identity = (): Record<string, unknown> => ({ provider: spec.name, model: config.model });
  const resolve = (r: ChatRequest): ResolvedChatRequest => {
    const out: ResolvedChatRequest = { messages: r.messages, maxTokens: r.maxTokens ?? config.maxTokens ?? CHAT_DEFAULTS.maxTokens };
    const temperature = r.temperature ?? config.temperature;
    const seed = r.seed ?? config.seed;
    if (temperature !== undefined) out.temperature = temperature;
    if (seed !== undefined) out.seed = seed;
    return out;
  };
  return {
    id: `${spec.name}:${config.model}`,
    endpoints: endpoints.map((e) => redact(e, secrets)),
    identity,
    resolve,
    describe: () => ({
      ...identity(),
      endpoints: endpoints.map((e) => redact(e, secrets)),
      apiKeyEnv: keyEnv ?? null,
      temperature: config.temperature ?? null,
      maxTokens: config.maxTokens ?? CHAT_DEFAULTS.maxTokens,
      seed: config.seed ?? null,
      concurrency: config.concurrency ?? CHAT_DEFAULTS.concurrency,
    }),
    async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatReply> {
      const { path, body } = spec.request(config.model, resolve(request));
      const headers: Record<string, string> = {};
      if (options.trace !== undefined) {
        headers[TRACE_HEADERS.stage] = headerValue(options.trace.stage);
        headers[TRACE_HEADERS.item] = headerValue(options.trace.item);
      }
      if (context.planOnly === true) {
        throw new CorebError('USAGE', `${spec.name}:${config.model} was set up for planning only (--dry-run) and sends no request`);
      }
      return client.request(path, body, spec.reply, {
        signal: options.signal,
        headers,
        endpointSlots: options.endpointSlots,
        // A shared per-endpoint bound replaces the model's default one; an explicit concurrency= still caps the model.
        clientLimit: options.endpointSlots === undefined || config.concurrency !== undefined,
      });
    },
  };
}

/** Reads a non-negative integer token count, 0 when absent. */
export function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0;
}
