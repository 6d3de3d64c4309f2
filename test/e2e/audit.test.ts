import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditReport } from '../../src/core/audit-report.js';
import { runCli } from '../support/cli.js';
import { writeCoirLikeBeir } from '../support/coir-like.js';
import { projectRoot } from '../support/shared.js';

test('coreb audit on a CoIR-like BEIR directory: JSON shape, the real offline language detector, table output', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-audit-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeCoirLikeBeir(dir);
  const r = runCli(['audit', dir, '--format', 'json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const a = JSON.parse(r.stdout) as AuditReport;
  assert.deepEqual(Object.keys(a).sort(), ['corpora', 'dataset', 'tasks']);
  assert.deepEqual(Object.keys(a.corpora), ['corpus']);
  const task = Object.values(a.tasks)[0];
  assert.equal(task.oneToOneShare, 1);
  assert.equal(task.alignedIdShare, 1);
  const c = a.corpora.corpus;
  assert.equal(c.exactDuplicates, 1);
  assert.equal(c.nearDuplicates.threshold, 0.8);
  const lc = c.languageCheck!;
  assert.match(lc.detector, /vscode-languagedetection/);
  assert.equal(lc.checked, 11);
  // guesslang reads the Java class as Java, not Python.
  assert.ok(
    lc.examples.some(([id, declared, detected]) => id === 'd4' && declared === 'python' && detected === 'java'),
    JSON.stringify(lc),
  );
  // The five full Python programs (d1, d2, d3, d7, d8) read as Python; guesslang is unsure on 2-line snippets.
  assert.ok(lc.byLanguage.python.agree >= 5, JSON.stringify(lc.byLanguage));
  const table = runCli(['audit', dir, '--no-language-check', '--quiet']);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /1-to-1/);
  assert.match(table.stdout, /title present: 100\.0% of positives, 0\.0% of others/);
  const bad = runCli(['audit', join(dir, 'missing')]);
  assert.equal(bad.status, 3);
  assert.match(bad.stderr, /missing: no such directory/);
});

test('coreb audit refuses what coreb validate refuses (one rule): a dangling qrel in a release exits 4 in both', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-audit-dangling-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(projectRoot, 'data', 'coreb-mini', 'release'), dir, { recursive: true });
  appendFileSync(join(dir, 'text2code_qrels.jsonl'), '{"query_id": "q_t2c_canonical_retro_any_0001", "doc_id": "code_nowhere", "relevance": 2}\n');
  const validate = runCli(['validate', dir]);
  assert.equal(validate.status, 4, validate.stdout);
  assert.match(validate.stdout, /code_nowhere/);
  const audit = runCli(['audit', dir, '--no-language-check', '--quiet']);
  assert.equal(audit.status, 4, audit.stdout);
  assert.match(audit.stderr, /document `code_nowhere` is not in code_corpus/);
});
