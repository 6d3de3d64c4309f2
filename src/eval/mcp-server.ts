/**
 * The MCP side of `coreb serve --mcp`: JSON-RPC 2.0 messages in, answers out, one tool
 * (`search_code`) over a {@link SearchService}. A message is handled by {@link McpHandler.handle} from
 * its text, so no input (a `null`, a number, a batch, an unknown method, a wrong argument) ends the
 * server: each gets the JSON-RPC error object the specification gives it, and the next request is
 * answered. Protocol versions are negotiated as the MCP specification says (the client's when coreb
 * speaks it, else coreb's newest).
 */
import type { SearchRequest } from './search-request.js';
import type { FileHit, SearchHit, SearchService } from './search-service.js';

/** MCP protocol versions this server speaks, newest first. */
export const MCP_PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** JSON-RPC 2.0 error codes. */
export const JSONRPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** Largest `k` of `search_code`. */
export const MCP_MAX_K = 100;

/** One hit in the tool's structured result. */
const HIT_SCHEMA = {
  type: 'object',
  properties: {
    rank: { type: 'integer' },
    id: { type: 'string' },
    score: { type: 'number' },
    path: { type: 'string' },
    startLine: { type: 'integer' },
    endLine: { type: 'integer' },
    symbol: { type: 'string' },
    language: { type: 'string' },
    text: { type: 'string' },
  },
  required: ['rank', 'id', 'score', 'text'],
} as const;

/** The tool, as `tools/list` describes it (with the shape of its structured result). */
export const SEARCH_CODE_TOOL = {
  name: 'search_code',
  title: 'Search code',
  description:
    'Search the code base for the chunks (functions, methods, classes, windows) that answer a query; returns path, lines, symbol and score of each, best first. "symbol:NAME" looks a function, method or class up by name (symbol:parse, symbol:Parser.parse; words after it rank the matches). Optionally only under some paths or in some languages, or grouped by file.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'what to look for, in words or code; or symbol:NAME [words]' },
      k: { type: 'integer', minimum: 1, maximum: MCP_MAX_K, default: 10, description: 'how many chunks (or files, with groupByFile) to return' },
      paths: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: 'only files matching one of these patterns: src/ (a folder), src/**/*.py, *.go (a name in any folder), ? one character',
      },
      languages: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: 'only chunks in one of these languages (python, go, java, ...)',
      },
      groupByFile: { type: 'boolean', default: false, description: 'return k files, each with its best chunks, instead of k chunks' },
      perFile: { type: 'integer', minimum: 1, maximum: 100, default: 3, description: 'with groupByFile: chunks listed per file' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      hits: { type: 'array', items: HIT_SCHEMA },
      files: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            rank: { type: 'integer' },
            path: { type: 'string' },
            score: { type: 'number' },
            language: { type: 'string' },
            hits: { type: 'array', items: HIT_SCHEMA },
          },
          required: ['rank', 'path', 'score', 'hits'],
        },
      },
    },
    description: 'hits (k chunks), or files (k files, each with its chunks) when groupByFile is true',
  },
} as const;

/** What the server says of itself in `initialize`. */
export interface McpServerInfo {
  name: string;
  version: string;
}

/** Handles one message's text; the answer's text, or undefined when nothing is answered (a notification). */
export interface McpHandler {
  handle(text: string): Promise<string | undefined>;
}

type Id = string | number | null;

interface RpcError {
  code: number;
  message: string;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Files as the tool's text content: `rank. path (score)`, then each of its chunks as {@link renderHits} writes them, indented. */
export function renderFiles(files: readonly FileHit[]): string {
  if (files.length === 0) return 'no results';
  return files.map((f) => `${f.rank}. ${f.path} (score ${f.score.toFixed(4)})\n${renderHits(f.hits).replace(/^/gm, '   ')}`).join('\n\n');
}

/** The hits as the tool's text content: `rank. path:start-end symbol (score)` and the chunk. */
export function renderHits(hits: readonly SearchHit[]): string {
  if (hits.length === 0) return 'no results';
  return hits
    .map((h) => {
      const where = h.path === undefined ? h.id : `${h.path}:${h.startLine}-${h.endLine}`;
      return `${h.rank}. ${where}${h.symbol ? ` ${h.symbol}` : ''} (score ${h.score.toFixed(4)})\n${h.text}`;
    })
    .join('\n\n');
}

const SEARCH_ARGUMENTS = ['query', 'k', 'paths', 'languages', 'groupByFile', 'perFile'];

/**
 * The `search_code` arguments: `query` a non-empty string, `k` a whole number 1..100 (default 10),
 * `paths` and `languages` lists of strings, `groupByFile` a boolean, `perFile` 1..100; nothing else.
 */
function searchArguments(args: unknown): { query: string; k: number; request: SearchRequest } {
  if (args === undefined) throw new RpcFailure(JSONRPC_ERRORS.invalidParams, 'search_code needs arguments {query, k}');
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw new RpcFailure(JSONRPC_ERRORS.invalidParams, 'arguments must be an object {query, k}');
  const a = args as Record<string, unknown>;
  const extra = Object.keys(a).filter((k) => !SEARCH_ARGUMENTS.includes(k));
  if (extra.length > 0)
    throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `unknown argument ${extra.join(', ')}; search_code takes ${SEARCH_ARGUMENTS.join(', ')}`);
  const request: SearchRequest = {};
  for (const field of ['paths', 'languages'] as const) {
    const v = a[field];
    if (v === undefined) continue;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === ''))
      throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `${field} must be a list of non-empty strings, got ${JSON.stringify(v)}`);
    request[field] = v as string[];
  }
  if (a.groupByFile !== undefined) {
    if (typeof a.groupByFile !== 'boolean')
      throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `groupByFile must be true or false, got ${JSON.stringify(a.groupByFile)}`);
    request.groupByFile = a.groupByFile;
  }
  if (a.perFile !== undefined) {
    if (typeof a.perFile !== 'number' || !Number.isInteger(a.perFile) || a.perFile < 1 || a.perFile > 100)
      throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `perFile must be a whole number from 1 to 100, got ${JSON.stringify(a.perFile)}`);
    request.perFile = a.perFile;
  }
  if (typeof a.query !== 'string' || a.query.trim() === '') {
    throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `query must be a non-empty string, got ${JSON.stringify(a.query) ?? 'nothing'}`);
  }
  const k = a.k === undefined ? 10 : a.k;
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > MCP_MAX_K) {
    throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `k must be a whole number from 1 to ${MCP_MAX_K}, got ${JSON.stringify(a.k)}`);
  }
  return { query: a.query, k, request };
}

