import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import type { EvalResults } from '../../src/core/eval-results.js';

interface CompareJson {
  baseline: string;
  measure: string;
  comparisons: Array<{
    retriever: string;
    scope: string;
    measure: string;
    test: string;
    delta: number;
    ci: [number, number] | null;
    pValue: number;
    pHolm: number;
    queries: number;
  }>;
}

test('coreb compare on two BM25 runs of the sample: JSON shape, deltas from the results, t-test p equal to scipy', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-compare-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ev = runCli(['eval', '--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75', '--out', dir, '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const file = join(dir, 'results.json');
  const r = runCli(['compare', file, '--format', 'json', '--seed', '7']);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as CompareJson;
  assert.equal(out.baseline, 'bm25');
  assert.equal(out.measure, 'ndcg@10');
  const results = JSON.parse(readFileSync(file, 'utf8')) as EvalResults;
  const tasks = Object.keys(results.retrievers[0].tasks);
  assert.equal(out.comparisons.length, (1 + tasks.length) * 3);
  const [b, c] = results.retrievers;
  const pairs: Array<{ scope: string; a: number[]; z: number[] }> = [];
  for (const scope of ['overall', ...tasks]) {
    const ids = Object.keys(b.perQuery!).filter((id) => scope === 'overall' || b.perQuery![id].task === scope);
    const a = ids.map((id) => c.perQuery![id].metrics['ndcg@10']);
    const z = ids.map((id) => b.perQuery![id].metrics['ndcg@10']);
    const delta = a.reduce((s, x, i) => s + x - z[i], 0) / ids.length;
    for (const cmp of out.comparisons.filter((x) => x.scope === scope)) {
      assert.equal(cmp.retriever, 'bm25?k1=1.2&b=0.75');
      assert.equal(cmp.queries, ids.length);
      assert.ok(Math.abs(cmp.delta - delta) < 1e-12, `${scope} delta`);
    }
    if (scope !== 'overall') {
      const taskMean = (x: typeof c) => x.tasks[scope].metrics['ndcg@10'];
      assert.ok(Math.abs(delta - (taskMean(c) - taskMean(b))) < 1e-9, 'delta equals the difference of the task means');
    }
    pairs.push({ scope, a, z });
  }
  // scipy's paired t-test of every scope in one python3 (importing scipy costs ~0.5 s a time).
  const py = spawnSync(
    'python3',
    ['-c', 'import json,sys\nfrom scipy import stats\nd=json.load(sys.stdin)\nprint(json.dumps([stats.ttest_rel(a,b).pvalue for a,b in d]))'],
    { input: JSON.stringify(pairs.map((x) => [x.a, x.z])), encoding: 'utf8' },
  );
  if (py.status === 0) {
    const ps = JSON.parse(py.stdout) as number[];
    assert.equal(ps.length, pairs.length);
    pairs.forEach(({ scope }, i) => {
      const p = ps[i];
      const mine = out.comparisons.find((x) => x.scope === scope && x.test === 't-test')!.pValue;
      assert.ok(Math.abs(mine - p) <= 1e-9 * Math.max(p, 1e-300) || Math.abs(mine - p) < 1e-15, `${scope}: ${mine} vs scipy ${p}`);
    });
  } else if (py.error === undefined) assert.match(py.stderr, /No module named 'scipy'/, 'python3 ran; only scipy may be missing');
  const again = runCli(['compare', file, '--format', 'json', '--seed', '7', '--test', 'randomization']);
  const rnd = (JSON.parse(again.stdout) as CompareJson).comparisons;
  assert.deepEqual(
    rnd.map((x) => x.pValue),
    out.comparisons.filter((x) => x.test === 'randomization').map((x) => x.pValue),
    'same seed, same p',
  );
  const table = runCli(['compare', file, '--test', 't-test']);
  assert.match(table.stdout, /baseline bm25, measure ndcg@10/);
  const bad = runCli(['compare', file, '--baseline', 'dense']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--baseline `dense` is not a retriever/);
  const missing = runCli(['compare', join(dir, 'nope.json')]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /nope\.json/);
});

test('coreb compare over two folders and a results store, two measures: every row against the baseline, Holm per measure equal to an independent computation', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-compare-many-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { ...process.env, COREB_CACHE_DIR: join(dir, 'cache') };
  const a = runCli(
    ['eval', '--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75&name=bm25-classic', '--out', join(dir, 'a'), '--runs', 'none', '--quiet'],
    { env },
  );
  assert.equal(a.status, 0, a.stderr);
  const b = runCli(['eval', '--retriever', 'bm25?k1=0.9&b=0.4&name=bm25-anserini', '--out', join(dir, 'b'), '--runs', 'none', '--quiet'], { env });
  assert.equal(b.status, 0, b.stderr);
  // The store holds bm25 again (the same row: counted once) and one more row.
  const s = runCli(['eval', '--retriever', 'bm25', '--retriever', 'bm25?k1=1.5&b=0.9&name=bm25-wide', '--results', join(dir, 'store'), '--quiet'], {
    env,
  });
  assert.equal(s.status, 0, s.stderr);
  const r = runCli(
    [
      'compare',
      join(dir, 'a'),
      join(dir, 'b'),
      join(dir, 'store'),
      '--measure',
      'ndcg@10',
      '--measure',
      'recall@10',
      '--test',
      't-test',
      '--format',
      'json',
    ],
    { env },
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { groups: Array<{ dataset: string; protocol: string; reports: CompareJson[] }> };
  assert.equal(out.groups.length, 1);
  assert.deepEqual(
    out.groups[0].reports.map((x) => x.measure),
    ['ndcg@10', 'recall@10'],
  );
  for (const rep of out.groups[0].reports) {
    assert.equal(rep.baseline, 'bm25');
    assert.deepEqual([...new Set(rep.comparisons.map((c) => c.retriever))].sort(), ['bm25-anserini', 'bm25-classic', 'bm25-wide']);
    // Holm–Bonferroni, written here from its definition: sort ascending, p_(i) * (m - i), running max, cap 1.
    const ps = rep.comparisons.map((c) => c.pValue);
    const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
    const holm = new Array<number>(ps.length);
    let run = 0;
    order.forEach(([p, i], k) => {
      run = Math.max(run, Math.min(1, p * (ps.length - k)));
      holm[i] = run;
    });
    rep.comparisons.forEach((c, i) =>
      assert.ok(Math.abs(c.pHolm - holm[i]) < 1e-15, `${rep.measure} ${c.retriever} ${c.scope}: ${c.pHolm} vs ${holm[i]}`),
    );
  }
  const table = runCli(['compare', join(dir, 'a'), join(dir, 'b'), '--measure', 'ndcg@10,recall@10', '--test', 't-test'], { env });
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /compare: baseline bm25, measure ndcg@10/);
  assert.match(table.stdout, /compare: baseline bm25, measure recall@10/);
  // Markdown and LaTeX: a row per retriever, a column per scope, + exactly where the test says better.
  const md = runCli(['compare', join(dir, 'a'), join(dir, 'b'), join(dir, 'store'), '--test', 't-test', '--format', 'markdown'], { env });
  assert.equal(md.status, 0, md.stderr);
  const lines = md.stdout.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| retriever') && !l.startsWith('| ---'));
  assert.equal(lines.length, 4);
  const ndcg = out.groups[0].reports[0];
  for (const line of lines.slice(1)) {
    const cells = line.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, ''));
    const name = cells[0];
    ['overall', 'text2code', 'code2text', 'code2code'].forEach((scope, i) => {
      const c = ndcg.comparisons.find((x) => x.retriever === name && x.scope === scope)!;
      const expected = c.pHolm <= 0.05 ? (c.delta > 0 ? '<sup>+</sup>' : '<sup>−</sup>') : '';
      assert.equal(cells[i + 1].replace(/^\d\.\d{4}/, ''), expected, `${name} ${scope}`);
    });
  }
  const tex = runCli(['compare', join(dir, 'a'), join(dir, 'b'), '--test', 't-test', '--format', 'latex'], { env });
  assert.match(tex.stdout, /\\begin\{tabular\}\{lrrrr\}/);
  assert.match(tex.stdout, /bm25 \(baseline\) & 0\.\d{4} & /);
  const none = runCli(['compare', join(dir, 'cache')], { env });
  assert.equal(none.status, 3);
  assert.match(none.stderr, /no results\.json and no results-store entry/);
});
