/**
 * The `es:INDEX` retriever: BM25 at scale from an existing Elasticsearch or OpenSearch index,
 * queried over HTTP (`_msearch` batches, or one `_search` per query) through the shared HTTP client
 * (retry, backoff, failover over several nodes, bounded concurrency). coreb indexes nothing there.
 */
import { counted } from '../../core/words.js';
import { forEachBounded } from '../../core/bounded-work.js';
import { TASK_CORPUS, type Doc, type Query, type TaskName } from '../../core/dataset.js';
import { CorebError } from '../../core/errors.js';
import type { Logger } from '../../core/progress.js';
import type { IndexOptions, RankedList, Retriever, RetrieverIndex, SearchOptions } from '../../core/retrieval.js';
import { compareTrecIds } from '../../core/trec-order.js';
import { parseValue } from '../config.js';
import { createHttpClient, redact, type HttpClient } from '../http/client.js';
import { HTTP_DEFAULTS } from '../http/embedder.js';
import { abortReason, backoffMs, isRetryableStatus, sleep } from '../../core/retry.js';
import { ResponseShapeError } from '../http/validate.js';
import {
  describeEsErrorBody,
  readEsHits,
  readEsMsearch,
  renderEsMsearchBody,
  renderEsSearchBody,
  type EsErrorInfo,
  type EsHit,
  type EsQueryShape,
  type EsSearchType,
  ES_SEARCH_TYPES,
} from './es-wire.js';

/** Defaults of the `es:` retriever (units in the names). */
export const ES_DEFAULTS = {
  /** ES's own default address. */
  url: 'http://127.0.0.1:9200',
  fields: ['text'],
  idField: '_id',
  /** Hits asked per query at most: ES's default `index.max_result_window`. */
  size: 10_000,
  /** Searches per `_msearch` request. */
  batch: 64,
  api: 'msearch',
  concurrency: 4,
  timeoutMs: 60_000,
} as const;

/** Resolved options of {@link createEsRetriever}. */
export interface EsRetrieverOptions extends EsQueryShape {
  /** Index, alias or comma-separated list; `{task}` and `{corpus}` are replaced per indexed corpus. */
  index: string;
  /** Node base URLs (several = nodes of one cluster, used round-robin with failover). */
  endpoints: string[];
  /** Hits requested per query at most (the search depth plus excluded ids, capped here). */
  size: number;
  /** Searches per `_msearch` request (ignored with `api: 'search'`). */
  batch: number;
  /** `msearch` (batched NDJSON) or `search` (one `_search` per query). */
  api: 'msearch' | 'search';
  /**
   * ES `search_type`; `dfs_query_then_fetch` scores with index-wide term statistics when the index
   * has several shards (each shard's own by default). Default: ES's (`query_then_fetch`).
   */
  searchType?: EsSearchType;
  /** Requests in flight at once. */
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  backoffMs: number;
  maxBackoffMs: number;
  /** Environment variable holding an ES API key (sent as `Authorization: ApiKey <value>`). */
  apiKeyEnv?: string;
  /** Environment variables holding a user name and password (HTTP basic auth). */
  userEnv?: string;
  passwordEnv?: string;
  /** Display name (leaderboard row, run file names). Default: the spec. */
  name?: string;
}

/** The parameters an `es:` spec takes, with their kinds (see `parseValue`). */
const PARAMS = {
  url: 'urls',
  baseUrl: 'urls',
  fields: 'string',
  field: 'string',
  idField: 'string',
  type: 'string',
  operator: 'string',
  size: 'int',
  batch: 'int',
  api: 'string',
  searchType: 'string',
  concurrency: 'int',
  timeoutMs: 'int',
  maxRetries: 'int',
  backoffMs: 'int',
  maxBackoffMs: 'int',
  apiKeyEnv: 'string',
  userEnv: 'string',
  passwordEnv: 'string',
  name: 'string',
} as const;

