/**
 * A loopback chat server for tests that speaks each chat provider's real wire format (OpenAI
 * chat-completions, Anthropic messages, Gemini generateContent, Ollama /api/chat), answers through
 * a callback that sees the conversation and the `X-Coreb-Stage` / `X-Coreb-Item` headers, and can
 * misbehave on demand (429 with Retry-After, 5xx, malformed JSON, delays). Counts every call. Binds
 * 127.0.0.1 only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The chat wire formats the server speaks. */
export const CHAT_FORMATS = ['openai', 'anthropic', 'gemini', 'ollama'] as const;
/** One chat wire format. */
export type ChatFormat = (typeof CHAT_FORMATS)[number];

/** A normalised message as the server read it. */
export interface ChatCallMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One recorded call. */
export interface ChatCall {
  /** 1-based call number over the server's life. */
  n: number;
  format: ChatFormat;
  path: string;
  model: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The raw request body (to detect repeated requests). */
  raw: string;
  messages: ChatCallMessage[];
  /** `x-coreb-stage` header ('' when absent). */
  stage: string;
  /** `x-coreb-item` header ('' when absent). */
  item: string;
}

/** A misbehaviour for one call. */
export interface ChatFault {
  status: number;
  retryAfter?: string;
  body?: string;
}

/** What the callback returns: the reply text, or a fault. */
export type ChatAnswer = string | { fault: ChatFault } | { malformed: true };

/** Options of {@link startChatServer}. */
export interface ChatServerOptions {
  format: ChatFormat;
  /** Required key (Bearer, x-api-key or x-goog-api-key by format); wrong or missing gets 401. */
  key?: string;
  answer: (call: ChatCall) => ChatAnswer | Promise<ChatAnswer>;
  /** Called when a reply has been fully written (the call counts as answered). */
  onAnswered?: (call: ChatCall) => void;
  /** Port to bind (default: a free one). */
  port?: number;
}

/** A running server. */
export interface ChatServer {
  /** Base URL to give the provider (`/v1` for openai and anthropic, `/v1beta` for gemini). */
  baseUrl: string;
  calls: ChatCall[];
  /** Calls answered with a reply (not faults). */
  answered: ChatCall[];
  /** Requests being handled now, and the most ever at once (this server = one port). */
  inFlight(): number;
  maxInFlight(): number;
  close(): Promise<void>;
}

function messagesOf(format: ChatFormat, body: Record<string, unknown>): ChatCallMessage[] {
  if (format === 'gemini') {
    const out: ChatCallMessage[] = [];
    const sys = body.systemInstruction as { parts: Array<{ text: string }> } | undefined;
    if (sys) out.push({ role: 'system', content: sys.parts.map((p) => p.text).join('') });
    for (const c of (body.contents as Array<{ role: string; parts: Array<{ text: string }> }>) ?? []) {
      out.push({ role: c.role === 'model' ? 'assistant' : 'user', content: c.parts.map((p) => p.text).join('') });
    }
    return out;
  }
  const out: ChatCallMessage[] = [];
  if (format === 'anthropic' && typeof body.system === 'string') out.push({ role: 'system', content: body.system });
  for (const m of (body.messages as ChatCallMessage[]) ?? []) out.push({ role: m.role, content: String(m.content) });
  return out;
}

function replyBody(format: ChatFormat, model: string, text: string, promptChars: number): unknown {
  const inTok = Math.ceil(promptChars / 4);
  const outTok = Math.ceil(text.length / 4);
  switch (format) {
    case 'openai':
      return {
        id: 'chatcmpl-loopback',
        object: 'chat.completion',
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: inTok, completion_tokens: outTok, total_tokens: inTok + outTok },
      };
    case 'anthropic':
      return {
        id: 'msg_loopback',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        usage: { input_tokens: inTok, output_tokens: outTok },
      };
    case 'gemini':
      return {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: inTok, candidatesTokenCount: outTok, totalTokenCount: inTok + outTok },
      };
    case 'ollama':
      return { model, message: { role: 'assistant', content: text }, done: true, done_reason: 'stop', prompt_eval_count: inTok, eval_count: outTok };
  }
}

function routeOk(format: ChatFormat, path: string): { ok: boolean; model?: string } {
  switch (format) {
    case 'openai':
      return { ok: path === '/v1/chat/completions' };
    case 'anthropic':
      return { ok: path === '/v1/messages' };
    case 'ollama':
      return { ok: path === '/api/chat' };
    case 'gemini': {
      const m = /^\/v1beta\/models\/([^/]+):generateContent$/.exec(path);
      return m ? { ok: true, model: decodeURIComponent(m[1]) } : { ok: false };
    }
  }
}

function authOk(format: ChatFormat, headers: IncomingMessage['headers'], key: string): boolean {
  if (format === 'anthropic') return headers['x-api-key'] === key && headers['anthropic-version'] === '2023-06-01';
  if (format === 'gemini') return headers['x-goog-api-key'] === key;
  return headers.authorization === `Bearer ${key}`;
}

/** Starts a chat server on 127.0.0.1 (random port). */
export async function startChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const calls: ChatCall[] = [];
  const answered: ChatCall[] = [];
  const { format } = options;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0];
    const route = routeOk(format, path);
    const send = (status: number, body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    if (req.method !== 'POST' || !route.ok) return send(404, JSON.stringify({ error: `no route ${req.method} ${path}` }));
    if (options.key !== undefined && !authOk(format, req.headers, options.key)) return send(401, JSON.stringify({ error: 'invalid api key' }));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(400, JSON.stringify({ error: 'body is not JSON' }));
    }
    const model = route.model ?? String(body.model ?? '');
    const call: ChatCall = {
      n: calls.length + 1,
      format,
      path,
      model,
      headers: req.headers,
      body,
      raw,
      messages: messagesOf(format, body),
      stage: String(req.headers['x-coreb-stage'] ?? ''),
      item: String(req.headers['x-coreb-item'] ?? ''),
    };
    calls.push(call);
    let answer: ChatAnswer;
    try {
      answer = await options.answer(call);
    } catch (e) {
      return send(500, JSON.stringify({ error: `answer callback failed: ${(e as Error).message}` }));
    }
    if (typeof answer === 'object' && 'fault' in answer) {
      const f = answer.fault;
      return send(
        f.status,
        f.body ?? JSON.stringify({ error: { message: 'injected fault' } }),
        f.retryAfter !== undefined ? { 'retry-after': f.retryAfter } : {},
      );
    }
    if (typeof answer === 'object') return send(200, '{"choices": [');
    const promptChars = call.messages.reduce((s, m) => s + m.content.length, 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(replyBody(format, model, answer, promptChars)), () => {
      answered.push(call);
      options.onAnswered?.(call);
    });
  };
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    handle(req, res).catch((e) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(options.port ?? 0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const prefix = format === 'openai' || format === 'anthropic' ? '/v1' : format === 'gemini' ? '/v1beta' : '';
  return {
    baseUrl: base + prefix,
    calls,
    answered,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
