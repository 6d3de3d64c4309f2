/**
 * `coreb build` against misbehaving and shared endpoints, end to end through loopback chat servers:
 * `--concurrency` bounds requests in flight per endpoint (two models on one base URL share a bound,
 * each replica of a multi-endpoint model has its own); `--dry-run` needs no API key; provider
 * errors that persist after retries (500 forever, 400, connection refused) become failed items in
 * the manifest, the build goes on, and a rerun asks only the failed items.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RELEASE_TABLES } from '../../src/core/dataset.js';
import { createBuildFake } from '../support/build-fake.js';
import { authoredBuildProblems, PROGRAMS } from '../support/build-problems.js';
import { runCliAsync } from '../support/cli.js';
import { startChatServer, type ChatAnswer, type ChatCall, type ChatServer } from '../support/loopback-chat-server.js';
import { checkQrelsRules } from '../support/qrels-rules.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-build-limits-'));
/** Each build its own reply and verdict cache: these tests count the requests a build sends. */
const cacheEnv = (out: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv => ({ ...base, COREB_CACHE_DIR: `${out}.cache` });
const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(tmp, { recursive: true, force: true });
});

const { problems: PROBLEMS, fakeProblems } = authoredBuildProblems('lp');
const { SUM_PY, SUM_CPP, REV_PY, REV_CPP } = PROGRAMS;
const solutions = new Map<string, string>();
for (const m of ['model-a', 'model-b', 'model-c']) {
  solutions.set(`${m}|lp_sum/python`, SUM_PY);
  solutions.set(`${m}|lp_sum/cpp`, SUM_CPP);
  solutions.set(`${m}|lp_rev/python`, REV_PY);
  solutions.set(`${m}|lp_rev/cpp`, REV_CPP);
}
const fake = createBuildFake({ problems: fakeProblems, solutions });
const problemsFile = join(tmp, 'problems.jsonl');
const enc = encodeURIComponent;
const delayed =
  (ms: number) =>
  async (c: ChatCall): Promise<ChatAnswer> => {
    await new Promise((r) => setTimeout(r, ms));
    return fake(c);
  };

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

before(() => {
  writeFileSync(problemsFile, PROBLEMS.map((p) => JSON.stringify(p)).join('\n') + '\n');
});

test('--concurrency bounds requests in flight per endpoint: models on one base URL share it, each replica has its own', async () => {
  const a = await startChatServer({ format: 'openai', answer: delayed(60) });
  const b = await startChatServer({ format: 'openai', answer: delayed(60) });
  const c = await startChatServer({ format: 'openai', answer: delayed(60) });
  servers.push(a, b, c);
  const out = join(tmp, 'limits');
  const r = await runCliAsync(
    [
      'build',
      '--problems',
      problemsFile,
      '--out',
      out,
      '--rewriter',
      `openai:rewriter-1?baseUrl=${enc(a.baseUrl)}`,
      // Two solvers on server A: one shared bound of 2 (each model alone would allow 4 by default).
      '--solver',
      `openai:model-a?baseUrl=${enc(a.baseUrl)}`,
      '--solver',
      `openai:model-b?baseUrl=${enc(a.baseUrl)}`,
      // One solver with two replicas: 2 in flight at each.
      '--solver',
      `openai:model-c?baseUrl=${enc(`${b.baseUrl},${c.baseUrl}`)}`,
      '--languages',
      'python,cpp,java,go,ruby',
      '--concurrency',
      '2',
      '--until',
      'solve',
    ],
    { env: cacheEnv(out) },
  );
  // java, go and ruby items fail by design (no known program): the status says something is missing.
  assert.equal(r.status, 6, r.stderr + r.stdout);
  // java, go and ruby have no known program: those items are asked 3 times (contract retries).
  const solveA = a.calls.filter((x) => x.stage === 'solve');
  assert.equal(solveA.length, 2 * 2 * (2 + 3 * 3), 'model-a and model-b solve every problem x language at A');
  assert.equal(b.calls.length + c.calls.length, 2 * (2 + 3 * 3), 'model-c solves every problem x language over its replicas');
  assert.ok(b.calls.length > 0 && c.calls.length > 0, `both replicas used (${b.calls.length}, ${c.calls.length})`);
  assert.equal(a.maxInFlight(), 2, `server A (3 models) peaked at ${a.maxInFlight()} in flight; the shared bound is 2`);
  assert.ok(b.maxInFlight() <= 2 && c.maxInFlight() <= 2, `replicas peaked at ${b.maxInFlight()} and ${c.maxInFlight()}`);
  assert.equal(Math.max(b.maxInFlight(), c.maxInFlight()), 2, 'a replica reaches its own bound');
});

