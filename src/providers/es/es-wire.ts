/**
 * The Elasticsearch / OpenSearch search wire format, as plain functions: the `_search` body for one
 * query, the `_msearch` NDJSON for many, reading hits (`_id` or a `_source` field, `_score`) out of
 * a reply, and ES's JSON error shape (`error.type`, `error.reason`, `root_cause`) into a message.
 */
import { ResponseShapeError } from '../http/validate.js';

/** How the query text is matched: `match` on one field, else `multi_match` over the fields. */
export interface EsQueryShape {
  /** Fields searched, each optionally boosted as ES writes it (`title^2`). At least one. */
  fields: readonly string[];
  /** `multi_match` type (`best_fields`, `most_fields`, `cross_fields`, ...). Default: ES's (`best_fields`). */
  type?: string;
  /** Boolean operator between the query's terms. Default: ES's (`or`). */
  operator?: 'or' | 'and';
  /** Where the document id is read: `_id` (the default) or a `_source` field (dotted path). */
  idField: string;
}

/**
 * The `_search` body for one query text: a `match` query when one unboosted field is searched,
 * else `multi_match`; `size` hits; `_source` only the id field (none for `_id`); no total hit count
 * (`track_total_hits: false` lets ES skip counting, which is what makes top-k search fast).
 */
export function renderEsSearchBody(text: string, size: number, shape: EsQueryShape): Record<string, unknown> {
  const operator = shape.operator !== undefined ? { operator: shape.operator } : {};
  const single = shape.fields.length === 1 && !shape.fields[0].includes('^') && shape.type === undefined;
  const query = single
    ? { match: { [shape.fields[0]]: { query: text, ...operator } } }
    : { multi_match: { query: text, fields: [...shape.fields], ...(shape.type !== undefined ? { type: shape.type } : {}), ...operator } };
  return { query, size, _source: shape.idField === '_id' ? false : [shape.idField], track_total_hits: false };
}

/** ES's `search_type`s: per-shard statistics (the default) or global ones gathered first (`dfs_`). */
export const ES_SEARCH_TYPES = ['query_then_fetch', 'dfs_query_then_fetch'] as const;
/** An ES `search_type`. */
export type EsSearchType = (typeof ES_SEARCH_TYPES)[number];

/**
 * The `_msearch` NDJSON body for several queries against the index in the request path: per query a
 * header line (`{}`, or `{"search_type":...}`) and its `_search` body, each line ending in a newline
 * (ES requires the last one).
 */
export function renderEsMsearchBody(bodies: readonly Record<string, unknown>[], searchType?: EsSearchType): string {
  const header = searchType !== undefined ? JSON.stringify({ search_type: searchType }) : '{}';
  let out = '';
  for (const b of bodies) out += `${header}\n${JSON.stringify(b)}\n`;
  return out;
}

/** One hit: the document id and ES's score. */
export interface EsHit {
  id: string;
  score: number;
}

/** An ES error object (`{"type","reason","root_cause":[...],"caused_by":{...}}`) reduced to text. */
export interface EsErrorInfo {
  type: string;
  reason: string;
}

