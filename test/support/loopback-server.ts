/**
 * A loopback embedding server for tests and benchmarks that speaks each provider's real wire
 * format (OpenAI, TEI, Ollama, Voyage, Gemini, Jina, Cohere) and can misbehave on demand: 429 with
 * Retry-After, 5xx, slow replies, truncated JSON, wrong counts or dimensions, NaN. It counts every
 * call, so tests can assert exact retry and cache behaviour. Binds 127.0.0.1 only.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The wire formats the server speaks. */
export const LOOPBACK_FORMATS = ['openai', 'tei', 'ollama', 'voyage', 'gemini', 'jina', 'cohere'] as const;
/** One wire format. */
export type LoopbackFormat = (typeof LOOPBACK_FORMATS)[number];

/** A misbehaviour for one call. */
export interface Fault {
  /** Reply with this status and body instead of vectors. */
  status?: number;
  /** `Retry-After` header value (seconds or HTTP-date). */
  retryAfter?: string;
  /** `retry-after-ms` header value. */
  retryAfterMs?: number;
  /** Error body (default `{"error":"injected"}`). */
  body?: string;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Cut the JSON reply in half. */
  truncate?: boolean;
  /** Drop the last vector. */
  wrongCount?: boolean;
  /** Drop the last value of the last vector. */
  wrongDim?: boolean;
  /** Put a NaN literal in vector 0 (invalid JSON, as Python's json.dumps writes it). */
  nan?: boolean;
  /** Put null in vector 0. */
  nullValue?: boolean;
  /** Reverse the items (index fields stay correct, so clients must reorder). */
  reverse?: boolean;
  /** Echo the request's Authorization header in an error body (tests key redaction). */
  echoAuth?: boolean;
}