/** Characters ES refuses in an index name (besides upper case), and the path characters that would break the URL. */
const BAD_INDEX = /[\s\\/*?"<>|#:]/;

/**
 * Checks and resolves the `es:INDEX?key=value&...` spec parts into options (no I/O).
 * Keys: `url` (repeatable or comma-separated node URLs; alias `baseUrl`), `fields`/`field`
 * (comma-separated, boosts as `title^2`), `idField`, `type` (multi_match type), `operator`
 * (or|and), `size`, `batch`, `api` (msearch|search), `searchType`, `concurrency`, `timeoutMs`, `maxRetries`,
 * `backoffMs`, `maxBackoffMs`, `apiKeyEnv`, `userEnv`, `passwordEnv`, `name`.
 * @throws CorebError `USAGE` naming the spec, the key and what is valid.
 */
export function resolveEsOptions(spec: string, index: string, params: ReadonlyMap<string, string[]>): EsRetrieverOptions {
  const where = `retriever \`${spec}\``;
  if (index === '') throw new CorebError('USAGE', `${where} needs an index: es:INDEX[?url=http://127.0.0.1:9200&fields=text]`);
  const check = index.replace(/\{(task|corpus)\}/g, 'x');
  if (BAD_INDEX.test(check) || check !== check.toLowerCase() || /[{}]/.test(check)) {
    throw new CorebError(
      'USAGE',
      `${where}: \`${index}\` is not an index name ES accepts (lower case, no spaces or \\ / * ? " < > | # :); {task} and {corpus} are the only placeholders`,
    );
  }
  const values: Record<string, unknown> = {};
  for (const [key, vs] of params) {
    if (!Object.hasOwn(PARAMS, key))
      throw new CorebError('USAGE', `${where}: unknown parameter \`${key}\`; valid: ${Object.keys(PARAMS).join(', ')}`);
    values[key] = parseValue(key, PARAMS[key as keyof typeof PARAMS], vs, where);
  }
  const list = (v: unknown): string[] =>
    String(v)
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  if (values.field !== undefined && values.fields !== undefined) throw new CorebError('USAGE', `${where}: give \`fields\` or \`field\`, not both`);
  const fields = values.fields ?? values.field;
  const o: EsRetrieverOptions = {
    index,
    endpoints: (values.url ?? values.baseUrl ?? [ES_DEFAULTS.url]) as string[],
    fields: fields !== undefined ? list(fields) : [...ES_DEFAULTS.fields],
    idField: (values.idField as string | undefined) ?? ES_DEFAULTS.idField,
    size: (values.size as number | undefined) ?? ES_DEFAULTS.size,
    batch: (values.batch as number | undefined) ?? ES_DEFAULTS.batch,
    api: ((values.api as string | undefined) ?? ES_DEFAULTS.api) as 'msearch' | 'search',
    concurrency: (values.concurrency as number | undefined) ?? ES_DEFAULTS.concurrency,
    timeoutMs: (values.timeoutMs as number | undefined) ?? ES_DEFAULTS.timeoutMs,
    maxRetries: (values.maxRetries as number | undefined) ?? HTTP_DEFAULTS.maxRetries,
    backoffMs: (values.backoffMs as number | undefined) ?? HTTP_DEFAULTS.backoffMs,
    maxBackoffMs: (values.maxBackoffMs as number | undefined) ?? HTTP_DEFAULTS.maxBackoffMs,
  };
  if (values.url !== undefined && values.baseUrl !== undefined) throw new CorebError('USAGE', `${where}: give \`url\` or \`baseUrl\`, not both`);
  if (o.fields.length === 0 || o.fields.some((f) => !/^[^\s^]+(\^\d+(\.\d+)?)?$/.test(f))) {
    throw new CorebError('USAGE', `${where}: \`fields\` must list field names, each optionally boosted (title^2,text), got \`${String(fields)}\``);
  }
  if (o.idField === '' || /\s/.test(o.idField)) throw new CorebError('USAGE', `${where}: \`idField\` must be _id or a _source field name`);
  if (o.api !== 'msearch' && o.api !== 'search') throw new CorebError('USAGE', `${where}: \`api\` must be msearch or search, got \`${o.api}\``);
  if (values.operator !== undefined) {
    if (values.operator !== 'or' && values.operator !== 'and')
      throw new CorebError('USAGE', `${where}: \`operator\` must be or or and, got \`${String(values.operator)}\``);
    o.operator = values.operator;
  }
  if (values.type !== undefined) o.type = values.type as string;
  if (values.searchType !== undefined) {
    if (!(ES_SEARCH_TYPES as readonly unknown[]).includes(values.searchType)) {
      throw new CorebError('USAGE', `${where}: \`searchType\` must be one of ${ES_SEARCH_TYPES.join(', ')}, got \`${String(values.searchType)}\``);
    }
    o.searchType = values.searchType as EsSearchType;
  }
  for (const k of ['apiKeyEnv', 'userEnv', 'passwordEnv', 'name'] as const) if (values[k] !== undefined) o[k] = values[k] as string;
  if (o.apiKeyEnv !== undefined && (o.userEnv !== undefined || o.passwordEnv !== undefined)) {
    throw new CorebError('USAGE', `${where}: give apiKeyEnv (an ES API key) or userEnv and passwordEnv (basic auth), not both`);
  }
  if ((o.userEnv === undefined) !== (o.passwordEnv === undefined)) {
    throw new CorebError('USAGE', `${where}: basic auth needs both userEnv and passwordEnv (the names of the environment variables)`);
  }
  return o;
}

/** What the retriever needs from its caller. */
export interface EsRetrieverContext {
  /** Environment the credentials are read from, by the names the options give. */
  env: Record<string, string | undefined>;
  logger?: Logger;
  /** Jitter source for backoff (tests). Default Math.random. */
  random?: () => number;
}

/** The credential headers and the values to scrub from messages. */
function resolveAuth(
  o: EsRetrieverOptions,
  env: Record<string, string | undefined>,
  where: string,
): { headers: Record<string, string>; secrets: string[] } {
  const read = (name: string): string => {
    const v = env[name];
    if (v === undefined || v === '')
      throw new CorebError('CONFIG', `${where}: environment variable ${name} is not set; export it or drop the parameter naming it`);
    return v;
  };
  if (o.apiKeyEnv !== undefined) {
    const key = read(o.apiKeyEnv);
    return { headers: { authorization: `ApiKey ${key}` }, secrets: [key] };
  }
  if (o.userEnv !== undefined && o.passwordEnv !== undefined) {
    const user = read(o.userEnv);
    const password = read(o.passwordEnv);
    const basic = Buffer.from(`${user}:${password}`).toString('base64');
    return { headers: { authorization: `Basic ${basic}` }, secrets: [password, basic] };
  }
  return { headers: {}, secrets: [] };
}

/**
 * Creates the retriever. No I/O until `index` (which checks the index exists with `_count` and
 * warns when it holds another number of documents than the corpus).
 *
 * Ranking: hits are re-sorted in trec order (the score rounded to float32 descending, ties by docid
 * descending), so ties come out the same whatever the shard order; excluded ids and ids outside the
 * indexed corpus are dropped (the latter counted in a warning), then the list is cut to the depth.
 * ES itself cuts at `size` by its own tie order, so documents tied at exactly the cut may differ.
 * @throws CorebError `CONFIG` when a named credential variable is not set.
 */
export function createEsRetriever(options: EsRetrieverOptions, context: EsRetrieverContext, spec = `es:${options.index}`): Retriever {
  const where = `retriever \`${options.name ?? spec}\``;
  const auth = resolveAuth(options, context.env, where);
  const client: HttpClient = createHttpClient({
    endpoints: options.endpoints,
    headers: { accept: 'application/json', ...auth.headers },
    secrets: auth.secrets,
    batchSize: options.batch,
    maxBatchTokens: Number.MAX_SAFE_INTEGER,
    concurrency: options.concurrency,
    balance: 'round-robin',
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    backoffMs: options.backoffMs,
    maxBackoffMs: options.maxBackoffMs,
    ...(context.logger !== undefined ? { logger: context.logger } : {}),
    ...(context.random !== undefined ? { random: context.random } : {}),
  });
  const publicEndpoints = options.endpoints.map((e) => redact(e, auth.secrets));
  const name = options.name ?? spec;
  return {
    name,
    describe: () => ({
      kind: 'es',
      index: options.index,
      endpoints: publicEndpoints,
      fields: [...options.fields],
      idField: options.idField,
      query: renderEsSearchBody('QUERY', 0, options).query,
      api: options.api,
      ...(options.searchType !== undefined ? { searchType: options.searchType } : {}),
      size: options.size,
      auth: options.apiKeyEnv !== undefined ? 'apiKey' : options.userEnv !== undefined ? 'basic' : 'none',
      ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
      ...(options.userEnv !== undefined ? { userEnv: options.userEnv, passwordEnv: options.passwordEnv } : {}),
    }),
    async index(docs: readonly Doc[], indexOptions: IndexOptions = {}): Promise<RetrieverIndex> {
      const index = resolveIndexName(options.index, indexOptions.task, where);
      const inCorpus = new Set<string>();
      for (const d of docs) inCorpus.add(d.id);
      const count = await client
        .request(`/${index}/_count`, { query: { match_all: {} } }, readCount, {
          headers: { 'content-type': 'application/json' },
          describeError: describeFor(index),
          ...(indexOptions.signal !== undefined ? { signal: indexOptions.signal } : {}),
        })
        .catch((e: unknown) => rethrow(e, index));
      if (count !== docs.length) {
        context.logger?.warn(`${where}: index \`${index}\` holds ${count} documents, the corpus ${docs.length}; hits outside the corpus are dropped`);
      }
      return {
        size: docs.length,
        search: (queries, depth, searchOptions = {}) => search(client, options, index, inCorpus, queries, depth, searchOptions, where, context),
      };
    },
  };
}

/** Replaces `{task}` and `{corpus}` (`code` or `text`) in an index name. */
function resolveIndexName(index: string, task: TaskName | undefined, where: string): string {
  if (!/\{(task|corpus)\}/.test(index)) return index;
  if (task === undefined)
    throw new CorebError('USAGE', `${where}: \`${index}\` uses {task} or {corpus}, but the data has no CoREB tasks; name the index`);
  return index.replaceAll('{task}', task).replaceAll('{corpus}', TASK_CORPUS[task]);
}

function readCount(json: unknown): number {
  const c = (json as { count?: unknown } | null)?.count;
  if (typeof c !== 'number' || !Number.isInteger(c) || c < 0) throw new ResponseShapeError('expected {"count": N} in the _count response');
  return c;
}

/** What to do about an ES error `type` (or an auth status), as a message suffix; '' when nothing specific. */
function esHint(type: string, status: number): string {
  if (type === 'index_not_found_exception') return '; create the index (see docs/scale.md) or fix the name';
  if (status === 401 || status === 403) return '; check the credentials named by apiKeyEnv or userEnv/passwordEnv';
  if (type === 'too_many_clauses' || type === 'too_many_nested_clauses') {
    return '; the query has more terms than indices.query.bool.max_clause_count allows: raise it or shorten the queries';
  }
  return '';
}

/** Error-reply describer naming the index and ES's `type: reason`. */
function describeFor(index: string): (status: number, body: string) => string | undefined {
  return (status, body) => {
    const e = describeEsErrorBody(body);
    if (e === undefined) return undefined;
    return `index \`${index}\`: ${e.type}: ${e.reason}${esHint(e.type, status)}`;
  };
}

/** An index-missing HTTP error becomes `NOT_FOUND` (same message), other errors pass. */
function rethrow(e: unknown, index: string): never {
  if (e instanceof CorebError && e.code === 'HTTP' && e.message.includes(`index \`${index}\`: index_not_found_exception`)) {
    throw new CorebError('NOT_FOUND', e.message, { cause: e, ...(e.details !== undefined ? { details: e.details } : {}) });
  }
  throw e;
}

/** Searches every query, `batch` at a time with at most `concurrency` requests in flight. */
async function search(
  client: HttpClient,
  o: EsRetrieverOptions,
  index: string,
  inCorpus: ReadonlySet<string>,
  queries: readonly Query[],
  depth: number,
  so: SearchOptions,
  where: string,
  context: EsRetrieverContext,
): Promise<Map<string, RankedList>> {
  if (!Number.isInteger(depth) || depth < 1) throw new CorebError('USAGE', `search depth must be an integer >= 1, got ${depth}`);
  const outer = so.signal;
  if (outer?.aborted) throw abortReason(outer);
  const per = o.api === 'msearch' ? o.batch : 1;
  const batches: Array<readonly Query[]> = [];
  for (let i = 0; i < queries.length; i += per) batches.push(queries.slice(i, i + per));
  const stop = new AbortController();
  const signal = outer !== undefined ? AbortSignal.any([outer, stop.signal]) : stop.signal;
  const hits = new Map<string, EsHit[]>();
  let failure: unknown;
  so.progress?.start(`${where}: searching ${counted(queries.length, 'query', 'queries')} in \`${index}\``, queries.length);
  const sizeOf = (q: Query): number => Math.min(o.size, depth + (so.exclude?.get(q.id)?.length ?? 0));
  try {
    await forEachBounded(batches, o.concurrency, async (batch) => {
      try {
        const got =
          o.api === 'msearch'
            ? await msearch(client, o, index, batch, sizeOf, signal, context.random)
            : [await searchOne(client, o, index, batch[0], sizeOf, signal)];
        batch.forEach((q, i) => hits.set(q.id, got[i]));
        so.progress?.tick(batch.length);
      } catch (e) {
        stop.abort(e); // the requests in flight stop too
        throw e;
      }
    });
  } catch (e) {
    failure = e;
  } finally {
    so.progress?.done();
  }
  if (outer?.aborted) throw abortReason(outer);
  if (failure !== undefined) rethrow(failure, index);
  let foreign = 0;
  const out = new Map<string, RankedList>();
  for (const q of queries) {
    const ex = so.exclude?.get(q.id);
    const { list, outside } = rankHits(hits.get(q.id) ?? [], inCorpus, ex !== undefined && ex.length > 0 ? new Set(ex) : undefined, depth);
    foreign += outside;
    out.set(q.id, list);
  }
  if (foreign > 0)
    context.logger?.warn(`${where}: ${foreign} hits from \`${index}\` are not in the corpus and were dropped (is it the index of this corpus?)`);
  return out;
}

/**
 * Orders one query's hits in trec order (float32 score descending, docid descending), keeping the
 * first of duplicate ids and dropping excluded and foreign ones, cut to `depth`.
 */
export function rankHits(
  hits: readonly EsHit[],
  inCorpus: ReadonlySet<string>,
  exclude: ReadonlySet<string> | undefined,
  depth: number,
): { list: RankedList; outside: number } {
  const seen = new Set<string>();
  const kept: Array<{ id: string; score: number }> = [];
  let outside = 0;
  for (const h of hits) {
    if (seen.has(h.id)) continue;
    seen.add(h.id);
    if (!inCorpus.has(h.id)) {
      outside++;
      continue;
    }
    if (exclude?.has(h.id)) continue;
    kept.push({ id: h.id, score: Math.fround(h.score) });
  }
  kept.sort((a, b) => compareTrecIds(a.score, a.id, b.score, b.id));
  const n = Math.min(depth, kept.length);
  const scores = new Float32Array(n);
  const docIds = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    docIds[i] = kept[i].id;
    scores[i] = kept[i].score;
  }
  return { list: { docIds, scores }, outside };
}

