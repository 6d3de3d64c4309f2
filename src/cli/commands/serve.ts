/**
 * `coreb serve`: the pipeline that scored best, as a search service an agent can call: an HTTP JSON
 * endpoint on loopback by default, or an MCP server on stdio with one tool, `search_code`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { TASK_SHORT, type TaskName } from '../../core/dataset.js';
import { CorebError, isCorebError } from '../../core/errors.js';
import { checkRequest, isLoopbackHost } from '../../core/request-guard.js';
import { corpusStates } from '../../eval/corpus-states.js';
import { detectDataLayout, loadEvalData } from '../../eval/eval-data.js';
import { createMcpHandler, JSONRPC_ERRORS, MCP_MAX_K } from '../../eval/mcp-server.js';
import { createSearchService, type SearchRequest, type SearchService } from '../../eval/search-service.js';
import { opt, parseOptions } from '../options.js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { LiveRepoIndex, liveSearchService, liveStateKey } from '../../eval/live-repo.js';
import { parseRetrieverSpec } from '../../eval/retriever-spec.js';
import type { Bm25Options } from '../../search/bm25.js';
import type { Command, CommandContext } from '../command.js';
import { corebVersion } from '../../core/version.js';

const USAGE = `Usage: coreb serve --data DIR --retriever SPEC [--reranker SPEC] [options]
       coreb serve --repo PATH [--retriever 'bm25?...'] [options]

Serves a corpus through a retriever (and reranker): the same pipeline \`coreb eval\` scores, as a
search an agent can call. The corpus: a BEIR directory's (e.g. a \`coreb repo build\` benchmark), or a
CoREB release's code corpus (--task c2t: its statements).

  HTTP (default)  GET /health, GET /describe, POST /search {"query": "...", "k": 10}
                  (or GET /search?q=...&k=10) -> {"hits": [{rank, id, score, path, startLine,
                  endLine, symbol, language, text}]}; errors are 400 {"error"}
  --mcp           an MCP server on stdin/stdout (JSON-RPC 2.0, one message per line) with the tool
                  search_code {query, k, ...} -> the hits as text and as structured content
  A search may also ask (POST fields, GET parameters, search_code arguments):
    paths: ["src/", "**/*.py", "*_test.go"]   only files matching one (GET: path=, repeatable)
    languages: ["python", "go"]               only chunks in one (GET: lang=, repeatable)
    groupByFile: true, perFile: 3             k files, each with its best chunks -> {"files":
                                              [{rank, path, score, language, hits}]} (GET: group=file)
    query "symbol:NAME [words]"               chunks whose symbol is NAME (Class.method, or its last
                                              part; then ignoring case; then containing it), the
                                              words ranking the matches

Live (--repo PATH): a working tree indexed as \`coreb repo build\` chunks a snapshot, kept fresh:
edited, added, deleted and renamed files (and folders) are re-chunked and re-indexed moments after
they change (file watching; each search first applies what changed). The index is saved under
the cache (or --state-dir) and loaded on the next start, re-reading only files changed meanwhile.
The server answers at once (MCP initialize, GET /health with the index's progress); a search before
the first build ends says how far it is (HTTP 503, an MCP tool error). Live mode ranks with BM25
(any bm25 parameters; no reranker yet).

Options:
  --data DIR           The corpus (BEIR directory or CoREB release).
  --repo PATH          Serve a working tree, kept indexed as it changes (instead of --data).
  --state-dir DIR      Where the live index is saved (default: CACHE/live/<hash of PATH>).
  --retriever SPEC     Any retriever spec (default bm25).
  --reranker SPEC      Rerank the top --rerank-depth (default 50) with any reranker spec.
  --task t2c|c2t|c2c   CoREB releases: which corpus and task (default t2c).
  --host HOST          HTTP address (default 127.0.0.1). On loopback the server answers only its own
                       Host (no DNS rebinding) and refuses other origins; beyond loopback
                       (e.g. 0.0.0.0) it needs a bearer token from --token-env.
  --port N             HTTP port, 0-65535 (default 8765; 0 picks a free one, printed on stderr).
  --token-env VAR      Environment variable holding a bearer token every request must carry
                       (Authorization: Bearer TOKEN); default COREB_SERVE_TOKEN, used when set.

Exit status: 0 after Ctrl-C or SIGTERM (open requests are cut), 2 for usage errors, 3 when the
address cannot be bound.
See docs/repo.md ("Serving what was measured").
`;

