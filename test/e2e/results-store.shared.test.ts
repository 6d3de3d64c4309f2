/**
 * The results store across releases: three retrievers on CoREB v202602 and on coreb-mini into one
 * store; the same commands again score nothing; one new retriever adds one entry per release.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { sharedPath } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-store-shared-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const store = join(tmp, 'store');
const env = { ...process.env, COREB_CACHE_DIR: join(tmp, 'cache') };
const v2602 = sharedPath('data', 'coreb', 'release_v2602');
const mini = join(process.cwd(), 'data', 'coreb-mini', 'release');
const THREE = ['--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75&name=bm25-classic', '--retriever', 'bm25?k1=0.9&b=0.4&name=bm25-anserini'];
const run = (data: string[], extra: string[] = []) =>
  runCli(['eval', ...data, '--results', store, '--quiet', '--format', 'json', ...THREE, ...extra], { env });
const entries = () =>
  (JSON.parse(runCli(['results', 'ls', store, '--format', 'json'], { env }).stdout) as { entries: Array<{ split: string; retriever: string }> })
    .entries;

test('three retrievers on v202602 and coreb-mini into one store; again: nothing scored; one new retriever: one entry per release', (t) => {
  // One matrix run over both releases, then each release again on its own.
  const matrix = runCli(['eval', '--data', v2602, '--data', mini, '--results', store, '--quiet', ...THREE], { env });
  assert.equal(matrix.status, 0, matrix.stderr);
  assert.equal([...matrix.stderr.matchAll(/3 row\(s\) scored and added, 0 already there/g)].length, 2, matrix.stderr);
  assert.match(matrix.stderr, /release 1 of 2: .*release_v2602[\s\S]*release 2 of 2: .*coreb-mini/);
  assert.deepEqual(
    entries()
      .map((e) => `${e.split} ${e.retriever}`)
      .sort(),
    ['bm25', 'bm25-anserini', 'bm25-classic'].flatMap((n) => [`coreb_mini_v1 ${n}`, `release_v2602 ${n}`]).sort(),
  );
  const t0 = Date.now();
  for (const data of [['--data', v2602], []]) {
    const r = run(data);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /0 row\(s\) scored and added, 3 already there and read from it/);
  }
  t.diagnostic(`the second pass over both releases took ${Date.now() - t0} ms (loading and hashing only)`);
  for (const data of [['--data', v2602], []]) {
    const r = run(data, ['--retriever', 'bm25?k1=1.5&b=0.9&name=bm25-wide']);
    assert.match(r.stderr, /1 row\(s\) scored and added, 3 already there/);
  }
  assert.equal(entries().length, 8);
  // The leaderboard of the store: one table per release, the published BM25 number on v202602.
  const lb = runCli(['leaderboard', store, '--format', 'json', '--permutations', '1000'], { env });
  assert.equal(lb.status, 0, lb.stderr);
  const { leaderboards, crossRelease } = JSON.parse(lb.stdout) as {
    leaderboards: Array<{ dataset: string; rows: Array<{ retriever: string; overall: number; rank: number }> }>;
    crossRelease: Array<{ releases: string[] }>;
  };
  assert.deepEqual(leaderboards.map((b) => b.dataset).sort(), ['coreb_mini_v1', 'release_v2602']);
  const v = leaderboards.find((b) => b.dataset === 'release_v2602')!;
  assert.equal(v.rows.length, 4);
  assert.equal(v.rows.find((r) => r.retriever === 'bm25')!.overall.toFixed(4), '0.4777');
  assert.equal(crossRelease[0].releases.length, 2);
});
