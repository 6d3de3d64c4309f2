/**
 * Numbers that do not belong together never share a table: `coreb report` gives each (dataset,
 * protocol) its own leaderboard, a row scored on part of the queries is never ranked among complete
 * rows nor marked against them, `coreb compare` does not test pairs scored on other queries, the
 * cross-release view compares the subtasks two releases share, and a results file with a UTF-8 BOM
 * is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { writeGrownRelease } from '../support/grown-release.js';
import { tempDir } from '../support/judge.js';

const sections = (html: string) => [...html.matchAll(/<h2>(.*?)<\/h2>/g)].map((m) => m[1]);
const section = (html: string, id: string) => new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? '';
/** The first table of a piece of HTML (a section's own table, before its charts' data tables). */
const firstTable = (html: string) => /<table>[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

test('report: a coreb-protocol and an mteb-protocol results file of the same BM25 give two leaderboards, never one', () => {
  const dir = tempDir('coreb-e2e-report-groups-');
  for (const p of ['coreb', 'mteb']) {
    const r = runCli(['eval', '--protocol', p, '--tasks', 't2c', '--out', join(dir, p), '--runs', 'none', '--quiet']);
    assert.equal(r.status, 0, r.stderr);
  }
  // A BOM at the start of a results file (Windows editors write one) is read.
  const m = join(dir, 'mteb', 'results.json');
  writeFileSync(m, `\uFEFF${readFileSync(m, 'utf8')}`);
  const r = runCli(['report', join(dir, 'coreb'), m, '--out', join(dir, 'report'), '--no-png', '--permutations', '200']);
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
  const boards = sections(html).filter((s) => s.startsWith('Leaderboard'));
  assert.deepEqual(boards, ['Leaderboard — coreb_mini_v1, protocol coreb', 'Leaderboard — coreb_mini_v1, protocol mteb']);
  const why = text(section(html, 'leaderboards'));
  assert.match(why, /2 leaderboards, one per dataset and protocol/);
  assert.match(why, /protocol mteb vs coreb_mini_v1 · protocol coreb: another protocol \(.*relevanceLevel 1 vs 2/);
  // Each leaderboard holds one row: bm25 is not ranked against itself under another protocol.
  for (const id of ['leaderboard-0', 'leaderboard-1']) assert.equal((firstTable(section(html, id)).match(/<tr>/g) ?? []).length, 2, id);
  // Same dataset, two protocols: no cross-release view.
  assert.ok(!sections(html).some((s) => s.startsWith('Cross-release')));
  const c = runCli(['compare', m, '--format', 'json']);
  assert.equal(c.status, 2, 'one retriever: nothing to compare (the BOM is not the problem)');
  assert.match(c.stderr, /one retriever/);
});

test('report and compare: a row scored on part of the queries is listed unranked and never marked against complete rows', () => {
  const dir = tempDir('coreb-e2e-report-partial-');
  const full = runCli([
    'eval',
    '--retriever',
    'bm25',
    '--retriever',
    'bm25?k1=0.3&b=0.1&name=weak',
    '--out',
    join(dir, 'full'),
    '--runs',
    'none',
    '--quiet',
  ]);
  assert.equal(full.status, 0, full.stderr);
  const part = runCli([
    'eval',
    '--retriever',
    'bm25?k1=1.2&name=partial',
    '--subtasks',
    't2c_canonical_*',
    '--out',
    join(dir, 'part'),
    '--runs',
    'none',
    '--quiet',
  ]);
  assert.equal(part.status, 0, part.stderr);
  const r = runCli([
    'report',
    join(dir, 'full'),
    join(dir, 'part'),
    '--out',
    join(dir, 'report'),
    '--no-png',
    '--permutations',
    '500',
    '--alpha',
    '0.5',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const board = section(readFileSync(join(dir, 'report', 'index.html'), 'utf8'), 'leaderboard-0');
  const rows = [...firstTable(board).matchAll(/<tr>(.*?)<\/tr>/g)].map((x) => x[1]).slice(1);
  assert.equal(rows.length, 3);
  assert.match(rows[2], /partial/, 'the partial row comes last');
  assert.match(text(board), /Listed last, unranked: partial/);
  // Its cells carry no significance mark, and no complete row is marked against it.
  assert.doesNotMatch(rows[2], /<sup/);
  assert.ok(!rows.slice(0, 2).some((row) => /<sup title="[^"]*partial/.test(row)), 'no mark against the partial row');
  assert.ok(
    rows.slice(0, 2).some((row) => /<sup title/.test(row)),
    'the complete rows are tested against each other',
  );
  // compare: a results file holding a complete and a partial row tests nothing between them.
  const merged = JSON.parse(readFileSync(join(dir, 'full', 'results.json'), 'utf8'));
  const partial = JSON.parse(readFileSync(join(dir, 'part', 'results.json'), 'utf8'));
  merged.retrievers.push(partial.retrievers[0]);
  writeFileSync(join(dir, 'merged.json'), JSON.stringify(merged));
  const c = runCli(['compare', join(dir, 'merged.json'), '--format', 'json', '--test', 't-test']);
  assert.equal(c.status, 0, c.stderr);
  const cmp = JSON.parse(c.stdout) as {
    comparisons: Array<{ retriever: string }>;
    skipped: Array<{ retriever: string; scope: string; reason: string }>;
  };
  assert.ok(cmp.comparisons.every((x) => x.retriever !== 'partial'));
  assert.ok(cmp.comparisons.some((x) => x.retriever === 'weak'));
  assert.deepEqual([...new Set(cmp.skipped.map((x) => x.retriever))], ['partial']);
  assert.match(cmp.skipped[0].reason, /scored on other queries/);
});

test('report: the cross-release view orders releases by date, compares their shared subtasks and flags the change of composition', () => {
  const dir = tempDir('coreb-e2e-report-releases-');
  const newer = writeGrownRelease(join(dir, 'release_v9903'));
  const mini = runCli([
    'eval',
    '--data',
    join(process.cwd(), 'data', 'coreb-mini', 'release'),
    '--split',
    'release_v9901',
    '--out',
    join(dir, 'a'),
    '--runs',
    'none',
    '--quiet',
  ]);
  assert.equal(mini.status, 0, mini.stderr);
  const grown = runCli(['eval', '--data', newer.dir, '--split', 'release_v9903', '--out', join(dir, 'b'), '--runs', 'none', '--quiet']);
  assert.equal(grown.status, 0, grown.stderr);
  // Given newest first: the view still runs from the older release to the newer.
  const r = runCli(['report', join(dir, 'b'), join(dir, 'a'), '--out', join(dir, 'report'), '--no-png', '--permutations', '200']);
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
  assert.ok(sections(html).includes('Cross-release stability — release_v9901 → release_v9903'), sections(html).join(' | '));
  const view = text(section(html, 'stability'));
  assert.match(view, /Composition changed : added c2c_cross_model \(24 queries\), c2c_future_x \(13 queries\), c2c_mono_lang \(24 queries\)/);
  assert.match(view, /only in release_v9903: c2c_cross_model, c2c_future_x, c2c_mono_lang/);
  // Every subtask of the older release is shared; the newer one's additions are left out of that table.
  const shared = /The same change on the (\d+) subtasks both releases have/.exec(view);
  assert.ok(shared !== null && Number(shared[1]) > 30, view.slice(0, 400));
  // The two releases' descriptive tables pooled: items summed, means weighted by them.
  const stats = ['a', 'b'].map(
    (d) =>
      JSON.parse(readFileSync(join(dir, d, 'results.json'), 'utf8')).dataset.stats.tokens.queryVariants.t2c_search as {
        items: number;
        meanTokens: number;
      },
  );
  const items = stats[0].items + stats[1].items;
  const mean = (stats[0].items * stats[0].meanTokens + stats[1].items * stats[1].meanTokens) / items;
  const pooled = text(section(html, 'dataset-pooled'));
  assert.match(pooled, /release_v9901, release_v9903 together/);
  assert.match(pooled, new RegExp(`t2c_search \\(languages pooled\\) ${mean.toFixed(1).replace('.', '\\.')} ${items}`));
});

test('eval and report: the paper per-language view (§B.6, non-search subtasks) beside the pooled one, and the release token and verified tables', () => {
  const dir = tempDir('coreb-e2e-report-views-');
  const ev = runCli(['eval', '--tasks', 't2c', '--out', join(dir, 'e'), '--runs', 'none'], {
    env: { ...process.env, COREB_CACHE_DIR: join(dir, 'cache') },
  });
  assert.equal(ev.status, 0, ev.stderr);
  const results = JSON.parse(readFileSync(join(dir, 'e', 'results.json'), 'utf8'));
  const bm25 = results.retrievers[0];
  // §B.6: the unweighted mean of t2c_canonical_retro_go and t2c_full_retro_go (search left out).
  const b6 = (bm25.subtasks.t2c_canonical_retro_go.metrics['ndcg@10'] + bm25.subtasks.t2c_full_retro_go.metrics['ndcg@10']) / 2;
  const line = new RegExp(`^text2code \\(§B\\.6\\) .*${b6.toFixed(4)}`, 'm');
  assert.match(ev.stdout, line);
  assert.match(ev.stdout, /^text2code {2,}0\.\d{4}/m, 'the pooled row stays');
  // The release's descriptive statistics are recorded once per dataset (cached by its sha256).
  assert.equal(results.dataset.stats.tokens.encoding, 'cl100k_base');
  assert.equal(results.dataset.stats.tokens.queryVariants.t2c_search.items, 72);
  const r = runCli(['report', join(dir, 'e'), '--out', join(dir, 'report'), '--no-png', '--permutations', '100']);
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
  const ds = text(section(html, 'dataset-0'));
  assert.match(ds, /t2c_search \(languages pooled\) \d+\.\d 72/);
  assert.match(ds, /author-a \d+\.\d% \(\d+\/\d+\)/);
  assert.match(text(section(html, 'languages-0')), /the paper's view \(§B\.6\)/);
});

test('report: the same BM25 row in three files (a results file, a copy, its results-store entry) is one row, with a note saying so', () => {
  const dir = tempDir('coreb-e2e-report-dupes-');
  const r = runCli(['eval', '--tasks', 't2c', '--out', join(dir, 'run'), '--runs', 'none', '--quiet', '--results', join(dir, 'store')], {
    env: { ...process.env, COREB_CACHE_DIR: join(dir, 'cache') },
  });
  assert.equal(r.status, 0, r.stderr);
  const copy = join(dir, 'copy.json');
  writeFileSync(copy, readFileSync(join(dir, 'run', 'results.json')));
  const ls = JSON.parse(runCli(['results', 'ls', join(dir, 'store'), '--format', 'json']).stdout) as { entries: Array<{ path: string }> };
  const entry = join(dir, 'store', ...ls.entries[0].path.split('/'));
  const rep = runCli(['report', join(dir, 'run'), copy, entry, '--out', join(dir, 'report'), '--no-png', '--permutations', '200']);
  assert.equal(rep.status, 0, rep.stderr);
  const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
  const board = text(firstTable(section(html, 'leaderboard-0')));
  assert.equal([...board.matchAll(/\bbm25\b/g)].length, 1, board);
  assert.doesNotMatch(board, /file 2|file 3/);
  assert.match(
    text(section(html, 'leaderboard-0')),
    /Shown once: bm25 of .*copy\.json \(the same row as in .*results\.json\); bm25 of .*\.json \(the same row as in/,
  );
});
