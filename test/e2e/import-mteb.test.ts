/**
 * `coreb results import-mteb` on MTEB results files shaped as the results repository holds them
 * for CoREB: both revision families MTEB has pinned (`hq-bench/*` of MTEB's pull request, the
 * `mteb/*` copies since), retrieval and reranking tasks, `model_meta.json`; then the leaderboard
 * keeps reranking rows on a board of their own, ranked by MAP@10.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { mtebResultsFixture } from '../support/mteb.js';

const dir = mkdtempSync(join(tmpdir(), 'coreb-e2e-import-mteb-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, COREB_CACHE_DIR: join(dir, 'cache') };

/** MTEB's pins as results files carry them (mteb's task files, 2026-05-13 and 2026-05-20). */
const PR_REVISIONS: Record<string, string> = {
  CorebT2CRetrieval: '227a84ee19db93beeccfff0188299ed95c808742',
  CorebC2TRetrieval: 'dc306b20b36df58d87171763f7db5bb7ce0f418b',
  CorebC2CRetrieval: '7fc3acd92e887f8ea4a2eaf724f22cdafe45ec3d',
  CorebT2CReranking: 'c9f6a726da9e288a6f0c89dc4b960a52c704360e',
  CorebC2TReranking: '7b389786924b7f5a7586297aa9f94be15a58dea1',
  CorebC2CReranking: '320667716b6b9c45768ff05f5ebb356e900741ce',
};
const MTEB_REVISIONS: Record<string, string> = {
  CorebT2CRetrieval: '4c171f120c2a63216df5499e573af234b8c30376',
  CorebC2TRetrieval: 'ed660dab63182a8290c5a8d4bc7b3e6e2306d36b',
  CorebC2CRetrieval: 'ee25caf9aa8a6334da7c40e5b45ba579faf66a5e',
  CorebT2CReranking: '11aaa91e8c4915be01ba73fa89fadd0cebbf4972',
  CorebC2TReranking: '79beb7ee1b271cfd03966a3f5c553aa2c1cd8a95',
  CorebC2CReranking: '92c6923fc428dd176d4a7379f3dac7564313ae37',
};

/** One task file: every score `base`, with nDCG@10 and MAP@10 as given and MTEB's main score. */
function taskFile(task: string, revision: string, ndcg10: number, map10: number): string {
  const fixture = mtebResultsFixture();
  const scores = { ...(fixture.scores as { test: Array<Record<string, unknown>> }).test[0] };
  for (const k of Object.keys(scores)) if (typeof scores[k] === 'number') scores[k] = k.startsWith('nauc') ? 0.1 : 0.25;
  scores.ndcg_at_10 = ndcg10;
  scores.map_at_10 = map10;
  scores.main_score = task.endsWith('Reranking') ? map10 : ndcg10;
  const doc = { ...fixture, task_name: task, dataset_revision: revision, scores: { test: [scores] } };
  // MTEB writes Python's NaN literal.
  return JSON.stringify(doc, null, 2).replace('"nauc_ndcg_at_1_max": 0.1', '"nauc_ndcg_at_1_max": NaN');
}

function writeModel(root: string, model: string, revision: string, tasks: Record<string, { rev: string; ndcg: number; map: number }>): void {
  const folder = join(root, model.replace('/', '__'), revision);
  mkdirSync(folder, { recursive: true });
  for (const [task, t] of Object.entries(tasks)) writeFileSync(join(folder, `${task}.json`), taskFile(task, t.rev, t.ndcg, t.map));
  writeFileSync(
    join(folder, 'model_meta.json'),
    JSON.stringify({
      name: model,
      revision,
      n_parameters: 110_000_000,
      embed_dim: 768,
      open_weights: true,
      license: 'mit',
      release_date: '2025-06-01',
    }),
  );
}

const published = join(dir, 'results');
const all = (revs: Record<string, string>, retrieval: number, reranking: [number, number]) =>
  Object.fromEntries(
    Object.entries(revs).map(([task, rev]) => [
      task,
      task.endsWith('Reranking') ? { rev, ndcg: reranking[0], map: reranking[1] } : { rev, ndcg: retrieval, map: retrieval / 2 },
    ]),
  );
// On the PR's hq-bench revisions: better retrieval, better reranking nDCG but worse reranking MAP@10.
writeModel(published, 'org/model-a', 'a1', all(PR_REVISIONS, 0.62, [0.9, 0.3]));
// On the mteb/ copies.
writeModel(published, 'org/model-b', 'b1', all(MTEB_REVISIONS, 0.41, [0.5, 0.6]));
// One task on a revision MTEB never pinned: that file is left out, the others imported.
writeModel(published, 'org/model-c', 'c1', {
  ...all(MTEB_REVISIONS, 0.3, [0.2, 0.1]),
  CorebC2CRetrieval: { rev: 'f'.repeat(40), ndcg: 0.99, map: 0.99 },
});

