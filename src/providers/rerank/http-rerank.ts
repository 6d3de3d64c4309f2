/**
 * The rerank HTTP APIs, one client for all: "query + documents -> (index, score) per document",
 * differing only in field names (`documents`/`texts`, `top_n`/`top_k`, `results`/`data`/bare array,
 * `relevance_score`/`score`). Batches by documents and token budget within one query, bounded
 * concurrency over several endpoints, retries with Retry-After (the shared HTTP client), and
 * replies checked for count, indices and finite scores; results are mapped back by `index`,
 * never by position (servers sort them by score).
 */
import { CorebError } from '../../core/errors.js';
import type { RerankOptions, RerankPair, Reranker } from '../../core/rerank.js';
import type { ProviderContext } from '../types.js';
import { HTTP_DEFAULTS, createHttpAccess, type HttpAccessSpec } from '../http/embedder.js';
import { batchByQuery, resolvePrompting, scoreInBatches, scoresByIndex, templateIdentity, type RerankJob } from './common.js';
import type { RerankerConfig } from './config.js';
import { splitForRerankApi, truncatePair } from './template.js';

/** How one rerank API names things (see docs/rerank.md for each server). */
export interface RerankApi extends HttpAccessSpec {
  /** Path appended to the base URL. */
  path: string;
  /** Request field holding the documents. */
  docsField: 'documents' | 'texts';
  /** Request field asking for every result (set to the batch size), if the API has one. */
  topField?: 'top_n' | 'top_k';
  /** Reply field holding the results; undefined = the reply is a bare array. */
  resultsKey?: 'results' | 'data';
  /** Result field holding the score. */
  scoreKey: 'relevance_score' | 'score';
  /** Further request fields (e.g. `return_documents: false`). */
  extra?: Readonly<Record<string, unknown>>;
  /** Send `model` (servers serving one model ignore it; TEI has no such field). Default true. */
  sendModel?: boolean;
}

/** The supported rerank APIs by provider name. */
export const RERANK_APIS = {
  vllm: {
    name: 'vllm',
    path: '/rerank',
    keyRequired: false,
    defaultApiKeyEnv: 'VLLM_API_KEY',
    batchSize: 128,
    maxBatchTokens: 500_000,
    docsField: 'documents',
    topField: 'top_n',
    resultsKey: 'results',
    scoreKey: 'relevance_score',
  },
  tei: {
    name: 'tei',
    path: '/rerank',
    keyRequired: false,
    defaultApiKeyEnv: 'HF_TOKEN',
    batchSize: 32,
    maxBatchTokens: 100_000,
    docsField: 'texts',
    scoreKey: 'score',
    extra: { truncate: true, raw_scores: false, return_text: false },
    sendModel: false,
  },
  llamacpp: {
    name: 'llamacpp',
    path: '/v1/rerank',
    keyRequired: false,
    defaultApiKeyEnv: 'LLAMA_API_KEY',
    batchSize: 64,
    maxBatchTokens: 100_000,
    docsField: 'documents',
    topField: 'top_n',
    resultsKey: 'results',
    scoreKey: 'relevance_score',
  },
  jina: {
    name: 'jina',
    path: '/rerank',
    defaultBaseUrl: 'https://api.jina.ai/v1',
    defaultApiKeyEnv: 'JINA_API_KEY',
    keyRequired: true,
    batchSize: 64,
    maxBatchTokens: 100_000,
    docsField: 'documents',
    topField: 'top_n',
    resultsKey: 'results',
    scoreKey: 'relevance_score',
    extra: { return_documents: false },
  },
  cohere: {
    name: 'cohere',
    path: '/rerank',
    defaultBaseUrl: 'https://api.cohere.com/v2',
    defaultApiKeyEnv: 'COHERE_API_KEY',
    keyRequired: true,
    batchSize: 64,
    maxBatchTokens: 100_000,
    docsField: 'documents',
    topField: 'top_n',
    resultsKey: 'results',
    scoreKey: 'relevance_score',
  },
  voyage: {
    name: 'voyage',
    path: '/rerank',
    defaultBaseUrl: 'https://api.voyageai.com/v1',
    defaultApiKeyEnv: 'VOYAGE_API_KEY',
    keyRequired: true,
    batchSize: 64,
    maxBatchTokens: 100_000,
    docsField: 'documents',
    topField: 'top_k',
    resultsKey: 'data',
    scoreKey: 'relevance_score',
    extra: { return_documents: false },
  },
} as const satisfies Record<string, RerankApi>;

