/**
 * A loopback reranking server for tests and benchmarks that speaks each reranker's real wire
 * format: the rerank APIs (vLLM, TEI, llama.cpp, Jina, Cohere v2, Voyage: results sorted by score,
 * as the servers do), OpenAI-compatible `/completions` with legacy logprobs, and Ollama's
 * `/api/generate` with logprobs. Scores come from a function the test knows, and the server can
 * misbehave on demand (429 + Retry-After, 5xx, slow replies, wrong count, out-of-range index, NaN,
 * a reply without the yes/no tokens). Counts every call and pair. Binds 127.0.0.1 only.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCapacityGate } from './loopback-server.js';

/** The wire formats the server speaks. */
export const RERANK_FORMATS = ['vllm', 'tei', 'llamacpp', 'jina', 'cohere', 'voyage', 'yesno:openai', 'yesno:ollama'] as const;
/** One wire format (named like the coreb provider that speaks it). */
export type RerankFormat = (typeof RERANK_FORMATS)[number];

/** A misbehaviour for one call. */
export interface RerankFault {
  status?: number;
  /** `Retry-After` header value. */
  retryAfter?: string;
  body?: string;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Drop the last result. */
  wrongCount?: boolean;
  /** Give the first result index = number of documents (out of range). */
  badIndex?: boolean;
  /** Write a NaN literal as the first score (as Python's json.dumps does). */
  nan?: boolean;
  /** yes/no: leave both answer tokens out of the top log-probs. */
  noYesNo?: boolean;
  /** yes/no: leave "no" out of the top log-probs (only "yes" present). */
  onlyYes?: boolean;
}

/** One recorded call. */
export interface RerankCall {
  n: number;
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** (query, document) pairs as the server read them (yes/no: parsed back out of the prompt). */
  pairs: { query: string; doc: string }[];
}

/** Options of {@link startRerankServer}. */
export interface RerankServerOptions {
  format: RerankFormat;
  /**
   * Score of a pair as the server reads it (yes/no: log P(yes) − log P(no) it will answer with).
   * Default {@link hashScore}.
   */
  score?: (query: string, doc: string) => number;
  /** Fixed processing time per request (ms). Default 0. */
  latencyMs?: number;
  /** Requests processed at once; more wait in a queue. Default unlimited. */
  maxConcurrent?: number;
  /** Required key (`Authorization: Bearer <key>`). */
  key?: string;
  fault?: (n: number, call: RerankCall) => RerankFault | undefined;
}

/** A running server. */
export interface RerankServer {
  /** Base URL to give the provider (`/v1` included where the API has it). */
  baseUrl: string;
  calls: RerankCall[];
  /** Pairs answered successfully. */
  scored(): number;
  peakConcurrency(): number;
  close(): Promise<void>;
}

/** A deterministic score in [-4, 4) from SHA-256 of the pair. */
export function hashScore(query: string, doc: string): number {
  const h = createHash('sha256').update(`${query}\u0000${doc}`).digest();
  return (h.readUInt32LE(0) / 0x100000000) * 8 - 4;
}

/** Splits a Qwen3-layout prompt back into query and document (or the whole prompt as the document). */
export function parseQwen3Prompt(prompt: string): { query: string; doc: string } {
  const m = /<Query>: ([\s\S]*?)\n<Document>: ([\s\S]*?)<\|im_end\|>/.exec(prompt);
  return m === null ? { query: '', doc: prompt } : { query: m[1], doc: m[2] };
}

const BASE: Record<RerankFormat, string> = {
  vllm: '/v1',
  tei: '',
  llamacpp: '',
  jina: '/v1',
  cohere: '/v2',
  voyage: '/v1',
  'yesno:openai': '/v1',
  'yesno:ollama': '',
};

const PATH: Record<RerankFormat, string> = {
  vllm: '/v1/rerank',
  tei: '/rerank',
  llamacpp: '/v1/rerank',
  jina: '/v1/rerank',
  cohere: '/v2/rerank',
  voyage: '/v1/rerank',
  'yesno:openai': '/v1/completions',
  'yesno:ollama': '/api/generate',
};

/**
 * Log-probs of "yes" and "no" whose difference is exactly `s` (s/2 − 10 and −s/2 − 10: halving and
 * adding 10 are exact in binary for |s| < 16), so a test knows the client's score bit for bit.
 */
export function yesNoLogprobs(s: number): { yes: number; no: number } {
  return { yes: s / 2 - 10, no: -s / 2 - 10 };
}

