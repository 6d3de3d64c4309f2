/**
 * The configuration every embedding provider accepts, and the context the CLI hands a factory
 * (environment for API keys, logger). One shape for HTTP and local providers so a spec string, a
 * config file entry and library code all resolve to the same object.
 */
import type { EmbedRole } from '../core/embedding.js';
import type { TaskName } from '../core/dataset.js';
import type { Logger } from '../core/progress.js';

/** How token vectors become one text vector (local models; HTTP servers pool themselves). */
export const POOLINGS = ['mean', 'cls', 'last-token'] as const;
/** A pooling strategy: `mean` over non-padding tokens, the first (`cls`) or the last real token. */
export type Pooling = (typeof POOLINGS)[number];

/** How requests are spread over several endpoints of one provider. */
export const BALANCES = ['round-robin', 'least-busy'] as const;
/** An endpoint selection policy. */
export type Balance = (typeof BALANCES)[number];

/** Instruction templates per role; `{text}` marks where the input goes (appended when absent). */
export interface RoleTemplates {
  query?: string;
  document?: string;
}

/** Templates for every task plus a fallback used when a call names no task. */
export type TaskTemplates = Partial<Record<TaskName | 'default', RoleTemplates>>;

/** Provider-native input types (Voyage `input_type`, Gemini `taskType`, Jina `task`, ...). */
export type InputTypes = Partial<Record<TaskName | 'default', Partial<Record<EmbedRole, string>>>>;

/**
 * How requests reach an HTTP provider: batching, concurrency, quotas, endpoint balance, timeouts
 * and retries. Shared by embedders and rerankers; every field has a per-provider default.
 */
export interface HttpTransportSettings {
  /** Texts (embedders) or documents/prompts (rerankers) per request. Default: per provider (e.g. 128 for OpenAI-compatible servers). */
  batchSize?: number;
  /** Estimated tokens per request (estimate: UTF-16 length / 3, rounded up). Default: per provider. */
  maxBatchTokens?: number;
  /** Requests in flight at once, over all endpoints. Default: 4. */
  concurrency?: number;
  /** Start at most this many requests per minute (hosted API quotas). Default: no limit. */
  requestsPerMinute?: number;
  /** Endpoint selection when several base URLs are given; an endpoint that just failed is avoided while another is ready. Default: `least-busy`. */
  balance?: Balance;
  /** Per-request timeout in milliseconds. Default: 120000. */
  timeoutMs?: number;
  /** Retries after the first attempt (429, 5xx, timeouts, network errors, malformed JSON). Default: 6. */
  maxRetries?: number;
  /** First backoff delay in milliseconds (doubles per attempt, with jitter). Default: 500. */
  backoffMs?: number;
  /** Longest single wait in milliseconds, also the cap on honoured `Retry-After`. Default: 60000. */
  maxBackoffMs?: number;
}

/**
 * Everything that configures one embedder. Only `provider` and `model` are required; presets
 * (see `presets.ts`) fill pooling, templates and limits for known models, and every field given
 * here overrides the preset.
 */
export interface EmbedderConfig extends HttpTransportSettings {
  /** Registry name: `openai`, `tei`, `ollama`, `voyage`, `gemini`, `jina`, `cohere`, `onnx`. */
  provider: string;
  /** Model name as the provider knows it (for `onnx`: a hub id or a local directory name). */
  model: string;
  /** Model revision (hub commit or tag); part of the cache key. Default: none. */
  revision?: string;
  /** One or more base URLs (e.g. `http://127.0.0.1:8000/v1`); several = replicas. Default: the provider's public API. */
  baseUrl?: string[];
  /** Name of the environment variable that holds the API key (never the key itself). Default: per provider. */
  apiKeyEnv?: string;
  /** Requested output dimension (Matryoshka / `dimensions` parameter). Default: the model's native size. */
  dimensions?: number;
  /** L2-normalise every vector after receipt. Default: false for HTTP, the preset's value for onnx. */
  normalize?: boolean;
  /** Pooling (onnx only). Default: the preset's, else `mean`. */
  pooling?: Pooling;
  /** Padding side for local tokenisation (onnx). Default: the tokenizer's own. */
  paddingSide?: 'left' | 'right';
  /** Maximum tokens per text; longer texts are truncated (counted and reported). Default: the preset's, else 512 (onnx) / server default (HTTP). */
  maxTokens?: number;
  /** Instruction templates; override the preset's per task and role. */
  templates?: TaskTemplates;
  /** Provider-native input types; override the preset's. */
  inputTypes?: InputTypes;
  /** Preset id to use (default: matched from `model`); `none` disables presets. */
  preset?: string;
  /** onnx: ONNX weights dtype (`fp32`, `fp16`, `q8`, ...). Default: `fp32`. */
  dtype?: string;
  /** onnx: directory holding `<model>/` folders (offline use). Default: transformers.js default. */
  localModelPath?: string;
  /** onnx: allow downloads from the Hugging Face hub. Default: false (offline). */
  allowRemoteModels?: boolean;
}

/** What a provider factory receives besides the config. */
export interface ProviderContext {
  /** Environment to read API keys from (the CLI passes the process environment). */
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /**
   * Set up the model for planning only (`coreb build --dry-run`): no API key is read or required,
   * and any request is refused. Default false.
   */
  planOnly?: boolean;
}