/** `k` of a search request: absent is 10; else a whole number 1..100, given as a number or as digits. */
export function parseK(k: unknown): number {
  if (k === undefined || k === null) return 10;
  const n = typeof k === 'number' ? k : typeof k === 'string' && /^\d+$/.test(k.trim()) ? Number(k) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MCP_MAX_K) {
    throw new CorebError('USAGE', `k must be a whole number from 1 to ${MCP_MAX_K}, got ${JSON.stringify(k)}`);
  }
  return n;
}

/** `query` of a search request: a non-empty string. */
export function parseQuery(q: unknown): string {
  if (typeof q !== 'string' || q.trim() === '')
    throw new CorebError('USAGE', `query must be a non-empty string, got ${JSON.stringify(q) ?? 'nothing'}`);
  return q;
}

/**
 * The filters and grouping of a search request: from a POST body (`paths`, `languages` lists,
 * `groupByFile`, `perFile`) or GET parameters (`path` and `lang`, each repeatable, `group=file`, `perFile`).
 */
export function parseSearchRequest(body: Record<string, unknown>): SearchRequest {
  const out: SearchRequest = {};
  for (const field of ['paths', 'languages'] as const) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === ''))
      throw new CorebError('USAGE', `${field} must be a list of non-empty strings, got ${JSON.stringify(v)}`);
    if (v.length > 0) out[field] = v as string[];
  }
  const g = body.groupByFile;
  if (g !== undefined && g !== null) {
    if (typeof g !== 'boolean') throw new CorebError('USAGE', `groupByFile must be true or false, got ${JSON.stringify(g)}`);
    out.groupByFile = g;
  }
  const pf = body.perFile;
  if (pf !== undefined && pf !== null) {
    const n = typeof pf === 'number' ? pf : typeof pf === 'string' && /^\d+$/.test(pf) ? Number(pf) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > 100)
      throw new CorebError('USAGE', `perFile must be a whole number from 1 to 100, got ${JSON.stringify(pf)}`);
    out.perFile = n;
  }
  return out;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 1 << 20) throw new CorebError('USAGE', 'request body over 1 MiB');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new CorebError('USAGE', 'the request body is not JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new CorebError('USAGE', `the request body must be a JSON object {"query", "k"}, got ${JSON.stringify(body).slice(0, 40)}`);
  }
  return body;
}

async function serveHttp(ctx: CommandContext, service: SearchService, host: string, port: number, token: string | undefined): Promise<number> {
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(`${JSON.stringify(body)}\n`);
  };
  let boundPort = port;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    void (async () => {
      try {
        const refused = checkRequest(
          { host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization },
          { host, port: boundPort, ...(token !== undefined ? { token } : {}) },
        );
        if (refused !== undefined) return send(res, refused.status, { error: refused.message });
        if (req.method === 'GET' && url.pathname === '/health')
          return send(res, 200, { ok: true, ...(service.status ? { index: service.status() } : {}) });
        if (req.method === 'GET' && url.pathname === '/describe') return send(res, 200, service.describe());
        if (url.pathname === '/search' && (req.method === 'POST' || req.method === 'GET')) {
          const p = url.searchParams;
          const body = (
            req.method === 'POST'
              ? await readJson(req)
              : {
                  query: p.get('q'),
                  k: p.get('k') ?? undefined,
                  paths: p.getAll('path'),
                  languages: p.getAll('lang'),
                  groupByFile: p.get('group') === null ? undefined : p.get('group') === 'file' ? true : p.get('group'),
                  perFile: p.get('perFile') ?? undefined,
                }
          ) as Record<string, unknown>;
          const query = parseQuery(body.query);
          const k = parseK(body.k);
          const request = parseSearchRequest(body);
          const state = service.status?.().state;
          if (state !== undefined && state !== 'ready') return send(res, 503, { error: 'the index is still being built', index: service.status?.() });
          return send(res, 200, await service.search(query, k, request));
        }
        send(res, 404, { error: `no route ${req.method} ${url.pathname}; try POST /search {"query", "k"}` });
      } catch (e) {
        send(res, isCorebError(e) && e.code === 'USAGE' ? 400 : 500, { error: (e as Error).message });
      }
    })();
  });
  // a client that sends half a request and waits must not hold the server (or its stop) for long
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((ok, fail) => {
    server.once('error', (e) =>
      fail(new CorebError('IO', `cannot listen on ${host}:${port} (${(e as NodeJS.ErrnoException).code ?? e.message})`, { cause: e })),
    );
    server.listen(port, host, ok);
  });
  const addr = server.address() as AddressInfo;
  boundPort = addr.port;
  ctx.stderr.write(
    `coreb serve: listening on http://${host.includes(':') ? `[${host}]` : host}:${addr.port} (POST /search {"query", "k"})${token !== undefined ? ', bearer token required' : ''}; Ctrl-C stops\n`,
  );
  await new Promise<void>((done) => (ctx.signal.aborted ? done() : ctx.signal.addEventListener('abort', () => done(), { once: true })));
  // stop: no new connections, and every open one (idle, half-sent, in flight) is cut
  const closed = new Promise<void>((done) => server.close(() => done()));
  server.closeAllConnections();
  await closed;
  return 0;
}

