import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResults } from '../../src/core/eval-results.js';
import { roundHalfEven } from '../../src/core/round.js';
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
  // coreb-mini is not a dataset MTEB hosts: its revision must be given, never a coreb hash in its place.
  assert.equal(r.status, 2);
  assert.match(
    r.stderr,
    /no MTEB dataset revision for text2code \(CorebT2CRetrieval\), code2text \(CorebC2TRetrieval\), code2code \(CorebC2CRetrieval\).*--dataset-revision TASK=REV/,
  );
  const meta = join(dir, 'meta.json');
  writeFileSync(meta, '\uFEFF{"n_parameters": 0, "license": "mit", "open_weights": true}');
  const args = [
    'export',
    'mteb',
    join(dir, 'eval', 'results.json'),
    '--out',
    join(dir, 'mteb'),
    '--model-name',
    'coreb/bm25',
    '--revision',
    'v1',
    '--dataset-revision',
    'text2code=aaa',
    '--dataset-revision',
    'CorebC2TRetrieval=bbb',
    '--dataset-revision',
    'code2code=ccc',
    '--model-meta',
    meta,
  ];
  const ok = runCli(args);
  assert.equal(ok.status, 0, ok.stderr);
  const files = ok.stdout.trim().split('\n');
  const again = runCli(args);
  assert.equal(again.status, 2, 'a second export into the same folder is refused');
  assert.match(again.stderr, /already holds 5 file\(s\).*pass --overwrite/);
  assert.equal(runCli([...args, '--overwrite']).status, 0);
  const mm = JSON.parse(readFileSync(files[3], 'utf8'));
  assert.deepEqual([mm.name, mm.revision, mm.n_parameters, mm.license, mm.open_weights], ['coreb/bm25', 'v1', 0, 'mit', true]);
  assert.equal(files.length, 5);
  const fixture = keyPaths(mtebResultsFixture());
  const tasks: Record<string, string> = { CorebT2CRetrieval: 'text2code', CorebC2TRetrieval: 'code2text', CorebC2CRetrieval: 'code2code' };
  for (const f of files.slice(0, 3)) {
    const doc = readMtebJson<{ task_name: string; scores: { test: Array<Record<string, number>> } }>(f);
    assert.deepEqual(keyPaths(doc), fixture, f);
    const s = doc.scores.test[0];
    assert.equal(
      (doc as unknown as { dataset_revision: string }).dataset_revision,
      { CorebT2CRetrieval: 'aaa', CorebC2TRetrieval: 'bbb', CorebC2CRetrieval: 'ccc' }[doc.task_name],
    );
    const task = results.retrievers[0].tasks[tasks[doc.task_name]];
    // MTEB's TaskResult.to_disk rounds every score to 6 places (Python's round).
    const six = (x: number) => roundHalfEven(x, 6);
    assert.equal(s.main_score, six(task.metrics['ndcg@10']));
    assert.equal(s.ndcg_at_1000, six(task.metrics['ndcg@1000']));
    assert.equal(s.hit_rate_at_10, six(task.metrics['hit@10']));
    assert.equal(s.mrr_at_10, six(task.metrics['mrr@10']));
    for (const k of ['max', 'std', 'diff1']) assert.ok(typeof s[`nauc_ndcg_at_10_${k}`] === 'number' || s[`nauc_ndcg_at_10_${k}`] === null);
  }
});

test('an export of a results-store row (no run files) says that its nAUCs are NaN, how many and how to have them', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-export-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = join(dir, 'store');
  const ev = runCli(['eval', '--protocol', 'mteb', '--results', store, '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const ls = JSON.parse(runCli(['results', 'ls', store, '--format', 'json']).stdout) as { entries: Array<{ path: string }> };
  const entry = join(store, ...ls.entries[0].path.split('/'));
  const revs = ['--dataset-revision', 'text2code=a', '--dataset-revision', 'code2text=b', '--dataset-revision', 'code2code=c'];
  const r = runCli(['export', 'mteb', entry, '--out', join(dir, 'mteb'), '--model-name', 'coreb/bm25', '--revision', 'v1', ...revs]);
  assert.equal(r.status, 0, r.stderr);
  const written = r.stdout
    .trim()
    .split('\n')
    .slice(0, 3)
    .flatMap((f) => Object.entries(readMtebJson<{ scores: { test: Array<Record<string, unknown>> } }>(f).scores.test[0]))
    .filter(([k, v]) => k.startsWith('nauc_') && (v === null || Number.isNaN(v as number))).length;
  assert.ok(written > 0);
  assert.match(
    r.stderr,
    new RegExp(
      `warning: ${written} nAUC value\\(s\\) written as NaN .*text2code, code2text, code2code have no run file.*coreb eval --protocol mteb --out DIR`,
    ),
  );
});
