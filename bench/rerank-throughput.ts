/**
 * Reranking throughput against a loopback server of fixed capacity: each request takes a fixed
 * latency and at most `cap` requests are processed at once, so the server scores at most
 * cap x batch / latency pairs per second. The reference is that capacity: the client should reach
 * >= 90% of it (sequential requests reach 1/cap). Measured for a rerank API (vLLM wire format,
 * requests cut per query) and a yes/no LLM (OpenAI /completions, prompts of many queries per
 * request). Then the score cache: a second identical run sends 0 pairs.
 *
 * Usage: node dist/bench/rerank-throughput.js [--queries 64] [--depth 128] [--batch 32] [--latency 200] [--cap 8] [--repeat 3]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCachedReranker, openRerankStore } from '../src/cache/index.js';
import type { RerankPair } from '../src/core/rerank.js';
import { createReranker, parseRerankerSpec } from '../src/providers/index.js';
import { startRerankServer, type RerankFormat } from '../test/support/rerank-server.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'rerank-throughput',
  about: `reranking throughput against a loopback server of fixed capacity (a fixed latency per request,
at most cap requests at once). Reference: that capacity, cap x batch / latency pairs per second (the
client should reach >= 90% of it; sequential requests reach 1/cap), for a rerank API (vLLM wire
format) and a yes/no LLM (OpenAI /completions). Then the score cache: a repeat run sends 0 pairs.`,
  options: [
    { name: 'queries', value: 'N', help: 'queries reranked (default 64)' },
    { name: 'depth', value: 'N', help: 'candidates per query (default 128)' },
    { name: 'batch', value: 'N', help: 'pairs per request (default 32)' },
    { name: 'latency', value: 'MS', help: 'server latency per request, milliseconds (default 200)' },
    { name: 'cap', value: 'N', help: 'requests the server processes at once (default 8)' },
    { name: 'repeat', value: 'N', help: 'runs; the median is printed (default 3)' },
    {
      name: 'serve',
      value: ['FORMAT', 'LATENCY', 'CAP'],
      help: 'server mode: start one loopback server, print its base URL',
      internal: true,
    },
  ],
});

/** Server mode: `--serve FORMAT LATENCY CAP` starts one loopback server and prints its base URL. */
const serve = args.values('serve');
if (serve !== undefined) {
  const s = await startRerankServer({
    format: serve[0] as RerankFormat,
    latencyMs: Number(serve[1]),
    maxConcurrent: Number(serve[2]),
  });
  process.stdout.write(s.baseUrl + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

/** Starts a server in its own process, so its work does not share the client's event loop. */
function startRemote(format: RerankFormat, latency: number, cap: number): Promise<{ baseUrl: string; close(): void }> {
  const child = spawn(process.execPath, [process.argv[1], '--serve', format, String(latency), String(cap)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => resolve({ baseUrl: d.toString().trim(), close: () => child.kill() }));
  });
}

const flag = (name: string, fallback: string): number => Number(args.get(name) ?? fallback);

const QUERIES = flag('queries', '64');
const DEPTH = flag('depth', '128');
const BATCH = flag('batch', '32');
const LATENCY = flag('latency', '200');
const CAP = flag('cap', '8');
const REPEAT = flag('repeat', '3');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const capacity = (CAP * BATCH * 1000) / LATENCY;
const pairs: RerankPair[] = [];
for (let q = 0; q < QUERIES; q++) {
  for (let d = 0; d < DEPTH; d++)
    pairs.push({ query: `find the sum of list ${q}`, doc: `def f_${q}_${d}(xs):\n    return sum(x * ${d} for x in xs)` });
}

async function run(label: string, format: RerankFormat, concurrency: number, count = pairs.length): Promise<number> {
  const rates: number[] = [];
  for (let r = 0; r < REPEAT; r++) {
    const s = await startRemote(format, LATENCY, CAP);
    const rr = await createReranker(
      parseRerankerSpec(
        `${format}:bench?baseUrl=${encodeURIComponent(s.baseUrl)}&batchSize=${BATCH}&maxBatchTokens=10000000&concurrency=${concurrency}`,
      ),
      { env: {} },
    );
    const t0 = performance.now();
    const scores = await rr.score(pairs.slice(0, count), { task: 'text2code' });
    const secs = (performance.now() - t0) / 1000;
    if (scores.length !== count) throw new Error('short result');
    rates.push(count / secs);
    s.close();
  }
  const rate = median(rates);
  console.log(`${label.padEnd(58)} ${rate.toFixed(0).padStart(7)} pairs/s  ${((100 * rate) / capacity).toFixed(1).padStart(5)}% of capacity`);
  return rate;
}

/**
 * The transport alone: bare fetch + JSON.parse of the same yes/no requests (32 prompts each) at
 * `concurrency`, no client, no scoring. What the server and the machine allow.
 */
async function rawFetch(concurrency: number): Promise<number> {
  const rates: number[] = [];
  const prompts = pairs.map((p) => `<Query>: ${p.query}\n<Document>: ${p.doc}<|im_end|>`);
  for (let r = 0; r < REPEAT; r++) {
    const s = await startRemote('yesno:openai', LATENCY, CAP);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next * BATCH < prompts.length) {
          const b = next++;
          const res = await fetch(s.baseUrl + '/completions', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'bench', prompt: prompts.slice(b * BATCH, (b + 1) * BATCH), max_tokens: 1, logprobs: 20 }),
          });
          JSON.parse(await res.text());
        }
      }),
    );
    rates.push(pairs.length / ((performance.now() - t0) / 1000));
    s.close();
  }
  const rate = median(rates);
  console.log(
    `${`bare fetch of the yes/no requests (concurrency ${concurrency})`.padEnd(58)} ${rate.toFixed(0).padStart(7)} pairs/s  ${((100 * rate) / capacity).toFixed(1).padStart(5)}% of capacity`,
  );
  return rate;
}