/** Longest MCP message line taken, bytes; a longer one is answered as an invalid request and skipped. */
const MAX_MCP_LINE_BYTES = 4 << 20;

async function serveMcp(ctx: CommandContext, service: SearchService): Promise<number> {
  const handler = createMcpHandler(service, { name: 'coreb', version: corebVersion() });
  ctx.stderr.write('coreb serve: MCP server on stdio (tool search_code)\n');
  // answers go out in the order the requests came in
  let queue = Promise.resolve();
  const answer = (line: string): void => {
    queue = queue.then(async () => {
      const out = await handler.handle(line);
      if (out !== undefined) ctx.stdout.write(`${out}\n`);
    });
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  for await (const chunk of process.stdin) {
    if (ctx.signal.aborted) break;
    let buf = chunk as Buffer;
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
      const piece = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      if (skipping) {
        skipping = false;
        continue;
      }
      const line = Buffer.concat([...pending, piece])
        .toString('utf8')
        .replace(/\r$/, '');
      pending = [];
      pendingBytes = 0;
      if (line.trim() !== '') answer(line);
    }
    if (skipping || buf.length === 0) continue;
    pendingBytes += buf.length;
    if (pendingBytes > MAX_MCP_LINE_BYTES) {
      // too long to be a request: answered once, the rest of the line dropped as it arrives
      pending = [];
      pendingBytes = 0;
      skipping = true;
      ctx.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: JSONRPC_ERRORS.invalidRequest, message: `invalid request: a message line over ${MAX_MCP_LINE_BYTES} bytes` } })}\n`,
      );
      continue;
    }
    pending.push(Buffer.from(buf));
  }
  if (!skipping && pendingBytes > 0) answer(Buffer.concat(pending).toString('utf8'));
  await queue;
  return 0;
}

/** `--repo PATH`: a live index of a working tree, served while it builds and kept fresh. */
async function serveLive(
  ctx: CommandContext,
  values: { repo?: string; retriever?: string; reranker?: string; mcp?: boolean; port: number; 'state-dir'?: string },
  host: string,
  token: string | undefined,
): Promise<number> {
  const root = resolve(ctx.cwd, values.repo as string);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new CorebError('NOT_FOUND', `--repo ${root}: no such folder`);
  if (values.reranker !== undefined)
    throw new CorebError('USAGE', '--repo serves a live BM25 index; a reranker is not supported there yet (use --data on a built benchmark)');
  const specText = values.retriever ?? 'bm25';
  const spec = parseRetrieverSpec(specText);
  if (spec.kind !== 'bm25' || spec.bridge !== undefined || spec.filter !== undefined) {
    throw new CorebError('USAGE', `--repo serves a live BM25 index: --retriever must be bm25 (with any parameters), got \`${specText}\``);
  }
  const stateDir =
    values['state-dir'] !== undefined ? resolve(ctx.cwd, values['state-dir']) : join(resolveCacheDir(ctx.env), 'live', liveStateKey(root));
  const index = new LiveRepoIndex({ root, bm25: spec.params as Bm25Options, stateDir, logger: ctx.logger });
  // Built in the background: the server answers at once and says how far the index is.
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const building = index.start(stop.signal).catch((e: unknown) => {
    if (!stop.signal.aborted) ctx.logger.warn(`live index of ${root} failed: ${(e as Error).message}`);
  });
  const service = liveSearchService(index, specText);
  try {
    if (values.mcp === true) return await serveMcp(ctx, service);
    return await serveHttp(ctx, service, host, values.port, token);
  } finally {
    // the server is done (Ctrl-C, or the MCP client closed stdin): an unfinished build stops
    stop.abort();
    ctx.signal.removeEventListener('abort', onAbort);
    await building;
    await index.close();
  }
}

