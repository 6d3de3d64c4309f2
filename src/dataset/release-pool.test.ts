import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadRelease } from './release.js';
import { poolDatasetStats, poolReleases } from './release-pool.js';
import { releaseStats } from './release-stats.js';
import { validateRelease } from './validate-release.js';

const mini = join(process.cwd(), 'data', 'coreb-mini', 'release');

test('a release pooled with itself under another split: counts doubled, means and seed problems unchanged, no dangling id', async () => {
  const a = (await loadRelease(mini)).release;
  const b = { ...a, split: 'other_split' };
  const one = releaseStats(a);
  const pool = poolReleases([a, b]);
  const two = releaseStats(pool);
  assert.equal(pool.split, `${a.split}+other_split`);
  assert.equal(two.queries, 2 * one.queries);
  assert.equal(two.code.total, 2 * one.code.total);
  assert.equal(two.code.problems, one.code.problems, 'a seed problem in both counts once');
  assert.equal(two.tasks.text2code.positivesPerQuery.mean, one.tasks.text2code.positivesPerQuery.mean);
  assert.equal(two.tasks.code2code.danglingAnchors + two.tasks.text2code.danglingDocIds, 0);
  assert.deepEqual(
    validateRelease(pool).filter((i) => i.severity === 'error'),
    [],
  );
  assert.equal(a.codeCorpus[0].codeId.includes('/'), false, 'the input is not modified');
});

test('pooled token means are weighted by items; verified counts summed', () => {
  const stats = (items: number, mean: number, passed: number) => ({
    tokens: {
      encoding: 'cl100k_base' as const,
      querySubtasks: {},
      queryTasks: {},
      queryVariants: { t2c_search: { items, meanTokens: mean } },
      codeCorpus: {},
      textCorpus: {},
    },
    verified: { m: { python: { programs: 10, passed } } },
  });
  // The paper's "19 tokens" per search query pools v202602's 25.0 with v202603's 12.7.
  const p = poolDatasetStats([stats(335, 25.0, 3), stats(300, 12.7, 4)]);
  assert.deepEqual(p.tokens.queryVariants.t2c_search, { items: 635, meanTokens: (335 * 25 + 300 * 12.7) / 635 });
  assert.deepEqual(p.verified.m.python, { programs: 20, passed: 7 });
});
