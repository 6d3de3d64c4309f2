/**
 * Shared HTTP client throughput against a loopback OpenAI-compatible server with a fixed latency
 * per request and a cap on requests processed at once. The reference is the server's capacity,
 * cap x batch / latency (texts per second): the client should reach >= 90% of it, versus
 * 1/cap for sequential batches (one request at a time). Also: the same capacity split over two
 * replicas with least-busy balancing, and the cache answering a repeat run.
 *
 * Usage: node dist/bench/providers-throughput.js [--texts 4096] [--batch 32] [--latency 200] [--cap 8] [--repeat 5]
 * (sequential batches run on a quarter of the texts: the rate is what matters, not the total).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCachedEmbedder, openEmbeddingStore } from '../src/cache/index.js';
import { createEmbedder, parseEmbedderSpec } from '../src/providers/index.js';
import { startLoopbackServer } from '../test/support/loopback-server.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'providers-throughput',
  about: `shared HTTP client throughput against a loopback OpenAI-compatible server with a fixed latency
per request and a cap on requests at once. Reference: the server's capacity, cap x batch / latency
texts per second (the client should reach >= 90% of it; sequential batches reach 1/cap, run on a
quarter of the texts). Also two replicas with least-busy balancing, and the cache on a repeat run.`,
  options: [
    { name: 'texts', value: 'N', help: 'texts embedded per run (default 4096)' },
    { name: 'batch', value: 'N', help: 'texts per request (default 32)' },
    { name: 'latency', value: 'MS', help: 'server latency per request, milliseconds (default 200)' },
    { name: 'cap', value: 'N', help: 'requests the server processes at once (default 8)' },
    { name: 'repeat', value: 'N', help: 'runs; the median is printed (default 5)' },
    { name: 'serve', value: ['LATENCY', 'CAP'], help: 'server mode: start one loopback server, print its base URL', internal: true },
  ],
});

/** Server mode: `--serve LATENCY CAP` starts one loopback server and prints its base URL. */
const serve = args.values('serve');
if (serve !== undefined) {
  const s = await startLoopbackServer({ format: 'openai', dim: 64, latencyMs: Number(serve[0]), maxConcurrent: Number(serve[1]) });
  process.stdout.write(s.baseUrl + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

interface RemoteServer {
  baseUrl: string;
  close(): void;
}

/** Starts a server in its own process, so its CPU work does not share the client's event loop. */
function startRemote(latency: number, cap: number): Promise<RemoteServer> {
  const child = spawn(process.execPath, [process.argv[1], '--serve', String(latency), String(cap)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => resolve({ baseUrl: d.toString().trim(), close: () => child.kill() }));
  });
}

const flag = (name: string, fallback: string): number => Number(args.get(name) ?? fallback);

const N = flag('texts', '4096');
const BATCH = flag('batch', '32');
const LATENCY = flag('latency', '200');
const CAP = flag('cap', '8');
const REPEAT = flag('repeat', '5');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const texts = Array.from({ length: N }, (_, i) => `def f_${i}(xs):\n    return sum(x * ${i} for x in xs)`);
const capacity = (CAP * BATCH * 1000) / LATENCY;

async function run(label: string, servers: { cap: number }[], concurrency: number, repeat = REPEAT, count = N): Promise<number> {
  const rates: number[] = [];
  for (let r = 0; r < repeat; r++) {
    const ss = await Promise.all(servers.map((s) => startRemote(LATENCY, s.cap)));
    const urls = ss.map((s) => encodeURIComponent(s.baseUrl)).join(',');
    const e = await createEmbedder(
      parseEmbedderSpec(
        `dense:openai:bench?baseUrl=${urls}&batchSize=${BATCH}&maxBatchTokens=10000000&concurrency=${concurrency}&balance=least-busy`,
      ),
      { env: {} },
    );
    const t0 = performance.now();
    const m = await e.embed(texts.slice(0, count), { role: 'document' });
    const secs = (performance.now() - t0) / 1000;
    if (m.rows !== count) throw new Error('short result');
    rates.push(count / secs);
    for (const s of ss) s.close();
  }
  const rate = median(rates);
  console.log(`${label.padEnd(46)} ${rate.toFixed(0).padStart(8)} texts/s  ${((100 * rate) / capacity).toFixed(1).padStart(5)}% of capacity`);
  return rate;
}

/** The transport alone: bare fetch + JSON.parse of the same batches at `concurrency`, no client. */
async function rawFetch(concurrency: number): Promise<number> {
  const rates: number[] = [];
  for (let r = 0; r < REPEAT; r++) {
    const s = await startRemote(LATENCY, CAP);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next * BATCH < N) {
          const b = next++;
          const res = await fetch(s.baseUrl + '/embeddings', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'bench', input: texts.slice(b * BATCH, (b + 1) * BATCH) }),
          });
          JSON.parse(await res.text());
        }
      }),
    );
    rates.push(N / ((performance.now() - t0) / 1000));
    s.close();
  }
  const rate = median(rates);
  console.log(
    `${`bare fetch, no client (concurrency ${concurrency})`.padEnd(46)} ${rate.toFixed(0).padStart(8)} texts/s  ${((100 * rate) / capacity).toFixed(1).padStart(5)}% of capacity`,
  );
  return rate;
}

