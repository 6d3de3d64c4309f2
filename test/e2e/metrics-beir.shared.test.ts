/**
 * BEIR 2.2.0's evaluation (beir/plain.json in every fixture case) reproduced with coreb's options:
 * level 1 measures averaged over run ∩ qrels, `ignore_identical_ids` as an anchor map qid -> qid,
 * and the opt-in BEIR-style MRR (file-order ties, mean over all qrels queries); BEIR rounds to 5
 * decimals.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseTrecQrels, parseTrecRun, trecQrelsToMap, trecRunToMap } from '../../src/dataset/index.js';
import { evaluate } from '../../src/metrics/index.js';
import { sharedPath } from '../support/shared.js';

const casesDir = sharedPath('fixtures', 'trec', 'cases');
const NAMES: Record<string, string> = { 'NDCG@': 'ndcg_cut_', 'MAP@': 'map_cut_', 'Recall@': 'recall_', 'P@': 'P_', 'MRR@': 'mrr_beir_' };

for (const name of readdirSync(casesDir).sort()) {
  test(`${name}: BEIR evaluate() and mrr() values`, () => {
    const dir = join(casesDir, name);
    const qrels = trecQrelsToMap(parseTrecQrels(readFileSync(join(dir, 'qrels.txt'))));
    const run = trecRunToMap(parseTrecRun(readFileSync(join(dir, 'run.txt'))));
    const ref = JSON.parse(readFileSync(join(dir, 'beir', 'plain.json'), 'utf8')) as Record<string, Record<string, number> | string>;
    let compared = 0;
    for (const [section, values] of Object.entries(ref)) {
      if (typeof values === 'string') continue;
      const identical = section.endsWith('ignore_identical_ids=True');
      const anchors = identical ? new Map([...run.keys()].map((q) => [q, q])) : undefined;
      const measures = Object.keys(values).map((k) => {
        const prefix = Object.keys(NAMES).find((p) => k.startsWith(p));
        assert.ok(prefix, `unknown BEIR key ${k}`);
        return NAMES[prefix] + k.slice(prefix.length);
      });
      // BEIR's mrr() raises KeyError for run queries without qrels; such cases carry no MRR values.
      const ev = evaluate(qrels, run, { measures: measures.map((m) => m.replace(/_(\d+)$/, '.$1')), anchors });
      Object.entries(values).forEach(([k, v], i) => {
        const mine = ev.aggregate[measures[i]];
        assert.ok(Math.abs(mine - v) <= 5.000001e-6, `${section} ${k}: ${mine} vs ${v}`);
        compared++;
      });
    }
    assert.ok(compared > 0);
  });
}
