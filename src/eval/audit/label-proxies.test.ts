import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, RetrievalTask } from '../../core/dataset.js';
import { findTaskLabelProxies, labelProxyIssues } from './label-proxies.js';

/** 6 positives with a `summary` meta field, 12 hard negatives without one; `lang` is on both. */
function task(summaryOnNegatives: boolean): RetrievalTask {
  const corpus: Doc[] = [];
  const qrels = new Map<string, Map<string, number>>();
  for (let i = 0; i < 6; i++) {
    corpus.push({ id: `p${i}`, text: 'x', meta: { summary: 's', lang: 'en' } });
    const labels = new Map([[`p${i}`, 2]]);
    for (const j of [2 * i, 2 * i + 1]) {
      corpus.push({ id: `n${j}`, text: 'y', meta: { summary: summaryOnNegatives ? 's' : null, lang: 'en' } });
      labels.set(`n${j}`, 1);
    }
    qrels.set(`q${i}`, labels);
  }
  corpus.push({ id: 'u', text: 'unjudged' });
  return { name: 't', corpus, queries: [...qrels.keys()].map((id) => ({ id, text: id })), qrels };
}

test('a field on the positives only is a label proxy, found from the qrels; a field on both classes is not', () => {
  const found = findTaskLabelProxies([['code2text', task(false)]]);
  assert.deepEqual(
    found.map((p) => [p.task, p.field, p.kind, p.positives, p.others]),
    [['code2text', 'meta.summary', 'presence', 1, 0]],
  );
  assert.deepEqual(findTaskLabelProxies([['code2text', task(true)]]), []);
  const issues = labelProxyIssues([['code2text', task(false)]], () => 'text_corpus');
  assert.equal(issues.length, 1);
  assert.deepEqual([issues[0].severity, issues[0].kind, issues[0].file, issues[0].field], ['warning', 'label-proxy', 'text_corpus', 'meta.summary']);
});

test('qrels without hard negatives (binary BEIR) report no label proxy', () => {
  const t = task(false);
  for (const labels of t.qrels.values()) for (const [d, v] of labels) if (v === 1) labels.delete(d);
  assert.deepEqual(findTaskLabelProxies([['beir', t]]), []);
});