/** One recorded call. */
export interface RecordedCall {
  /** 1-based call number over the server's life. */
  n: number;
  path: string;
  texts: string[];
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

/** Options of {@link startLoopbackServer}. */
export interface LoopbackOptions {
  format: LoopbackFormat;
  /** Vector dimension (default 8; a request's `dimensions` field wins). */
  dim?: number;
  /** Fixed processing time per request (ms). Default 0. */
  latencyMs?: number;
  /** Requests processed at once; more wait in a queue (models a server's capacity). Default unlimited. */
  maxConcurrent?: number;
  /** Required key; requests without `Bearer <key>` (or x-goog-api-key for gemini) get 401. */
  key?: string;
  /** Fault for call number `n` (1-based), or undefined to answer normally. */
  fault?: (n: number, call: RecordedCall) => Fault | undefined;
}

/** A running server. */
export interface LoopbackServer {
  /** Base URL to give a provider (`http://127.0.0.1:PORT` plus `/v1` for APIs that use it). */
  baseUrl: string;
  calls: RecordedCall[];
  /** Texts embedded successfully (counted per text over all answered calls). */
  embedded(): number;
  /** Largest number of requests being processed at once. */
  peakConcurrency(): number;
  close(): Promise<void>;
}

/** The deterministic vector the server returns for `text`: SHA-256-derived values in [-1, 1). */
export function loopbackVector(text: string, dim: number): number[] {
  const out: number[] = [];
  let block = 0;
  while (out.length < dim) {
    const h = createHash('sha256').update(`${block++}:${text}`).digest();
    for (let i = 0; i + 1 < h.length && out.length < dim; i += 2) out.push(h.readUInt16LE(i) / 32768 - 1);
  }
  return out;
}

const memo = new Map<string, number[]>();
/** {@link loopbackVector} memoised (benchmarks resend the same texts; keeps server CPU flat). */
function memoVector(text: string, dim: number): number[] {
  const k = `${dim}\u0000${text}`;
  let v = memo.get(k);
  if (v === undefined) {
    if (memo.size > 100_000) memo.clear();
    v = loopbackVector(text, dim);
    memo.set(k, v);
  }
  return v;
}

function texts(format: LoopbackFormat, body: Record<string, unknown>): string[] {
  switch (format) {
    case 'openai':
    case 'voyage':
    case 'jina':
    case 'ollama': {
      const input = body.input;
      return Array.isArray(input) ? (input as string[]) : [String(input)];
    }
    case 'tei': {
      const inputs = body.inputs;
      return Array.isArray(inputs) ? (inputs as string[]) : [String(inputs)];
    }
    case 'cohere':
      return body.texts as string[];
    case 'gemini': {
      const reqs = (body.requests as Record<string, unknown>[] | undefined) ?? [body];
      return reqs.map((r) => (r.content as { parts: { text: string }[] }).parts[0].text);
    }
  }
}

function reply(format: LoopbackFormat, vectors: number[][], path: string, model: unknown): unknown {
  switch (format) {
    case 'openai':
    case 'jina':
    case 'voyage':
      return {
        object: 'list',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model,
        usage: { prompt_tokens: 1, total_tokens: 1 },
      };
    case 'tei':
      return vectors;
    case 'ollama':
      return { model, embeddings: vectors, total_duration: 1, load_duration: 0, prompt_eval_count: 1 };
    case 'cohere':
      return { id: 'x', embeddings: { float: vectors }, texts: [], meta: { api_version: { version: '2' } } };
    case 'gemini':
      return path.endsWith(':embedContent') ? { embedding: { values: vectors[0] } } : { embeddings: vectors.map((values) => ({ values })) };
  }
}

function expectedPath(format: LoopbackFormat, path: string): boolean {
  switch (format) {
    case 'openai':
    case 'voyage':
    case 'jina':
      return path === '/v1/embeddings';
    case 'tei':
      return path === '/embed';
    case 'ollama':
      return path === '/api/embed';
    case 'cohere':
      return path === '/v2/embed';
    case 'gemini':
      return /^\/v1beta\/models\/[^/]+:(batchEmbedContents|embedContent)$/.test(path);
  }
}

const BASE_PATH: Record<LoopbackFormat, string> = {
  openai: '/v1',
  voyage: '/v1',
  jina: '/v1',
  tei: '',
  ollama: '',
  cohere: '/v2',
  gemini: '/v1beta',
};

/** A server's capacity: at most `cap` requests processed at once, the rest queue in order. */
export interface CapacityGate {
  acquire(): Promise<void>;
  release(): void;
  /** Largest number processed at once so far. */
  peak(): number;
}

/** Creates a {@link CapacityGate} of `cap` slots (Infinity = no limit). */
export function createCapacityGate(cap: number): CapacityGate {
  let active = 0;
  let peak = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire() {
      if (active < cap) active++;
      else await new Promise<void>((r) => waiting.push(r));
      if (active > peak) peak = active;
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
    peak: () => peak,
  };
}

/** Starts a server on 127.0.0.1 (random port). */
export async function startLoopbackServer(options: LoopbackOptions): Promise<LoopbackServer> {
  const calls: RecordedCall[] = [];
  let embedded = 0;
  const gate = createCapacityGate(options.maxConcurrent ?? Infinity);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0];
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad json"}');
      return;
    }
    const call: RecordedCall = { n: calls.length + 1, path, texts: [], body, headers: req.headers };
    calls.push(call);
    if (!expectedPath(options.format, path)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${path}` }));
      return;
    }
    call.texts = texts(options.format, body);
    const fault = options.fault?.(call.n, call);
    if (options.key !== undefined) {
      const got = options.format === 'gemini' ? req.headers['x-goog-api-key'] : req.headers.authorization;
      const want = options.format === 'gemini' ? options.key : `Bearer ${options.key}`;
      if (got !== want) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid api key' }));
        return;
      }
    }
    await gate.acquire();
    try {
      const wait = (options.latencyMs ?? 0) + (fault?.delayMs ?? 0);
      // unref: a stalled reply (a test that kills its client) must not keep the process alive.
      if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
      if (fault?.echoAuth) {
        res.writeHead(fault.status ?? 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'bad auth', received: req.headers.authorization ?? req.headers['x-goog-api-key'] }));
        return;
      }
      if (fault?.status !== undefined) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
        if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
        res.writeHead(fault.status, headers).end(fault.body ?? '{"error":"injected"}');
        return;
      }
      const requested = (body.dimensions ?? body.output_dimension ?? body.outputDimensionality) as number | undefined;
      const dim = requested ?? (body.requests as { outputDimensionality?: number }[] | undefined)?.[0]?.outputDimensionality ?? options.dim ?? 8;
      let vectors = call.texts.map((t) => memoVector(t, dim));
      if (fault?.wrongCount) vectors = vectors.slice(0, -1);
      if (fault?.wrongDim) vectors[vectors.length - 1] = vectors[vectors.length - 1].slice(0, -1);
      let json = JSON.stringify(reply(options.format, vectors, path, body.model));
      if (fault?.reverse) {
        const r = reply(options.format, vectors, path, body.model) as { data?: unknown[] };
        if (Array.isArray(r.data)) r.data.reverse();
        json = JSON.stringify(r);
      }
      if (fault?.nan) json = json.replace(String(vectors[0][0]), 'NaN');
      if (fault?.nullValue) json = json.replace(String(vectors[0][0]), 'null');
      if (fault?.truncate) json = json.slice(0, Math.floor(json.length / 2));
      else embedded += call.texts.length;
      res.writeHead(200, { 'content-type': 'application/json' }).end(json);
    } finally {
      gate.release();
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${BASE_PATH[options.format]}`,
    calls,
    embedded: () => embedded,
    peakConcurrency: () => gate.peak(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
