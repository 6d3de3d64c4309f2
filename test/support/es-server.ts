/**
 * A loopback Elasticsearch for tests: `POST /INDEX/_search`, `/INDEX/_msearch` (NDJSON) and
 * `/INDEX/_count` in ES's wire format, ranking with coreb's own BM25 so the numbers are known, and
 * failing as ES does: its JSON error shape (`index_not_found_exception`, `parsing_exception`,
 * `security_exception`), 406 on a wrong content type, 429 on demand, item-level `_msearch` errors.
 * Ties are answered in the reverse of trec order (as shard order may be) so clients must re-sort.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Doc, Query } from '../../src/core/dataset.js';
import type { RankedList, RetrieverIndex } from '../../src/core/retrieval.js';
import { createBm25Retriever } from '../../src/search/index.js';

/** What the server's ranking gives for `queries` straight from coreb's BM25 (the expected lists). */
export async function bm25Lists(
  docs: readonly Doc[],
  queries: readonly Query[],
  depth: number,
  exclude?: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, RankedList>> {
  return (await createBm25Retriever().index(docs)).search(queries, depth, exclude ? { exclude } : {});
}

/** One index the server holds. */
export interface EsTestIndex {
  docs: readonly Doc[];
  /** Put the document id into this `_source` field too (for `idField`); default none. */
  sourceIdField?: string;
  /** Mapped fields a query may name (others match nothing, as in ES). Default `text`, `title`. */
  fields?: readonly string[];
}

/** A misbehaviour for one HTTP call. */
export interface EsFault {
  status: number;
  /** Reply body (default: ES's error shape for the status). */
  body?: unknown;
  retryAfter?: string;
}

/** One recorded call. */
export interface EsCall {
  n: number;
  path: string;
  /** The URL's query string, without `?` ('' when none). */
  query: string;
  headers: IncomingMessage['headers'];
  /** The raw request body. */
  body: string;
}

/** Options of {@link startEsServer}. */
export interface EsServerOptions {
  indices: Record<string, EsTestIndex>;
  /** Required credential: an ES API key (`Authorization: ApiKey <key>`) or basic user/password. */
  auth?: { apiKey: string } | { user: string; password: string };
  /** Fault for HTTP call `n` (1-based). */
  fault?: (n: number, call: EsCall) => EsFault | undefined;
  /** Refuse queries of more words than this, as Lucene's clause limit does (ES 7: `too_many_clauses`). Default none. */
  maxClauses?: number;
  /** Item-level `_msearch` fault: status for search `item` (0-based) of call `n`, e.g. 429. */
  itemFault?: (n: number, item: number) => number | undefined;
}

/** A running server. */
export interface EsServer {
  url: string;
  calls: EsCall[];
  close(): Promise<void>;
}

/** ES's error reply: `{"error":{"root_cause":[...],"type","reason",...},"status":N}`. */
export function esError(status: number, type: string, reason: string, extra: Record<string, unknown> = {}): { error: unknown; status: number } {
  const cause = { type, reason, ...extra };
  return { error: { root_cause: [cause], ...cause }, status };
}

const REASONS: Record<number, [string, string]> = {
  429: ['es_rejected_execution_exception', 'rejected execution of coordinating operation [search_queue_full]'],
  500: ['exception', 'injected failure'],
  503: ['cluster_block_exception', 'blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];'],
};

export async function startEsServer(options: EsServerOptions): Promise<EsServer> {
  const calls: EsCall[] = [];
  const bm25 = new Map<string, Promise<RetrieverIndex>>();
  const indexOf = (name: string): Promise<RetrieverIndex> => {
    let p = bm25.get(name);
    if (p === undefined) bm25.set(name, (p = createBm25Retriever().index(options.indices[name].docs)));
    return p;
  };

  /** One search body -> its reply (or an error object with status). */
  const searchOne = async (name: string, body: unknown): Promise<{ status: number; json: unknown }> => {
    const index = options.indices[name];
    const b = body as Record<string, unknown>;
    if (typeof b !== 'object' || b === null) return { status: 400, json: esError(400, 'parsing_exception', 'request body is required') };
    for (const k of Object.keys(b)) {
      if (!['query', 'size', '_source', 'track_total_hits', 'from'].includes(k)) {
        return { status: 400, json: esError(400, 'parsing_exception', `Unknown key for a START_OBJECT in [${k}].`, { line: 1, col: 2 }) };
      }
    }
    const q = b.query as Record<string, Record<string, unknown>>;
    const kind = Object.keys(q ?? {})[0];
    let text: string;
    let fields: string[];
    if (kind === 'match') {
      const field = Object.keys(q.match)[0];
      const v = q.match[field];
      text = typeof v === 'string' ? v : String((v as { query: unknown }).query);
      fields = [field];
    } else if (kind === 'multi_match') {
      const type = q.multi_match.type;
      if (type !== undefined && !['best_fields', 'most_fields', 'cross_fields', 'phrase', 'phrase_prefix', 'bool_prefix'].includes(String(type))) {
        return { status: 400, json: esError(400, 'parse_exception', `failed to parse [multi_match] query type [${String(type)}]. unknown type.`) };
      }
      text = String(q.multi_match.query);
      fields = (q.multi_match.fields as string[]).map((f) => f.replace(/\^.*$/, ''));
    } else {
      return { status: 400, json: esError(400, 'parsing_exception', `unknown query [${kind}]`, { line: 1, col: 11 }) };
    }
    if (options.maxClauses !== undefined && (text.match(/\w+/g)?.length ?? 0) > options.maxClauses) {
      const cause = { type: 'too_many_clauses', reason: `maxClauseCount is set to ${options.maxClauses}` };
      const error = {
        root_cause: [cause],
        type: 'search_phase_execution_exception',
        reason: 'all shards failed',
        phase: 'query',
        grouped: true,
        failed_shards: [
          { shard: 0, index: name, node: 'n1', reason: { type: 'query_shard_exception', reason: 'failed to create query', caused_by: cause } },
        ],
      };
      return { status: 400, json: { error, status: 400 } };
    }
    const size = typeof b.size === 'number' ? b.size : 10;
    if (size > 10_000) {
      return {
        status: 400,
        json: esError(
          400,
          'illegal_argument_exception',
          `Result window is too large, from + size must be less than or equal to: [10000] but was [${size}]. See the scroll api for a more efficient way to request large data sets.`,
        ),
      };
    }
    const mapped = index.fields ?? ['text', 'title'];
    let ids: string[] = [];
    let scores: ArrayLike<number> = [];
    if (fields.some((f) => mapped.includes(f)) && size > 0) {
      const lists = await (await indexOf(name)).search([{ id: 'q', text }], size);
      ids = lists.get('q')!.docIds;
      scores = lists.get('q')!.scores;
    }
    // Answer tied hits in the reverse of trec order (as shard order may be).
    const order = ids.map((_, i) => i);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && scores[j + 1] === scores[i]) j++;
      order.splice(i, j - i + 1, ...order.slice(i, j + 1).reverse());
      i = j + 1;
    }
    const source = b._source;
    const hits = order.map((i) => ({
      _index: name,
      _id: ids[i],
      _score: scores[i],
      ...(source !== false && index.sourceIdField !== undefined ? { _source: { [index.sourceIdField]: ids[i] } } : {}),
    }));
    return {
      status: 200,
      json: {
        took: 1,
        timed_out: false,
        _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
        hits: { max_score: hits.length > 0 ? hits[0]._score : null, hits },
      },
    };
  };

  const authorized = (req: IncomingMessage): boolean => {
    const a = options.auth;
    if (a === undefined) return true;
    const h = req.headers.authorization ?? '';
    if ('apiKey' in a) return h === `ApiKey ${a.apiKey}`;
    return h === `Basic ${Buffer.from(`${a.user}:${a.password}`).toString('base64')}`;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> => {
    const send = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'x-elastic-product': 'Elasticsearch', ...headers });
      res.end(JSON.stringify(json));
    };
    const path = (req.url ?? '/').split('?')[0];
    const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1) : '';
    const call: EsCall = { n: calls.length + 1, path, query, headers: req.headers, body: raw };
    calls.push(call);
    const fault = options.fault?.(call.n, call);
    if (fault !== undefined) {
      const [type, reason] = REASONS[fault.status] ?? ['exception', 'injected'];
      send(
        fault.status,
        fault.body ?? esError(fault.status, type, reason),
        fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {},
      );
      return;
    }
    if (!authorized(req)) {
      const reason = `${req.headers.authorization ? 'unable to authenticate user' : 'missing authentication credentials'} for REST request [${path}]`;
      send(
        401,
        esError(401, 'security_exception', reason, { header: { 'WWW-Authenticate': ['Basic realm="security" charset="UTF-8"', 'ApiKey'] } }),
        {
          'www-authenticate': 'ApiKey',
        },
      );
      return;
    }
    const m = /^\/([^/]+)\/(_search|_msearch|_count)$/.exec(path);
    if (req.method !== 'POST' || m === null) {
      send(405, { error: `Incorrect HTTP method for uri [${path}] and method [${req.method}], allowed: [POST]`, status: 405 });
      return;
    }
    const ct = (req.headers['content-type'] ?? '').split(';')[0].trim();
    const okTypes = m[2] === '_msearch' ? ['application/x-ndjson', 'application/json'] : ['application/json'];
    if (!okTypes.includes(ct)) {
      send(406, { error: `Content-Type header [${req.headers['content-type'] ?? ''}] is not supported`, status: 406 });
      return;
    }
    const name = decodeURIComponent(m[1]);
    if (options.indices[name] === undefined) {
      send(
        404,
        esError(404, 'index_not_found_exception', `no such index [${name}]`, {
          'resource.type': 'index_or_alias',
          'resource.id': name,
          index_uuid: '_na_',
          index: name,
        }),
      );
      return;
    }
    if (m[2] === '_count') {
      send(200, { count: options.indices[name].docs.length, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } });
      return;
    }
    if (m[2] === '_search') {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        send(400, esError(400, 'parse_exception', 'request body or source parameter is required'));
        return;
      }
      const r = await searchOne(name, body);
      send(r.status, r.json);
      return;
    }
    if (!raw.endsWith('\n')) {
      send(400, esError(400, 'illegal_argument_exception', 'The msearch request must be terminated by a newline [\n]'));
      return;
    }
    const lines = raw.split('\n').slice(0, -1);
    if (lines.length % 2 !== 0) {
      send(400, esError(400, 'illegal_argument_exception', 'msearch: every search needs a header line and a body line'));
      return;
    }
    const responses: unknown[] = [];
    for (let i = 0; i < lines.length; i += 2) {
      const item = i / 2;
      const status = options.itemFault?.(call.n, item);
      if (status !== undefined) {
        const [type, reason] = REASONS[status] ?? ['exception', 'injected'];
        responses.push(esError(status, type, reason));
        continue;
      }
      const r = await searchOne(name, JSON.parse(lines[i + 1]));
      responses.push(r.status === 200 ? { ...(r.json as object), status: 200 } : r.json);
    }
    send(200, { took: 1, responses });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((e: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(esError(500, 'exception', String(e))));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
