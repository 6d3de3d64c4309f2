/**
 * `coreb eval` rows: one failing retriever keeps the others' results (written, the failure in
 * results.json and the exit status), a partial run is never ranked against full runs nor shown as
 * zeros, `name=` names rows and run files, and `--runs gz|none` sizes the run files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BM25_DEFAULTS, BM25_PRESETS } from '../../src/search/index.js';
import { runCli, runCliAsync } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';
import { tempDir } from '../support/judge.js';
import { startLoopbackServer } from '../support/loopback-server.js';
import { writeTinyRelease } from './eval-fixture.js';

interface Row {
  name: string;
  spec: string;
  overall: { queries: number; metrics: Record<string, number> };
  taskMean: { metrics: Record<string, number> };
  tasks: Record<string, { queries: number; runFile?: string; metrics: Record<string, number> }>;
  unscoredTasks?: string[];
}
interface Results {
  retrievers: Row[];
  failed?: Array<{ name: string; spec: string; code: string; error: string }>;
}
const read = (dir: string): Results => JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;

/** A loopback port nothing listens on (bound, then closed): connections are refused. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test('a dense retriever whose server refuses connections fails alone: bm25 written, the failure in results.json, exit 6', async () => {
  const port = await refusedPort();
  const out = join(tempDir('coreb-e2e-eval-rows-'), 'res');
  const spec = `dense:openai:m?baseUrl=http://127.0.0.1:${port}/v1&maxRetries=1&backoffMs=10&maxBackoffMs=20&name=down`;
  const t0 = performance.now();
  // The dense spec first: a failure must not stop the retrievers after it either.
  const r = await runCliAsync(['eval', '--runs', 'plain', '--retriever', spec, '--retriever', 'bm25', '--out', out, '--quiet'], {
    env: { ...process.env, COREB_CACHE_DIR: tempDir('coreb-e2e-eval-rows-cache-') },
  });
  const seconds = (performance.now() - t0) / 1000;
  assert.equal(r.status, 6, r.stderr);
  assert.match(r.stderr, /retriever `down` failed \(HTTP\): .*127\.0\.0\.1.*(ECONNREFUSED|refused)/);
  assert.match(r.stderr, /1 of 2 retriever\(s\) failed; the others' results are complete and written/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const res = read(out);
  assert.deepEqual(
    res.retrievers.map((x) => x.name),
    ['bm25'],
  );
  assert.ok(res.retrievers[0].overall.metrics['ndcg@10'] > 0.3);
  assert.equal(res.failed?.length, 1);
  assert.equal(res.failed![0].name, 'down');
  assert.equal(res.failed![0].spec, spec);
  assert.equal(res.failed![0].code, 'HTTP');
  assert.deepEqual(readdirSync(join(out, 'runs')).sort(), ['bm25.code2code.trec', 'bm25.code2text.trec', 'bm25.text2code.trec']);
  assert.match(readFileSync(join(out, 'leaderboard.md'), 'utf8'), /failed: down \(HTTP\)/);
  assert.ok(seconds < 30, `short retries: ${seconds.toFixed(1)} s`);
});

test('a partial run (c2c only) is unranked beside full runs, and its unscored tasks are empty, not 0', () => {
  const dir = tempDir('coreb-e2e-eval-rows-');
  const release = join(dir, 'release');
  writeTinyRelease(release);
  // A perfect c2c run (the positive c2 first): its c2c-only overall beats BM25's over all tasks.
  const c2c = join(dir, 'c2c.trec');
  writeFileSync(c2c, 'q_c2c_1 Q0 c2 1 2 mine\nq_c2c_1 Q0 c3 2 1 mine\n');
  const out = join(dir, 'res');
  const r = runCli(['eval', '--runs', 'plain', '--data', release, '--retriever', `run:${c2c}?name=c2c-only`, '--retriever', 'bm25', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /c2c-only: no text2code query has a ranked list; text2code is unscored/);
  const res = read(out);
  const partial = res.retrievers.find((x) => x.name === 'c2c-only')!;
  const bm25 = res.retrievers.find((x) => x.name === 'bm25')!;
  assert.deepEqual(Object.keys(partial.tasks), ['code2code']);
  assert.deepEqual(partial.unscoredTasks, ['text2code', 'code2text']);
  assert.equal(partial.overall.metrics['ndcg@10'], 1);
  assert.ok(bm25.overall.metrics['ndcg@10'] < 1);
  assert.deepEqual(Object.keys(bm25.tasks).sort(), ['code2code', 'code2text', 'text2code']);
  const board = r.stdout.split('\n\n')[1].split('\n');
  const rowOf = (name: string) => board.find((l) => l.split(/\s+/)[1] === name)!.split(/\s+/);
  assert.equal(rowOf('bm25')[0], '1', 'the full run is ranked first');
  const p = rowOf('c2c-only');
  assert.equal(p[0], '-', 'the partial run is unranked');
  // #, name, 4 measures, task mean, then t2c, c2t, c2c nDCG@10: the unscored cells are '-'.
  assert.deepEqual(p.slice(7, 10), ['-', '-', '1.0000']);
  assert.ok(board.findIndex((l) => l.includes('c2c-only')) > board.findIndex((l) => l.split(/\s+/)[1] === 'bm25'), 'listed after the ranked rows');
  assert.match(r.stdout, /unranked \(#: -\): c2c-only \(scored on c2c\); ranks compare only rows scored on the same tasks \(t2c\+c2t\+c2c\)/);
  assert.match(readFileSync(join(out, 'leaderboard.md'), 'utf8'), /\| - \| c2c-only \|/);
});

test('name= names rows, results and run files; the spec stays as given; names must be distinct', () => {
  const out = join(tempDir('coreb-e2e-eval-rows-'), 'res');
  const r = runCli([
    'eval',
    '--runs',
    'plain',
    '--tasks',
    'c2c',
    '--retriever',
    'bm25?name=lexical',
    '--retriever',
    'bm25?preset=classic&name=bm25 classic',
    '--retriever',
    'rrf:bm25,(bm25?k1=1.2),name=hybrid',
    '--out',
    out,
    '--quiet',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const res = read(out);
  assert.deepEqual(
    res.retrievers.map((x) => [x.name, x.spec]),
    [
      ['lexical', 'bm25?name=lexical'],
      ['bm25 classic', 'bm25?preset=classic&name=bm25 classic'],
      ['hybrid', 'rrf:bm25,(bm25?k1=1.2),name=hybrid'],
    ],
  );
  assert.deepEqual(readdirSync(join(out, 'runs')).sort(), ['bm25_classic.code2code.trec', 'hybrid.code2code.trec', 'lexical.code2code.trec']);
  assert.equal(res.retrievers[0].tasks.code2code.runFile, 'runs/lexical.code2code.trec');
  const first = readFileSync(join(out, 'runs', 'lexical.code2code.trec'), 'utf8').split('\n')[0];
  assert.match(first, / lexical$/, 'the run tag is the name');
  assert.match(r.stdout, /\n1 +(lexical|bm25 classic|hybrid) /);
  const dup = runCli(['eval', '--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&name=bm25', '--quiet']);
  assert.equal(dup.status, 2);
  assert.match(dup.stderr, /two retrievers are named `bm25`/);
});

test('run files are gzipped by default, equal to the plain ones (and readable by run:); --runs none writes none', () => {
  const dir = tempDir('coreb-e2e-eval-rows-');
  const plain = runCli(['eval', '--runs', 'plain', '--tasks', 't2c,c2c', '--out', join(dir, 'plain'), '--quiet']);
  assert.equal(plain.status, 0, plain.stderr);
  const gz = runCli(['eval', '--tasks', 't2c,c2c', '--out', join(dir, 'gz'), '--quiet']);
  assert.equal(gz.status, 0, gz.stderr);
  assert.deepEqual(readdirSync(join(dir, 'gz', 'runs')).sort(), ['bm25.code2code.trec.gz', 'bm25.text2code.trec.gz']);
  for (const t of ['code2code', 'text2code']) {
    const a = readFileSync(join(dir, 'plain', 'runs', `bm25.${t}.trec`));
    const b = readFileSync(join(dir, 'gz', 'runs', `bm25.${t}.trec.gz`));
    assert.equal(gunzipSync(b).toString('utf8'), a.toString('utf8'));
    assert.ok(b.length * 3 < a.length, `gzip is much smaller: ${b.length} vs ${a.length} bytes`);
  }
  const gres = read(join(dir, 'gz'));
  assert.equal(gres.retrievers[0].tasks.code2code.runFile, 'runs/bm25.code2code.trec.gz');
  const back = runCli([
    'eval',
    '--tasks',
    'c2c',
    '--retriever',
    `run:${join(dir, 'gz', 'runs', 'bm25.code2code.trec.gz')}`,
    '--format',
    'json',
    '--quiet',
  ]);
  assert.equal(back.status, 0, back.stderr);
  assert.equal(
    (JSON.parse(back.stdout) as Results).retrievers[0].tasks.code2code.metrics['ndcg@10'],
    read(join(dir, 'plain')).retrievers[0].tasks.code2code.metrics['ndcg@10'],
  );
  const none = runCli(['eval', '--tasks', 'c2c', '--out', join(dir, 'none'), '--runs', 'none', '--quiet']);
  assert.equal(none.status, 0, none.stderr);
  assert.ok(!existsSync(join(dir, 'none', 'runs')), 'no runs/ directory');
  assert.equal(read(join(dir, 'none')).retrievers[0].tasks.code2code.runFile, undefined);
  const bad = runCli(['eval', '--runs', 'zip', '--quiet']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--runs/);
});

test('eval --help says the default BM25 was tuned on v202602, names its parameters from the code, the classic preset and name=', () => {
  const r = runCli(['eval', '--help']);
  assert.equal(r.status, 0);
  const help = r.stdout.replace(/\s+/g, ' ');
  assert.match(help, /TUNED ON CoREB v202602 \(numbers on that release are in-sample\)/);
  const d = BM25_DEFAULTS;
  assert.ok(help.includes(`k1=${d.k1}, b=${d.b}, queryTf=${d.queryTf}, k3=${d.k3},`), 'tuned parameters named');
  assert.ok(help.includes(`bm25?preset=classic: textbook k1=${BM25_PRESETS.classic.k1}, b=${BM25_PRESETS.classic.b}`));
  assert.match(help, /Every spec takes name=NAME/);
  assert.match(help, /--runs gz\|plain\|none/);
  const doc = readFileSync(join(projectRoot, 'docs', 'eval.md'), 'utf8');
  assert.match(doc, /Its defaults were tuned on CoREB v202602/);
  assert.ok(doc.includes(`bm25?k1=${d.k1}&b=${d.b}&queryTf=${d.queryTf}&k3=${d.k3}&`), 'docs/eval.md spells the default spec out');
});

test('coreb report over a full and a c2c-only results file lists the partial row last, unranked', () => {
  const dir = tempDir('coreb-e2e-eval-rows-');
  assert.equal(runCli(['eval', '--runs', 'plain', '--out', join(dir, 'full'), '--quiet']).status, 0);
  assert.equal(
    runCli(['eval', '--runs', 'plain', '--tasks', 'c2c', '--retriever', 'bm25?k1=1.2&name=c2c-only', '--out', join(dir, 'part'), '--quiet']).status,
    0,
  );
  const r = runCli(['report', join(dir, 'part', 'results.json'), join(dir, 'full', 'results.json'), '--out', join(dir, 'report')]);
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
  assert.match(html, /Listed last, unranked: c2c-only \(scored on code2code\)/);
  const board = html.slice(html.indexOf('Leaderboard'));
  assert.ok(board.indexOf('>bm25<') < board.indexOf('>c2c-only<'), 'the full row first');
});

test('a named embedder of coreb.config.json names its row without its URL; name= overrides it', async (t) => {
  const server = await startLoopbackServer({ format: 'openai', dim: 8 });
  t.after(() => server.close());
  const cwd = tempDir('coreb-e2e-eval-rows-config-');
  writeFileSync(join(cwd, 'coreb.config.json'), JSON.stringify({ embedders: { e5: { provider: 'openai', model: 'm', baseUrl: [server.baseUrl] } } }));
  const r = await runCliAsync(
    [
      'eval',
      '--runs',
      'plain',
      '--tasks',
      'c2c',
      '--retriever',
      'dense:e5',
      '--retriever',
      'dense:e5?maxRetries=1&name=e5-again',
      '--out',
      join(cwd, 'res'),
      '--quiet',
    ],
    {
      cwd,
      env: { ...process.env, COREB_CACHE_DIR: join(cwd, 'cache') },
    },
  );
  assert.equal(r.status, 0, r.stderr);
  const names = read(join(cwd, 'res')).retrievers.map((x) => x.name);
  assert.deepEqual(names, ['dense:e5', 'e5-again']);
  assert.ok(!r.stdout.includes(server.baseUrl), 'no URL in the leaderboard');
  assert.deepEqual(readdirSync(join(cwd, 'res', 'runs')).sort(), ['dense_e5.code2code.trec', 'e5-again.code2code.trec']);
});
