/**
 * Turns a provider's wire format plus a resolved config into an {@link Embedder}: applies
 * instruction templates and native input types, resolves the API key from the named environment
 * variable, drives the shared HTTP client and reports finished batches as they arrive.
 */
import type { TaskName } from '../../core/dataset.js';
import { normalizeRows, type EmbedOptions, type Embedder, type EmbedRole, type PreparedText } from '../../core/embedding.js';
import { CorebError } from '../../core/errors.js';
import { applyTemplate, mergeTables, resolveEmbedderConfig, selectInputType, selectTemplate } from '../config.js';
import type { EmbedderConfig, HttpTransportSettings, InputTypes, ProviderContext } from '../types.js';
import { createHttpClient, redact, type HttpClient, type WireFormat } from './client.js';

/** What distinguishes one HTTP provider; everything else is shared. */
export interface HttpProviderSpec {
  /** Registry name. */
  name: string;
  /** Public API base URL; undefined = the user must give baseUrl. */
  defaultBaseUrl?: string;
  /** Environment variable read for the key when the config names none. */
  defaultApiKeyEnv?: string;
  /** The provider refuses requests without a key. */
  keyRequired: boolean;
  /** Texts per request by default. */
  batchSize: number;
  /** Estimated tokens per request by default. */
  maxBatchTokens: number;
  /** Native input types used when neither preset nor config gives one. */
  defaultInputTypes?: InputTypes;
  /** Auth headers for a key; default `authorization: Bearer <key>`. */
  auth?(key: string): Record<string, string>;
  /** The wire format for one call (model, requested dimensions, input type). */
  wire(call: { model: string; dimensions?: number; inputType?: string; normalize?: boolean }): WireFormat;
  /** The server normalises when asked (`normalize` is sent, not applied client-side). */
  serverNormalizes?: boolean;
}

/** The usual auth header: `authorization: Bearer <key>`. */
function bearerAuth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Defaults of the shared client (see {@link EmbedderConfig} for meanings and units). */
export const HTTP_DEFAULTS = {
  concurrency: 4,
  balance: 'least-busy',
  timeoutMs: 120_000,
  maxRetries: 6,
  backoffMs: 500,
  maxBackoffMs: 60_000,
} as const;

/** What an HTTP provider's config carries for {@link createHttpAccess} (embedders and rerankers alike). */
export interface HttpAccessConfig extends HttpTransportSettings {
  model: string;
  baseUrl?: string[];
  apiKeyEnv?: string;
}

/** What distinguishes one HTTP provider's access: name, public URL, key variable, batch defaults, auth. */
export type HttpAccessSpec = Pick<
  HttpProviderSpec,
  'name' | 'defaultBaseUrl' | 'defaultApiKeyEnv' | 'keyRequired' | 'batchSize' | 'maxBatchTokens' | 'auth'
>;

/** A configured client plus what describes it (endpoints without secrets, the key variable). */
export interface HttpAccess {
  client: HttpClient;
  endpoints: string[];
  /** Endpoints as shown in results: query strings dropped, secrets scrubbed. */
  publicEndpoints: string[];
  keyEnv: string | undefined;
  secrets: string[];
}

/**
 * Resolves endpoints and the API key (from the environment variable the config names, else the
 * provider's default) and creates the shared client. No I/O.
 * `specForm` prefixes the spec in the missing-baseUrl message (`dense:` for embedders, `''` for
 * rerankers and chat models); `exampleBaseUrl` is the URL that message suggests.
 * @throws CorebError `CONFIG` when no endpoint is known, or a named/required key is missing.
 */
