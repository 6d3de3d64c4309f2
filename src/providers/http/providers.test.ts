/**
 * The HTTP providers against loopback servers speaking each real wire format, including faults:
 * 429 + Retry-After, 5xx, slow replies past the timeout, truncated JSON, wrong count/dimension,
 * NaN, reordered items, bad keys. Call counts make retry behaviour exact.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isCorebError } from '../../core/errors.js';
import type { Embedder } from '../../core/embedding.js';
import { parseEmbedderSpec } from '../config.js';
import { createEmbedder } from '../registry.js';
import {
  LOOPBACK_FORMATS,
  loopbackVector,
  startLoopbackServer,
  type LoopbackOptions,
  type LoopbackServer,
} from '../../../test/support/loopback-server.js';

const servers: LoopbackServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(options: LoopbackOptions): Promise<LoopbackServer> {
  const s = await startLoopbackServer(options);
  servers.push(s);
  return s;
}

const FAST = 'backoffMs=5&maxBackoffMs=50';

async function embedder(spec: string, env: Record<string, string> = {}): Promise<Embedder> {
  return createEmbedder(parseEmbedderSpec(spec), { env });
}

function rows(m: { rows: number; dim: number; data: Float32Array }): number[][] {
  return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.dim, (i + 1) * m.dim)));
}

function expected(texts: string[], dim: number): number[][] {
  return texts.map((t) => Array.from(Float32Array.from(loopbackVector(t, dim))));
}

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  assert.fail('expected a rejection');
}

const TEXTS = ['def add(a, b): return a + b', 'sort a list', 'find max', 'reverse string', 'count pairs'];

for (const format of LOOPBACK_FORMATS) {
  test(`${format}: batches of 2 give 3 calls and the server's vectors in input order`, async () => {
    const s = await serve({ format, dim: 6, key: 'sk-test-123456' });
    const e = await embedder(`dense:${format}:m1?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=2&apiKeyEnv=K&${FAST}`, {
      K: 'sk-test-123456',
    });
    const m = await e.embed(TEXTS, { role: 'query' });
    assert.equal(m.rows, 5);
    assert.equal(m.dim, 6);
    assert.deepEqual(rows(m), expected(TEXTS, 6));
    assert.equal(s.calls.length, 3);
    assert.deepEqual(
      s.calls.flatMap((c) => c.texts),
      TEXTS,
    );
  });
}

test('native input types follow the role: voyage input_type, cohere input_type, jina task, gemini taskType', async () => {
  const cases = [
    ['voyage', (b: Record<string, unknown>) => b.input_type, 'query', 'document'],
    ['cohere', (b: Record<string, unknown>) => b.input_type, 'search_query', 'search_document'],
    ['jina', (b: Record<string, unknown>) => b.task, 'retrieval.query', 'retrieval.passage'],
    ['gemini', (b: Record<string, unknown>) => (b.requests as Record<string, unknown>[])[0].taskType, 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT'],
  ] as const;
  for (const [format, get, q, d] of cases) {
    const s = await serve({ format });
    const e = await embedder(`dense:${format}:m?baseUrl=${encodeURIComponent(s.baseUrl)}`);
    await e.embed(['a', 'b'], { role: 'query' });
    await e.embed(['a', 'b'], { role: 'document' });
    assert.equal(get(s.calls[0].body), q, format);
    assert.equal(get(s.calls[1].body), d, format);
  }
});

test('gemini preset: text-to-code queries use CODE_RETRIEVAL_QUERY; dimensions go as outputDimensionality', async () => {
  const s = await serve({ format: 'gemini' });
  const e = await embedder(`dense:gemini:gemini-embedding-001?baseUrl=${encodeURIComponent(s.baseUrl)}&dimensions=4`);
  const m = await e.embed(['x', 'y'], { role: 'query', task: 'text2code' });
  const req = (s.calls[0].body.requests as Record<string, unknown>[])[0];
  assert.equal(req.taskType, 'CODE_RETRIEVAL_QUERY');
  assert.equal(req.outputDimensionality, 4);
  assert.equal(m.dim, 4);
});

test('instruction templates of a preset are applied to what is sent (Qwen3 query instruction, documents plain)', async () => {
  const s = await serve({ format: 'openai' });
  const e = await embedder(`dense:openai:Qwen/Qwen3-Embedding-0.6B?baseUrl=${encodeURIComponent(s.baseUrl)}`);
  await e.embed(['sum two numbers'], { role: 'query', task: 'text2code' });
  await e.embed(['def f(): pass'], { role: 'document', task: 'text2code' });
  assert.match(s.calls[0].texts[0], /^Instruct: .+\nQuery:sum two numbers$/);
  assert.equal(s.calls[1].texts[0], 'def f(): pass');
});

test('429 with Retry-After: 1 waits about a second, then succeeds on the second call', async () => {
  const s = await serve({ format: 'openai', fault: (n) => (n === 1 ? { status: 429, retryAfter: '1' } : undefined) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&backoffMs=5`);
  const t0 = performance.now();
  const m = await e.embed(['a'], { role: 'document' });
  const ms = performance.now() - t0;
  assert.equal(s.calls.length, 2);
  assert.ok(ms >= 950, `waited ${ms} ms, Retry-After asked 1000`);
  assert.deepEqual(rows(m), expected(['a'], 8));
});

test('retry-after-ms (OpenAI) is honoured over the backoff', async () => {
  const s = await serve({ format: 'openai', fault: (n) => (n === 1 ? { status: 429, retryAfterMs: 300 } : undefined) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&backoffMs=1`);
  const t0 = performance.now();
  await e.embed(['a'], { role: 'document' });
  assert.ok(performance.now() - t0 >= 290);
  assert.equal(s.calls.length, 2);
});

test('500 then 503 then success: exactly 3 calls', async () => {
  const s = await serve({ format: 'tei', fault: (n) => (n === 1 ? { status: 500 } : n === 2 ? { status: 503 } : undefined) });
  const e = await embedder(`dense:tei:m?baseUrl=${encodeURIComponent(s.baseUrl)}&${FAST}`);
  const m = await e.embed(['a', 'b'], { role: 'document' });
  assert.equal(s.calls.length, 3);
  assert.deepEqual(rows(m), expected(['a', 'b'], 8));
});

test('persistent 503: maxRetries+1 calls, then an HTTP error naming endpoint, status and body', async () => {
  const s = await serve({ format: 'openai', fault: () => ({ status: 503, body: '{"error":"model overloaded, try later"}' }) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&maxRetries=2&${FAST}`);
  const err = await rejection(e.embed(['a'], { role: 'document' }));
  assert.equal(s.calls.length, 3);
  assert.ok(isCorebError(err, 'HTTP'));
  assert.match(err.message, new RegExp(`POST ${s.baseUrl}/embeddings`));
  assert.match(err.message, /HTTP 503/);
  assert.match(err.message, /model overloaded/);
  assert.match(err.message, /3 attempts/);
});

test('400 is not retried', async () => {
  const s = await serve({ format: 'openai', fault: () => ({ status: 400, body: '{"error":"input too long"}' }) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&${FAST}`);
  const err = await rejection(e.embed(['a'], { role: 'document' }));
  assert.equal(s.calls.length, 1);
  assert.match(err.message, /HTTP 400.*input too long/);
});

test('a reply slower than timeoutMs is abandoned and retried', async () => {
  const s = await serve({ format: 'ollama', fault: (n) => (n === 1 ? { delayMs: 1500 } : undefined) });
  const e = await embedder(`dense:ollama:m?baseUrl=${encodeURIComponent(s.baseUrl)}&timeoutMs=200&${FAST}`);
  const t0 = performance.now();
  const m = await e.embed(['a'], { role: 'document' });
  assert.ok(performance.now() - t0 < 1400, 'did not wait for the slow reply');
  assert.equal(s.calls.length, 2);
  assert.deepEqual(rows(m), expected(['a'], 8));
});

test('always slow: the error says the timeout', async () => {
  const s = await serve({ format: 'openai', fault: () => ({ delayMs: 1000 }) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&timeoutMs=100&maxRetries=1&${FAST}`);
  const err = await rejection(e.embed(['a'], { role: 'document' }));
  assert.equal(s.calls.length, 2);
  assert.match(err.message, /within 100 ms/);
});

test('truncated JSON is retried; always truncated fails with a clear message', async () => {
  const once = await serve({ format: 'voyage', fault: (n) => (n === 1 ? { truncate: true } : undefined) });
  const e1 = await embedder(`dense:voyage:m?baseUrl=${encodeURIComponent(once.baseUrl)}&${FAST}`);
  assert.deepEqual(rows(await e1.embed(['a', 'b'], { role: 'document' })), expected(['a', 'b'], 8));
  assert.equal(once.calls.length, 2);
  const always = await serve({ format: 'voyage', fault: () => ({ truncate: true }) });
  const e2 = await embedder(`dense:voyage:m?baseUrl=${encodeURIComponent(always.baseUrl)}&maxRetries=2&${FAST}`);
  const err = await rejection(e2.embed(['a', 'b'], { role: 'document' }));
  assert.equal(always.calls.length, 3);
  assert.ok(isCorebError(err, 'PROVIDER'));
  assert.match(err.message, /truncated JSON/);
});

test('wrong number of vectors, wrong dimension, NaN and null are errors, not retried, never zero vectors', async () => {
  const faults = [
    [{ wrongCount: true }, /1 vectors for 2 inputs/],
    [{ wrongDim: true }, /vector 1 has 7 values, expected 8/],
    [{ nan: true }, /NaN/],
    [{ nullValue: true }, /null, not a finite number/],
  ] as const;
  for (const [fault, message] of faults) {
    for (const format of ['openai', 'cohere', 'tei'] as const) {
      const s = await serve({ format, dim: 8, fault: () => fault });
      const e = await embedder(`dense:${format}:m?baseUrl=${encodeURIComponent(s.baseUrl)}&${FAST}`);
      const err = await rejection(e.embed(['a', 'b'], { role: 'document' }));
      assert.ok(isCorebError(err, 'PROVIDER'), `${format} ${JSON.stringify(fault)}: ${err.message}`);
      assert.match(err.message, message);
      assert.equal(s.calls.length, 1, `${format} ${JSON.stringify(fault)} not retried`);
    }
  }
});

test('a dimension change between batches is an error', async () => {
  const s = await serve({ format: 'openai', dim: 8, fault: (n) => (n === 2 ? { wrongDim: true } : undefined) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=1&concurrency=1&${FAST}`);
  const err = await rejection(e.embed(['a', 'b'], { role: 'document' }));
  assert.match(err.message, /7 values, expected 8/);
});

test('items returned out of order are put back by index', async () => {
  const s = await serve({ format: 'jina', fault: () => ({ reverse: true }) });
  const e = await embedder(`dense:jina:m?baseUrl=${encodeURIComponent(s.baseUrl)}`);
  assert.deepEqual(rows(await e.embed(TEXTS, { role: 'document' })), expected(TEXTS, 8));
});

test('the API key never appears in errors or descriptions, even when the server echoes it', async () => {
  const key = 'sk-SECRET-abcdef0123456789';
  const s = await serve({ format: 'openai', fault: () => ({ echoAuth: true, status: 500 }) });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&apiKeyEnv=MY_KEY&maxRetries=1&${FAST}`, { MY_KEY: key });
  const err = await rejection(e.embed(['a'], { role: 'document' }));
  assert.equal(s.calls[0].headers.authorization, `Bearer ${key}`, 'the key was sent');
  assert.ok(!err.message.includes(key), err.message);
  assert.ok(!JSON.stringify((err as { details?: unknown }).details).includes(key));
  assert.match(err.message, /\*\*\*/);
  assert.ok(!JSON.stringify(e.describe()).includes(key));
  assert.equal(e.describe().apiKeyEnv, 'MY_KEY');
});

