/**
 * The reranking stage through the built CLI against a loopback yes/no server: `coreb eval
 * --reranker` (rows, rerank block, top_ranked candidates written), `coreb rerank --run`, an MTEB
 * style BEIR directory whose `top_ranked.jsonl` lists are reranked exactly, and usage errors.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadRelease, releaseTasks } from '../../src/dataset/index.js';
import { cliPath } from '../support/cli.js';
import { readTrecOrder } from '../support/rerank-oracle.js';
import { startRerankServer, type RerankServer } from '../support/rerank-server.js';
import { projectRoot } from '../support/shared.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');
let tmp = '';
let server: RerankServer;
let spec = '';
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'coreb-e2e-rerank-'));
  server = await startRerankServer({ format: 'yesno:openai' });
  spec = `yesno:openai:m?baseUrl=${encodeURIComponent(server.baseUrl)}`;
});
after(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs the CLI without blocking this process's event loop (the loopback server lives here). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, COREB_CACHE_DIR: join(tmp, 'cache') } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

interface Row {
  name: string;
  firstStage?: string;
  rerank?: { depth: number; recallCeiling: Record<string, number>; delta: Record<string, Record<string, number>>; pairs: { sent: number } };
  tasks: Record<string, { runFile: string }>;
}

test('coreb eval --reranker: a row per (retriever, reranker) with its rerank block, runs and top_ranked lists', async () => {
  const out = join(tmp, 'eval');
  const r = await cli([
    'eval',
    '--runs',
    'plain',
    '--tasks',
    'c2c',
    '--reranker',
    spec,
    '--rerank-depth',
    '10',
    '--top-ranked',
    '10',
    '--out',
    out,
    '--quiet',
  ]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /bm25 >> yesno:openai:m/);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Row[]; options: { rerankDepth: number } };
  const [first, rer] = results.retrievers;
  assert.equal(rer.firstStage, 'bm25');
  assert.equal(rer.rerank!.depth, 10);
  assert.equal(results.options.rerankDepth, 10);
  assert.ok(rer.rerank!.recallCeiling.code2code > 0);
  assert.equal(typeof rer.rerank!.delta.code2code['ndcg@10'], 'number');
  assert.ok(existsSync(join(out, rer.tasks.code2code.runFile)));
  const lines = readFileSync(join(out, 'runs', 'bm25.code2code.top_ranked.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const firstRun = readTrecOrder(join(out, first.tasks.code2code.runFile));
  for (const l of lines) assert.deepEqual(l['corpus-ids'], firstRun.get(l['query-id'] as string)!.slice(0, 10));
  assert.ok(!readFileSync(join(out, 'results.json'), 'utf8').includes('Bearer'));
});

test('coreb rerank --run: reranks an existing TREC run and scores it beside the original', async () => {
  const run = join(tmp, 'eval', 'runs', 'bm25.code2code.trec');
  const out = join(tmp, 'rerank');
  const r = await cli([
    'rerank',
    '--data',
    MINI,
    '--run',
    run,
    '--tasks',
    'c2c',
    '--reranker',
    spec,
    '--rerank-depth',
    '10',
    '--out',
    out,
    '--quiet',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Row[] };
  assert.equal(results.retrievers.length, 2);
  // The rows are named after the run as a user writes it here (its file name: it lies outside the
  // working directory), never after an absolute path.
  assert.equal(results.retrievers[1].firstStage, `run:${basename(run)}`);
  assert.doesNotMatch(readFileSync(join(out, 'leaderboard.md'), 'utf8'), new RegExp(tmp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.equal(results.retrievers[1].rerank!.pairs.sent, 0, 'the same pairs as the eval before: all cached');
  const before = JSON.parse(readFileSync(join(tmp, 'eval', 'results.json'), 'utf8')) as { retrievers: Row[] };
  assert.deepEqual(results.retrievers[1].rerank!.delta, before.retrievers[1].rerank!.delta);
});

test('an MTEB-style BEIR directory: the top_ranked candidate lists are reranked exactly', async () => {
  const { release } = await loadRelease(MINI);
  const task = releaseTasks(release).code2code;
  const dir = join(tmp, 'beir');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), task.corpus.map((d) => JSON.stringify({ _id: d.id, title: '', text: d.text })).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), task.queries.map((q) => JSON.stringify({ _id: q.id, text: q.text })).join('\n') + '\n');
  const qrels = ['query-id\tcorpus-id\tscore'];
  for (const [q, m] of task.qrels) for (const [d, l] of m) if (l >= 2) qrels.push(`${q}\t${d}\t1`);
  writeFileSync(join(dir, 'qrels', 'test.tsv'), qrels.join('\n') + '\n');
  const candidates = new Map<string, string[]>();
  for (const q of task.queries.slice(0, 12)) {
    const ids = task.corpus
      .filter((d) => d.id !== q.anchorId)
      .slice(0, 7)
      .map((d) => d.id);
    for (const [d, l] of task.qrels.get(q.id) ?? []) if (l >= 2 && !ids.includes(d)) ids.push(d);
    candidates.set(q.id, ids);
  }
  writeFileSync(
    join(dir, 'top_ranked.jsonl'),
    [...candidates].map(([q, ids]) => JSON.stringify({ 'query-id': q, 'corpus-ids': ids })).join('\n') + '\n',
  );
  const out = join(tmp, 'mteb');
  const r = await cli(['eval', '--runs', 'plain', '--data', dir, '--retriever', 'top-ranked', '--reranker', spec, '--out', out, '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Row[] };
  const rer = results.retrievers[1];
  const reranked = readTrecOrder(join(out, Object.values(rer.tasks)[0].runFile));
  assert.ok(reranked.size > 0);
  for (const [q, ids] of reranked) assert.deepEqual([...ids].sort(), [...candidates.get(q)!].sort(), `query ${q}: exactly its candidates`);
  assert.equal(rer.rerank!.depth, Math.max(...[...candidates.values()].map((c) => c.length)));
});

test('usage errors name what is missing', async () => {
  const r1 = await cli(['rerank', '--data', MINI, '--reranker', spec]);
  assert.equal(r1.status, 2);
  assert.match(r1.stderr, /needs --run FILE/);
  const r2 = await cli(['eval', '--reranker', 'yesno:openai:m', '--quiet']);
  assert.equal(r2.status, 2);
  assert.match(r2.stderr, /needs baseUrl/);
  const r3 = await cli(['eval', '--reranker', spec, '--rerank-fusion', 'rrf:q=1', '--quiet']);
  assert.equal(r3.status, 2);
  assert.match(r3.stderr, /`q=1` must be k=NUMBER or alpha=NUMBER/);
});

test('coreb cache stats/prune --store rerank: the score store, listed by reranker', async () => {
  const stats = await cli(['cache', 'stats', '--store', 'rerank', '--json']);
  assert.equal(stats.status, 0, stats.stderr);
  const s = JSON.parse(stats.stdout) as { keys: number; namespaces: { identity?: Record<string, unknown>; keys: number }[] };
  assert.ok(s.keys > 0);
  assert.equal(s.namespaces[0].identity?.provider, 'yesno:openai');
  assert.equal(s.namespaces[0].identity?.template, 'qwen3');
  const text = await cli(['cache', 'stats', '--store', 'rerank']);
  assert.match(text.stdout, /yesno:openai:m \(template=qwen3\): \d+ scores/);
  const pruned = await cli(['cache', 'prune', '--store', 'rerank', '--provider', 'yesno:openai', '--json']);
  assert.equal(pruned.status, 0, pruned.stderr);
  assert.equal((JSON.parse(pruned.stdout) as { kept: number; dropped: number }).kept, 0);
  const bad = await cli(['cache', 'stats', '--store', 'scores']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--store must be one of embeddings, rerank/);
});
