/**
 * The reranking stage: fusion specs, anchor removal before the cut, RRF arithmetic, and `runEval`
 * with BM25 + a loopback yes/no server of known answers on the bundled coreb-mini release: the
 * reranked runs equal an independent reordering, deltas and recall ceiling equal an independent
 * computation, a second run sends nothing and an interrupted run resumes without re-sending.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Doc, Query } from '../core/dataset.js';
import type { RerankPair, Reranker } from '../core/rerank.js';
import { loadRelease } from '../dataset/release.js';
import { releaseTasks } from '../dataset/release-tasks.js';
import { verifyRerankedEval } from '../../test/support/rerank-oracle.js';
import { hashScore, startRerankServer, type RerankServer } from '../../test/support/rerank-server.js';
import { projectRoot } from '../../test/support/shared.js';
import { metricDeltas, parseRerankFusion, rerankLists } from './rerank-stage.js';
import { runEval } from './run-eval.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');
const tmp = mkdtempSync(join(tmpdir(), 'coreb-rerank-stage-'));
const servers: RerankServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(tmp, { recursive: true, force: true });
});

test('--rerank-fusion: none, rrf, rrf with k and alpha; bad values name the part', () => {
  assert.deepEqual(parseRerankFusion(undefined), { kind: 'none' });
  assert.deepEqual(parseRerankFusion('rrf'), { kind: 'rrf', k: 60, alpha: 4 });
  assert.deepEqual(parseRerankFusion('rrf:k=10,alpha=0.5'), { kind: 'rrf', k: 10, alpha: 0.5 });
  assert.throws(() => parseRerankFusion('rrf:beta=1'), /`beta=1` must be k=NUMBER or alpha=NUMBER/);
  assert.throws(() => parseRerankFusion('max'), /must be none, rrf/);
});

/** A reranker scoring by a table, recording what it was sent. */
function tableReranker(table: Record<string, number>, sent: RerankPair[] = []): Reranker {
  return {
    id: 'table',
    identity: () => ({}),
    describe: () => ({}),
    instruction: () => '',
    async score(pairs) {
      sent.push(...pairs);
      return Float64Array.from(pairs, (p) => table[p.doc]);
    },
  };
}

test('rerankLists: the anchor is dropped before the cut, candidates re-sorted, RRF fuses ranks', async () => {
  const docs = new Map<string, Doc>(['a', 'b', 'c', 'd', 'anchor'].map((id) => [id, { id, text: id }]));
  const queries: Query[] = [{ id: 'q', text: 'query', anchorId: 'anchor' }];
  const lists = new Map([['q', { docIds: ['anchor', 'a', 'b', 'c', 'd'], scores: Float64Array.of(5, 4, 3, 2, 1) }]]);
  const sent: RerankPair[] = [];
  const r = tableReranker({ a: 0.1, b: 0.9, c: 0.5, d: 1, anchor: 9 }, sent);
  const out = await rerankLists({ reranker: r, queries, docs, lists, depth: 3, fusion: { kind: 'none' }, exclude: new Map([['q', ['anchor']]]) });
  assert.deepEqual(
    sent.map((p) => p.doc),
    ['a', 'b', 'c'],
    'three real candidates; the anchor took no slot',
  );
  assert.deepEqual(out.get('q')!.docIds, ['b', 'c', 'a']);
  assert.deepEqual(Array.from(out.get('q')!.scores), [0.9, 0.5, 0.1]);
  // RRF k=1, alpha=1: a = 1/(1+3)+1/(1+1) = 0.75, b = 1/2+1/3, c = 1/3+1/4
  const fused = await rerankLists({
    reranker: r,
    queries,
    docs,
    lists,
    depth: 3,
    fusion: { kind: 'rrf', k: 1, alpha: 1 },
    exclude: new Map([['q', ['anchor']]]),
  });
  assert.deepEqual(fused.get('q')!.docIds, ['b', 'a', 'c']);
  assert.deepEqual(Array.from(fused.get('q')!.scores), [1 / 2 + 1 / 3, 1 / 4 + 1 / 2, 1 / 3 + 1 / 4]);
});

test('metricDeltas: absolute and relative, null where the first stage is 0', () => {
  assert.deepEqual(metricDeltas({ a: 0.5, b: 0 }, { a: 0.75, b: 0.25 }), { delta: { a: 0.25, b: 0.25 }, relative: { a: 0.5, b: null } });
});

