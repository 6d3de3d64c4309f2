/**
 * The bridge from a `--retriever dense:...` spec to a ready embedder: parses the spec or looks up
 * a named config entry, creates the provider (loading only its code), and wraps it with the
 * persistent cache so a second identical run makes no embedding calls.
 */
import { createCachedEmbedder, type CacheCounters } from '../cache/cached-embedder.js';
import { openEmbeddingStore } from '../cache/embedding-store.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import type { Embedder } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import type { Logger, Progress } from '../core/progress.js';
import { createEmbedder, PROVIDERS } from '../providers/registry.js';
import { findConfigFile, loadEmbedderConfigs } from '../providers/config-file.js';
import {
  normalizeEmbedderConfig,
  parseEmbedderSpec,
  resolveEmbedderConfig,
  splitEmbedderSpec,
  type ResolvedEmbedderConfig,
} from '../providers/config.js';
import type { EmbedderConfig } from '../providers/types.js';

/** Options of {@link createDenseEmbedder}. */
export interface DenseEmbedderOptions {
  /** Environment for API keys and the default cache dir (the CLI passes the process environment). */
  env: Record<string, string | undefined>;
  /** Cache root; default `COREB_CACHE_DIR`, `$XDG_CACHE_HOME/coreb` or `~/.cache/coreb` from `env`. `false` disables the cache. */
  cacheDir?: string | false;
  /** Config file with named embedders; default: `coreb.config.json` (or .mjs/.js/.ts) in `cwd`. */
  configFile?: string;
  /** Where to look for the default config file. Default: `env.PWD`, else `.`. */
  cwd?: string;
  logger?: Logger;
  /** Accepted for symmetry with other factories; progress is passed per `embed` call. */
  progress?: Progress;
  signal?: AbortSignal;
}

/** An embedder from {@link createDenseEmbedder}: cached, with counters and a close. */
export interface DenseEmbedder extends Embedder {
  /** Cache counters (zeros when the cache is disabled). */
  counters(): CacheCounters;
  /** Flushes and closes the cache store. */
  close(): void;
}

/**
 * Resolves the config a spec denotes: `dense:<provider>:<model>[?k=v&...]`, or `dense:<name>[?k=v&...]`
 * naming an entry of the config file (query parameters override the entry's fields).
 */
export async function resolveDenseSpec(spec: string, options: Pick<DenseEmbedderOptions, 'configFile' | 'cwd' | 'env'>): Promise<EmbedderConfig> {
  const { head, provider, params } = splitEmbedderSpec(spec);
  if (provider && provider in PROVIDERS) return parseEmbedderSpec(spec);
  const cwd = options.cwd ?? options.env.PWD ?? '.';
  const file = findConfigFile(cwd, options.configFile);
  const entries = file !== undefined ? await loadEmbedderConfigs(file) : new Map<string, EmbedderConfig>();
  const entry = entries.get(head);
  if (entry === undefined) {
    if (provider) return parseEmbedderSpec(spec);
    throw new CorebError(
      'NOT_FOUND',
      `\`${spec}\` is neither dense:<provider>:<model> (providers: ${Object.keys(PROVIDERS).join(', ')}) nor a named embedder` +
        (file !== undefined ? ` in ${file} (names: ${[...entries.keys()].join(', ') || 'none'})` : '; no coreb.config.json found'),
    );
  }
  if (Object.keys(params).length === 0) return entry;
  return normalizeEmbedderConfig({ ...entry, ...params }, `embedder \`${head}\``);
}

/**
 * The resolved config a spec denotes, its model preset merged in: the templates and input types
 * every embedding call of that spec applies (see `embedInputKey`).
 */
export async function resolveDenseInputs(
  spec: string,
  options: Pick<DenseEmbedderOptions, 'configFile' | 'cwd' | 'env'>,
): Promise<ResolvedEmbedderConfig> {
  return resolveEmbedderConfig(await resolveDenseSpec(spec, options));
}

/**
 * Resolves `dense:<provider>:<model>[?key=value&...]` or a named config entry to a cached Embedder.
 * @example
 * ```ts
 * import { evaluation } from 'coreb';
 * const embedder = await evaluation.createDenseEmbedder('dense:ollama:nomic-embed-text', { env: process.env });
 * try {
 *   const matrix = await embedder.embed(['def add(a, b): return a + b'], { role: 'document', task: 'code2code' });
 *   console.log(matrix.rows, matrix.dim, embedder.counters());
 * } finally {
 *   embedder.close();
 * }
 * ```
 */
export async function createDenseEmbedder(spec: string, options: DenseEmbedderOptions): Promise<DenseEmbedder> {
  const config = await resolveDenseSpec(spec, options);
  const inner = await createEmbedder(config, { env: options.env, logger: options.logger });
  if (options.cacheDir === false) {
    return {
      ...inner,
      id: inner.id,
      describe: () => inner.describe(),
      embed: (texts, o) => inner.embed(texts, o),
      counters: () => ({ requested: 0, hits: 0, duplicates: 0, encoded: 0 }),
      close() {},
    };
  }
  const store = openEmbeddingStore(options.cacheDir ?? resolveCacheDir(options.env));
  const cached = createCachedEmbedder(inner, store);
  return { ...cached, close: () => store.close() };
}
