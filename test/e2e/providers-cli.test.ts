/**
 * `coreb providers embed` and `coreb cache` as a user runs them, against a loopback
 * OpenAI-compatible server: kill -9 mid-encoding then rerun (nothing received is requested
 * again, output identical to an uninterrupted run), zero requests on an identical rerun, keys
 * absent from outputs, caches and logs, cache stats and prune. Also `coreb eval --retriever dense:`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, test } from 'node:test';
import { writeTinyModel } from '../support/tiny-model.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { cliPath, runCli as runCliSync, type CliResult } from '../support/cli.js';
import { writeTinyRelease } from './eval-fixture.js';
import { loadNpyStore } from '../../src/dataset/npy.js';
import { readRow } from '../../src/core/vector-store.js';

const KEY = 'sk-e2e-SECRET-0123456789abcdef';
const root = mkdtempSync(join(tmpdir(), 'coreb-providers-e2e-'));
const servers: LoopbackServer[] = [];
const children: ChildProcess[] = [];
after(async () => {
  // A failed assertion must not leave a stalled CLI holding this process open.
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.close()));
  rmSync(root, { recursive: true, force: true });
});

const TEXTS = Array.from({ length: 60 }, (_, i) => `def solve_${i}(xs):\n    return sorted(xs)[${i % 7}] + ${i}`);
const input = join(root, 'texts.jsonl');
writeFileSync(input, TEXTS.map((text, i) => JSON.stringify({ id: `d${i}`, text })).join('\n') + '\n');

/**
 * Runs the CLI without blocking this process: the loopback server lives here, so a synchronous
 * spawn would deadlock it.
 */
function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function env(cacheDir: string): NodeJS.ProcessEnv {
  return { ...process.env, COREB_CACHE_DIR: cacheDir, E2E_KEY: KEY };
}

function spec(s: LoopbackServer): string {
  return `dense:openai:e2e-model?baseUrl=${s.baseUrl}&apiKeyEnv=E2E_KEY&batchSize=4&concurrency=2&backoffMs=5&timeoutMs=10000`;
}

function allBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? allBytes(p) : readFileSync(p).toString('latin1');
  }
  return out;
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('kill -9 mid-encoding, rerun: only unreceived texts are requested and the output equals an unbroken run', async () => {
  let stallAfter = 5;
  const server = await startLoopbackServer({
    format: 'openai',
    dim: 12,
    key: KEY,
    latencyMs: 5,
    fault: (n) => (n > stallAfter ? { delayMs: 600_000 } : undefined),
  });
  servers.push(server);
  const cache = join(root, 'cache-killed');
  const out = join(root, 'killed.jsonl');
  const child = spawn(process.execPath, [cliPath, 'providers', 'embed', '--spec', spec(server), '--input', input, '--out', out], {
    env: env(cache),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // Five batches answered, the rest hang: give the client time to persist what it received, then SIGKILL.
  await until(() => server.calls.length >= 7, 60_000);
  await new Promise((r) => setTimeout(r, 400));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const received = new Set(server.calls.slice(0, 5).flatMap((c) => c.texts));
  assert.equal(received.size, 20);
  assert.throws(() => statSync(out), 'no partial output file');

  stallAfter = Infinity;
  const before = server.calls.length;
  const rerun = await runCli(['providers', 'embed', '--spec', spec(server), '--input', input, '--out', out, '--json'], { env: env(cache) });
  assert.equal(rerun.status, 0, rerun.stderr);
  const asked = server.calls.slice(before).flatMap((c) => c.texts);
  assert.equal(asked.length, 40, 'exactly the 40 texts not received before the kill');
  assert.ok(
    asked.every((t) => !received.has(t)),
    'nothing received before the kill is requested again',
  );
  assert.deepEqual(JSON.parse(rerun.stdout).cache, { requested: 60, hits: 20, duplicates: 0, encoded: 40 });

  const fresh = join(root, 'fresh.jsonl');
  const clean = await runCli(['providers', 'embed', '--spec', spec(server), '--input', input, '--out', fresh], {
    env: env(join(root, 'cache-fresh')),
  });
  assert.equal(clean.status, 0, clean.stderr);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(fresh, 'utf8'), 'resumed output = uninterrupted output');
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 60);

  // A second identical run makes zero embedding calls.
  const calls = server.calls.length;
  const again = await runCli(['providers', 'embed', '--spec', spec(server), '--input', input, '--out', join(root, 'again.jsonl'), '--json'], {
    env: env(cache),
  });
  assert.equal(again.status, 0, again.stderr);
  assert.equal(server.calls.length, calls, 'zero requests');
  assert.equal(JSON.parse(again.stdout).cache.encoded, 0);

  // --format npy (from the name): the same vectors as a float32 .npy matrix plus its ids file.
  const npy = join(root, 'vectors.npy');
  const asNpy = await runCli(['providers', 'embed', '--spec', spec(server), '--input', input, '--out', npy], { env: env(cache) });
  assert.equal(asNpy.status, 0, asNpy.stderr);
  const rows = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; vector: number[] });
  assert.deepEqual(
    readFileSync(join(root, 'vectors.ids'), 'utf8').trim().split('\n'),
    rows.map((r) => r.id),
  );
  const store = loadNpyStore(npy);
  assert.deepEqual([store.rows, store.dtype], [60, 'float32']);
  assert.deepEqual([...readRow(store, 7)], rows[7].vector);
  const half = await runCli(['providers', 'embed', '--spec', spec(server), '--input', input, '--out', join(root, 'half.npy'), '--dtype', 'float16'], {
    env: env(cache),
  });
  assert.equal(half.status, 0, half.stderr);
  assert.equal(loadNpyStore(join(root, 'half.npy')).dtype, 'float16');
  const badDtype = await runCli(
    ['providers', 'embed', '--spec', spec(server), '--input', input, '--out', join(root, 'x.jsonl'), '--dtype', 'float16'],
    {
      env: env(cache),
    },
  );
  assert.equal(badDtype.status, 2);
  assert.match(badDtype.stderr, /--dtype float16 needs --format npy/);

  // The key is nowhere: not in outputs, caches, logs or summaries (it was sent to the server).
  assert.equal(server.calls[0].headers.authorization, `Bearer ${KEY}`);
  for (const [what, text] of [
    ['cache', allBytes(cache)],
    ['output', readFileSync(out, 'utf8')],
    ['stderr of the killed run', stderr],
    ['rerun stdout/stderr', rerun.stdout + rerun.stderr],
    ['second run', again.stdout + again.stderr],
  ] as const) {
    assert.ok(!text.includes(KEY), `key found in ${what}`);
  }

  const stats = await runCli(['cache', 'stats', '--json'], { env: env(cache) });
  assert.equal(stats.status, 0, stats.stderr);
  const s = JSON.parse(stats.stdout) as { keys: number; namespaces: { keys: number; identity: { model: string } }[] };
  assert.equal(s.keys, 60);
  assert.equal(s.namespaces[0].identity.model, 'e2e-model');
  const text = await runCli(['cache', 'stats'], { env: env(cache) });
  assert.match(text.stdout, /openai:e2e-model.*60 vectors/);
  const prune = await runCli(['cache', 'prune', '--model', 'e2e-model', '--json'], { env: env(cache) });
  assert.equal(prune.status, 0, prune.stderr);
  assert.equal(JSON.parse(prune.stdout).dropped, 60);
  assert.equal(JSON.parse((await runCli(['cache', 'stats', '--json'], { env: env(cache) })).stdout).keys, 0);
});