const DEPTH = 20;

async function evalWith(server: RerankServer, cacheDir: string, outDir: string, overwrite = false, tasks?: string[]) {
  return runEval({
    overwrite,
    data: MINI,
    tasks,
    retrievers: ['bm25'],
    rerankers: [`yesno:openai:m?baseUrl=${encodeURIComponent(server.baseUrl)}&maxTokens=10000000&backoffMs=1&maxRetries=1`],
    rerankDepth: DEPTH,
    outDir,
    cacheDir,
    // The release's token statistics are the same for every call: kept in the test run's cache
    // (scripts/run-tests.mjs sets it), computed once instead of once per eval.
    statsCacheDir: process.env.COREB_CACHE_DIR ?? join(cacheDir, 'stats'),
    corebVersion: 'test',
  });
}

test('coreb-mini: BM25 >> yes/no server of known answers equals the independent reordering; deltas and ceiling match', async () => {
  const server = await startRerankServer({ format: 'yesno:openai' });
  servers.push(server);
  const out = join(tmp, 'out1');
  const { results } = await evalWith(server, join(tmp, 'cache1'), out);
  const [first, rer] = results.retrievers;
  assert.equal(rer.name, 'bm25 >> yesno:openai:m');
  assert.equal(rer.firstStage, 'bm25');
  assert.equal(rer.rerank!.depth, DEPTH);
  const { release } = await loadRelease(MINI);
  const checked = verifyRerankedEval(out, first, rer, releaseTasks(release), DEPTH, hashScore, (m) => assert.fail(m));
  assert.equal(
    checked,
    Object.values(release.tasks).reduce((n, t) => n + t.queries.length, 0),
  );
  const rel = rer.rerank!.deltaRelative.overall['ndcg@10']!;
  assert.ok(Math.abs(rel - rer.rerank!.delta.overall['ndcg@10'] / first.overall.metrics['ndcg@10']) < 1e-12);

  const calls = server.calls.length;
  const again = await evalWith(server, join(tmp, 'cache1'), join(tmp, 'out1b'));
  assert.equal(server.calls.length, calls, 'a second identical run sends nothing');
  assert.equal(again.results.retrievers[1].rerank!.pairs.sent, 0);
  assert.deepEqual(again.results.retrievers[1].tasks, rer.tasks);
});

test('coreb-mini: an interrupted rerank resumes without re-sending what was answered', async () => {
  const failing = await startRerankServer({ format: 'yesno:openai', fault: (n) => (n >= 4 ? { status: 400, body: '{"error":"stop"}' } : undefined) });
  servers.push(failing);
  const cache = join(tmp, 'cache2');
  // code-to-code only (96 queries, 1,920 pairs): enough calls to fail part-way; the full release is the test above.
  const c2c = ['c2c'];
  // The failing reranker is recorded, the first stage's row kept.
  const partial = await evalWith(failing, cache, join(tmp, 'out2'), false, c2c);
  assert.deepEqual(
    partial.results.retrievers.map((r) => r.name),
    ['bm25'],
  );
  assert.equal(partial.results.failed?.length, 1);
  assert.match(partial.results.failed![0].error, /HTTP 400/);
  assert.equal(partial.results.failed![0].name, 'bm25 >> yesno:openai:m');
  const answered = new Set(failing.calls.slice(0, 3).flatMap((c) => c.pairs.map((p) => `${p.query}\u0000${p.doc}`)));
  assert.ok(answered.size > 0);
  const server = await startRerankServer({ format: 'yesno:openai' });
  servers.push(server);
  const { results } = await evalWith(server, cache, join(tmp, 'out2'), true, c2c);
  const resent = server.calls.flatMap((c) => c.pairs).filter((p) => answered.has(`${p.query}\u0000${p.doc}`));
  assert.equal(resent.length, 0, 'nothing answered before is sent again');
  const fresh = await startRerankServer({ format: 'yesno:openai' });
  servers.push(fresh);
  const whole = await evalWith(fresh, join(tmp, 'cache3'), join(tmp, 'out3'), false, c2c);
  assert.equal(server.scored() + answered.size, fresh.scored());
  assert.deepEqual(results.retrievers[1].tasks.code2code.metrics, whole.results.retrievers[1].tasks.code2code.metrics);
});