test('a key that is not a valid header value fails without quoting it', async () => {
  const key = 'sk-bad\nSECRETPART-1234';
  const e = await embedder('dense:openai:m?baseUrl=http://127.0.0.1:9/v1&apiKeyEnv=K&maxRetries=0', { K: key });
  const err = await rejection(e.embed(['a'], { role: 'document' }));
  assert.ok(!err.message.includes('SECRETPART'), err.message);
});

test('a wrong key gets 401: not retried, the message points at apiKeyEnv', async () => {
  const s = await serve({ format: 'gemini', key: 'right-key-123' });
  const e = await embedder(`dense:gemini:m?baseUrl=${encodeURIComponent(s.baseUrl)}&apiKeyEnv=G&${FAST}`, { G: 'wrong-key-456' });
  const err = await rejection(e.embed(['a', 'b'], { role: 'document' }));
  assert.equal(s.calls.length, 1);
  assert.match(err.message, /HTTP 401.*apiKeyEnv/);
  assert.ok(!err.message.includes('wrong-key-456'));
});

test('missing keys: a named variable that is unset, or a public API without key, fail before any request', async () => {
  await assert.rejects(embedder('dense:openai:m?baseUrl=http://127.0.0.1:9&apiKeyEnv=NOPE'), /NOPE.*not set/);
  await assert.rejects(embedder('dense:voyage:voyage-code-3'), /VOYAGE_API_KEY/);
});

