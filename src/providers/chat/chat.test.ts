/**
 * Chat providers against loopback servers speaking each real wire format: replies, usage, system
 * messages, sampling parameters, tracing headers, 429 + Retry-After, 5xx, non-retryable 4xx,
 * malformed JSON, key redaction; spec parsing.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isCorebError } from '../../core/errors.js';
import { CHAT_FORMATS, startChatServer, type ChatServer, type ChatServerOptions } from '../../../test/support/loopback-chat-server.js';
import { formatChatSpec, parseChatSpec } from './config.js';
import { createChatModel } from './registry.js';

const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
async function serve(o: ChatServerOptions): Promise<ChatServer> {
  const s = await startChatServer(o);
  servers.push(s);
  return s;
}
const FAST = 'backoffMs=5&maxBackoffMs=2000';
const KEY = 'sk-chat-secret-123456';

for (const format of CHAT_FORMATS) {
  test(`${format}: reply text, usage, system message, parameters and tracing headers on the wire`, async () => {
    const s = await serve({ format, key: KEY, answer: (c) => `echo:${c.messages.map((m) => `${m.role}=${m.content}`).join('|')}` });
    const m = await createChatModel(
      parseChatSpec(`${format}:m-1?baseUrl=${encodeURIComponent(s.baseUrl)}&apiKeyEnv=K&temperature=0.3&maxTokens=99&${FAST}`),
      {
        env: { K: KEY },
      },
    );
    const r = await m.complete(
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        seed: 7,
      },
      { trace: { stage: 'solve', item: 'abc387_a/python' } },
    );
    assert.equal(r.text, 'echo:system=be brief|user=hi');
    assert.ok(r.usage.inputTokens > 0 && r.usage.outputTokens > 0);
    assert.ok(r.finishReason !== '');
    assert.equal(s.calls.length, 1);
    const c = s.calls[0];
    assert.equal(c.model, 'm-1');
    assert.equal(c.stage, 'solve');
    assert.equal(c.item, 'abc387_a/python');
    // biome-ignore lint/suspicious/noExplicitAny: the four wire formats' bodies, probed field by field
    const b = c.body as Record<string, any>;
    if (format === 'openai') assert.deepEqual([b.temperature, b.max_tokens, b.seed], [0.3, 99, 7]);
    if (format === 'anthropic') assert.deepEqual([b.temperature, b.max_tokens, b.system], [0.3, 99, 'be brief']);
    if (format === 'gemini')
      assert.deepEqual([b.generationConfig.temperature, b.generationConfig.maxOutputTokens, b.generationConfig.seed], [0.3, 99, 7]);
    if (format === 'ollama') assert.deepEqual([b.options.temperature, b.options.num_predict, b.options.seed, b.stream], [0.3, 99, 7, false]);
  });

  test(`${format}: 429 with Retry-After and a 503 are retried; the third attempt answers`, async () => {
    const s = await serve({
      format,
      answer: (c) => (c.n === 1 ? { fault: { status: 429, retryAfter: '1' } } : c.n === 2 ? { fault: { status: 503 } } : 'ok'),
    });
    const m = await createChatModel(parseChatSpec(`${format}:m?baseUrl=${encodeURIComponent(s.baseUrl)}&${FAST}`), { env: {} });
    const t0 = performance.now();
    const r = await m.complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.text, 'ok');
    assert.equal(s.calls.length, 3);
    assert.ok(performance.now() - t0 >= 950, 'Retry-After: 1 was honoured');
  });
}

test('gemini: a 429 RESOURCE_EXHAUSTED body with RetryInfo.retryDelay (no header) is honoured', async () => {
  const body = JSON.stringify({
    error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }] },
  });
  const s = await serve({ format: 'gemini', answer: (c) => (c.n === 1 ? { fault: { status: 429, body } } : 'ok') });
  const m = await createChatModel(parseChatSpec(`gemini:m?baseUrl=${encodeURIComponent(s.baseUrl)}&${FAST}`), { env: {} });
  const t0 = performance.now();
  assert.equal((await m.complete({ messages: [{ role: 'user', content: 'x' }] })).text, 'ok');
  assert.equal(s.calls.length, 2);
  assert.ok(performance.now() - t0 >= 950, 'waited the retryDelay, not the 5 ms backoff');
});

test('a 400 is not retried and the error names status and body but never the key', async () => {
  const s = await serve({ format: 'openai', answer: () => ({ fault: { status: 400, body: `{"error":"bad request for ${KEY}"}` } }) });
  const m = await createChatModel(parseChatSpec(`openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&apiKeyEnv=K&${FAST}`), { env: { K: KEY } });
  await assert.rejects(m.complete({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
    assert.ok(isCorebError(e, 'HTTP'));
    assert.match((e as Error).message, /HTTP 400/);
    assert.doesNotMatch((e as Error).message, new RegExp(KEY));
    return true;
  });
  assert.equal(s.calls.length, 1);
});

test('truncated JSON is retried, then gives up after maxRetries', async () => {
  const s = await serve({ format: 'openai', answer: () => ({ malformed: true }) });
  const m = await createChatModel(parseChatSpec(`openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&maxRetries=2&${FAST}`), { env: {} });
  await assert.rejects(m.complete({ messages: [{ role: 'user', content: 'x' }] }), /malformed or truncated JSON.*gave up after 3 attempts/);
  assert.equal(s.calls.length, 3);
});

test('concurrency bounds requests in flight per model', async () => {
  let active = 0;
  let peak = 0;
  const s = await serve({
    format: 'openai',
    answer: async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 30));
      active--;
      return 'ok';
    },
  });
  const m = await createChatModel(parseChatSpec(`openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&concurrency=2`), { env: {} });
  await Promise.all(Array.from({ length: 8 }, (_, i) => m.complete({ messages: [{ role: 'user', content: String(i) }] })));
  assert.equal(s.calls.length, 8);
  assert.equal(peak, 2);
});

test('chat specs: parameters checked, model may contain colons, unknown parameters and providers named', async () => {
  const c = parseChatSpec('ollama:qwen2.5-coder:7b?temperature=0.2&maxTokens=512&baseUrl=http://h:11434/');
  assert.deepEqual(c, { provider: 'ollama', model: 'qwen2.5-coder:7b', temperature: 0.2, maxTokens: 512, baseUrl: ['http://h:11434'] });
  assert.equal(formatChatSpec(c), 'ollama:qwen2.5-coder:7b?baseUrl=http%3A%2F%2Fh%3A11434&temperature=0.2&maxTokens=512');
  assert.throws(() => parseChatSpec('gpt-4o'), /PROVIDER:MODEL/);
  assert.throws(() => parseChatSpec('openai:m?temp=1'), /unknown parameter `temp`; valid parameters: baseUrl/);
  assert.throws(() => parseChatSpec('openai:m?maxTokens=0'), /`maxTokens` must be an integer >= 1, got `0`/);
  assert.throws(() => parseChatSpec('openai:m?baseUrl=http://u:p@h'), /credentials/);
  await assert.rejects(
    createChatModel(parseChatSpec('mistral:m'), { env: {} }),
    /unknown chat provider `mistral`; valid chat providers: openai, anthropic, gemini, ollama/,
  );
  await assert.rejects(
    createChatModel(parseChatSpec('anthropic:claude'), { env: {} }),
    /needs an API key: set the environment variable ANTHROPIC_API_KEY/,
  );
  await assert.rejects(
    createChatModel(parseChatSpec('openai:m?apiKeyEnv=NOPE'), { env: {} }),
    /apiKeyEnv=NOPE names an environment variable that is not set/,
  );
});
