import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResults } from '../../src/core/eval-results.js';
import { runCli } from '../support/cli.js';
import { keyPaths, mtebResultsFixture, readMtebJson } from '../support/mteb.js';

test('coreb export mteb refuses results of the coreb preset and says which preset to use', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-export-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ev = runCli(['eval', '--out', join(dir, 'eval'), '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const r = runCli([
    'export',
    'mteb',
    join(dir, 'eval', 'results.json'),
    '--out',
    join(dir, 'mteb'),
    '--model-name',
    'coreb/bm25',
    '--revision',
    'v1',
  ]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /computed with the `coreb` preset; MTEB's numbers need the `mteb` preset: re-run `coreb eval --protocol mteb`/);
  const missing = runCli(['export', 'mteb', join(dir, 'eval', 'results.json'), '--out', join(dir, 'mteb')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /needs --model-name/);
  const other = runCli(['export', 'csv', 'x.json']);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /one format, `mteb`/);
  const help = runCli(['export', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /CorebT2CRetrieval\.json/);
});

test('the MTEB export of an mteb-preset BM25 run on the sample has the exact key set of an MTEB results file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-export-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ev = runCli(['eval', '--protocol', 'mteb', '--out', join(dir, 'eval'), '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const results = JSON.parse(readFileSync(join(dir, 'eval', 'results.json'), 'utf8')) as EvalResults;
  const r = runCli([
    'export',
    'mteb',
    join(dir, 'eval', 'results.json'),
    '--out',
    join(dir, 'mteb'),
    '--model-name',
    'coreb/bm25',
    '--revision',
    'v1',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const files = r.stdout.trim().split('\n');
  assert.equal(files.length, 5);
  const fixture = keyPaths(mtebResultsFixture());
  const tasks: Record<string, string> = { CorebT2CRetrieval: 'text2code', CorebC2TRetrieval: 'code2text', CorebC2CRetrieval: 'code2code' };
  for (const f of files.slice(0, 3)) {
    const doc = readMtebJson<{ task_name: string; scores: { test: Array<Record<string, number>> } }>(f);
    assert.deepEqual(keyPaths(doc), fixture, f);
    const s = doc.scores.test[0];
    const task = results.retrievers[0].tasks[tasks[doc.task_name]];
    assert.equal(s.main_score, task.metrics['ndcg@10']);
    assert.equal(s.ndcg_at_1000, task.metrics['ndcg@1000']);
    assert.equal(s.hit_rate_at_10, task.metrics['hit@10']);
    assert.equal(s.mrr_at_10, task.metrics['mrr@10']);
    for (const k of ['max', 'std', 'diff1']) assert.ok(typeof s[`nauc_ndcg_at_10_${k}`] === 'number' || s[`nauc_ndcg_at_10_${k}`] === null);
  }
});
