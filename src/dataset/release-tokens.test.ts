import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/shared.js';
import { loadRelease } from './release.js';
import { loadCl100kCounter, releaseTokenStats, renderReleaseTokenStats, verifiedByModelLanguage } from './release-tokens.js';

test('cl100k_base counts as tiktoken does, special-token text counted as ordinary text', async () => {
  const count = await loadCl100kCounter();
  // tiktoken cl100k_base: "hello world" -> [15339, 1917]; "<|endoftext|>" as ordinary text -> 7 tokens.
  assert.equal(count('hello world'), 2);
  assert.equal(count('<|endoftext|>'), 7);
  assert.equal(count(''), 0);
});

test('token means per subtask, subtask family, task and corpus; verified programs per model x language', async () => {
  const { release } = await loadRelease(join(projectRoot, 'data', 'coreb-mini', 'release'));
  // A counter of whitespace-separated words makes every mean checkable by hand.
  const words = (s: string) => s.split(/\s+/).filter((w) => w !== '').length;
  const t = await releaseTokenStats(release, words);
  const search = release.tasks.text2code.queries.filter((q) => q.subtask.startsWith('t2c_search_'));
  assert.equal(t.queryVariants.t2c_search.items, search.length);
  assert.equal(t.queryVariants.t2c_search.meanTokens, search.reduce((n, q) => n + words(q.query), 0) / search.length);
  const go = release.tasks.text2code.queries.filter((q) => q.subtask === 't2c_search_go');
  assert.equal(t.querySubtasks.t2c_search_go.items, go.length);
  assert.equal(t.queryTasks.code2code.items, release.tasks.code2code.queries.length);
  assert.equal(t.codeCorpus.all.items, release.codeCorpus.length);
  assert.equal(t.textCorpus.originals.items + t.textCorpus['near-miss'].items, release.textCorpus.length);
  const v = verifiedByModelLanguage(release);
  assert.deepEqual(v['author-a'].go, {
    programs: release.codeCorpus.filter((c) => c.model === 'author-a' && c.language === 'go').length,
    passed: release.codeCorpus.filter((c) => c.model === 'author-a' && c.language === 'go' && c.meta.passed === true).length,
  });
  const text = renderReleaseTokenStats(t, v);
  assert.match(text, /t2c_search +\d+\.\d tokens {2}\(72 items\)/);
  assert.match(text, /author-a +\d+\/\d+/);
});