test('--dry-run needs no API key: the key variables may be unset', async () => {
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
  delete env.GEMINI_API_KEY;
  delete env.MY_UNSET_KEY;
  const args = [
    'build',
    '--problems',
    problemsFile,
    '--out',
    join(tmp, 'dry'),
    '--rewriter',
    'anthropic:claude-sonnet-4-5',
    '--solver',
    'gemini:gemini-3-flash',
    '--solver',
    'openai:gpt-x?baseUrl=http://127.0.0.1:9/v1&apiKeyEnv=MY_UNSET_KEY',
    '--languages',
    'python,cpp',
  ];
  const dry = await runCliAsync([...args, '--dry-run'], { env: cacheEnv(join(tmp, 'keys'), env) });
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /2 problem\(s\), 2 language\(s\), 2 solver\(s\); no request sent/);
  assert.match(dry.stdout, /^rewrite\s+anthropic:claude-sonnet-4-5\s+2\s/m);
  assert.match(dry.stdout, /^solve\s+gemini:gemini-3-flash\s+4\s/m);
  assert.match(dry.stdout, /^solve\s+openai:gpt-x\s+4\s/m);
  // Without --dry-run the missing key is a clear error before anything is sent.
  const real = await runCliAsync(args, { env: cacheEnv(join(tmp, 'keys'), env) });
  assert.notEqual(real.status, 0);
  assert.match(real.stderr, /ANTHROPIC_API_KEY|MY_UNSET_KEY/);
});