test('round-robin spreads batches evenly over replicas', async () => {
  const a = await serve({ format: 'openai' });
  const b = await serve({ format: 'openai' });
  const e = await embedder(
    `dense:openai:m?baseUrl=${encodeURIComponent(a.baseUrl)}&baseUrl=${encodeURIComponent(b.baseUrl)}&balance=round-robin&batchSize=1&concurrency=2`,
  );
  const texts = Array.from({ length: 8 }, (_, i) => `t${i}`);
  assert.deepEqual(rows(await e.embed(texts, { role: 'document' })), expected(texts, 8));
  assert.equal(a.calls.length, 4);
  assert.equal(b.calls.length, 4);
});

test('least-busy sends more work to the faster replica; a dead replica is routed around', async () => {
  const fast = await serve({ format: 'openai', latencyMs: 5 });
  const slow = await serve({ format: 'openai', latencyMs: 120 });
  const e = await embedder(
    `dense:openai:m?baseUrl=${encodeURIComponent(fast.baseUrl)},${encodeURIComponent(slow.baseUrl)}&balance=least-busy&batchSize=1&concurrency=2`,
  );
  const texts = Array.from({ length: 20 }, (_, i) => `t${i}`);
  await e.embed(texts, { role: 'document' });
  assert.ok(fast.calls.length > 2 * slow.calls.length, `fast ${fast.calls.length} vs slow ${slow.calls.length}`);

  const alive = await serve({ format: 'openai' });
  const e2 = await embedder(`dense:openai:m?baseUrl=http://127.0.0.1:9/v1,${encodeURIComponent(alive.baseUrl)}&batchSize=1&concurrency=1&${FAST}`);
  assert.deepEqual(rows(await e2.embed(['x', 'y', 'z'], { role: 'document' })), expected(['x', 'y', 'z'], 8));
});

