import { test } from 'node:test';
import assert from 'node:assert/strict';
import { averageRanks, kendallTauB, spearman } from './rank-correlation.js';

test('average ranks share ties', () => {
  assert.deepEqual(averageRanks([0.5, 0.4, 0.3, 0.3, 0.1]), [1, 2, 3.5, 3.5, 5]);
});

test('Spearman and Kendall tau-b equal scipy (spearmanr, kendalltau) with ties', () => {
  const x = [0.5, 0.4, 0.3, 0.3, 0.1];
  const y = [0.45, 0.41, 0.2, 0.35, 0.1];
  // scipy 1.17.1: stats.spearmanr(x, y).statistic, stats.kendalltau(x, y).statistic
  assert.ok(Math.abs(spearman(x, y) - 0.9746794344808963) < 1e-12);
  assert.ok(Math.abs(kendallTauB(x, y) - 0.9486832980505138) < 1e-12);
  assert.equal(spearman([1, 2, 3], [3, 2, 1]), -1);
  assert.equal(kendallTauB([1, 2, 3], [1, 2, 3]), 1);
  assert.ok(Number.isNaN(spearman([1], [2])));
});