/** One search's outcome in an `_msearch` reply: hits, or the item's own error and status. */
export type EsSearchOutcome = { hits: EsHit[] } | { error: EsErrorInfo; status: number };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The most specific `type: reason` of an ES error object: the first `root_cause`, else the deepest
 * `caused_by`, else the error itself (a search-phase failure's own reason only says "all shards
 * failed"). Undefined when `error` is not ES's shape.
 */
export function readEsError(error: unknown): EsErrorInfo | undefined {
  if (typeof error === 'string') return { type: 'error', reason: error };
  if (!isObject(error) || typeof error.type !== 'string') return undefined;
  const root = Array.isArray(error.root_cause) ? error.root_cause.find((r) => isObject(r) && typeof r.type === 'string') : undefined;
  if (isObject(root) && typeof root.reason === 'string' && root.reason !== '' && root.type !== error.type) {
    return { type: String(root.type), reason: root.reason };
  }
  let e: Record<string, unknown> = error;
  while (isObject(e.caused_by) && typeof e.caused_by.type === 'string') e = e.caused_by;
  return { type: String(e.type), reason: typeof e.reason === 'string' ? e.reason : '' };
}

/** The `type: reason` of an error reply body (`{"error":{...},"status":N}`); undefined when it is not ES JSON. */
export function describeEsErrorBody(body: string): EsErrorInfo | undefined {
  try {
    const json: unknown = JSON.parse(body);
    return isObject(json) ? readEsError(json.error) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a dotted path (`meta.id`) of a `_source` object. */
function sourceField(source: unknown, path: string): unknown {
  let v: unknown = source;
  for (const key of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[key];
  }
  return v;
}

/**
 * Reads the hits of one search response (`{"hits":{"hits":[{"_id","_score","_source"}]}}`), in the
 * reply's order. Shard failures (`_shards.failed > 0`) and `timed_out` are errors: the hits would be
 * silently partial.
 * @throws ResponseShapeError naming what is missing or wrong.
 */
export function readEsHits(response: unknown, idField: string): EsHit[] {
  if (!isObject(response) || !isObject(response.hits) || !Array.isArray(response.hits.hits)) {
    throw new ResponseShapeError('expected {"hits":{"hits":[...]}} in the search response');
  }
  if (response.timed_out === true) throw new ResponseShapeError('the search timed out on the server (timed_out: true); results would be partial');
  const shards = response._shards;
  if (isObject(shards) && typeof shards.failed === 'number' && shards.failed > 0) {
    const first = Array.isArray(shards.failures) && isObject(shards.failures[0]) ? readEsError(shards.failures[0].reason) : undefined;
    throw new ResponseShapeError(
      `${shards.failed} of ${String(shards.total)} shards failed${first !== undefined ? ` (${first.type}: ${first.reason})` : ''}; results would be partial`,
    );
  }
  const out: EsHit[] = [];
  response.hits.hits.forEach((hit: unknown, i: number) => {
    if (!isObject(hit)) throw new ResponseShapeError(`hits.hits[${i}] is not an object`);
    const id = idField === '_id' ? hit._id : sourceField(hit._source, idField);
    if (typeof id !== 'string' && typeof id !== 'number') {
      throw new ResponseShapeError(
        idField === '_id'
          ? `hits.hits[${i}] has no string _id`
          : `hits.hits[${i}]._source.${idField} is ${id === undefined ? 'missing' : JSON.stringify(id)}; idField must name a string field every document has`,
      );
    }
    const score = hit._score;
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new ResponseShapeError(`hits.hits[${i}]._score is ${JSON.stringify(score)}; expected a number (do not sort the query)`);
    }
    out.push({ id: String(id), score });
  });
  return out;
}

/**
 * Reads an `_msearch` reply (`{"responses":[...]}`), one outcome per search in request order: an
 * item with an `error` is returned as such (ES answers 200 and fails items one by one).
 * @throws ResponseShapeError when the reply is not that shape or holds another number of items.
 */
export function readEsMsearch(json: unknown, count: number, idField: string): EsSearchOutcome[] {
  if (!isObject(json) || !Array.isArray(json.responses)) throw new ResponseShapeError('expected {"responses":[...]} in the _msearch response');
  if (json.responses.length !== count) throw new ResponseShapeError(`_msearch answered ${json.responses.length} searches, ${count} were sent`);
  return json.responses.map((r: unknown, i: number): EsSearchOutcome => {
    if (isObject(r) && r.error !== undefined) {
      const error = readEsError(r.error) ?? { type: 'error', reason: JSON.stringify(r.error).slice(0, 200) };
      return { error, status: typeof r.status === 'number' ? r.status : 500 };
    }
    try {
      return { hits: readEsHits(r, idField) };
    } catch (e) {
      if (e instanceof ResponseShapeError) throw new ResponseShapeError(`responses[${i}]: ${e.message}`);
      throw e;
    }
  });
}