if (serve === undefined) await main();

async function main(): Promise<void> {
  console.log(
    `loopback server: ${LATENCY} ms per request, ${CAP} requests at once, batch ${BATCH} -> capacity ${capacity.toFixed(0)} texts/s; ` +
      `${N} texts, median of ${REPEAT}`,
  );
  const raw = await rawFetch(CAP);
  const seq = await run('sequential batches (concurrency 1)', [{ cap: CAP }], 1, Math.min(REPEAT, 3), Math.ceil(N / 4));
  const conc = await run(`coreb client (concurrency ${CAP})`, [{ cap: CAP }], CAP);
  const over = await run(`coreb client (concurrency ${CAP * 2}, over the cap)`, [{ cap: CAP }], CAP * 2);
  const split = await run(`2 replicas x ${CAP / 2} slots, least-busy (conc ${CAP})`, [{ cap: CAP / 2 }, { cap: CAP / 2 }], CAP);
  console.log(`client vs bare fetch at the same concurrency: ${((100 * conc) / raw).toFixed(1)}% (client overhead; the rest is machine load)`);
  console.log(
    `speed-up over sequential: ${(conc / seq).toFixed(2)}x (ideal ${CAP}x); over the cap: ${(over / seq).toFixed(2)}x; replicas: ${(split / seq).toFixed(2)}x`,
  );
  console.log(
    `goal >= 90% of capacity: concurrency = cap ${((100 * conc) / capacity).toFixed(1)}%, concurrency = 2 x cap ${((100 * over) / capacity).toFixed(1)}% -> ` +
      `${Math.max(conc, over) / capacity >= 0.9 ? 'met' : 'NOT met'}`,
  );

  // Cache: a second identical run is answered from disk with zero requests.
  const dir = mkdtempSync(join(tmpdir(), 'coreb-bench-cache-'));
  const server = await startLoopbackServer({ format: 'openai', dim: 64, latencyMs: LATENCY, maxConcurrent: CAP });
  const inner = await createEmbedder(
    parseEmbedderSpec(`dense:openai:bench?baseUrl=${encodeURIComponent(server.baseUrl)}&batchSize=${BATCH}&concurrency=${CAP}`),
    { env: {} },
  );
  const store = openEmbeddingStore(dir);
  const cached = createCachedEmbedder(inner, store);
  let t0 = performance.now();
  await cached.embed(texts, { role: 'document' });
  const cold = (performance.now() - t0) / 1000;
  const calls = server.calls.length;
  t0 = performance.now();
  await cached.embed(texts, { role: 'document' });
  const warm = (performance.now() - t0) / 1000;
  store.close();
  const reopened = openEmbeddingStore(dir);
  t0 = performance.now();
  await createCachedEmbedder(inner, reopened).embed(texts, { role: 'document' });
  const reopenSecs = (performance.now() - t0) / 1000;
  reopened.close();
  console.log(
    `cache: cold ${(N / cold).toFixed(0)} texts/s (each batch written as it arrives), warm ${(N / warm).toFixed(0)} texts/s, ` +
      `fresh process ${(N / reopenSecs).toFixed(0)} texts/s; requests on repeat: ${server.calls.length - calls}`,
  );
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
