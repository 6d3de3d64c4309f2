import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  // The text rendering of the same finding (the language detector, 40 s here, is left out: it is checked above).
  const text = runCli(['audit', dir, '--no-language-check', '--quiet']);
  assert.match(text.stdout, /cpp-stray-main-call: 113 cpp program\(s\) hold the pattern; 38 are labelled passing/);
  assert.match(text.stdout, /coreb exec --normalise official/);
});

test('coreb audit on v202602: duplicate query texts with other qrels and labels against verdicts, counted from the JSONL; shared rows with a second release', () => {
  const dir = sharedPath('data', 'coreb', 'release_v2602');
  const r = runCli(['audit', dir, '--no-language-check', '--format', 'json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const a = JSON.parse(r.stdout) as AuditReport;
  const code = new Map(rows(join(dir, 'code_corpus.jsonl')).map((c) => [c.code_id as string, c]));
  for (const task of ['text2code', 'code2text', 'code2code']) {
    const queries = rows(join(dir, `${task}_queries.jsonl`));
    const qrels = rows(join(dir, `${task}_qrels.jsonl`));
    const key = new Map<string, string[]>();
    for (const q of qrels) key.set(q.query_id as string, [...(key.get(q.query_id as string) ?? []), `${q.doc_id}=${q.relevance}`]);
    const byText = new Map<string, string[]>();
    for (const q of queries) byText.set(q.query as string, [...(byText.get(q.query as string) ?? []), q.query_id as string]);
    // A query counts when another query with its exact text has other qrels.
    const qrelsOf = (id: string) => (key.get(id) ?? []).sort().join(' ');
    const conflicting = queries.filter((q) => byText.get(q.query as string)!.some((o) => qrelsOf(o) !== qrelsOf(q.query_id as string))).length;
    const d = a.tasks[task].duplicateQueryTexts!;
    assert.equal(d.conflictingQueries, conflicting, `${task} conflicting duplicate texts`);
    assert.ok(d.ceilingNdcg10 > 0 && d.ceilingNdcg10 <= 1);
    // Labels against verdicts (code targets only).
    if (task === 'code2text') continue;
    let failing2 = 0;
    let passing1 = 0;
    for (const q of qrels) {
      const c = code.get(q.doc_id as string);
      if (c === undefined) continue;
      if ((q.relevance as number) >= 2 && c.meta_passed === false) failing2++;
      if (q.relevance === 1 && c.meta_passed === true) passing1++;
    }
    const v = a.tasks[task].labelVerdicts!;
    assert.deepEqual([v.relevantFailing.judgments, v.belowLevelPassing.judgments], [failing2, passing1], task);
  }
  // The figures the issue quotes for v202602 text-to-code.
  assert.equal(a.tasks.text2code.labelVerdicts!.relevantFailing.judgments, 199);
  assert.equal(a.tasks.code2text.duplicateQueryTexts!.conflictingQueries, 1270);
  const text = runCli(['audit', dir, '--no-language-check', '--quiet']).stdout;
  assert.match(text, /text2code: \d+ of 1165 queries share their exact text with a query whose qrels differ/);
  assert.match(text, /relevance >= 2 on programs labelled failing: 199 judgments, \d+ programs: cpp \d+/);

  // A second release made from this one: 100 programs under new ids, 50 programs edited.
  const other = mkdtempSync(join(tmpdir(), 'coreb-audit-other-'));
  try {
    for (const f of readdirSync(dir)) if (f.endsWith('.jsonl')) copyFileSync(join(dir, f), join(other, f));
    const docs = rows(join(dir, 'code_corpus.jsonl'));
    const renamed = new Map(docs.slice(0, 100).map((c) => [c.code_id as string, `${c.code_id as string}_b`]));
    const edited = docs.slice(100, 150).map((c) => c.code_id as string);
    const out = docs.map((c) => {
      const id = c.code_id as string;
      return { ...c, code_id: renamed.get(id) ?? id, code: edited.includes(id) ? `${c.code as string}\n// edited ${id}` : c.code };
    });
    writeFileSync(join(other, 'code_corpus.jsonl'), out.map((o) => JSON.stringify(o)).join('\n') + '\n');
    for (const t of ['text2code', 'code2code']) {
      const q = rows(join(dir, `${t}_qrels.jsonl`)).map((x) => ({ ...x, doc_id: renamed.get(x.doc_id as string) ?? x.doc_id }));
      writeFileSync(join(other, `${t}_qrels.jsonl`), q.map((o) => JSON.stringify(o)).join('\n') + '\n');
    }
    for (const t of ['code2code', 'code2text']) {
      const anchors = rows(join(dir, `${t}_queries.jsonl`)).map((x) => ({
        ...x,
        meta_anchor_code_id: renamed.get(x.meta_anchor_code_id as string) ?? x.meta_anchor_code_id,
      }));
      writeFileSync(join(other, `${t}_queries.jsonl`), anchors.map((o) => JSON.stringify(o)).join('\n') + '\n');
    }
    const x = runCli(['audit', dir, other, '--no-language-check', '--format', 'json', '--quiet']);
    assert.equal(x.status, 0, x.stderr);
    const shared = (JSON.parse(x.stdout) as AuditReport).crossRelease!;
    // Counted here: a program's text in the other release, and whether under its own id.
    const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
    const idsByText = new Map<string, string[]>();
    for (const o of out) idsByText.set(norm(o.code as string), [...(idsByText.get(norm(o.code as string)) ?? []), o.code_id as string]);
    const sameText = docs.filter((c) => idsByText.has(norm(c.code as string)));
    const c = shared.corpora.code;
    assert.equal(c.sameText, sameText.length);
    assert.equal(c.sameTextOtherId, sameText.filter((d) => !idsByText.get(norm(d.code as string))!.includes(d.code_id as string)).length);
    assert.equal(c.sameId, docs.length - 100);
    assert.ok(c.sameText <= docs.length - 50 && c.sameTextOtherId >= 90, JSON.stringify(c));
    assert.equal(shared.corpora.text.sameText, shared.corpora.text.documents);
    assert.equal(shared.queries.text2code.sameText, 1165);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
