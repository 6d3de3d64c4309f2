/**
 * `coreb metrics` run as a user runs it, on the project's hand-made example (data/examples).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const qrels = join(projectRoot, 'data', 'examples', 'qrels.txt');
const run = join(projectRoot, 'data', 'examples', 'run.txt');
const anchors = join(projectRoot, 'data', 'examples', 'anchors.tsv');

interface JsonOut {
  perQuery: Record<string, Record<string, number>>;
  aggregate: Record<string, number>;
  semantics: Record<string, unknown>;
}

test('trec format: per-query blocks in qid order, then the summary, in trec_eval layout', () => {
  const r = runCli(['metrics', '--qrels', qrels, '--run', run, '-m', 'ndcg_cut.3', '-m', 'P.1,3', '-q']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  // trec_eval order: P before ndcg_cut whatever the command-line order; q4 (not in the run) skipped.
  assert.deepEqual(
    lines.map((l) => l.split('\t').slice(0, 2).join(' ').replace(/ +/g, ' ')),
    [
      'P_1 q1',
      'P_3 q1',
      'ndcg_cut_3 q1',
      'P_1 q2',
      'P_3 q2',
      'ndcg_cut_3 q2',
      'P_1 q3',
      'P_3 q3',
      'ndcg_cut_3 q3',
      'P_1 all',
      'P_3 all',
      'ndcg_cut_3 all',
    ],
  );
  assert.match(lines[0], /^P_1 {19}\tq1\t1\.0000$/);
  // q1 ranks d1, d3, d2 (the d2/d3 tie goes to the larger docid): 2 of 3 relevant.
  assert.equal(lines[1].split('\t')[2], '0.6667');
});

test('json format: full precision values that match hand computation, and the semantics', () => {
  const r = runCli(['metrics', '--qrels', qrels, '--run', run, '-m', 'P@3,map,ndcg@2,num_q', '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as JsonOut;
  assert.equal(out.perQuery.q1.P_3, 2 / 3);
  assert.equal(out.perQuery.q1.map, (1 / 1 + 2 / 3) / 3); // d7 is relevant but not retrieved
  assert.equal(out.perQuery.q2.ndcg_cut_2, 1); // b (label 2) wins the tie with a (label 1)
  assert.equal(out.aggregate.num_q, 3);
  assert.deepEqual(Object.keys(out.perQuery), ['q1', 'q2', 'q3']);
  assert.equal(out.semantics.relevanceLevel, 1);
  assert.equal(out.semantics.ndcg, 'trec');
  assert.equal(out.semantics.population, 'run-and-qrels');
  const complete = JSON.parse(runCli(['metrics', '--qrels', qrels, '--run', run, '-m', 'num_q', '-c', '--format', 'json']).stdout) as JsonOut;
  assert.equal(complete.aggregate.num_q, 4);
  const capped = JSON.parse(
    runCli(['metrics', '--qrels', qrels, '--run', run, '-m', 'num_ret,P@3', '-M', '1', '--format', 'json']).stdout,
  ) as JsonOut;
  assert.equal(capped.perQuery.q1.num_ret, 1); // trec_eval -M 1: only d1 is kept
  assert.equal(capped.perQuery.q1.P_3, 1 / 3);
  assert.equal(capped.semantics.maxDocs, 1);
});

test('protocol coreb: level 2, strict nDCG, anchors removed', () => {
  const r = runCli([
    'metrics',
    '--qrels',
    qrels,
    '--run',
    run,
    '--protocol',
    'coreb',
    '--anchors',
    anchors,
    '-m',
    'recip_rank,num_ret',
    '--format',
    'json',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as JsonOut;
  assert.equal(out.semantics.relevanceLevel, 2);
  assert.equal(out.semantics.ndcg, 'strict');
  assert.equal(out.semantics.anchors, true);
  assert.equal(out.perQuery.q1.num_ret, 4); // d1 (the anchor) removed
  assert.equal(out.perQuery.q1.recip_rank, 0); // no label-2 doc left in q1's ranking
  assert.equal(out.perQuery.q2.recip_rank, 1);
});

test('gzip input gives the same output as plain', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-metrics-'));
  try {
    const gz = join(dir, 'run.txt.gz');
    writeFileSync(gz, gzipSync(`q1 Q0 d1 1 0.9 example\nq1 Q0 d2 2 0.8 example\n`));
    const a = runCli(['metrics', '--qrels', qrels, '--run', gz, '-m', 'map']);
    const plain = join(dir, 'run.txt');
    writeFileSync(plain, `q1 Q0 d1 1 0.9 example\nq1 Q0 d2 2 0.8 example\n`);
    const b = runCli(['metrics', '--qrels', qrels, '--run', plain, '-m', 'map']);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(a.stdout, b.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('errors: exit codes and messages name the problem and where', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-metrics-'));
  try {
    const dup = join(dir, 'dup.txt');
    writeFileSync(dup, 'q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.8 t\nq1 Q0 d1 3 0.7 t\n');
    const d = runCli(['metrics', '--qrels', qrels, '--run', dup]);
    assert.equal(d.status, 4);
    assert.match(d.stderr, /dup\.txt:3: .*duplicate/);
    const nan = join(dir, 'nan.txt');
    writeFileSync(nan, 'q1 Q0 d1 1 NaN t\n');
    const n = runCli(['metrics', '--qrels', qrels, '--run', nan]);
    assert.equal(n.status, 4);
    assert.match(n.stderr, /nan\.txt:1: field `score`/);
    const m = runCli(['metrics', '--qrels', qrels, '--run', run, '-m', 'ndcg_cutt.10']);
    assert.equal(m.status, 2);
    assert.match(m.stderr, /ndcg_cutt/);
    const f = runCli(['metrics', '--qrels', join(dir, 'missing.txt'), '--run', run]);
    assert.equal(f.status, 3);
    const u = runCli(['metrics', '--run', run]);
    assert.equal(u.status, 2);
    assert.match(u.stderr, /--qrels/);
    const l = runCli(['metrics', '--qrels', qrels, '--run', run, '-l', '0']);
    assert.equal(l.status, 2);
    assert.equal(runCli(['metrics', '--qrels', qrels, '--run', run, '-M', '0']).status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an empty run and 5-column qrels are errors, as in trec_eval', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-metrics-strict-'));
  try {
    const empty = join(dir, 'empty.run');
    writeFileSync(empty, '');
    const r = runCli(['metrics', '--qrels', qrels, '--run', empty]);
    assert.equal(r.status, 4, r.stdout);
    assert.match(r.stderr, /empty\.run.*no result lines/);
    assert.equal(r.stdout, '');
    const five = join(dir, 'five.qrels');
    writeFileSync(five, 'q1 0 d1 1\nq1 0 d2 0 0.5\n');
    const f = runCli(['metrics', '--qrels', five, '--run', run]);
    assert.equal(f.status, 4, f.stdout);
    assert.match(f.stderr, /five\.qrels:2.*5 fields; expected 4 \(qid iter docid rel\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