const NDJSON = { 'content-type': 'application/x-ndjson' } as const;
const JSON_TYPE = { 'content-type': 'application/json' } as const;

/** One `_search` request. */
async function searchOne(
  client: HttpClient,
  o: EsRetrieverOptions,
  index: string,
  q: Query,
  sizeOf: (q: Query) => number,
  signal: AbortSignal,
): Promise<EsHit[]> {
  const path = `/${index}/_search${o.searchType !== undefined ? `?search_type=${o.searchType}` : ''}`;
  return client.request(path, renderEsSearchBody(q.text, sizeOf(q), o), (json) => readEsHits(json, o.idField), {
    headers: JSON_TYPE,
    describeError: describeFor(index),
    signal,
  });
}

/**
 * One `_msearch` request for a batch, re-sending the searches ES failed one by one with a
 * retryable status (429 `es_rejected_execution_exception` under load, 5xx) after a backoff, up to
 * `maxRetries` rounds. An item failing otherwise (a bad query) is an error naming query and reason.
 */
async function msearch(
  client: HttpClient,
  o: EsRetrieverOptions,
  index: string,
  batch: readonly Query[],
  sizeOf: (q: Query) => number,
  signal: AbortSignal,
  random: () => number = Math.random,
): Promise<EsHit[][]> {
  const out = new Array<EsHit[] | undefined>(batch.length);
  let pending = batch.map((_, i) => i);
  for (let round = 0; ; round++) {
    const body = renderEsMsearchBody(
      pending.map((i) => renderEsSearchBody(batch[i].text, sizeOf(batch[i]), o)),
      o.searchType,
    );
    const outcomes = await client.request(`/${index}/_msearch`, body, (json) => readEsMsearch(json, pending.length, o.idField), {
      headers: NDJSON,
      rawBody: true,
      describeError: describeFor(index),
      signal,
    });
    const again: number[] = [];
    let lastError: { error: EsErrorInfo; status: number } | undefined;
    outcomes.forEach((r, k) => {
      const i = pending[k];
      if ('hits' in r) {
        out[i] = r.hits;
        return;
      }
      if (!isRetryableStatus(r.status)) {
        throw new CorebError(
          r.status === 404 && r.error.type === 'index_not_found_exception' ? 'NOT_FOUND' : 'PROVIDER',
          `POST ${index}/_msearch: query \`${batch[i].id}\` failed with status ${r.status}: index \`${index}\`: ${r.error.type}: ${r.error.reason}${esHint(r.error.type, r.status)}`,
        );
      }
      again.push(i);
      lastError = r;
    });
    if (again.length === 0) return out as EsHit[][];
    if (round >= o.maxRetries) {
      const e = lastError as { error: EsErrorInfo; status: number };
      throw new CorebError(
        'HTTP',
        `POST ${index}/_msearch: ${again.length} searches still failing with status ${e.status} (${e.error.type}: ${e.error.reason}); gave up after ${round + 1} attempts (maxRetries=${o.maxRetries})`,
      );
    }
    await sleep(backoffMs(round, o.backoffMs, o.maxBackoffMs, random), signal);
    pending = again;
  }
}
