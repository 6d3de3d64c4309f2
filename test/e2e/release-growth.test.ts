/**
 * A release that grew after this coreb was written (v202603's three code-to-code subtasks, an
 * invented `c2c_future_x`, a query of an unknown family, an unknown table and meta field) loads,
 * validates with warnings that name each novelty, and is scored per subtask: nothing a later
 * release adds is refused unless it makes a result wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/judge.js';
import { writeGrownRelease } from '../support/grown-release.js';

const grown = writeGrownRelease(join(tempDir('coreb-e2e-growth-'), 'release_v9901'));

test('validate: a grown release is valid (exit 0); each novelty is one warning naming it and what coreb does with it', () => {
  const r = runCli(['validate', grown.dir, '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { issues: Array<{ severity: string; kind: string; message: string; line?: number }> };
  const errors = report.issues.filter((i) => i.severity === 'error');
  assert.deepEqual(errors, []);
  const of = (kind: string) => report.issues.filter((i) => i.kind === kind);
  // The v202603 subtasks are known: no warning for them.
  assert.ok(!report.issues.some((i) => /^subtask `(c2c_mono_lang|c2c_cross_model)`/.test(i.message)), 'v202603 subtasks are known');
  assert.equal(of('unknown-subtask').length, 1);
  assert.match(of('unknown-subtask')[0].message, /`c2c_future_x` is new to this coreb.*13 queries are scored as a code2code subtask of its own/);
  assert.equal(of('unknown-family').length, 1);
  assert.match(of('unknown-family')[0].message, /`x2y_probe`.*one query is skipped, not scored/);
  assert.equal(of('unknown-table').length, 1);
  assert.match(of('unknown-table')[0].message, /`code2code_notes`.*skipped, not read/);
  assert.ok(
    of('unknown-field').some((i) => /meta_difficulty/.test(JSON.stringify(i))),
    'the new meta field is named',
  );
});

test('eval: the grown release is scored (exit 0), every code-to-code subtask in its own row and in the aggregates', () => {
  const out = join(tempDir('coreb-e2e-growth-out-'), 'out');
  const r = runCli(['eval', '--data', grown.dir, '--out', out, '--runs', 'none', '--subtask-tables']);
  assert.equal(r.status, 0, r.stderr);
  for (const s of ['c2c_cross_lang', 'c2c_mono_lang', 'c2c_cross_model', 'c2c_future_x']) assert.match(r.stdout, new RegExp(`^${s} +\\d+ `, 'm'), s);
  assert.doesNotMatch(r.stdout, /x2y_probe/);
  assert.match(r.stderr, /c2c_future_x` is new to this coreb/);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  const bm25 = results.retrievers[0];
  const c2c = ['c2c_cross_lang', 'c2c_mono_lang', 'c2c_cross_model', 'c2c_future_x'].map((s) => bm25.subtasks[s].queries);
  assert.deepEqual(c2c, [96, grown.added.c2c_mono_lang, grown.added.c2c_cross_model, grown.added.c2c_future_x]);
  // The task and the overall count every subtask's queries (the probe of an unknown family is not scored).
  assert.equal(
    bm25.tasks.code2code.queries,
    c2c.reduce((a: number, b: number) => a + b, 0),
  );
  // The mono-language anchor is its positive's near copy: BM25 finds it first, once the anchor itself is excluded.
  assert.ok(bm25.subtasks.c2c_mono_lang.metrics['ndcg@10'] > 0.9);
});

test('eval --subtasks leaves out what a user cannot score; --tasks ignores the tables of tasks not selected', () => {
  const r = runCli(['eval', '--data', grown.dir, '--subtasks', 'c2c_*', '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(res.retrievers[0].tasks), ['code2code']);
  const spoiled = writeGrownRelease(join(tempDir('coreb-e2e-growth-spoiled-'), 'release'));
  const qrels = join(spoiled.dir, 'code2text_qrels.jsonl');
  appendFileSync(qrels, '{"query_id": "q_nowhere", "doc_id": "text_nowhere", "relevance": 2}\n');
  assert.equal(runCli(['eval', '--data', spoiled.dir]).status, 4, 'a dangling c2t qrel refuses a full evaluation');
  const t2c = runCli(['eval', '--data', spoiled.dir, '--tasks', 't2c,c2c']);
  assert.equal(t2c.status, 0, t2c.stderr);
  assert.match(t2c.stderr, /not scored: only text2code, code2code selected/);
  // A subtask a user cannot score (its queries lost their anchors) is left out with --subtasks.
  const noAnchor = writeGrownRelease(join(tempDir('coreb-e2e-growth-anchorless-'), 'release'));
  const q = join(noAnchor.dir, 'code2code_queries.jsonl');
  const rows = readFileSync(q, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const row of rows) if (row.subtask === 'c2c_future_x') delete row.meta_anchor_code_id;
  writeFileSync(q, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const refused = runCli(['eval', '--data', noAnchor.dir]);
  assert.equal(refused.status, 4, 'a c2c query without an anchor cannot be scored');
  assert.match(refused.stderr, /missing-anchor/);
  const left = runCli(['eval', '--data', noAnchor.dir, '--subtasks', 't2c_*,c2t_*,c2c_cross_lang,c2c_mono_lang,c2c_cross_model', '--format', 'json']);
  assert.equal(left.status, 0, left.stderr);
  assert.match(left.stderr, /not scored: c2c_future_x is not selected by --subtasks/);
  assert.equal(JSON.parse(left.stdout).retrievers[0].subtasks.c2c_future_x, undefined);
});

test('eval --tasks t2c: no warning about the code-to-code novelties it never asked for, one line counting them; a full run shows them', () => {
  const t2c = runCli(['eval', '--data', grown.dir, '--tasks', 't2c', '--runs', 'none', '--format', 'json']);
  assert.equal(t2c.status, 0, t2c.stderr);
  assert.doesNotMatch(t2c.stderr, /^warning: .*code2code/m);
  assert.match(t2c.stderr, /^4 warning\(s\) about what is not scored \(only text2code selected\); `coreb validate .*` lists them$/m);
  assert.doesNotMatch(t2c.stderr, /warning: warning/);
  const all = runCli(['eval', '--data', grown.dir, '--runs', 'none', '--format', 'json']);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stderr, /^warning: .*code2code_notes.*\[unknown-table\]$/m);
  assert.match(all.stderr, /^warning: .*subtask `c2c_future_x` is new to this coreb/m);
});