/** The top log-probs the yes/no server answers with (a few other tokens below both answers). */
function topLogprobs(s: number, fault: RerankFault | undefined): [string, number][] {
  const { yes, no } = yesNoLogprobs(s);
  const low = Math.min(yes, no);
  const out: [string, number][] = [];
  if (!fault?.noYesNo) out.push(['yes', yes]);
  if (!fault?.noYesNo && !fault?.onlyYes) out.push(['no', no]);
  out.push(['Yes', low - 3], [' yes', low - 4], ['The', low - 5]);
  return out.sort((a, b) => b[1] - a[1]);
}

/** Starts a server on 127.0.0.1 (random port). */
export async function startRerankServer(options: RerankServerOptions): Promise<RerankServer> {
  const calls: RerankCall[] = [];
  const score = options.score ?? hashScore;
  const gate = createCapacityGate(options.maxConcurrent ?? Infinity);
  let scored = 0;
  const fmt = options.format;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0];
    const send = (status: number, json: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(json);
    };
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      send(400, '{"error":"bad json"}');
      return;
    }
    const call: RerankCall = { n: calls.length + 1, path, body, headers: req.headers, pairs: [] };
    calls.push(call);
    if (path !== PATH[fmt]) {
      send(404, JSON.stringify({ error: `no route ${path}` }));
      return;
    }
    if (options.key !== undefined && req.headers.authorization !== `Bearer ${options.key}`) {
      send(401, '{"error":"invalid api key"}');
      return;
    }
    if (fmt === 'yesno:openai') {
      const prompts = Array.isArray(body.prompt) ? (body.prompt as string[]) : [String(body.prompt)];
      call.pairs = prompts.map(parseQwen3Prompt);
    } else if (fmt === 'yesno:ollama') {
      call.pairs = [parseQwen3Prompt(String(body.prompt))];
    } else {
      const docs = (fmt === 'tei' ? body.texts : body.documents) as unknown;
      if (typeof body.query !== 'string' || !Array.isArray(docs)) {
        send(422, JSON.stringify({ error: `expected query and ${fmt === 'tei' ? 'texts' : 'documents'}` }));
        return;
      }
      call.pairs = (docs as string[]).map((doc) => ({ query: body.query as string, doc }));
    }
    const fault = options.fault?.(call.n, call);
    await gate.acquire();
    try {
      const wait = (options.latencyMs ?? 0) + (fault?.delayMs ?? 0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
      if (fault?.status !== undefined) {
        send(fault.status, fault.body ?? '{"error":"injected"}', fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {});
        return;
      }
      const scores = call.pairs.map((p) => score(p.query, p.doc));
      let json: string;
      if (fmt === 'yesno:openai') {
        const choices = scores.map((s, index) => {
          const top = topLogprobs(s, fault);
          return {
            index,
            text: top[0][0],
            finish_reason: 'length',
            logprobs: { tokens: [top[0][0]], token_logprobs: [top[0][1]], top_logprobs: [Object.fromEntries(top)], text_offset: [0] },
          };
        });
        if (fault?.wrongCount) choices.pop();
        if (fault?.badIndex) choices[0].index = choices.length;
        choices.reverse();
        json = JSON.stringify({ id: 'cmpl-x', object: 'text_completion', model: body.model, choices, usage: { prompt_tokens: 1, total_tokens: 1 } });
      } else if (fmt === 'yesno:ollama') {
        const top = topLogprobs(scores[0], fault);
        json = JSON.stringify({
          model: body.model,
          response: top[0][0],
          done: true,
          logprobs: [{ token: top[0][0], logprob: top[0][1], top_logprobs: top.map(([token, logprob]) => ({ token, logprob })) }],
        });
      } else {
        const scoreKey = fmt === 'tei' ? 'score' : 'relevance_score';
        let items = scores.map((s, index) => ({ index, [scoreKey]: s }) as Record<string, number>);
        items.sort((a, b) => b[scoreKey] - a[scoreKey]);
        const top = (body.top_n ?? body.top_k) as number | undefined;
        if (typeof top === 'number' && top > 0) items = items.slice(0, top);
        if (fault?.wrongCount) items.pop();
        if (fault?.badIndex) items[0].index = scores.length;
        const reply =
          fmt === 'tei'
            ? items
            : fmt === 'voyage'
              ? { object: 'list', data: items, model: body.model, usage: { total_tokens: 1 } }
              : fmt === 'cohere'
                ? { id: 'x', results: items, meta: { api_version: { version: '2' } } }
                : { id: 'x', model: body.model, usage: { total_tokens: 1 }, results: items };
        json = JSON.stringify(reply);
      }
      if (fault?.nan) json = json.replace(/("relevance_score"|"score"|"yes"|"logprob"):-?[0-9.e+-]+/, '$1:NaN');
      else scored += call.pairs.length;
      send(200, json);
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
    baseUrl: `http://127.0.0.1:${port}${BASE[fmt]}`,
    calls,
    scored: () => scored,
    peakConcurrency: () => gate.peak(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
