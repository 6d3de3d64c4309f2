/**
 * The reranking stage on the real CoREB release v202602: BM25 first stage, top 128 reranked by a
 * loopback yes/no server whose answers are known (a hash of query and document, returned as exact
 * log-probs). The reranked run must equal, query by query, the reordering this test computes on its
 * own from the BM25 run, and the reported deltas and recall ceiling must equal this test's own
 * strict nDCG@10 / Recall@10 computation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadRelease, releaseTasks } from '../../src/dataset/index.js';
import { runEval } from '../../src/eval/index.js';
import { verifyRerankedEval } from '../support/rerank-oracle.js';
import { hashScore, startRerankServer } from '../support/rerank-server.js';
import { sharedPath } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-rerank-v2602-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('v202602: BM25 >> known yes/no answers equals the independent reordering; deltas and recall ceiling match', async (t) => {
  const data = sharedPath('data', 'coreb', 'release_v2602');
  const server = await startRerankServer({ format: 'yesno:openai' });
  try {
    const spec = `yesno:openai:known?baseUrl=${encodeURIComponent(server.baseUrl)}&maxTokens=100000000&batchSize=64&concurrency=4`;
    const out = join(tmp, 'out');
    const t0 = performance.now();
    const { results } = await runEval({
      data,
      retrievers: ['bm25'],
      rerankers: [spec],
      rerankDepth: 128,
      outDir: out,
      // the oracle re-sorts each first-stage run's top 128 itself: every document retrieved is written
      runDepth: 'all',
      cacheDir: join(tmp, 'cache'),
      corebVersion: 'test',
      perQuery: false,
    });
    const [first, rer] = results.retrievers;
    assert.equal(rer.firstStage, 'bm25');
    assert.equal(rer.rerank!.depth, 128);
    const { release } = await loadRelease(data);
    const checked = verifyRerankedEval(out, first, rer, releaseTasks(release), 128, hashScore, (m) => assert.fail(m));
    assert.equal(
      checked,
      Object.values(release.tasks).reduce((n, x) => n + x.queries.length, 0),
    );
    t.diagnostic(
      `${checked} queries, ${rer.rerank!.pairs.requested} pairs (${rer.rerank!.pairs.sent} sent) in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
        `recall ceiling ${JSON.stringify(rer.rerank!.recallCeiling)}; overall delta ndcg@10 ${rer.rerank!.delta.overall['ndcg@10'].toFixed(4)}`,
    );
    const calls = server.calls.length;
    const again = await runEval({
      data,
      retrievers: ['bm25'],
      rerankers: [spec],
      rerankDepth: 128,
      cacheDir: join(tmp, 'cache'),
      corebVersion: 'test',
      perQuery: false,
    });
    assert.equal(server.calls.length, calls, 'the second run sends nothing');
    assert.deepEqual(
      again.results.retrievers[1].tasks,
      Object.fromEntries(Object.entries(rer.tasks).map(([k, v]) => [k, (({ runFile: _r, ...rest }) => rest)(v)])),
    );
  } finally {
    await server.close();
  }
});
