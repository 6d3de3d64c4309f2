/**
 * `coreb leaderboard` over a results store: a matrix run of three retrievers on two releases,
 * leaderboards per release and protocol with significance marks, model metadata from presets and
 * `--model-meta`, MTEB results imported beside scored rows (in the mteb leaderboard only, the same
 * row once), the cross-release view, and the static site rendered in headless Chromium with its
 * numbers checked against the store.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromiumAvailable, startChromium } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { writeGrownRelease } from '../support/grown-release.js';
import { tempDir } from '../support/judge.js';
import { mtebResultsFixture } from '../support/mteb.js';

const dir = tempDir('coreb-e2e-leaderboard-');
const store = join(dir, 'store');
const env = { ...process.env, COREB_CACHE_DIR: join(dir, 'cache') };
const mini = join(process.cwd(), 'data', 'coreb-mini', 'release');
const grown = writeGrownRelease(join(dir, 'grown')).dir;
{
  // The grown release as a later release of its own name.
  const m = join(grown, 'manifest.json');
  writeFileSync(m, JSON.stringify({ ...JSON.parse(readFileSync(m, 'utf8')), split: 'release_v9903', created_at: '2099-03-01T00:00:00Z' }));
}
const THREE = ['--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75&name=bm25-classic', '--retriever', 'bm25?k1=0.9&b=0.4&name=bm25-anserini'];
const META = join(dir, 'meta.json');
writeFileSync(
  META,
  JSON.stringify({ 'bm25-classic': { parameters: 110_000_000, embedDim: 768, openWeights: true, codeSpecialised: false, license: 'mit' } }),
);

interface Row {
  rank: number | null;
  retriever: string;
  overall: number | null;
  taskMean: number | null;
  tasks: Record<string, number | null>;
  significantlyBetterThan: Record<string, string[]>;
  model?: { parameters: number | null; source: string };
  imported?: { model: string; revision: string };
}
interface Board {
  dataset: string;
  protocol: string;
  rankBy: string;
  rows: Row[];
  notes: string[];
}
const boards = (...args: string[]) => {
  const r = runCli(['leaderboard', store, '--format', 'json', '--permutations', '2000', ...args], { env });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { leaderboards: Board[]; crossRelease: Array<{ protocol: string; releases: string[] }> };
};
const entries = () =>
  (
    JSON.parse(runCli(['results', 'ls', store, '--format', 'json'], { env }).stdout) as {
      entries: Array<{ path: string; retriever: string; split: string; protocol: string }>;
    }
  ).entries;

test('a matrix run: three retrievers on two releases into one store, per release; again: nothing scored; one new retriever: one entry per release', () => {
  const first = runCli(['eval', '--data', mini, '--data', grown, '--results', store, '--model-meta', META, '--quiet', ...THREE], { env });
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stderr, /release 1 of 2: .*coreb-mini/);
  assert.match(first.stderr, /release 2 of 2: .*grown/);
  assert.equal([...first.stderr.matchAll(/3 row\(s\) scored and added, 0 already there/g)].length, 2);
  // Both leaderboards printed, one per release.
  assert.match(first.stdout, /split coreb_mini_v1/);
  assert.match(first.stdout, /split release_v9903/);
  const again = runCli(['eval', '--data', mini, '--data', grown, '--results', store, '--quiet', ...THREE], { env });
  assert.equal([...again.stderr.matchAll(/0 row\(s\) scored and added, 3 already there and read from it/g)].length, 2, again.stderr);
  const more = runCli(
    ['eval', '--data', mini, '--data', grown, '--results', store, '--quiet', ...THREE, '--retriever', 'bm25?k1=1.5&b=0.9&name=bm25-wide'],
    {
      env,
    },
  );
  assert.equal([...more.stderr.matchAll(/1 row\(s\) scored and added, 3 already there/g)].length, 2, more.stderr);
  assert.equal(entries().length, 8);
  // --model-meta is kept in the store beside the numbers.
  const classic = entries().find((e) => e.retriever === 'bm25-classic')!;
  const stored = JSON.parse(readFileSync(join(store, ...classic.path.split('/')), 'utf8'));
  assert.equal(stored.retrievers[0].model.parameters, 110_000_000);
  assert.equal(stored.retrievers[0].model.source, 'coreb: BM25 has no learned parameters; ' + META);
});

test('leaderboard: one table per release, ranked by the protocol, with significance marks; the numbers are the store’s; cross-release view', () => {
  const { leaderboards, crossRelease } = boards();
  assert.deepEqual(
    leaderboards.map((b) => `${b.dataset} ${b.protocol}`),
    ['coreb_mini_v1 coreb', 'release_v9903 coreb'],
  );
  for (const b of leaderboards) {
    assert.deepEqual(
      b.rows.map((r) => r.rank),
      [1, 2, 3, 4],
    );
    const overall = b.rows.map((r) => r.overall!);
    assert.deepEqual(
      overall,
      [...overall].sort((x, y) => y - x),
      'ranked by the query-weighted overall',
    );
    // Every number is the store entry's.
    for (const r of b.rows) {
      const e = entries().find((x) => x.retriever === r.retriever && x.split === b.dataset)!;
      const row = JSON.parse(readFileSync(join(store, ...e.path.split('/')), 'utf8')).retrievers[0];
      assert.equal(r.overall, row.overall.metrics['ndcg@10']);
      assert.equal(r.taskMean, row.taskMean.metrics['ndcg@10']);
      for (const t of Object.keys(row.tasks)) assert.equal(r.tasks[t], row.tasks[t].metrics['ndcg@10']);
    }
  }
  // Tuned BM25 is significantly better than the other three on coreb-mini's text-to-code queries.
  const miniBoard = leaderboards[0];
  assert.deepEqual(miniBoard.rows.find((r) => r.retriever === 'bm25')!.significantlyBetterThan.text2code.sort(), [
    'bm25-anserini',
    'bm25-classic',
    'bm25-wide',
  ]);
  assert.equal(miniBoard.rows.find((r) => r.retriever === 'bm25')!.model!.parameters, 0);
  assert.deepEqual(
    crossRelease.map((v) => v.releases),
    [['coreb_mini_v1', 'release_v9903']],
  );
  // The same in text, markdown and LaTeX.
  const md = runCli(['leaderboard', store, '--format', 'markdown', '--permutations', '2000'], { env }).stdout;
  assert.match(md, /\| 1 \| a \| bm25 \| 0\.\d{4} \| 0\.\d{4} \| 0\.\d{4}<sup>bcd<\/sup> \|/);
  assert.match(md, /### Across releases — protocol coreb/);
  const tex = runCli(['leaderboard', store, '--format', 'latex', '--permutations', '2000'], { env }).stdout;
  assert.match(tex, /\\begin\{tabular\}/);
  assert.match(tex, /1 & a & bm25 & 0\.\d{4} & 0\.\d{4} & 0\.\d{4}\\textsuperscript\{bcd\}/);
  assert.match(tex, /bm25-classic/);
});

/** Writes an MTEB results folder ORG__NAME/REV with the three CoREB tasks at the given nDCG@10 (other scores derived). */
function writeMtebModel(
  root: string,
  model: string,
  revision: string,
  ndcg: Record<string, number>,
  datasetRevision: (task: string) => string,
): string {
  const folder = join(root, model.replace('/', '__'), revision);
  mkdirSync(folder, { recursive: true });
  const fixture = mtebResultsFixture();
  for (const [task, v] of Object.entries(ndcg)) {
    const scores = { ...(fixture.scores as { test: Array<Record<string, unknown>> }).test[0] };
    for (const k of Object.keys(scores)) if (typeof scores[k] === 'number') scores[k] = k.startsWith('nauc') ? 0.1 : v / 2;
    scores.ndcg_at_10 = v;
    scores.main_score = v;
    const doc = { ...fixture, task_name: task, dataset_revision: datasetRevision(task), scores: { test: [scores] } };
    // MTEB writes Python's NaN literal.
    writeFileSync(join(folder, `${task}.json`), JSON.stringify(doc, null, 2).replace('"nauc_ndcg_at_1_max": 0.1', '"nauc_ndcg_at_1_max": NaN'));
  }
  writeFileSync(
    join(folder, 'model_meta.json'),
    JSON.stringify({
      name: model,
      revision,
      n_parameters: 335_000_000,
      embed_dim: 1024,
      open_weights: true,
      license: 'apache-2.0',
      release_date: '2025-01-02',
    }),
  );
  return folder;
}