export function createHttpAccess(
  spec: HttpAccessSpec,
  cfg: HttpAccessConfig,
  context: ProviderContext,
  specForm = 'dense:',
  exampleBaseUrl = 'http://127.0.0.1:8080',
): HttpAccess {
  const endpoints = cfg.baseUrl ?? (spec.defaultBaseUrl !== undefined ? [spec.defaultBaseUrl] : []);
  if (endpoints.length === 0) {
    throw new CorebError('CONFIG', `provider \`${spec.name}\` needs baseUrl, e.g. ${specForm}${spec.name}:${cfg.model}?baseUrl=${exampleBaseUrl}`);
  }
  const keyEnv = cfg.apiKeyEnv ?? spec.defaultApiKeyEnv;
  // Planning only (--dry-run): no key is read and none is required; the caller refuses requests.
  const planOnly = context.planOnly === true;
  const key = keyEnv !== undefined && !planOnly ? context.env[keyEnv] : undefined;
  if (!key && !planOnly && cfg.apiKeyEnv !== undefined) {
    throw new CorebError('CONFIG', `apiKeyEnv=${cfg.apiKeyEnv} names an environment variable that is not set; export it or drop apiKeyEnv`);
  }
  if (!key && !planOnly && spec.keyRequired && cfg.baseUrl === undefined) {
    throw new CorebError('CONFIG', `provider \`${spec.name}\` needs an API key: set the environment variable ${keyEnv}`);
  }
  const secrets = key ? [key] : [];
  const client: HttpClient = createHttpClient({
    endpoints,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(key ? (spec.auth ?? bearerAuth)(key) : {}) },
    secrets,
    batchSize: cfg.batchSize ?? spec.batchSize,
    maxBatchTokens: cfg.maxBatchTokens ?? spec.maxBatchTokens,
    concurrency: cfg.concurrency ?? HTTP_DEFAULTS.concurrency,
    requestsPerMinute: cfg.requestsPerMinute,
    balance: cfg.balance ?? HTTP_DEFAULTS.balance,
    timeoutMs: cfg.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
    maxRetries: cfg.maxRetries ?? HTTP_DEFAULTS.maxRetries,
    backoffMs: cfg.backoffMs ?? HTTP_DEFAULTS.backoffMs,
    maxBackoffMs: cfg.maxBackoffMs ?? HTTP_DEFAULTS.maxBackoffMs,
    logger: context.logger,
  });
  const publicEndpoints = endpoints.map((e) => redact(e.replace(/\?.*$/, ''), secrets));
  return { client, endpoints, publicEndpoints, keyEnv, secrets };
}

/** Creates an embedder for an HTTP provider. Reads the key from `context.env` once; no I/O. */
export function createHttpEmbedder(spec: HttpProviderSpec, config: EmbedderConfig, context: ProviderContext): Embedder {
  const cfg = resolveEmbedderConfig(config);
  const { client, publicEndpoints, keyEnv } = createHttpAccess(spec, cfg, context);
  const inputTypes = mergeTables(spec.defaultInputTypes, cfg.inputTypes);
  let knownDim = cfg.dimensions;
  const clientNormalize = cfg.normalize === true && !spec.serverNormalizes;
  const identity = (): Record<string, unknown> => ({
    provider: spec.name,
    model: cfg.model,
    revision: cfg.revision ?? null,
    dimensions: cfg.dimensions ?? null,
    normalize: spec.serverNormalizes ? (cfg.normalize ?? true) : (cfg.normalize ?? false),
    maxTokens: cfg.maxTokens ?? null,
  });
  const prepare = (text: string, o: { role: EmbedRole; task?: TaskName }): PreparedText => {
    const p = applyTemplate(selectTemplate(cfg.templates, o.role, o.task), text);
    const inputType = selectInputType(inputTypes, o.role, o.task);
    return inputType === undefined ? p : { ...p, inputType };
  };
  const id = `${spec.name}:${cfg.model}`;
  return {
    id,
    identity,
    prepare,
    describe: () => ({
      ...identity(),
      preset: cfg.presetId ?? null,
      templates: cfg.templates,
      inputTypes,
      endpoints: publicEndpoints,
      apiKeyEnv: keyEnv ?? null,
      balance: cfg.balance ?? HTTP_DEFAULTS.balance,
      concurrency: cfg.concurrency ?? HTTP_DEFAULTS.concurrency,
      batchSize: cfg.batchSize ?? spec.batchSize,
    }),
    async embed(texts: readonly string[], options: EmbedOptions) {
      const prepared = texts.map((t) => prepare(t, options));
      const sent = prepared.map((p) => p.text);
      const wire = spec.wire({ model: cfg.model, dimensions: cfg.dimensions, inputType: prepared[0]?.inputType, normalize: cfg.normalize });
      const progress = options.progress;
      progress?.start(`embedding ${texts.length} texts with ${id}`, texts.length);
      try {
        const r = await client.embed(sent, wire, {
          signal: options.signal,
          dim: knownDim,
          onBatch: (start, end, data, dim) => {
            if (clientNormalize) normalizeRows(data, dim);
            const rows = Array.from({ length: end - start }, (_, i) => start + i);
            options.onRows?.(rows, { rows: end - start, dim, data });
            progress?.tick(end - start);
          },
        });
        if (texts.length > 0) knownDim = r.dim;
        return { rows: texts.length, dim: r.dim, data: r.data };
      } finally {
        progress?.done();
      }
    },
  };
}
