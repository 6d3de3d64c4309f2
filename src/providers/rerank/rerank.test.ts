/**
 * The rerankers against loopback servers speaking each real wire format (vLLM, TEI, llama.cpp,
 * Jina, Cohere v2, Voyage, OpenAI /completions with logprobs, Ollama /api/generate), including
 * failures: 429 + Retry-After, 5xx, timeouts, wrong count, out-of-range index, NaN, missing yes/no
 * tokens. Scores are checked against the server's known answers, mapped back by index.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { RerankPair, Reranker } from '../../core/rerank.js';
import {
  RERANK_FORMATS,
  hashScore,
  parseQwen3Prompt,
  startRerankServer,
  yesNoLogprobs,
  type RerankServer,
  type RerankServerOptions,
} from '../../../test/support/rerank-server.js';
import { batchByQuery, batchPrompts } from './common.js';
import { parseRerankerSpec } from './config.js';
import { createReranker } from './registry.js';
import {
  DEFAULT_INSTRUCTIONS,
  QWEN3_SUFFIX_NOTHINK,
  QWEN3_SUFFIX_THINK,
  QWEN3_SYSTEM,
  formatPrompt,
  resolveTemplate,
  truncatePair,
} from './template.js';
import { yesNoScore } from './yesno.js';

const servers: RerankServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(options: RerankServerOptions): Promise<RerankServer> {
  const s = await startRerankServer(options);
  servers.push(s);
  return s;
}

const FAST = 'backoffMs=5&maxBackoffMs=200';

async function reranker(spec: string, env: Record<string, string> = {}): Promise<Reranker> {
  return createReranker(parseRerankerSpec(spec), { env });
}

function url(s: RerankServer): string {
  return encodeURIComponent(s.baseUrl);
}

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  assert.fail('expected a rejection');
}

const PAIRS: RerankPair[] = [
  { query: 'sum of a list', doc: 'def f(xs): return sum(xs)' },
  { query: 'sum of a list', doc: 'def g(xs): return max(xs)' },
  { query: 'reverse a string', doc: 's[::-1]' },
  { query: 'sum of a list', doc: 'total = 0\nfor x in xs: total += x' },
  { query: 'reverse a string', doc: 'sorted(s)' },
];

for (const format of RERANK_FORMATS) {
  test(`${format}: scores equal the server's, in input order, batched by ${format.startsWith('yesno') ? 'prompts' : 'query and documents'}`, async () => {
    const s = await serve({ format, key: 'sk-test-123456' });
    const r = await reranker(`${format}:m1?baseUrl=${url(s)}&batchSize=2&apiKeyEnv=K&${FAST}`, { K: 'sk-test-123456' });
    const scores = await r.score(PAIRS, { task: 'text2code' });
    assert.equal(scores.length, PAIRS.length);
    PAIRS.forEach((p, i) => assert.equal(scores[i], hashScore(p.query, p.doc), `${format} pair ${i}`));
    if (format === 'yesno:ollama') assert.equal(s.calls.length, 5);
    else if (format === 'yesno:openai') assert.equal(s.calls.length, 3);
    else {
      // 3 docs of one query -> 2 requests, 2 of the other -> 1.
      assert.equal(s.calls.length, 3);
      for (const c of s.calls) assert.ok(new Set(c.pairs.map((p) => p.query)).size === 1);
    }
    assert.equal(s.calls[0].headers.authorization, 'Bearer sk-test-123456');
  });
}

test('rerank APIs: field names per provider (documents/texts, top_n/top_k, model)', async () => {
  const cases = [
    ['vllm', 'documents', 'top_n', true],
    ['tei', 'texts', undefined, false],
    ['llamacpp', 'documents', 'top_n', true],
    ['jina', 'documents', 'top_n', true],
    ['cohere', 'documents', 'top_n', true],
    ['voyage', 'documents', 'top_k', true],
  ] as const;
  for (const [format, docs, top, model] of cases) {
    const s = await serve({ format });
    const r = await reranker(`${format}:m?baseUrl=${url(s)}`);
    await r.score(PAIRS.slice(0, 2));
    const b = s.calls[0].body;
    assert.ok(Array.isArray(b[docs]), `${format} ${docs}`);
    if (top !== undefined) assert.equal(b[top], 2, `${format} ${top}`);
    assert.equal('model' in b, model, `${format} model`);
    assert.equal(b.query, 'sum of a list');
  }
});

test('429 with Retry-After: waits what the server asks, then succeeds', async () => {
  const s = await serve({ format: 'vllm', fault: (n) => (n === 1 ? { status: 429, retryAfter: '0.3' } : undefined) });
  const r = await reranker(`vllm:m?baseUrl=${url(s)}&backoffMs=1&maxBackoffMs=5000`);
  const t0 = performance.now();
  const scores = await r.score(PAIRS.slice(0, 2));
  assert.ok(performance.now() - t0 >= 290, 'honoured Retry-After');
  assert.equal(s.calls.length, 2);
  assert.equal(scores[1], hashScore(PAIRS[1].query, PAIRS[1].doc));
});

test('5xx is retried; persistent 5xx gives up after maxRetries with an HTTP error', async () => {
  const s1 = await serve({ format: 'tei', fault: (n) => (n <= 2 ? { status: 503 } : undefined) });
  await (await reranker(`tei:m?baseUrl=${url(s1)}&${FAST}`)).score(PAIRS.slice(0, 2));
  assert.equal(s1.calls.length, 3);
  const s2 = await serve({ format: 'cohere', fault: () => ({ status: 500, body: '{"message":"boom"}' }) });
  const e = await rejection((await reranker(`cohere:m?baseUrl=${url(s2)}&maxRetries=2&${FAST}`)).score(PAIRS.slice(0, 2)));
  assert.equal(e.code, 'HTTP');
  assert.match(e.message, /HTTP 500.*boom.*gave up after 3 attempts/);
  assert.equal(s2.calls.length, 3);
});

test('a reply slower than timeoutMs is retried, then fails naming the timeout', async () => {
  const s = await serve({ format: 'jina', fault: () => ({ delayMs: 400 }) });
  const e = await rejection((await reranker(`jina:m?baseUrl=${url(s)}&timeoutMs=80&maxRetries=1&${FAST}`)).score(PAIRS.slice(0, 2)));
  assert.equal(e.code, 'HTTP');
  assert.match(e.message, /no complete response within 80 ms/);
  assert.equal(s.calls.length, 2);
});

test('wrong count, out-of-range index and NaN are PROVIDER errors, not retried', async () => {
  for (const [fault, re] of [
    [{ wrongCount: true }, /has 1 results for 2 documents/],
    [{ badIndex: true }, /index is 2; expected an integer in 0\.\.1/],
    [{ nan: true }, /NaN or Infinity/],
  ] as const) {
    for (const format of ['voyage', 'llamacpp'] as const) {
      const s = await serve({ format, fault: () => fault });
      const e = await rejection((await reranker(`${format}:m?baseUrl=${url(s)}&${FAST}`)).score(PAIRS.slice(0, 2)));
      assert.equal(e.code, 'PROVIDER', `${format} ${JSON.stringify(fault)}`);
      assert.match(e.message, re);
      assert.equal(s.calls.length, 1);
    }
  }
});

test('yes/no: wrong count, bad index and NaN in /completions are PROVIDER errors', async () => {
  for (const [fault, re] of [
    [{ wrongCount: true }, /`choices` has 1 items for 2 prompts/],
    [{ badIndex: true }, /expected a distinct integer in 0\.\.1/],
    [{ nan: true }, /NaN or Infinity/],
  ] as const) {
    const s = await serve({ format: 'yesno:openai', fault: () => fault });
    const e = await rejection((await reranker(`yesno:openai:m?baseUrl=${url(s)}&${FAST}`)).score(PAIRS.slice(0, 2)));
    assert.equal(e.code, 'PROVIDER');
    assert.match(e.message, re);
  }
});

test('yes/no: neither token in the top log-probs is a clear error; one missing is floored and counted', async () => {
  for (const format of ['yesno:openai', 'yesno:ollama'] as const) {
    const s = await serve({ format, fault: () => ({ noYesNo: true }) });
    const e = await rejection((await reranker(`${format}:m?baseUrl=${url(s)}&${FAST}`)).score(PAIRS.slice(0, 1)));
    assert.equal(e.code, 'PROVIDER');
    assert.match(e.message, /neither "yes" nor "no" is among the 3 top log-probs/);
  }
  const s = await serve({ format: 'yesno:openai', fault: () => ({ onlyYes: true }) });
  const r = (await reranker(`yesno:openai:m?baseUrl=${url(s)}`)) as Reranker & { stats(): { floored: number } };
  const [score] = await r.score(PAIRS.slice(0, 1));
  const { yes, no } = yesNoLogprobs(hashScore(PAIRS[0].query, PAIRS[0].doc));
  const floor = Math.min(yes, no) - 5;
  assert.equal(score, yes - floor);
  assert.equal(r.stats().floored, 1);
});

test('yesNoScore: OpenAI -9999 marks an absent token; the score is the log-prob difference', () => {
  assert.equal(
    yesNoScore(
      new Map([
        ['yes', -0.5],
        ['no', -2],
      ]),
      'yes',
      'no',
      'x',
    ).score,
    1.5,
  );
  const r = yesNoScore(
    new Map([
      ['yes', -0.1],
      ['no', -9999],
      ['Yes', -4],
    ]),
    'yes',
    'no',
    'x',
  );
  assert.deepEqual(r, { score: -0.1 + 4, floored: true });
});

test('yes/no prompt: the Qwen3 layout byte for byte, per-task instruction, suffix variants', async () => {
  const s = await serve({ format: 'yesno:openai' });
  const r = await reranker(`yesno:openai:m?baseUrl=${url(s)}`);
  await r.score(PAIRS.slice(0, 1), { task: 'code2code' });
  const body = s.calls[0].body;
  assert.deepEqual(body.prompt, [
    `<|im_start|>system\n${QWEN3_SYSTEM}<|im_end|>\n<|im_start|>user\n` +
      `<Instruct>: ${DEFAULT_INSTRUCTIONS.code2code}\n<Query>: sum of a list\n<Document>: def f(xs): return sum(xs)` +
      '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
  ]);
  assert.equal(body.max_tokens, 1);
  assert.equal(body.logprobs, 20);
  assert.equal(body.temperature, 0);
  const s2 = await serve({ format: 'yesno:ollama' });
  const r2 = await reranker(`yesno:ollama:m?baseUrl=${url(s2)}&template=qwen3-nothink&c2cInstruction=${encodeURIComponent('Same problem?')}`);
  await r2.score(PAIRS.slice(0, 1), { task: 'code2code' });
  const p = s2.calls[0].body.prompt as string;
  assert.ok(p.endsWith(`def f(xs): return sum(xs)${QWEN3_SUFFIX_NOTHINK}`));
  assert.match(p, /<Instruct>: Same problem\?\n/);
  assert.equal(s2.calls[0].body.raw, true);
  assert.deepEqual(r2.describe().suffix, QWEN3_SUFFIX_NOTHINK);
});

test('vllm with template=qwen3: the query carries prefix and instruction, each document the suffix', async () => {
  const s = await serve({ format: 'vllm' });
  const r = await reranker(`vllm:Qwen/Qwen3-Reranker-4B?baseUrl=${url(s)}&template=qwen3`);
  await r.score(PAIRS.slice(0, 2), { task: 'text2code' });
  const b = s.calls[0].body;
  assert.equal(
    b.query,
    `<|im_start|>system\n${QWEN3_SYSTEM}<|im_end|>\n<|im_start|>user\n<Instruct>: ${DEFAULT_INSTRUCTIONS.text2code}\n<Query>: sum of a list\n`,
  );
  assert.deepEqual(
    b.documents,
    PAIRS.slice(0, 2).map((p) => `<Document>: ${p.doc}${QWEN3_SUFFIX_THINK}`),
  );
});

test('truncation cuts the pair, never the prefix or the suffix', () => {
  const t = resolveTemplate('qwen3');
  const long = 'x = 1\n'.repeat(5000);
  const { prompt, truncated } = formatPrompt(t, 'inst', 'find x', long, 512);
  assert.ok(truncated);
  assert.ok(prompt.startsWith(t.prefix));
  assert.ok(prompt.endsWith(t.suffix));
  assert.ok(Math.ceil(prompt.length / 3) <= 512, `${prompt.length} chars`);
  const back = parseQwen3Prompt(prompt);
  assert.equal(back.query, 'find x');
  assert.ok(long.startsWith(back.doc));
  // longest first: both long -> both cut to half the budget
  const both = truncatePair('q'.repeat(3000), 'd'.repeat(3000), 100);
  assert.equal(both.query.length + both.doc.length, 300);
});

test('specs: providers, parameters and clear errors', () => {
  assert.deepEqual(parseRerankerSpec('yesno:openai:Qwen/Qwen3-Reranker-4B?baseUrl=http://h:8000/v1&template=qwen3-nothink'), {
    provider: 'yesno:openai',
    model: 'Qwen/Qwen3-Reranker-4B',
    baseUrl: ['http://h:8000/v1'],
    template: 'qwen3-nothink',
  });
  const c = parseRerankerSpec('vllm:m?c2tInstruction=B&instruction=A');
  assert.equal(c.instructions?.code2text, 'B');
  assert.equal(c.instructions?.text2code, 'A');
  assert.equal(parseRerankerSpec('onnx:./models/ce').model, './models/ce');
  assert.throws(() => parseRerankerSpec('vllm'), /must look like PROVIDER:MODEL/);
  assert.throws(() => parseRerankerSpec('vllm:m?template=chatml'), /template.*must be one of qwen3, qwen3-nothink, plain/);
  assert.throws(() => parseRerankerSpec('vllm:m?colour=red'), /unknown parameter `colour`/);
  assert.throws(() => parseRerankerSpec('yesno:openai:m?topLogprobs=50'), /at most 20/);
});

test('registry: unknown provider and a hosted API without its key are clear errors', async () => {
  await assert.rejects(reranker('nope:m'), /unknown reranker provider `nope`; valid: vllm, tei/);
  await assert.rejects(reranker('cohere:rerank-v3.5'), /needs an API key: set the environment variable COHERE_API_KEY/);
  await assert.rejects(reranker('tei:m'), /needs baseUrl/);
});

test('describe records template, instructions and endpoints but never the key', async () => {
  const s = await serve({ format: 'yesno:openai', key: 'sk-secret-999999' });
  const r = await reranker(`yesno:openai:m?baseUrl=${url(s)}&apiKeyEnv=K`, { K: 'sk-secret-999999' });
  const d = JSON.stringify(r.describe());
  assert.ok(!d.includes('sk-secret'));
  assert.match(d, /"template":"qwen3"/);
  assert.match(d, /"instructions":\{/);
  assert.match(d, /"apiKeyEnv":"K"/);
});

test('batching: documents per request and the token budget cut requests, never across queries', () => {
  const pairs: RerankPair[] = [
    { query: 'q', doc: 'a'.repeat(30) },
    { query: 'q', doc: 'b'.repeat(30) },
    { query: 'q', doc: 'c'.repeat(30) },
    { query: 'r', doc: 'd' },
  ];
  // query 1 token + 10 per doc: a budget of 21 holds two docs of q
  assert.deepEqual(
    batchByQuery(pairs, 10, 21).map((b) => b.positions),
    [[0, 1], [2], [3]],
  );
  assert.deepEqual(
    batchByQuery(pairs, 1, 1_000).map((b) => b.positions),
    [[0], [1], [2], [3]],
  );
  assert.deepEqual(batchPrompts(['x'.repeat(30), 'y'.repeat(30), 'z'], 5, 11), [[0], [1, 2]]);
});

test('several endpoints: requests are spread over the replicas, and a failing one is failed over', async () => {
  const a = await serve({ format: 'tei' });
  const b = await serve({ format: 'tei', fault: () => ({ status: 503 }) });
  const c = await serve({ format: 'tei' });
  const r = await reranker(`tei:m?baseUrl=${url(a)},${url(b)},${url(c)}&batchSize=1&concurrency=3&${FAST}`);
  const pairs = Array.from({ length: 12 }, (_, i) => ({ query: 'q', doc: `d${i}` }));
  const scores = await r.score(pairs);
  pairs.forEach((p, i) => assert.equal(scores[i], hashScore(p.query, p.doc)));
  assert.ok(a.scored() > 0 && c.scored() > 0, `${a.scored()} / ${c.scored()}`);
  assert.equal(a.scored() + c.scored(), 12);
});