const command: Command = {
  summary: 'serve a corpus through a retriever (and reranker) as an HTTP search endpoint or an MCP stdio tool',
  usage: USAGE,
  async run(ctx): Promise<number> {
    const { values } = parseOptions('serve', ctx.argv, {
      data: opt.string(),
      retriever: opt.string(),
      reranker: opt.string(),
      'rerank-depth': opt.int(50, 1),
      task: opt.choice(['t2c', 'c2t', 'c2c'] as const, 't2c'),
      host: opt.string(),
      port: opt.int(8765, 0),
      'token-env': opt.string(),
      mcp: opt.flag(),
      repo: opt.string(),
      'state-dir': opt.string(),
    });
    if ((values.data === undefined) === (values.repo === undefined))
      throw new CorebError('USAGE', 'coreb serve needs --data DIR or --repo PATH (one of them); see `coreb serve --help`');
    if (values.port > 65535) throw new CorebError('USAGE', `--port must be from 0 to 65535, got ${values.port}`);
    const host = values.host ?? '127.0.0.1';
    const tokenVar = values['token-env'] ?? 'COREB_SERVE_TOKEN';
    const token = ctx.env[tokenVar] === undefined || ctx.env[tokenVar] === '' ? undefined : ctx.env[tokenVar];
    if (values['token-env'] !== undefined && token === undefined) throw new CorebError('USAGE', `--token-env ${tokenVar}: that variable is not set`);
    if (values.mcp !== true && !isLoopbackHost(host) && token === undefined) {
      throw new CorebError(
        'USAGE',
        `--host ${host} serves beyond this machine: set a bearer token in COREB_SERVE_TOKEN (or --token-env VAR) so that only your clients can search`,
      );
    }
    if (values.repo !== undefined) return await serveLive(ctx, values, host, token);
    const dir = resolve(ctx.cwd, values.data as string);
    const short = values.task;
    const layout = await detectDataLayout(dir);
    const data = await loadEvalData(dir, layout, layout === 'beir' ? {} : { tasks: [short] }, ctx.logger);
    const task = [...data.tasks.values()][0];
    // A corpus with states (`repo build --corpus-at parent`) is served as it stands last.
    const states = corpusStates(task);
    const corpus = states === undefined ? task.corpus : task.corpus.filter((_, i) => !Number.isFinite(states.spans[i].until));
    if (states !== undefined)
      ctx.logger.info(
        `${dir}: a corpus of ${states.lastState + 1} states (--corpus-at parent): serving its last state, ${corpus.length} of ${task.corpus.length} chunks`,
      );
    const service = await createSearchService({
      corpus,
      retriever: values.retriever ?? 'bm25',
      ...(values.reranker !== undefined ? { reranker: values.reranker } : {}),
      rerankDepth: values['rerank-depth'],
      task: (layout === 'beir' ? 'text2code' : TASK_SHORT[short]) as TaskName,
      baseDir: ctx.cwd,
      env: ctx.env,
      ...(ctx.env.COREB_CACHE_DIR ? { cacheDir: ctx.env.COREB_CACHE_DIR } : {}),
      logger: ctx.logger,
    });
    try {
      if (values.mcp === true) return await serveMcp(ctx, service);
      return await serveHttp(ctx, service, host, values.port, token);
    } finally {
      service.close();
    }
  },
};
export default command;
