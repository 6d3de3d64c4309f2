import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { fixtureTables, tempDir, writeJsonlRelease, writeParquetRelease } from './validate-fixture.js';

test("coreb validate prints a valid release's statistics and exits 0", () => {
  const dir = writeJsonlRelease(tempDir());
  const r = runCli(['validate', dir]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /code_corpus\s+5\n/);
  assert.match(r.stdout, /text2code: 3 queries/);
  assert.match(r.stdout, /qrels: 4 \(rel=2: 2, rel=1: 2\)/);
  assert.match(r.stdout, /0 error\(s\), 0 warning\(s\): valid/);
});

test('coreb validate lists every problem with file:line and field, and exits 4', () => {
  const t = fixtureTables();
  t.code2code_qrels[1].doc_id = 'ghost';
  t.text2code_qrels[2].relevance = 0.5;
  t.code_corpus[4].language = 'cobol';
  const dir = writeJsonlRelease(tempDir(), t);
  const r = runCli(['validate', dir]);
  assert.equal(r.status, 4);
  assert.match(r.stdout, /error .*code2code_qrels\.jsonl:2: field `doc_id`: document `ghost` is not in code_corpus.*\[dangling-doc\]/);
  assert.match(r.stdout, /error .*text2code_qrels\.jsonl:3: field `relevance`: is 0\.5; expected an integer \[not-integer\]/);
  assert.match(r.stdout, /warning .*code_corpus\.jsonl:5: field `language`/);
  // c5 is also a c2t anchor declared python: a second warning.
  assert.match(r.stdout, /2 error\(s\), 2 warning\(s\): INVALID/);
});

test('coreb validate --format json gives stats and issues as data', () => {
  const t = fixtureTables();
  t.code2code_queries[0].meta_anchor_code_id = 'c404';
  const r = runCli(['validate', writeJsonlRelease(tempDir(), t), '--format', 'json']);
  assert.equal(r.status, 4);
  const out = JSON.parse(r.stdout) as {
    layout: string;
    ok: boolean;
    errors: number;
    stats: { tables: Record<string, number>; tasks: { code2code: { danglingAnchors: number } } };
    issues: Array<{ kind: string; line: number; field: string }>;
  };
  assert.equal(out.layout, 'release');
  assert.equal(out.ok, false);
  assert.equal(out.stats.tables.text_corpus, 3);
  assert.equal(out.stats.tasks.code2code.danglingAnchors, 1);
  assert.deepEqual(
    out.issues.map((i) => [i.kind, i.line, i.field]),
    [['dangling-anchor', 1, 'meta_anchor_code_id']],
  );
});

test('coreb validate reads the published parquet layout', () => {
  const dir = writeParquetRelease(tempDir(), { split: 'release_v9999' });
  const r = runCli(['validate', dir]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /CoREB release release_v9999/);
  assert.match(r.stdout, /code2code_qrels\s+2\n/);
});

test('coreb validate detects a BEIR directory', () => {
  const dir = tempDir('coreb-beir-e2e-');
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(join(dir, 'corpus.jsonl'), '{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b"}\n');
  writeFileSync(join(dir, 'queries.jsonl'), '{"_id": "q1", "text": "x"}\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td3\t1\n');
  const r = runCli(['validate', dir]);
  assert.equal(r.status, 4);
  assert.match(r.stdout, /2 documents, 1 queries/);
  assert.match(r.stdout, /test\.tsv:3: field `corpus-id`: document `d3` is not in corpus\.jsonl/);
});

test('coreb validate usage errors exit 2 and a missing directory exits 3', () => {
  assert.equal(runCli(['validate']).status, 2);
  const bad = runCli(['validate', tempDir(), '--format', 'yaml']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--format must be one of table, json/);
  const missing = runCli(['validate', join(tempDir(), 'nope')]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /not found/);
});
