/**
 * The `es:` retriever against a loopback Elasticsearch speaking the real `_search`, `_msearch` and
 * `_count` wire format (ranking with coreb's BM25, so the expected lists are known): batching,
 * auth headers, tie order, exclusions, ES's error shape, 429 (whole request and per item).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Doc, Query } from '../../core/dataset.js';
import { CorebError } from '../../core/errors.js';
import type { Logger } from '../../core/progress.js';
import type { RankedList } from '../../core/retrieval.js';
import { bm25Lists, startEsServer, type EsServer, type EsServerOptions } from '../../../test/support/es-server.js';
import { createEsRetriever, rankHits, resolveEsOptions, type EsRetrieverContext } from './es-retriever.js';
import { readEsMsearch, renderEsMsearchBody, renderEsSearchBody } from './es-wire.js';

const servers: EsServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
async function serve(o: EsServerOptions): Promise<EsServer> {
  const s = await startEsServer(o);
  servers.push(s);
  return s;
}

const DOCS: Doc[] = [
  { id: 'd01', text: 'def two_sum(nums, target): return sorted pairs' },
  { id: 'd02', text: 'binary search over a sorted array of numbers' },
  { id: 'd03', text: 'binary search over a sorted array of numbers' },
  { id: 'd04', text: 'binary search over a sorted array of numbers' },
  { id: 'd05', text: 'dijkstra shortest path with a binary heap' },
  { id: 'd06', text: 'prefix sums answer range queries in constant time' },
  { id: 'd07', text: 'union find with path compression' },
  { id: 'd08', text: 'sorted array merge of two lists' },
  { id: 'd09', text: 'segment tree for range minimum queries' },
  { id: 'd10', text: 'breadth first search on a grid' },
];
const QUERIES: Query[] = [
  { id: 'q1', text: 'binary search sorted array' },
  { id: 'q2', text: 'range queries prefix' },
  { id: 'q3', text: 'shortest path heap' },
  { id: 'q4', text: 'search on a grid' },
  { id: 'q5', text: 'zzz nothing matches' },
];

async function expected(depth: number, exclude?: Map<string, string[]>): Promise<Map<string, RankedList>> {
  return bm25Lists(DOCS, QUERIES, depth, exclude);
}

function plain(m: Map<string, RankedList>): Record<string, Array<[string, number]>> {
  return Object.fromEntries([...m].map(([q, l]) => [q, l.docIds.map((d, i) => [d, l.scores[i]] as [string, number])]));
}

const FAST = new Map([
  ['backoffMs', ['1']],
  ['maxBackoffMs', ['20']],
]);

function retriever(spec: string, env: Record<string, string> = {}, extra: Partial<EsRetrieverContext> = {}) {
  const [head, query = ''] = spec.split('?');
  const params = new Map<string, string[]>(FAST);
  for (const [k, v] of new URLSearchParams(query)) params.set(k, [v]);
  return createEsRetriever(resolveEsOptions(spec, head, params), { env, ...extra }, spec);
}

async function rejects(p: Promise<unknown>, code: string, re: RegExp): Promise<CorebError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CorebError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return e;
  }
  assert.fail('expected a rejection');
}

test('_msearch: the same lists and scores as coreb BM25, batched, ties re-sorted, ApiKey sent and never shown', async () => {
  const s = await serve({ indices: { code: { docs: DOCS } }, auth: { apiKey: 'c2VjcmV0LWtleS0xMjM0NQ==' } });
  const es = retriever(`code?url=${s.url}&batch=2&apiKeyEnv=ES_KEY&name=es-bm25`, { ES_KEY: 'c2VjcmV0LWtleS0xMjM0NQ==' });
  assert.equal(es.name, 'es-bm25');
  const index = await es.index(DOCS);
  const got = await index.search(QUERIES, 3);
  assert.deepEqual(plain(got), plain(await expected(3)));
  // The three tied copies of one text come back docid descending although the server reversed them.
  assert.deepEqual(got.get('q1')!.docIds, ['d04', 'd03', 'd02']);
  assert.deepEqual(got.get('q5')!.docIds, [], 'a query matching nothing has an empty list');
  const searches = s.calls.filter((c) => c.path === '/code/_msearch');
  assert.equal(searches.length, 3, '5 queries in batches of 2');
  assert.equal(s.calls[0].path, '/code/_count');
  for (const c of s.calls) assert.equal(c.headers.authorization, 'ApiKey c2VjcmV0LWtleS0xMjM0NQ==');
  assert.equal(searches[0].headers['content-type'], 'application/x-ndjson');
  const lines = searches[0].body.split('\n');
  assert.equal(lines.length, 5, 'header + body per search, newline-terminated');
  assert.deepEqual(JSON.parse(lines[1]), {
    query: { match: { text: { query: 'binary search sorted array' } } },
    size: 3,
    _source: false,
    track_total_hits: false,
  });
  assert.doesNotMatch(JSON.stringify(es.describe()), /c2VjcmV0/);
  assert.equal(es.describe().apiKeyEnv, 'ES_KEY');
});

test('_search with basic auth and a _source id field; exclusions do not take a place in the depth', async () => {
  const s = await serve({
    indices: { 'coreb-code2code': { docs: DOCS, sourceIdField: 'doc_id' } },
    auth: { user: 'elastic', password: 'pa55word!' },
  });
  const env = { U: 'elastic', P: 'pa55word!' };
  const es = retriever(
    `coreb-{task}?url=${s.url}&api=search&idField=doc_id&userEnv=U&passwordEnv=P&fields=text,title^2&searchType=dfs_query_then_fetch`,
    env,
  );
  const index = await es.index(DOCS, { task: 'code2code' });
  const exclude = new Map([['q1', ['d04']]]);
  const got = await index.search(QUERIES, 3, { exclude });
  assert.deepEqual(plain(got), plain(await expected(3, exclude)));
  assert.deepEqual(got.get('q1')!.docIds, ['d03', 'd02', 'd08']);
  const first = s.calls.find((c) => c.path === '/coreb-code2code/_search')!;
  assert.equal(first.query, 'search_type=dfs_query_then_fetch');
  assert.equal(first.headers.authorization, `Basic ${Buffer.from('elastic:pa55word!').toString('base64')}`);
  const body = JSON.parse(first.body) as Record<string, unknown>;
  assert.deepEqual(body, {
    query: { multi_match: { query: 'binary search sorted array', fields: ['text', 'title^2'] } },
    size: 4,
    _source: ['doc_id'],
    track_total_hits: false,
  });
  assert.equal(s.calls.filter((c) => c.path.endsWith('/_search')).length, QUERIES.length);
});

test('a missing index is NOT_FOUND naming the index and ES type/reason; wrong credentials name security_exception without the secret', async () => {
  const s = await serve({ indices: { code: { docs: DOCS } }, auth: { apiKey: 'right-key-000' } });
  await rejects(
    retriever(`nope?url=${s.url}&apiKeyEnv=K`, { K: 'right-key-000' }).index(DOCS),
    'NOT_FOUND',
    /index `nope`: index_not_found_exception: no such index \[nope\]/,
  );
  const e = await rejects(
    retriever(`code?url=${s.url}&apiKeyEnv=K`, { K: 'wrong-key-999' }).index(DOCS),
    'HTTP',
    /HTTP 401.*security_exception: unable to authenticate/,
  );
  assert.doesNotMatch(e.message, /wrong-key-999/);
  await rejects(
    Promise.resolve().then(() => retriever(`code?url=${s.url}&apiKeyEnv=UNSET`, {})),
    'CONFIG',
    /UNSET is not set/,
  );
});

test('a bad query: 400 from _search and an item error from _msearch, both naming index and ES reason', async () => {
  const s = await serve({ indices: { code: { docs: DOCS } } });
  const one = await retriever(`code?url=${s.url}&api=search&type=bogus`).index(DOCS);
  await rejects(one.search(QUERIES, 3), 'HTTP', /HTTP 400: index `code`: parse_exception: failed to parse \[multi_match\] query type \[bogus\]/);
  const many = await retriever(`code?url=${s.url}&type=bogus&searchType=dfs_query_then_fetch`).index(DOCS);
  await rejects(many.search(QUERIES, 3), 'PROVIDER', /query `q1` failed with status 400: index `code`: parse_exception: failed to parse/);
  assert.equal(s.calls.at(-1)!.body.split('\n')[0], '{"search_type":"dfs_query_then_fetch"}', 'the msearch header carries the search type');
  // A search-phase failure names its root cause (not "all shards failed") and what to do.
  const strict = await serve({ indices: { code: { docs: DOCS } }, maxClauses: 3 });
  const tooLong = /index `code`: too_many_clauses: maxClauseCount is set to 3; the query has more terms than indices.query.bool.max_clause_count/;
  await rejects((await retriever(`code?url=${strict.url}&api=search`).index(DOCS)).search(QUERIES, 3), 'HTTP', tooLong);
  await rejects((await retriever(`code?url=${strict.url}`).index(DOCS)).search(QUERIES, 3), 'PROVIDER', tooLong);
});

test('429: the whole request is retried after Retry-After, a rejected _msearch item alone is re-sent', async () => {
  const s = await serve({
    indices: { code: { docs: DOCS } },
    fault: (n) => (n === 2 ? { status: 429, retryAfter: '0' } : undefined),
    itemFault: (n, item) => (n === 3 && item === 1 ? 429 : undefined),
  });
  const index = await retriever(`code?url=${s.url}&batch=8`).index(DOCS);
  const got = await index.search(QUERIES, 3);
  assert.deepEqual(plain(got), plain(await expected(3)));
  // call 1 _count, 2 the 429, 3 the retry (item 1 rejected), 4 item 1 alone.
  assert.deepEqual(
    s.calls.map((c) => c.path),
    ['/code/_count', '/code/_msearch', '/code/_msearch', '/code/_msearch'],
  );
  assert.equal(s.calls[3].body.split('\n').length, 3, 'only the rejected search is re-sent');
  assert.match(s.calls[3].body, /range queries prefix/);
  // A persistent item rejection gives up after maxRetries rounds, naming the reason.
  const busy = await serve({ indices: { code: { docs: DOCS } }, itemFault: () => 429 });
  const b = await retriever(`code?url=${busy.url}&maxRetries=2`).index(DOCS);
  await rejects(b.search(QUERIES.slice(0, 1), 3), 'HTTP', /es_rejected_execution_exception.*gave up after 3 attempts/);
});

test('hits outside the corpus are dropped with a warning; the count mismatch is reported', async () => {
  const s = await serve({ indices: { code: { docs: DOCS } } });
  const warnings: string[] = [];
  const logger: Logger = { info() {}, debug() {}, warn: (m) => warnings.push(m) };
  const part = DOCS.filter((d) => d.id !== 'd03');
  const index = await retriever(`code?url=${s.url}`, {}, { logger }).index(part);
  const got = await index.search(QUERIES.slice(0, 1), 3);
  assert.deepEqual(got.get('q1')!.docIds, ['d04', 'd02'], 'd03 dropped, the list is shorter (ES cut at 3)');
  assert.match(warnings.join('\n'), /holds 10 documents, the corpus 9/);
  assert.match(warnings.join('\n'), /1 hits from `code` are not in the corpus/);
});

test('spec checks: unknown keys, bad index names, auth combinations, credentials in the URL', () => {
  const bad = (index: string, q: string, re: RegExp): void => {
    assert.throws(
      () => resolveEsOptions(`es:${index}?${q}`, index, new Map([...new URLSearchParams(q)].map(([k, v]) => [k, [v]]))),
      (e: unknown) => e instanceof CorebError && e.code === 'USAGE' && re.test(e.message),
    );
  };
  bad('code', 'sise=10', /unknown parameter `sise`; valid: url/);
  bad('Code', '', /not an index name ES accepts/);
  bad('co de', '', /not an index name/);
  bad('code', 'apiKeyEnv=A&userEnv=U&passwordEnv=P', /not both/);
  bad('code', 'userEnv=U', /needs both userEnv and passwordEnv/);
  bad('code', 'url=http://u:p@127.0.0.1:9200', /must not contain credentials/);
  bad('code', 'api=scroll', /msearch or search/);
  bad('code', 'searchType=dfs', /searchType` must be one of query_then_fetch, dfs_query_then_fetch/);
  bad('code', 'size=0', /integer >= 1/);
  bad('code', 'fields=', /must list field names/);
  const o = resolveEsOptions('es:code', 'code', new Map([['url', ['http://a:9200,http://b:9200/']]]));
  assert.deepEqual(o.endpoints, ['http://a:9200', 'http://b:9200']);
  assert.equal(o.size, 10_000);
});

test('wire helpers: one unboosted field is a match query; rankHits keeps trec order and drops duplicates', () => {
  assert.deepEqual(renderEsSearchBody('x', 5, { fields: ['text'], idField: '_id', operator: 'and' }).query, {
    match: { text: { query: 'x', operator: 'and' } },
  });
  assert.deepEqual(renderEsSearchBody('x', 5, { fields: ['text'], idField: '_id', type: 'most_fields' }).query, {
    multi_match: { query: 'x', fields: ['text'], type: 'most_fields' },
  });
  assert.ok(renderEsMsearchBody([{ a: 1 }]).endsWith('\n'));
  const { list } = rankHits(
    [
      { id: 'a', score: 1.5 },
      { id: 'c', score: 2 },
      { id: 'b', score: 1.5 },
      { id: 'c', score: 1 },
    ],
    new Set(['a', 'b', 'c']),
    undefined,
    10,
  );
  assert.deepEqual(list.docIds, ['c', 'b', 'a']);
  assert.throws(() => readEsMsearch({ responses: [] }, 1, '_id'), /answered 0 searches, 1 were sent/);
  assert.throws(
    () =>
      readEsMsearch(
        { responses: [{ hits: { hits: [] }, _shards: { total: 2, failed: 1, failures: [{ reason: { type: 't', reason: 'r' } }] } }] },
        1,
        '_id',
      ),
    /1 of 2 shards failed \(t: r\)/,
  );
});