/**
 * Creates the handler. Per JSON-RPC 2.0: text that is not JSON is a parse error (-32700, id null);
 * a value that is not a request object (`null`, a number, a string, an object without
 * `jsonrpc: "2.0"` or a string `method`, an id that is not a string or number) is an invalid request
 * (-32600); a batch (an array) is answered element by element as an array (an empty one is an invalid
 * request; notifications in it get no answer); an unknown method is -32601; wrong tool arguments
 * -32602; a failure of the search itself is a tool result with `isError: true`; anything unexpected
 * -32603. A notification (no `id`) is never answered.
 */
export function createMcpHandler(service: SearchService, info: McpServerInfo): McpHandler {
  const error = (id: Id, e: RpcError): object => ({ jsonrpc: '2.0', id, error: e });

  async function call(method: string, params: unknown): Promise<unknown> {
    const p = (params ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'initialize': {
        const asked = p.protocolVersion;
        const version = (MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : MCP_PROTOCOL_VERSIONS[0];
        return { protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo: info };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: [SEARCH_CODE_TOOL] };
      case 'tools/call': {
        if (p.name !== SEARCH_CODE_TOOL.name)
          throw new RpcFailure(JSONRPC_ERRORS.invalidParams, `unknown tool ${JSON.stringify(p.name)}; the tool is ${SEARCH_CODE_TOOL.name}`);
        const { query, k, request } = searchArguments(p.arguments);
        try {
          const answer = await service.search(query, k, request);
          const text = 'files' in answer ? renderFiles(answer.files) : renderHits(answer.hits);
          return { content: [{ type: 'text', text }], structuredContent: answer, isError: false };
        } catch (e) {
          return { content: [{ type: 'text', text: (e as Error).message }], isError: true };
        }
      }
      default:
        throw new RpcFailure(JSONRPC_ERRORS.methodNotFound, `method not found: ${method}`);
    }
  }

  /** One message (already parsed): its answer object, or undefined for a notification. */
  async function one(msg: unknown): Promise<object | undefined> {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      return error(null, {
        code: JSONRPC_ERRORS.invalidRequest,
        message: `invalid request: expected a JSON-RPC 2.0 object, got ${JSON.stringify(msg)?.slice(0, 40)}`,
      });
    }
    const m = msg as Record<string, unknown>;
    const hasId = 'id' in m;
    const idOk = !hasId || typeof m.id === 'string' || typeof m.id === 'number' || m.id === null;
    const id: Id = hasId && idOk ? (m.id as Id) : null;
    if (m.jsonrpc !== '2.0' || typeof m.method !== 'string' || !idOk) {
      // a response from the client (result/error with an id) is not ours to answer
      if (m.jsonrpc === '2.0' && m.method === undefined && hasId && ('result' in m || 'error' in m)) return undefined;
      return error(id, {
        code: JSONRPC_ERRORS.invalidRequest,
        message: 'invalid request: needs jsonrpc "2.0", a string method and an id that is a string, a number or absent',
      });
    }
    if (!hasId) {
      // a notification (notifications/initialized, notifications/cancelled, …): nothing is answered
      return undefined;
    }
    try {
      return { jsonrpc: '2.0', id, result: await call(m.method, m.params) };
    } catch (e) {
      if (e instanceof RpcFailure) return error(id, { code: e.code, message: e.message });
      return error(id, { code: JSONRPC_ERRORS.internalError, message: `internal error: ${(e as Error).message}` });
    }
  }

  return {
    async handle(text) {
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        return JSON.stringify(error(null, { code: JSONRPC_ERRORS.parseError, message: 'parse error: the line is not JSON' }));
      }
      if (Array.isArray(msg)) {
        if (msg.length === 0) return JSON.stringify(error(null, { code: JSONRPC_ERRORS.invalidRequest, message: 'invalid request: an empty batch' }));
        const answers = (await Promise.all(msg.map((x) => one(x)))).filter((a) => a !== undefined);
        return answers.length === 0 ? undefined : JSON.stringify(answers);
      }
      const a = await one(msg);
      return a === undefined ? undefined : JSON.stringify(a);
    },
  };
}
