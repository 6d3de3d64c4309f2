/**
 * `coreb eval --protocol mteb` on the real v202602 release (../shared): per-task nDCG@10, MRR@10
 * and hit rate equal an independent computation, written here from MTEB's semantics, over the same
 * BM25 runs: MTEB's CoREB datasets (qrels reduced to rel-2 documents, queries without one dropped,
 * the code-to-code anchor kept in the corpus), pytrec_eval's ndcg_cut / success (scores as float32
 * descending, ties by docid descending) averaged over run ∩ qrels and rounded to 5 decimals, and
 * MTEB's own MRR (label > 0, Python's stable sort of double scores, unrounded mean).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { sharedPath } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-eval-mteb-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const release = sharedPath('data', 'coreb', 'release_v2602');

const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Python's round(x, 5) for the values met here (no exact decimal ties at 5 places). */
const round5 = (x: number) => Number(x.toFixed(5));

/** Code-point comparison of two ids (trec_eval compares UTF-8 bytes: the same order). */
function cmpCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

interface Entry {
  doc: string;
  score: number;
}

/** pytrec_eval (trec_eval 9.0.8) order: float32 score descending, then docid descending. */
function trecOrder(entries: readonly Entry[]): Entry[] {
  return [...entries].sort((a, b) => Math.fround(b.score) - Math.fround(a.score) || cmpCodePoints(b.doc, a.doc));
}

/** ndcg_cut_k of pytrec_eval: gains are the labels, discount log2(rank + 1), ideal from the qrels. */
function ndcgCut(ranked: readonly Entry[], qrels: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((e, i) => (dcg += (qrels.get(e.doc) ?? 0) / Math.log2(i + 2)));
  const ideal = [...qrels.values()]
    .filter((v) => v > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => (idcg += g / Math.log2(i + 2)));
  return idcg > 0 ? dcg / idcg : 0;
}

test("--protocol mteb on release_v2602: per-task nDCG@10, MRR@10 and hit rate equal an independent computation of MTEB's semantics over the same BM25 runs", () => {
  const out = join(tmp, 'mteb');
  const r = runCli(['eval', '--data', release, '--protocol', 'mteb', '--out', out, '--runs', 'plain', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
    protocol: { name: string };
    retrievers: Array<{
      taskMean: { metrics: Record<string, number> };
      tasks: Record<string, { queries: number; excludedQueries: number; emptyQueries: string[]; runFile: string; metrics: Record<string, number> }>;
    }>;
  };
  assert.equal(res.protocol.name, 'mteb');
  const bm25 = res.retrievers[0];
  const expectedQueries: Record<string, number> = { text2code: 1165, code2text: 1064, code2code: 169 };
  const report: string[] = [];
  for (const task of ['text2code', 'code2text', 'code2code']) {
    // MTEB's dataset: rel-2 qrels only; queries left without one are not evaluated.
    const qrels = new Map<string, Map<string, number>>();
    for (const row of readJsonl(join(release, `${task}_qrels.jsonl`))) {
      if (Number(row.relevance) < 2) continue;
      const q = String(row.query_id);
      if (!qrels.has(q)) qrels.set(q, new Map());
      qrels.get(q)!.set(String(row.doc_id), Number(row.relevance));
    }
    const queryIds = readJsonl(join(release, `${task}_queries.jsonl`))
      .map((q) => String(q.query_id))
      .filter((id) => qrels.has(id));
    // MTEB's results dict: the run file in file order, plus the queries coreb lists with an empty
    // ranked list (a TREC run has no line for them; MTEB's dict holds them with no documents).
    const results = new Map<string, Entry[]>();
    for (const id of bm25.tasks[task].emptyQueries) results.set(id, []);
    for (const line of readFileSync(join(out, bm25.tasks[task].runFile), 'utf8').split('\n')) {
      if (line === '') continue;
      const [qid, , doc, , score] = line.split(' ');
      if (!results.has(qid)) results.set(qid, []);
      results.get(qid)!.push({ doc, score: Number(score) });
    }
    let ndcg = 0;
    let hit = 0;
    let mrr = 0;
    let n = 0;
    for (const q of queryIds) {
      const entries = results.get(q);
      if (entries === undefined) continue; // pytrec_eval: run ∩ qrels
      n++;
      const labels = qrels.get(q)!;
      const ranked = trecOrder(entries);
      ndcg += ndcgCut(ranked, labels, 10);
      hit += ranked.slice(0, 10).some((e) => (labels.get(e.doc) ?? 0) >= 1) ? 1 : 0;
      // MTEB's mrr: sorted(items, key=score, reverse=True) is stable, so ties keep file order.
      const python = entries.map((e, i) => ({ ...e, i })).sort((a, b) => b.score - a.score || a.i - b.i);
      const first = python.slice(0, 10).findIndex((e) => (labels.get(e.doc) ?? 0) > 0);
      mrr += first >= 0 ? 1 / (first + 1) : 0;
    }
    const got = bm25.tasks[task];
    assert.equal(n, expectedQueries[task], `${task}: MTEB's population`);
    assert.equal(got.queries, n, `${task}: coreb's population`);
    assert.equal(got.metrics['ndcg@10'], round5(ndcg / n), `${task} nDCG@10`);
    assert.equal(got.metrics['hit@10'], round5(hit / n), `${task} hit rate@10`);
    assert.ok(Math.abs(got.metrics['mrr@10'] - mrr / n) < 1e-12, `${task} MRR@10: coreb ${got.metrics['mrr@10']} vs ${mrr / n}`);
    report.push(`${task} ${got.metrics['ndcg@10'].toFixed(5)} (${n} queries)`);
  }
  assert.equal(bm25.tasks.code2text.excludedQueries, 206, 'the 206 c2t_match negative pairs have no rel-2 document');
  process.stderr.write(
    `  bm25 --protocol mteb nDCG@10 on release_v2602: ${report.join(', ')}; task mean ${bm25.taskMean.metrics['ndcg@10'].toFixed(5)}\n`,
  );
});
