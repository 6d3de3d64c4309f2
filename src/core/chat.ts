/**
 * The chat-model shapes shared by providers (which call LLM endpoints), the cache (which stores
 * replies keyed by the full request) and construct (whose release pipeline asks models to rewrite,
 * solve and write queries). Plain data only; no I/O here.
 */

import type { EndpointSlots } from './endpoint-slots.js';

/** One message of a conversation. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * One request. Everything that can change the reply is here (and so in the cache key); `trace`
 * is sent as headers for attribution only and does not change the reply.
 */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Sampling temperature; default the model config's, else the server's. */
  temperature?: number;
  /** Most tokens to generate; default the model config's, else 4096. */
  maxTokens?: number;
  /** Sampling seed, sent to servers that accept one (OpenAI-compatible, Gemini). */
  seed?: number;
}

/** Tracing labels sent with a request as `X-Coreb-Stage` / `X-Coreb-Item` headers. */
export interface ChatTrace {
  /** Pipeline stage, e.g. `rewrite`, `solve`. */
  stage: string;
  /** Item within the stage, e.g. `abc387_a` or `abc387_a/python`. */
  item: string;
}

/** Options of one {@link ChatModel.complete} call. */
export interface ChatCallOptions {
  signal?: AbortSignal;
  trace?: ChatTrace;
  /**
   * A bound per endpoint shared by every model of a run (`coreb build --concurrency`). When given,
   * a model whose own `concurrency` was not configured is bounded by it alone. Default: none.
   */
  endpointSlots?: EndpointSlots;
}

/** Token counts of one reply as the server reported them (0 when it did not). */
export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A reply. */
export interface ChatReply {
  /** The generated text (all text parts joined). */
  text: string;
  /** The server's stop reason (`stop`, `length`, `end_turn`, `STOP`, ...); '' when not given. */
  finishReason: string;
  usage: ChatUsage;
  /** True when the reply came from the cache (no call was made). */
  cached?: boolean;
}

/** A chat model behind one interface, whatever the provider. */
export interface ChatModel {
  /** `<provider>:<model>`. */
  readonly id: string;
  /** What identifies the model for caching (provider, model, endpoint-independent settings); secret-free. */
  identity(): Record<string, unknown>;
  /** Secret-free description for manifests (identity plus endpoints and key variable name). */
  describe(): Record<string, unknown>;
  /** The base URLs requests go to (secret-free; the keys of an {@link EndpointSlots} bound). */
  readonly endpoints?: readonly string[];
  /** The sampling parameters a request ends up with (request values over config defaults). */
  resolve(request: ChatRequest): Required<Pick<ChatRequest, 'messages' | 'maxTokens'>> & Pick<ChatRequest, 'temperature' | 'seed'>;
  complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatReply>;
}
