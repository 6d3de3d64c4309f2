/**
 * The scored third-party run in ../shared/data/coreb/reports (v202602 code-to-code) evaluated under
 * the CoREB protocol (level 2, strict nDCG, anchors removed) reproduces its reported task_metrics.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { evaluate, measurePreset } from '../../src/metrics/index.js';
import { sharedPath } from '../support/shared.js';

function jsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('the code2code report reproduces ndcg@10, recall@10 and map@10 to 1e-6', () => {
  const reports = sharedPath('data', 'coreb', 'reports');
  const file = readdirSync(reports).find((f) => f.includes('code2code') && f.endsWith('.json'));
  assert.ok(file, 'no code2code report found');
  const report = JSON.parse(readFileSync(`${reports}/${file}`, 'utf8')) as {
    task_metrics: { code2code: { queries: number; missing_queries: number; 'ndcg@10': number; 'recall@10': number; 'map@10': number } };
    runs: { code2code: Record<string, Record<string, number>> };
  };
  const release = sharedPath('data', 'coreb', 'release_v2602');
  const qrels = new Map<string, Map<string, number>>();
  for (const r of jsonl(`${release}/code2code_qrels.jsonl`)) {
    const q = r.query_id as string;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)?.set(r.doc_id as string, r.relevance as number);
  }
  const anchors = new Map<string, string>();
  for (const r of jsonl(`${release}/code2code_queries.jsonl`)) {
    if (typeof r.meta_anchor_code_id === 'string') anchors.set(r.query_id as string, r.meta_anchor_code_id);
  }
  const run = new Map(Object.entries(report.runs.code2code).map(([q, docs]) => [q, new Map(Object.entries(docs))]));
  const ev = evaluate(qrels, run, { measures: ['ndcg@10', 'recall@10', 'map@10'], ...measurePreset('coreb'), anchors });
  const want = report.task_metrics.code2code;
  assert.equal(ev.perQuery.size, want.queries);
  assert.equal(ev.semantics.anchors, true);
  assert.ok(Math.abs(ev.aggregate.ndcg_cut_10 - want['ndcg@10']) < 1e-6, `ndcg@10 ${ev.aggregate.ndcg_cut_10} vs ${want['ndcg@10']}`);
  assert.ok(Math.abs(ev.aggregate.recall_10 - want['recall@10']) < 1e-6, `recall@10 ${ev.aggregate.recall_10} vs ${want['recall@10']}`);
  assert.ok(Math.abs(ev.aggregate.map_cut_10 - want['map@10']) < 1e-6, `map@10 ${ev.aggregate.map_cut_10} vs ${want['map@10']}`);
});