test('published CoREB results of both revision families import without --split; reranking rows get their own board ranked by MAP@10', () => {
  const store = join(dir, 'store');
  const im = runCli(['results', 'import-mteb', store, published], { env });
  assert.equal(im.status, 0, im.stderr);
  assert.match(im.stderr, /imported 6 row\(s\)/);
  // The unknown revision is named with what --split would do; the known files of that model are in.
  assert.match(
    im.stderr,
    /CorebC2CRetrieval\.json: dataset revision ffffffffffff is not one MTEB has pinned for CorebC2CRetrieval \(its pins: .*7fc3acd92e88 \(2026-05-13\).*ee25caf9aa8a \(2026-05-20\)\); not imported\. `--split NAME` imports it/,
  );
  // The PR's revisions are older pins: said, not refused.
  assert.match(
    im.stderr,
    /CorebT2CRetrieval\.json: dataset revision 227a84ee19db \(hq-bench\/coreb-t2c-retrieval\) was MTEB's pin from 2026-05-13 to 2026-05-20/,
  );

  const lb = runCli(['leaderboard', store, '--format', 'json'], { env });
  assert.equal(lb.status, 0, lb.stderr);
  const { leaderboards } = JSON.parse(lb.stdout) as {
    leaderboards: Array<{
      dataset: string;
      family: string;
      label: string;
      measure: string;
      rows: Array<{ rank: number | null; retriever: string; taskMean: number | null; tasks: Record<string, number | null> }>;
    }>;
  };
  assert.deepEqual(
    leaderboards.map((b) => [b.dataset, b.family, b.measure]),
    [
      ['release_v2603', 'retrieval', 'ndcg@10'],
      ['release_v2603', 'reranking', 'map@10'],
    ],
  );
  const [retrieval, reranking] = leaderboards;
  assert.deepEqual(
    retrieval.rows.map((r) => [r.rank, r.retriever, r.taskMean]),
    [
      [1, 'org/model-a', 0.62],
      [2, 'org/model-b', 0.41],
      // Scored on two of the three tasks: listed, unranked.
      [null, 'org/model-c', 0.3],
    ],
  );
  assert.equal(retrieval.rows[2].tasks.code2code, null);
  assert.ok(
    retrieval.rows.every((r) => !r.retriever.includes('reranking')),
    'no reranking row on the retrieval board',
  );
  // MAP@10 ranks model-b first although model-a's reranking nDCG@10 is higher.
  assert.deepEqual(
    reranking.rows.map((r) => [r.rank, r.retriever, r.taskMean]),
    [
      [1, 'org/model-b (reranking)', 0.6],
      [2, 'org/model-a (reranking)', 0.3],
      [3, 'org/model-c (reranking)', 0.1],
    ],
  );
  assert.equal(reranking.label, 'release_v2603 · reranking');
  const text = runCli(['leaderboard', store], { env }).stdout;
  assert.match(text, /release_v2603 · reranking — protocol mteb, ranked by task mean map@10/);
  // The site has a page per board; the reranking board's is its own.
  const site = join(dir, 'site');
  const st = runCli(['leaderboard', store, '--site', site], { env });
  assert.equal(st.status, 0, st.stderr);
  const index = readFileSync(join(site, 'index.html'), 'utf8');
  const pages = [...index.matchAll(/href="(boards\/[^"]+\.html)"/g)].map((m) => m[1]);
  assert.equal(new Set(pages).size, 2, `two board pages: ${pages.join(', ')}`);
  const rerankPage = readFileSync(join(site, pages.find((p) => p.includes('reranking'))!), 'utf8');
  assert.match(rerankPage, /org\/model-b \(reranking\)/);
  assert.doesNotMatch(rerankPage, /org\/model-a<\/a>/);
});

test('a folder whose every file is on a revision MTEB never pinned: nothing imported without --split, and --split imports it', () => {
  const only = join(dir, 'unknown');
  writeModel(only, 'org/model-d', 'd1', {
    CorebT2CRetrieval: { rev: 'e'.repeat(40), ndcg: 0.5, map: 0.4 },
  });
  const store = join(dir, 'store-unknown');
  const refused = runCli(['results', 'import-mteb', store, only], { env });
  assert.equal(refused.status, 2);
  assert.match(
    refused.stderr,
    /nothing imported: org__model-d\/d1: CorebT2CRetrieval\.json: dataset revision eeeeeeeeeeee is not one MTEB has pinned/,
  );
  const forced = runCli(['results', 'import-mteb', store, only, '--split', 'release_v2603'], { env });
  assert.equal(forced.status, 0, forced.stderr);
  assert.match(forced.stderr, /imported 1 row\(s\)/);
});