test('provider failures exit 6 with the endpoint and status, never the key', async () => {
  const server = await startLoopbackServer({ format: 'openai', fault: () => ({ status: 503, echoAuth: true }) });
  servers.push(server);
  const r = await runCli(['providers', 'embed', '--spec', `${spec(server)}&maxRetries=1`, '--input', input, '--out', join(root, 'x.jsonl')], {
    env: env(join(root, 'cache-fail')),
  });
  assert.equal(r.status, 6);
  assert.match(r.stderr, /POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings: HTTP 503/);
  assert.ok(!r.stderr.includes(KEY));
});

test('coreb providers lists every provider and the presets with sources', async () => {
  const r = runCliSync(['providers']);
  assert.equal(r.status, 0, r.stderr);
  for (const p of ['openai', 'tei', 'ollama', 'voyage', 'gemini', 'jina', 'cohere', 'onnx']) assert.match(r.stdout, new RegExp(`^  ${p} `, 'm'));
  // The MTEB user's `mteb run -m ORG/NAME`, as one line, and the README gives the same one.
  assert.match(r.stdout, /mteb run -m ORG\/NAME[\s\S]*coreb eval --retriever 'dense:onnx:ORG\/NAME\?allowRemoteModels=true'/);
  assert.match(
    readFileSync(join(process.cwd(), 'README.md'), 'utf8'),
    /mteb run -m ORG\/NAME[\s\S]*npx coreb eval --retriever 'dense:onnx:[\w-]+\/[\w.-]+\?allowRemoteModels=true'/,
  );
  for (const m of [
    'C2LLM-7B',
    'F2LLM-4B',
    'jina-code-embeddings-0.5b',
    'Qwen3-Embedding-8B',
    'jina-embeddings-v2-base-code',
    'gemini-embedding-001',
    'voyage-code-3',
    'text-embedding-3-large',
  ]) {
    assert.ok(r.stdout.includes(m), m);
  }
  assert.match(r.stdout, /source: https:\/\//);
  const chat = r.stdout.slice(r.stdout.indexOf('Chat providers'));
  for (const p of ['openai', 'anthropic', 'gemini', 'ollama']) assert.match(chat, new RegExp(`^  ${p} `, 'm'));
  assert.match(chat, /Chat spec: <provider>:<model>\[\?key=value&\.\.\.\]; keys: baseUrl, apiKeyEnv, temperature, maxTokens/);
  const bad = await runCli(['providers', 'embed', '--spec', 'dense:nope:m', '--input', input, '--out', join(root, 'y.jsonl')]);
  assert.equal(bad.status, 3);
  assert.match(bad.stderr, /unknown provider `nope`; valid providers: openai/);
});

test('coreb eval --retriever dense:openai:... embeds through the provider; a second identical eval makes zero calls', async () => {
  const server = await startLoopbackServer({ format: 'openai', dim: 16, key: KEY });
  servers.push(server);
  const release = join(root, 'release');
  writeTinyRelease(release);
  const cache = join(root, 'cache-eval');
  const retriever = `dense:openai:eval-model?baseUrl=${server.baseUrl}&apiKeyEnv=E2E_KEY`;
  const args = ['eval', '--data', release, '--retriever', retriever, '--format', 'json', '--quiet'];
  const first = await runCli(args, { env: env(cache) });
  assert.equal(first.status, 0, first.stderr);
  assert.ok(server.calls.length > 0, 'the first eval called the server');
  const res = JSON.parse(first.stdout) as { retrievers: { description: Record<string, unknown> }[] };
  assert.ok(!first.stdout.includes(KEY), 'no key in the results');
  assert.match(JSON.stringify(res.retrievers[0].description), /eval-model/);
  const calls = server.calls.length;
  const second = await runCli(args, { env: env(cache) });
  assert.equal(second.status, 0, second.stderr);
  assert.equal(server.calls.length, calls, 'second identical eval: zero embedding calls');
  const strip = (s: string): unknown => {
    const j = JSON.parse(s) as Record<string, unknown>;
    delete j.timings;
    delete j.createdAt;
    return (j.retrievers as Record<string, unknown>[]).map((r) => r.overall);
  };
  assert.deepEqual(strip(second.stdout), strip(first.stdout));
});

test('a named embedder from coreb.config.json, with spec parameters overriding the entry', async () => {
  const server = await startLoopbackServer({ format: 'tei', dim: 5 });
  servers.push(server);
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(
    join(cwd, 'coreb.config.json'),
    JSON.stringify({ embedders: { mine: { provider: 'tei', model: 'local-model', baseUrl: [server.baseUrl], batchSize: 10 } } }),
  );
  const r = await runCli(
    ['providers', 'embed', '--spec', 'dense:mine?batchSize=25', '--input', input, '--out', join(cwd, 'v.jsonl'), '--json', '--no-cache'],
    {
      env: env(join(root, 'cache-named')),
      cwd,
    },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(
    server.calls.map((c) => c.texts.length),
    [25, 25, 10],
  );
  assert.equal(JSON.parse(r.stdout).dim, 5);
  const unknown = await runCli(['providers', 'embed', '--spec', 'dense:yours', '--input', input, '--out', join(cwd, 'w.jsonl')], {
    env: env(join(root, 'cache-named')),
    cwd,
  });
  assert.equal(unknown.status, 3);
  assert.match(unknown.stderr, /named embedder in .*coreb\.config\.json \(names: mine\)/);
});

test('the onnx provider from the CLI on a tiny local model: cached, second run loads nothing new', async () => {
  const model = writeTinyModel(join(root, 'models', 'tiny-e2e'));
  const cache = join(root, 'cache-onnx');
  const args = ['providers', 'embed', '--spec', `dense:onnx:${model}?pooling=mean`, '--input', input, '--out', join(root, 'onnx.jsonl'), '--json'];
  const first = await runCli(args, { env: env(cache) });
  assert.equal(first.status, 0, first.stderr);
  const s1 = JSON.parse(first.stdout) as { dim: number; cache: { encoded: number }; embedder: { pooling: string } };
  assert.equal(s1.dim, 16);
  assert.equal(s1.cache.encoded, 60);
  assert.equal(s1.embedder.pooling, 'mean');
  const second = await runCli(args, { env: env(cache) });
  assert.equal(JSON.parse(second.stdout).cache.encoded, 0);
  assert.equal(readFileSync(join(root, 'onnx.jsonl'), 'utf8').trim().split('\n').length, 60);
});

test('coreb eval --retriever dense: killed with -9 mid-encoding, rerun: nothing received is re-requested, results equal an unbroken eval', async () => {
  let stallAfter = 4;
  const server = await startLoopbackServer({
    format: 'openai',
    dim: 16,
    key: KEY,
    fault: (n) => (n > stallAfter ? { delayMs: 600_000 } : undefined),
  });
  servers.push(server);
  const release = join(root, 'release-kill');
  writeTinyRelease(release);
  const retriever = `dense:openai:kill-model?baseUrl=${server.baseUrl}&apiKeyEnv=E2E_KEY&batchSize=1&concurrency=1&timeoutMs=10000`;
  const args = (out: string): string[] => ['eval', '--data', release, '--retriever', retriever, '--format', 'json', '--quiet', '--out', out];
  const cache = join(root, 'cache-eval-kill');
  const child = spawn(process.execPath, [cliPath, ...args(join(root, 'eval-killed'))], { env: env(cache), stdio: 'ignore' });
  children.push(child);
  await until(() => server.calls.length >= 5, 60_000);
  await new Promise((r) => setTimeout(r, 400));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const received = server.calls.slice(0, 4).map((c) => c.texts[0]);
  stallAfter = Infinity;
  const before = server.calls.length;
  const rerun = await runCli(args(join(root, 'eval-rerun')), { env: env(cache) });
  assert.equal(rerun.status, 0, rerun.stderr);
  const asked = server.calls.slice(before).map((c) => c.texts[0]);
  assert.ok(asked.length > 0);
  for (const t of received) assert.ok(!asked.includes(t), `re-requested after the kill: ${t.slice(0, 40)}`);
  const fresh = await runCli(args(join(root, 'eval-fresh')), { env: env(join(root, 'cache-eval-fresh')) });
  assert.equal(fresh.status, 0, fresh.stderr);
  const scores = (s: string): unknown =>
    (JSON.parse(s) as { retrievers: { overall: unknown; tasks: unknown }[] }).retrievers.map((r) => [r.overall, r.tasks]);
  assert.deepEqual(scores(rerun.stdout), scores(fresh.stdout));
});

test('Ctrl-C (SIGINT) mid-encoding exits 130 promptly, keeps what arrived, and a rerun completes', async () => {
  let stallAfter = 3;
  const server = await startLoopbackServer({ format: 'openai', dim: 4, fault: (n) => (n > stallAfter ? { delayMs: 600_000 } : undefined) });
  servers.push(server);
  const cache = join(root, 'cache-sigint');
  const s = `dense:openai:int-model?baseUrl=${server.baseUrl}&batchSize=4&concurrency=1`;
  const out = join(root, 'sigint.jsonl');
  const child = spawn(process.execPath, [cliPath, 'providers', 'embed', '--spec', s, '--input', input, '--out', out], {
    env: env(cache),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await until(() => server.calls.length >= 4, 60_000);
  const t0 = Date.now();
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  assert.equal(code, 130, stderr);
  assert.ok(Date.now() - t0 < 5000, 'stopped promptly');
  assert.match(stderr, /interrupted/i);
  assert.throws(() => statSync(out), 'no partial output');
  stallAfter = Infinity;
  const before = server.calls.length;
  const rerun = await runCli(['providers', 'embed', '--spec', s, '--input', input, '--out', out, '--json'], { env: env(cache) });
  assert.equal(rerun.status, 0, rerun.stderr);
  assert.equal(server.calls.slice(before).flatMap((c) => c.texts).length, 48, '60 texts minus the 3 batches of 4 that arrived');
});

test('providers embed reads its input like the dataset loaders: .gz and a BOM accepted, bad UTF-8 and duplicate ids refused', async () => {
  const server = await startLoopbackServer({ format: 'openai', dim: 6, key: KEY });
  servers.push(server);
  const dir = join(root, 'input-rules');
  mkdirSync(dir, { recursive: true });
  const rows = ['{"id": "a", "text": "def f(): pass"}', '{"id": "b", "text": "print(1)"}'];
  const gz = join(dir, 'texts.jsonl.gz');
  writeFileSync(gz, gzipSync(Buffer.from('\ufeff' + rows.join('\n') + '\n', 'utf8')));
  const ok = await runCli(['providers', 'embed', '--spec', spec(server), '--input', gz, '--out', join(dir, 'v.jsonl'), '--no-cache'], {
    env: env(join(dir, 'c')),
  });
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(
    readFileSync(join(dir, 'v.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id),
    ['a', 'b'],
  );

  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, Buffer.concat([Buffer.from(rows[0] + '\n{"id": "b", "text": "caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]));
  const b = await runCli(['providers', 'embed', '--spec', spec(server), '--input', bad, '--out', join(dir, 'w.jsonl'), '--no-cache'], {
    env: env(join(dir, 'c')),
  });
  assert.equal(b.status, 4, b.stderr);
  assert.match(b.stderr, /bad\.jsonl:2: not valid UTF-8/);

  const dup = join(dir, 'dup.jsonl');
  writeFileSync(dup, rows[0] + '\n' + rows[1] + '\n' + rows[0] + '\n');
  const d = await runCli(['providers', 'embed', '--spec', spec(server), '--input', dup, '--out', join(dir, 'x.jsonl'), '--no-cache'], {
    env: env(join(dir, 'c')),
  });
  assert.equal(d.status, 4, d.stderr);
  assert.match(d.stderr, /dup\.jsonl:3: field `id`: duplicate id `a` \(first on line 1\)/);
});
