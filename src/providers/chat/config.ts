/**
 * Chat-model specs and configuration: `PROVIDER:MODEL[?baseUrl=…&apiKeyEnv=…&temperature=…&maxTokens=…]`
 * (the same query syntax as embedder specs), every value checked. Pure (no I/O).
 */
import { CorebError } from '../../core/errors.js';
import { parseBaseUrls, splitEmbedderSpec } from '../config.js';

/** Everything that configures one chat model. Only `provider` and `model` are required. */
export interface ChatModelConfig {
  /** Registry name: `openai`, `anthropic`, `gemini`, `ollama`. */
  provider: string;
  /** Model name as the server knows it (may contain `:` and `/`). */
  model: string;
  /** One or more base URLs (replicas); default the provider's public API (`ollama`: http://127.0.0.1:11434). */
  baseUrl?: string[];
  /** Name of the environment variable holding the API key (never the key). Default: per provider. */
  apiKeyEnv?: string;
  /** Default sampling temperature; a stage may override it per request. Default: the server's. */
  temperature?: number;
  /** Default most tokens to generate per reply. Default 4096. */
  maxTokens?: number;
  /** Default sampling seed sent to servers that accept one. Default: none. */
  seed?: number;
  /** Requests in flight at once for this model over all its endpoints. Default 4. */
  concurrency?: number;
  /** Start at most this many requests per minute. Default: no limit. */
  requestsPerMinute?: number;
  /** Per-request timeout, ms. Default 600000 (long generations). */
  timeoutMs?: number;
  /** Retries after the first attempt (429, 5xx, timeouts, network errors). Default 6. */
  maxRetries?: number;
  /** First backoff, ms (doubles per attempt, with jitter). Default 1000. */
  backoffMs?: number;
  /** Longest single wait, ms (also caps an honoured Retry-After). Default 60000. */
  maxBackoffMs?: number;
}

type Kind = 'urls' | 'string' | 'int' | 'number' | 'int0';

/** Parameters a chat spec or config entry may carry. */
export const CHAT_SPEC_PARAMS: Readonly<Record<string, Kind>> = {
  baseUrl: 'urls',
  apiKeyEnv: 'string',
  temperature: 'number',
  maxTokens: 'int',
  seed: 'int0',
  concurrency: 'int',
  requestsPerMinute: 'int',
  timeoutMs: 'int',
  maxRetries: 'int0',
  backoffMs: 'int0',
  maxBackoffMs: 'int0',
};

function parseParam(key: string, kind: Kind, raw: unknown, where: string): unknown {
  const values = (Array.isArray(raw) ? raw : [raw]).map((v) => String(v));
  const bad = (valid: string): CorebError => new CorebError('USAGE', `${where}: parameter \`${key}\` must be ${valid}, got \`${values.join(',')}\``);
  if (kind === 'urls') return parseBaseUrls(values, where, bad);
  if (values.length !== 1) throw new CorebError('USAGE', `${where}: parameter \`${key}\` given ${values.length} times; give it once`);
  const v = values[0];
  if (kind === 'string') {
    if (v === '') throw bad('a non-empty string');
    return v;
  }
  const n = Number(v);
  if (kind === 'number') {
    if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw bad('a number >= 0');
    return n;
  }
  const min = kind === 'int0' ? 0 : 1;
  if (v.trim() === '' || !Number.isInteger(n) || n < min) throw bad(`an integer >= ${min}`);
  return n;
}

/**
 * Checks a loosely typed chat config (spec parameters, a config-file entry) and converts it.
 * `where` prefixes messages (e.g. `build.json: solvers[1]`).
 * @throws CorebError `USAGE` for unknown parameters and bad values.
 */
export function normalizeChatConfig(input: Record<string, unknown>, where: string): ChatModelConfig {
  const { provider, model, ...rest } = input;
  if (typeof provider !== 'string' || provider === '') throw new CorebError('USAGE', `${where}: \`provider\` must be a non-empty string`);
  if (typeof model !== 'string' || model === '') throw new CorebError('USAGE', `${where}: \`model\` must be a non-empty string`);
  const out: Record<string, unknown> = { provider, model };
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const kind = CHAT_SPEC_PARAMS[key];
    if (kind === undefined) {
      throw new CorebError('USAGE', `${where}: unknown parameter \`${key}\`; valid parameters: ${Object.keys(CHAT_SPEC_PARAMS).join(', ')}`);
    }
    out[key] = parseParam(key, kind, value, where);
  }
  return out as unknown as ChatModelConfig;
}

/**
 * Parses `PROVIDER:MODEL[?key=value&...]`, e.g. `openai:Qwen/Qwen2.5-Coder-7B-Instruct?baseUrl=http://127.0.0.1:8000/v1`
 * or `ollama:qwen2.5-coder:7b?temperature=0.2`. Values are URL-decoded.
 * @throws CorebError `USAGE` when the spec has no provider or model, or a bad parameter.
 */
export function parseChatSpec(spec: string): ChatModelConfig {
  const { provider, model, params } = splitEmbedderSpec(spec);
  if (!provider || !model || spec.startsWith('dense:')) {
    throw new CorebError(
      'USAGE',
      `chat model spec \`${spec}\` must look like PROVIDER:MODEL[?key=value&...], e.g. \`ollama:qwen2.5-coder:7b?temperature=0.2\``,
    );
  }
  return normalizeChatConfig({ provider, model, ...params }, `chat model spec \`${provider}:${model}\``);
}

/** The spec string of a config, without secrets (none are ever in a config) and with defaults omitted. */
export function formatChatSpec(config: ChatModelConfig): string {
  const q = new URLSearchParams();
  for (const key of Object.keys(CHAT_SPEC_PARAMS)) {
    const v = (config as unknown as Record<string, unknown>)[key];
    if (v === undefined) continue;
    q.set(key, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = q.toString();
  return `${config.provider}:${config.model}${s ? '?' + s : ''}`;
}