/** A rerank API provider name. */
export type RerankApiName = keyof typeof RERANK_APIS;

/** Counters of an HTTP reranker. */
export interface HttpRerankStats {
  pairs: number;
  /** Pairs cut to `maxTokens`. */
  truncated: number;
}

/** Creates a reranker speaking `api`. Reads the key once; no I/O until `score`. */
export function createApiReranker(api: RerankApi, cfg: RerankerConfig, context: ProviderContext): Reranker & { stats(): HttpRerankStats } {
  const access = createHttpAccess(api, cfg, context, '');
  const { template, instructions, instruction } = resolvePrompting(cfg, 'plain');
  const stats: HttpRerankStats = { pairs: 0, truncated: 0 };
  const identity = (): Record<string, unknown> => ({
    provider: api.name,
    model: cfg.model,
    revision: cfg.revision ?? null,
    ...templateIdentity(template),
    maxTokens: cfg.maxTokens ?? null,
  });
  return {
    id: `${api.name}:${cfg.model}`,
    identity,
    instruction,
    stats: () => ({ ...stats }),
    describe: () => ({
      ...identity(),
      instructions: template.name === 'plain' ? null : instructions,
      endpoints: access.publicEndpoints,
      apiKeyEnv: access.keyEnv ?? null,
      batchSize: cfg.batchSize ?? api.batchSize,
      concurrency: cfg.concurrency ?? HTTP_DEFAULTS.concurrency,
    }),
    async score(pairs: readonly RerankPair[], options: RerankOptions = {}): Promise<Float64Array> {
      const inst = instruction(options.task);
      const batches = batchByQuery(pairs, cfg.batchSize ?? api.batchSize, cfg.maxBatchTokens ?? api.maxBatchTokens);
      const jobs: RerankJob<{ scores: Float64Array }>[] = batches.map((b) => {
        let query = b.query;
        const docs = b.positions.map((i) => {
          if (cfg.maxTokens === undefined) return pairs[i].doc;
          const cut = truncatePair(b.query, pairs[i].doc, cfg.maxTokens);
          if (cut.truncated) stats.truncated++;
          query = cut.query;
          return cut.doc;
        });
        const split = splitForRerankApi(template, inst, query);
        const body: Record<string, unknown> = {
          ...(api.sendModel === false ? {} : { model: cfg.model }),
          query: split.query,
          [api.docsField]: docs.map(split.doc),
          ...(api.topField !== undefined ? { [api.topField]: docs.length } : {}),
          ...(api.extra ?? {}),
        };
        const count = docs.length;
        return {
          path: api.path,
          body,
          parse: (json) => {
            const items = api.resultsKey === undefined ? json : (json as Record<string, unknown> | null)?.[api.resultsKey];
            return { scores: scoresByIndex(items, count, api.scoreKey, api.resultsKey ?? 'the reply array') };
          },
        };
      });
      const positions = batches.map((b) => b.positions);
      const out = await scoreInBatches(access.client, pairs.length, positions, jobs, options, `${api.name}:${cfg.model}`);
      stats.pairs += pairs.length;
      return out;
    },
  };
}

/** Registry entry point: `vllm`, `tei`, `llamacpp`, `jina`, `cohere`, `voyage`. */
export function create(cfg: RerankerConfig, context: ProviderContext): Reranker {
  const api = (RERANK_APIS as Record<string, RerankApi>)[cfg.provider];
  if (api === undefined) throw new CorebError('NOT_FOUND', `no rerank API \`${cfg.provider}\`; valid: ${Object.keys(RERANK_APIS).join(', ')}`);
  return createApiReranker(api, cfg, context);
}