test('imported MTEB results: in the mteb leaderboard of their release, never the coreb one; the same BM25 imported twice and run once is one row', () => {
  // BM25 under the mteb protocol, exported as MTEB files and imported back twice.
  const ev = runCli(
    [
      'eval',
      '--data',
      mini,
      '--results',
      store,
      '--protocol',
      'mteb',
      '--retriever',
      'bm25',
      '--retriever',
      'bm25?k1=1.2&b=0.75&name=bm25-classic',
      '--quiet',
    ],
    { env },
  );
  assert.equal(ev.status, 0, ev.stderr);
  const bm25 = entries().find((e) => e.retriever === 'bm25' && e.protocol === 'mteb')!;
  const exported = join(dir, 'mteb-export');
  const ex = runCli(
    [
      'export',
      'mteb',
      join(store, ...bm25.path.split('/')),
      '--out',
      exported,
      '--model-name',
      'coreb/bm25',
      '--revision',
      'v1',
      ...['text2code', 'code2text', 'code2code'].flatMap((t) => ['--dataset-revision', `${t}=${t}-rev`]),
    ],
    { env },
  );
  assert.equal(ex.status, 0, ex.stderr);
  const im1 = runCli(['results', 'import-mteb', store, exported], { env });
  assert.equal(im1.status, 0, im1.stderr);
  assert.match(im1.stderr, /imported 1 row\(s\)/);
  const im2 = runCli(['results', 'import-mteb', store, exported], { env });
  assert.match(im2.stderr, /imported 0 row\(s\) .*1 already there/);

  // A published model on coreb-mini (revisions coreb does not know: --split says which release).
  const published = join(dir, 'published');
  writeMtebModel(
    published,
    'org/code-embedder',
    'abc123',
    { CorebT2CRetrieval: 0.61, CorebC2TRetrieval: 0.52, CorebC2CRetrieval: 0.7 },
    (t) => `${t}-unknown`,
  );
  const refused = runCli(['results', 'import-mteb', store, published], { env });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /nothing imported: .*`--split NAME` imports it/);
  const im3 = runCli(['results', 'import-mteb', store, published, '--split', 'coreb_mini_v1'], { env });
  assert.equal(im3.status, 0, im3.stderr);
  // One on MTEB's pinned v202603 revisions: a leaderboard of its own release.
  const pinned = join(dir, 'pinned');
  const pins: Record<string, string> = {
    CorebT2CRetrieval: '4c171f120c2a63216df5499e573af234b8c30376',
    CorebC2TRetrieval: 'ed660dab63182a8290c5a8d4bc7b3e6e2306d36b',
    CorebC2CRetrieval: 'ee25caf9aa8a6334da7c40e5b45ba579faf66a5e',
  };
  writeMtebModel(pinned, 'org/other', 'r2', { CorebT2CRetrieval: 0.4, CorebC2TRetrieval: 0.3, CorebC2CRetrieval: 0.5 }, (t) => pins[t]);
  assert.equal(runCli(['results', 'import-mteb', store, pinned], { env }).status, 0);

  const { leaderboards } = boards();
  const mteb = leaderboards.find((b) => b.dataset === 'coreb_mini_v1' && b.protocol === 'mteb')!;
  assert.deepEqual(
    mteb.rows.map((r) => r.retriever).sort(),
    ['bm25', 'bm25-classic', 'org/code-embedder'],
    'the imported BM25 is the scored bm25 row, shown once',
  );
  assert.ok(mteb.notes.some((n) => /Shown once: coreb\/bm25/.test(n)));
  const pub = mteb.rows.find((r) => r.retriever === 'org/code-embedder')!;
  assert.equal(pub.rank, 1);
  assert.equal(pub.taskMean, Number(((0.61 + 0.52 + 0.7) / 3).toFixed(5)));
  assert.equal(pub.overall, null);
  assert.equal(pub.imported!.revision, 'abc123');
  assert.equal(pub.model!.parameters, 335_000_000);
  assert.deepEqual(pub.significantlyBetterThan, {}, 'no per-query values: no test');
  for (const b of leaderboards.filter((x) => x.protocol === 'coreb')) {
    assert.ok(!b.rows.some((r) => r.imported !== undefined || r.retriever.startsWith('org/')), `${b.dataset}: no imported row under coreb`);
  }
  const v2603 = leaderboards.find((b) => b.dataset === 'release_v2603')!;
  assert.equal(v2603.protocol, 'mteb');
  assert.deepEqual(
    v2603.rows.map((r) => r.retriever),
    ['org/other'],
  );
  const text = runCli(['leaderboard', store, '--permutations', '2000'], { env }).stdout;
  assert.match(text, /org\/code-embedder †/);
});

