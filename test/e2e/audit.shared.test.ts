import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditReport } from '../../src/core/audit-report.js';
import { runCli } from '../support/cli.js';
import { sharedPath } from '../support/shared.js';

const rows = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('coreb audit on CoREB v202602 agrees with counts taken straight from the JSONL files', () => {
  const dir = sharedPath('data', 'coreb', 'release_v2602');
  const r = runCli(['audit', dir, '--format', 'json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const a = JSON.parse(r.stdout) as AuditReport;
  for (const task of ['text2code', 'code2text', 'code2code']) {
    const queries = rows(join(dir, `${task}_queries.jsonl`));
    const qrels = rows(join(dir, `${task}_qrels.jsonl`));
    const rel = new Map<string, number>();
    for (const q of qrels) if ((q.relevance as number) >= 2) rel.set(q.query_id as string, (rel.get(q.query_id as string) ?? 0) + 1);
    const one = queries.filter((q) => rel.get(q.query_id as string) === 1).length;
    const t = a.tasks[task];
    assert.equal(t.queries, queries.length, task);
    assert.equal(t.oneToOneShare, one / queries.length, `${task} 1-to-1`);
    assert.equal(t.relevantPerQuery.max, Math.max(...rel.values()), `${task} max`);
    assert.equal(t.lexical.queries, rel.size, `${task} BM25 population`);
    assert.ok(t.lexical.ndcg10 > 0.1 && t.lexical.ndcg10 < 0.9 && t.lexical.rank1Share > 0 && t.lexical.rank1Share < 1);
  }
  // abbreviated_text: on every original problem text (positives of c2t), on no near-miss text.
  const proxies = a.tasks.code2text.labelProxies.map((p) => p.field);
  assert.ok(proxies.includes('meta.abbreviatedText') && proxies.includes('meta.isNoiseSample'), proxies.join(','));
  const code = rows(join(dir, 'code_corpus.jsonl'));
  const norm = new Map<string, number>();
  for (const c of code) norm.set((c.code as string).replace(/\s+/g, ' ').trim(), (norm.get((c.code as string).replace(/\s+/g, ' ').trim()) ?? 0) + 1);
  assert.equal(a.corpora.code.documents, code.length);
  assert.equal(
    a.corpora.code.exactDuplicates,
    [...norm.values()].reduce((s, n) => s + n - 1, 0),
  );
  assert.equal(a.corpora.text.documents, rows(join(dir, 'text_corpus.jsonl')).length);
  // Python programs filed as Ruby (e.g. code_v202601_00020 starts with `import json`): the detector says py.
  const lc = a.corpora.code.languageCheck!;
  const rubyAsPython = code.filter(
    (c) => c.language === 'ruby' && /^import \w+|^def \w+\(.*\):\s*$/m.test(c.code as string) && !/\bend\b/.test(c.code as string),
  );
  assert.ok(rubyAsPython.length > 0);
  assert.ok(
    (lc.byLanguage.ruby.detectedAs.py ?? 0) >= rubyAsPython.length - 2,
    `${JSON.stringify(lc.byLanguage.ruby)} vs ${rubyAsPython.length} python-looking ruby rows`,
  );
  assert.ok(lc.examples.some(([, declared, detected]) => declared === 'ruby' && detected === 'py'));
  // Label parity: C++ programs ending in a stray top-level `main();` (counted here with a plain
  // line test) — 113 of them, 38 labelled passing although no compiler accepts them as released.
  const lp = a.corpora.code.labelParity!;
  assert.equal(lp.labelled, code.filter((c) => typeof c.meta_passed === 'boolean').length);
  const strayRows = code.filter((c) => c.language === 'cpp' && /^main\(\);\s*$/m.test(c.code as string));
  const f = lp.findings.find((x) => x.check === 'cpp-stray-main-call')!;
  assert.equal(f.programs, strayRows.length);
  assert.equal(f.labelledPassing, strayRows.filter((c) => c.meta_passed === true).length);
  assert.deepEqual([f.programs, f.labelledPassing], [113, 38]);
  const text = runCli(['audit', dir, '--quiet']);
  assert.match(text.stdout, /cpp-stray-main-call: 113 cpp program\(s\) hold the pattern; 38 are labelled passing/);
  assert.match(text.stdout, /coreb exec --normalise official/);
});