test('batches respect the token budget as well as the count', async () => {
  const s = await serve({ format: 'openai' });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=100&maxBatchTokens=10`);
  const texts = ['x'.repeat(12), 'y'.repeat(12), 'z'.repeat(12), 'w'.repeat(40)];
  await e.embed(texts, { role: 'document' });
  assert.deepEqual(
    s.calls.map((c) => c.texts.length),
    [2, 1, 1],
  );
});

test('concurrency is bounded: never more requests in flight than asked', async () => {
  const s = await serve({ format: 'openai', latencyMs: 30 });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=1&concurrency=3`);
  await e.embed(
    Array.from({ length: 12 }, (_, i) => `t${i}`),
    { role: 'document' },
  );
  assert.equal(s.peakConcurrency(), 3);
});

test('onRows reports each batch as it arrives, before embed resolves; normalize=true gives unit vectors', async () => {
  const s = await serve({ format: 'openai' });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=2&concurrency=1&normalize=true`);
  const seen: number[][] = [];
  const m = await e.embed(TEXTS, { role: 'document', onRows: (r) => seen.push([...r]) });
  assert.deepEqual(seen, [[0, 1], [2, 3], [4]]);
  for (let i = 0; i < m.rows; i++) {
    let s2 = 0;
    for (let j = 0; j < m.dim; j++) s2 += m.data[i * m.dim + j] ** 2;
    assert.ok(Math.abs(s2 - 1) < 1e-5);
  }
});

test('an aborted signal stops the work with INTERRUPTED', async () => {
  const s = await serve({ format: 'openai', latencyMs: 200 });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}`);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  const err = await rejection(e.embed(['a'], { role: 'document', signal: ac.signal }));
  assert.ok(isCorebError(err, 'INTERRUPTED'), err.message);
});

test('requestsPerMinute spaces request starts (600/min = one per 100 ms)', async () => {
  const s = await serve({ format: 'openai' });
  const e = await embedder(`dense:openai:m?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=1&concurrency=4&requestsPerMinute=600`);
  const t0 = performance.now();
  await e.embed(['a', 'b', 'c', 'd', 'e'], { role: 'document' });
  assert.ok(performance.now() - t0 >= 390, 'five starts need four gaps of 100 ms');
  assert.equal(s.calls.length, 5);
});

test('after a failure the endpoint cools down: retries and new batches go to the healthy replica', async () => {
  const bad = await serve({ format: 'openai', fault: () => ({ status: 503 }) });
  const good = await serve({ format: 'openai' });
  const e = await embedder(
    `dense:openai:m?baseUrl=${encodeURIComponent(bad.baseUrl)},${encodeURIComponent(good.baseUrl)}&balance=round-robin&batchSize=1&concurrency=1&backoffMs=2000&maxBackoffMs=2000`,
  );
  const texts = Array.from({ length: 6 }, (_, i) => `t${i}`);
  const t0 = performance.now();
  assert.deepEqual(rows(await e.embed(texts, { role: 'document' })), expected(texts, 8));
  assert.equal(bad.calls.length, 1, 'the failing replica was tried once, then avoided');
  assert.equal(good.calls.length, 6);
  assert.ok(performance.now() - t0 < 3000);
});
