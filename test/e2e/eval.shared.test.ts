/**
 * `coreb eval` on the real CoREB v202602 release (../shared): a third-party scored run reproduces
 * its reported code-to-code metrics through `run:`, and BM25 runs end to end over all three tasks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { sharedPath } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-eval-shared-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const release = sharedPath('data', 'coreb', 'release_v2602');

interface Report {
  task_metrics: Record<string, { queries: number; missing_queries: number; 'ndcg@10': number; 'recall@10': number; 'map@10': number }>;
  runs: Record<string, Record<string, Record<string, number>>>;
}

test('the scored third-party run, evaluated through run:, reproduces its code2code task_metrics to 1e-6', () => {
  const dir = sharedPath('data', 'coreb', 'reports');
  const name = readdirSync(dir).find((f) => f.endsWith('.json'))!;
  const report = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Report;
  const lines: string[] = [];
  for (const [qid, docs] of Object.entries(report.runs.code2code)) {
    // Rank column written in file order; trec_eval (and coreb) ignore it and sort by score.
    Object.entries(docs).forEach(([docid, score], i) => lines.push(`${qid} Q0 ${docid} ${i + 1} ${score} third-party`));
  }
  const run = join(tmp, 'third-party.c2c.trec');
  writeFileSync(run, lines.join('\n') + '\n');
  const r = runCli(['eval', '--data', release, '--tasks', 'c2c', '--retriever', `run:${run}`, '--format', 'json', '--no-per-query', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const got = (
    JSON.parse(r.stdout) as {
      retrievers: Array<{ tasks: Record<string, { queries: number; missingQueries: number; metrics: Record<string, number> }> }>;
    }
  ).retrievers[0].tasks.code2code;
  const want = report.task_metrics.code2code;
  assert.equal(got.queries, want.queries);
  assert.equal(got.missingQueries, want.missing_queries);
  for (const m of ['ndcg@10', 'recall@10', 'map@10'] as const) {
    assert.ok(Math.abs(got.metrics[m] - want[m]) < 1e-6, `${m}: coreb ${got.metrics[m]} vs reported ${want[m]}`);
  }
});

test('coreb eval with no options reproduces the published protocol on release_v2602 (1,270 c2t queries, negatives as 0) and BM25 beats the third-party code-aware BM25', () => {
  const out = join(tmp, 'bm25');
  const t0 = performance.now();
  const r = runCli(['eval', '--data', release, '--out', out, '--runs', 'plain']);
  const seconds = (performance.now() - t0) / 1000;
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Leaderboard/);
  assert.match(r.stdout, /c2t_match negatives counted as 0/);
  assert.match(r.stdout, /^population: t2c 1165, c2t 1270 \(incl\. 206 c2t_match negatives scored 0\), c2c 169 queries$/m);
  const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
    dataset: { counts: Record<string, { corpus: number; queries: number }> };
    retrievers: Array<{
      overall: { queries: number; metrics: Record<string, number> };
      taskMean: { queries: number; metrics: Record<string, number> };
      tasks: Record<
        string,
        { queries: number; excludedQueries: number; zeroedQueries: number; emptyQueries: string[]; metrics: Record<string, number> }
      >;
    }>;
  };
  assert.deepEqual(res.dataset.counts, {
    text2code: { corpus: 1670, queries: 1165 },
    code2text: { corpus: 835, queries: 1270 },
    code2code: { corpus: 1670, queries: 169 },
  });
  const bm25 = res.retrievers[0];
  assert.equal(bm25.tasks.code2text.zeroedQueries, 206, 'the 206 negative c2t_match pairs, counted as 0');
  assert.equal(bm25.tasks.code2text.excludedQueries, 0);
  assert.equal(bm25.tasks.code2text.queries, 1270);
  assert.equal(bm25.overall.queries, 1165 + 1270 + 169);
  // run files at the measures' depth (100; code-to-code one more for the anchor; ties with the last kept)
  assert.equal((res as unknown as { options: { runDepth: number } }).options.runDepth, 100);
  for (const task of ['text2code', 'code2text', 'code2code']) {
    const perQuery = new Map<string, number>();
    for (const line of readFileSync(join(out, 'runs', `bm25.${task}.trec`), 'utf8')
      .trim()
      .split('\n')) {
      const q = line.slice(0, line.indexOf(' '));
      perQuery.set(q, (perQuery.get(q) ?? 0) + 1);
    }
    const counts = [...perQuery.values()];
    const full = task === 'code2code' ? 101 : 100;
    assert.ok(counts.filter((n) => n >= full).length >= 0.9 * counts.length, `${task}: most queries have ${full} documents in the run file`);
  }
  // and the run file gives back exactly the values reported
  const again = runCli([
    'eval',
    '--data',
    release,
    '--tasks',
    't2c',
    '--retriever',
    `run:${join(out, 'runs', 'bm25.text2code.trec')}`,
    '--format',
    'json',
    '--no-per-query',
    '--quiet',
  ]);
  assert.equal(again.status, 0, again.stderr);
  const reread = (JSON.parse(again.stdout) as { retrievers: Array<{ tasks: Record<string, { metrics: Record<string, number> }> }> }).retrievers[0]
    .tasks.text2code.metrics;
  for (const k of ['ndcg@10', 'recall@100', 'map@100', 'mrr@10']) assert.equal(reread[k], res.retrievers[0].tasks.text2code.metrics[k], k);
  const m = bm25.overall.metrics;
  const t = bm25.tasks;
  const mean = (k: string) => (t.text2code.metrics[k] + t.code2text.metrics[k] + t.code2code.metrics[k]) / 3;
  assert.ok(Math.abs(bm25.taskMean.metrics['ndcg@10'] - mean('ndcg@10')) < 1e-12, 'task mean = unweighted mean of the task means');
  // Third-party code-aware BM25 on the same release with the negatives excluded: 0.3256 / 0.4647 /
  // 0.2707. The 206 negatives score 0 in every measure, so the excluded mean is sum / (n - 206).
  const excluded = (k: string) => (m[k] * bm25.overall.queries) / (bm25.overall.queries - 206);
  assert.ok(excluded('ndcg@10') > 0.3256 && excluded('recall@10') > 0.4647 && excluded('map@10') > 0.2707, JSON.stringify(m));
  process.stderr.write(
    `  bm25 on release_v2602 in ${seconds.toFixed(1)}s: overall nDCG@10 ${m['ndcg@10'].toFixed(4)} R@10 ${m['recall@10'].toFixed(4)} MAP@10 ${m['map@10'].toFixed(4)}, ` +
      `task mean nDCG@10 ${bm25.taskMean.metrics['ndcg@10'].toFixed(4)} (negatives excluded: overall nDCG@10 ${excluded('ndcg@10').toFixed(4)})\n`,
  );
});