if (serve === undefined) await main();

async function main(): Promise<void> {
  console.log(
    `loopback server: ${LATENCY} ms per request, ${CAP} requests at once, ${BATCH} pairs per request -> capacity ${capacity.toFixed(0)} pairs/s; ` +
      `${QUERIES} queries x ${DEPTH} candidates = ${pairs.length} pairs, median of ${REPEAT}`,
  );
  const raw = await rawFetch(CAP);
  const seq = await run('vllm /rerank, sequential (concurrency 1)', 'vllm', 1, Math.ceil(pairs.length / 8));
  const api = await run(`vllm /rerank (concurrency ${CAP})`, 'vllm', CAP);
  const apiOver = await run(`vllm /rerank (concurrency ${2 * CAP}, over the cap)`, 'vllm', 2 * CAP);
  const yn = await run(`yesno:openai /completions (concurrency ${CAP})`, 'yesno:openai', CAP);
  const ynOver = await run(`yesno:openai /completions (concurrency ${2 * CAP}, over the cap)`, 'yesno:openai', 2 * CAP);
  console.log(
    `speed-up over sequential: ${(api / seq).toFixed(2)}x (ideal ${CAP}x); yes/no client vs bare fetch at the same concurrency: ${((100 * yn) / raw).toFixed(1)}%`,
  );
  const pct = (x: number): string => `${((100 * x) / capacity).toFixed(1)}%`;
  const bestApi = Math.max(api, apiOver) / capacity;
  const bestYn = Math.max(yn, ynOver) / capacity;
  console.log(
    `goal >= 90% of capacity: rerank API ${pct(api)} at concurrency = cap, ${pct(apiOver)} at 2 x cap; ` +
      `yes/no ${pct(yn)} at cap, ${pct(ynOver)} at 2 x cap -> ${bestApi >= 0.9 && bestYn >= 0.9 ? 'met' : 'NOT met'}`,
  );

  // Cache: a second identical run is answered from disk and sends 0 pairs.
  const dir = mkdtempSync(join(tmpdir(), 'coreb-bench-rerank-'));
  const server = await startRerankServer({ format: 'yesno:openai', latencyMs: LATENCY, maxConcurrent: CAP });
  const inner = await createReranker(
    parseRerankerSpec(`yesno:openai:bench?baseUrl=${encodeURIComponent(server.baseUrl)}&batchSize=${BATCH}&concurrency=${CAP}`),
    { env: {} },
  );
  const store = openRerankStore(dir);
  let t0 = performance.now();
  const cold = await createCachedReranker(inner, store).score(pairs, { task: 'text2code' });
  const coldSecs = (performance.now() - t0) / 1000;
  const sentCold = server.scored();
  store.close();
  const reopened = openRerankStore(dir);
  t0 = performance.now();
  const warm = await createCachedReranker(inner, reopened).score(pairs, { task: 'text2code' });
  const warmSecs = (performance.now() - t0) / 1000;
  reopened.close();
  const same = cold.every((s, i) => Object.is(s, warm[i]));
  console.log(
    `cache: cold ${(pairs.length / coldSecs).toFixed(0)} pairs/s (${sentCold} pairs sent), second run in a fresh store handle ` +
      `${(pairs.length / warmSecs).toFixed(0)} pairs/s, pairs sent: ${server.scored() - sentCold}, scores identical: ${same}`,
  );
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