test('leaderboard --site: every page renders in headless Chromium without console errors; numbers match the store; the Pareto chart is drawn', async (t) => {
  if (!chromiumAvailable()) {
    t.skip('chromium not installed');
    return;
  }
  const site = join(dir, 'site');
  const r = runCli(['leaderboard', store, '--site', site, '--permutations', '2000'], { env });
  assert.equal(r.status, 0, r.stderr);
  const pages = [
    'index.html',
    'cross-release.html',
    'pareto.html',
    'models.html',
    ...['boards', 'models'].flatMap((d) => readdirSync(join(site, d)).map((f) => `${d}/${f}`)),
  ];
  const { leaderboards } = boards();
  assert.equal(readdirSync(join(site, 'boards')).length, leaderboards.length);
  // one browser, a tab per page
  const browser = await startChromium();
  t.after(() => browser.close());
  for (const p of pages) {
    const html = readFileSync(join(site, p), 'utf8');
    assert.doesNotMatch(html, /<script/i, `${p}: no script`);
    const opened = await browser.open(join(site, p));
    try {
      assert.deepEqual(opened.errors, [], p);
      // Every link of the page leads to a page of the site.
      const links = await opened.page.$$eval('a[href]', (as) => as.map((a) => (a as unknown as { href: string }).href));
      for (const l of links) assert.ok(l.startsWith('file://') && pages.some((q) => l.endsWith(`/${q}`)), `${p}: link ${l}`);
      if (p.startsWith('boards/')) {
        const title = await opened.page.title();
        const board = leaderboards.find((b) => title.includes(`${b.dataset} — protocol ${b.protocol}`))!;
        assert.ok(board !== undefined, title);
        for (const row of board.rows) {
          const cell = await opened.page.$eval(`td[data-retriever="${row.retriever}"][data-col="${board.rankBy}"]`, (td) =>
            (td.firstChild?.textContent ?? '').trim(),
          );
          const value = board.rankBy === 'taskMean' ? row.taskMean : row.overall;
          assert.equal(cell, value!.toFixed(4), `${p} ${row.retriever}`);
        }
        if (board.dataset === 'coreb_mini_v1' && board.protocol === 'coreb') {
          // bm25-classic has 110M parameters (from --model-meta, kept in the store): a point; the other BM25s a reference line.
          // The chart is Vega-Lite's, like the report's: one point mark, labelled, beside dashed rules.
          const labels = await opened.page.$$eval('figure.pareto g.mark-symbol.role-mark path', (c) =>
            c.map((p) => p.getAttribute('aria-label') ?? ''),
          );
          assert.equal(labels.length, 1, labels.join('\n'));
          assert.match(labels[0], /retriever: bm25-classic/);
          const texts = await opened.page.$$eval('figure.pareto g.mark-text.role-mark text', (t) => t.map((x) => x.textContent ?? ''));
          assert.ok(texts.includes('bm25-classic'), texts.join(', '));
          assert.ok(
            texts.some((x) => /^bm25 \(no parameters\) 0\.\d{4}$/.test(x)),
            texts.join(', '),
          );
          const box = await opened.page.$eval('figure.pareto svg', (s) => s.getBoundingClientRect().width);
          assert.ok(box > 300, 'the chart is laid out');
        }
      }
      if (p === 'models.html') {
        // Each board a model is on is a link to that board, with the model's rank there.
        const links = await opened.page.$$eval('td a[href^="boards/"]', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
        assert.ok(links.length >= 4, JSON.stringify(links));
        for (const [, href] of links) assert.ok(pages.includes(href!), `${href} is a page of the site`);
      }
      if (p === 'cross-release.html') {
        const cells = await opened.page.$eval('table', (table) =>
          [...table.querySelectorAll('td[data-retriever="bm25"]')].map((td) => td.getAttribute('data-col')),
        );
        assert.deepEqual(cells, ['coreb_mini_v1', 'release_v9903']);
      }
    } finally {
      await opened.close();
    }
  }
  const bm25Page = pages.find((p) => p.startsWith('models/bm25-') && !p.includes('classic') && !p.includes('anserini') && !p.includes('wide'))!;
  const html = readFileSync(join(site, bm25Page), 'utf8');
  assert.match(html, /text2code: per language/);
  assert.match(html, /Per subtask/);
});

test('coreb report and coreb compare read a results store: report writes its page for both releases; compare tests against the BM25 row and says so', () => {
  const out = join(dir, 'report-from-store');
  const r = runCli(['report', store, '--out', out, '--no-png', '--permutations', '2000'], { env });
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  for (const name of ['bm25-classic', 'bm25-anserini', 'release_v9903']) assert.ok(html.includes(name), name);
  assert.match(html, /[Cc]ross-release/);
  const c = runCli(['compare', store, '--test', 't-test'], { env });
  assert.equal(c.status, 0, c.stderr);
  // The store's first entry by file name is bm25-anserini; the baseline is the BM25 row all the same.
  assert.match(c.stderr, /baseline bm25 \(the BM25 row; --baseline NAME picks another\)/);
  assert.match(c.stdout, /compare: baseline bm25,/);
  const empty = join(dir, 'not-a-store');
  mkdirSync(empty, { recursive: true });
  const bad = runCli(['report', empty, '--out', join(dir, 'nothing')], { env });
  assert.equal(bad.status, 3, bad.stderr);
  assert.match(bad.stderr, /no results\.json \(coreb eval --out\), no results-store entry \(coreb eval --results\) and no contamination\.json/);
});