test('connection refused: every item of that model is a failed item; a rerun once the server is up asks only those', async () => {
  const s = await startChatServer({ format: 'openai', answer: fake });
  servers.push(s);
  const refusedPort = await freePort();
  const out = join(tmp, 'refused');
  const args = [
    'build',
    '--problems',
    problemsFile,
    '--out',
    out,
    '--rewriter',
    `openai:rewriter-1?baseUrl=${enc(s.baseUrl)}`,
    '--solver',
    `openai:model-a?baseUrl=${enc(s.baseUrl)}`,
    '--solver',
    `openai:model-c?baseUrl=${enc(`http://127.0.0.1:${refusedPort}/v1`)}&maxRetries=1&backoffMs=5`,
    '--languages',
    'python,cpp',
    '--until',
    'solve',
  ];
  const r1 = await runCliAsync(args, { env: cacheEnv(out) });
  assert.equal(r1.status, 6, r1.stderr + r1.stdout);
  assert.match(r1.stdout, /missing: 4 item\(s\) failed/);
  assert.match(
    r1.stdout,
    /solve lp_sum\/python: provider error: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: request failed: .*ECONNREFUSED.*gave up after 2 attempts/,
  );
  const solve1 = readFileSync(join(out, 'work', 'solve.jsonl'), 'utf8');
  assert.equal((solve1.match(/"model":"model-c"[^\n]*"failed":"provider error/g) ?? []).length, 4);
  const p = await startChatServer({ format: 'openai', answer: fake, port: refusedPort });
  servers.push(p);
  const before = s.calls.length;
  const r2 = await runCliAsync(args, { env: cacheEnv(out) });
  assert.equal(r2.status, 0, r2.stderr + r2.stdout);
  assert.equal(s.calls.length, before, 'nothing answered is asked again');
  assert.deepEqual(p.calls.map((c) => `${c.stage} ${c.item}`).sort(), [
    'solve lp_rev/cpp',
    'solve lp_rev/python',
    'solve lp_sum/cpp',
    'solve lp_sum/python',
  ]);
  assert.doesNotMatch(r2.stdout, /missing:/);
});

test('provider errors after retries (500 forever, 400) are failed items; the build goes on; a rerun asks only the failed items', async () => {
  let healthy = false;
  const faults = (c: ChatCall): ChatAnswer | undefined => {
    if (healthy) return undefined;
    if (c.stage === 'solve' && c.model === 'model-a' && c.item === 'lp_rev/cpp')
      return { fault: { status: 500, body: '{"error":"backend crashed"}' } };
    if (c.stage === 'negatives' && c.item === 'lp_sum/problem_domain') return { fault: { status: 400, body: '{"error":"context too long"}' } };
    return undefined;
  };
  const s = await startChatServer({ format: 'openai', answer: (c) => faults(c) ?? fake(c) });
  servers.push(s);
  const out = join(tmp, 'faults');
  const args = [
    'build',
    '--problems',
    problemsFile,
    '--out',
    out,
    '--rewriter',
    `openai:rewriter-1?baseUrl=${enc(s.baseUrl)}&maxRetries=2&backoffMs=5`,
    '--solver',
    `openai:model-a?baseUrl=${enc(s.baseUrl)}&maxRetries=2&backoffMs=5`,
    '--solver',
    `openai:model-b?baseUrl=${enc(s.baseUrl)}&maxRetries=2&backoffMs=5`,
    '--languages',
    'python,cpp',
    '--release-name',
    'v202612',
    '--created-at',
    '2026-12-01T00:00:00Z',
    '--jobs',
    '2',
  ];
  const r1 = await runCliAsync(args, { env: cacheEnv(out) });
  assert.equal(r1.status, 6, r1.stderr + r1.stdout);
  assert.equal(
    s.calls.filter((c) => c.stage === 'solve' && c.model === 'model-a' && c.item === 'lp_rev/cpp').length,
    3,
    '500 forever: 1 + maxRetries attempts',
  );
  assert.equal(s.calls.filter((c) => c.stage === 'negatives' && c.item === 'lp_sum/problem_domain').length, 1, '400: not retried');
  const m1 = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  // biome-ignore lint/suspicious/noExplicitAny: manifest JSON
  const failed = m1.failures.map((f: any) => `${f.stage} ${f.item}${f.model !== undefined ? ` ${f.model}` : ''}`).sort();
  assert.deepEqual(failed, ['negatives lp_sum/problem_domain', 'solve lp_rev/cpp model-a']);
  // biome-ignore lint/suspicious/noExplicitAny: manifest JSON
  const errors = m1.failures.map((f: any) => String(f.error)).join('\n');
  assert.match(errors, /provider error: .*HTTP 500.*backend crashed.*gave up after 3 attempts/);
  assert.match(errors, /provider error: .*HTTP 400.*context too long/);
  assert.deepEqual(m1.dropped_problems, [{ id: 'lp_sum', reason: 'no hard negative for problem_domain' }]);
  assert.equal(m1.counts.table2_release.problems, 1);
  assert.equal(m1.stages.solve.failed, 1);
  assert.match(r1.stdout, /missing: 2 item\(s\) failed/);
  assert.match(r1.stdout, /problem lp_sum left out of the release: no hard negative for problem_domain/);
  assert.match(r1.stdout, /rerun the same command to retry only the failed items/);

  // The endpoint recovers: the rerun sends exactly the failed requests.
  healthy = true;
  const before = s.calls.length;
  const r2 = await runCliAsync(args, { env: cacheEnv(out) });
  assert.equal(r2.status, 0, r2.stderr + r2.stdout);
  const again = s.calls
    .slice(before)
    .map((c) => `${c.stage} ${c.item}`)
    .sort();
  assert.deepEqual(again, ['negatives lp_sum/problem_domain', 'solve lp_rev/cpp']);
  assert.match(r2.stdout, /2 request\(s\) sent this run/);
  assert.doesNotMatch(r2.stdout, /missing:/);
  const m2 = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(m2.failures, []);
  assert.deepEqual(m2.dropped_problems, []);
  assert.equal(m2.counts.table2_release.problems, 2);
  assert.deepEqual(m2.counts.a8_verified_correct, { passed: 8, total: 8, rate: 1 });
  assert.deepEqual(checkQrelsRules(out, { shape: 'official', primary: 'model-a', secondary: 'model-b' }).violations, []);
  // A third run: nothing left to ask, identical tables.
  const tables = (): string[] => RELEASE_TABLES.map((t) => readFileSync(join(out, `${t}.jsonl`), 'utf8'));
  const t2 = tables();
  const n = s.calls.length;
  const r3 = await runCliAsync(args, { env: cacheEnv(out) });
  assert.equal(r3.status, 0, r3.stderr);
  assert.equal(s.calls.length, n);
  assert.deepEqual(tables(), t2);
});
