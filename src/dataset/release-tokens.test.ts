import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/shared.js';
import { loadRelease } from './release.js';
import {
  cachedReleaseTokenStats,
  loadCl100kCounter,
  releaseTokenDigest,
  releaseTokenStats,
  renderReleaseTokenStats,
  verifiedByModelLanguage,
} from './release-tokens.js';

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

test('token statistics are counted once per content: the cache file is read back, and any changed text or row is another key', async (t) => {
  const dir = join(projectRoot, 'data', 'coreb-mini', 'release');
  const { release } = await loadRelease(dir);
  const again = (await loadRelease(dir)).release;
  assert.equal(releaseTokenDigest(again), releaseTokenDigest(release));
  const cache = mkdtempSync(join(tmpdir(), 'coreb-tokens-'));
  t.after(() => rmSync(cache, { recursive: true, force: true }));
  const counted = await cachedReleaseTokenStats(release, cache);
  assert.deepEqual(counted, await releaseTokenStats(release, await loadCl100kCounter()));
  const file = join(cache, 'datasets', `${releaseTokenDigest(release)}.tokens.json`);
  assert.deepEqual(readdirSync(join(cache, 'datasets')), [`${releaseTokenDigest(release)}.tokens.json`]);
  // What the cache holds is what a later call returns (a marked copy shows it was read, not counted).
  const marked = { ...counted, queryTasks: { ...counted.queryTasks, code2code: { items: 1, meanTokens: 12345 } } };
  writeFileSync(file, JSON.stringify(marked));
  assert.equal((await cachedReleaseTokenStats(again, cache)).queryTasks.code2code.meanTokens, 12345);
  // A file that is not token statistics is counted over, never returned.
  writeFileSync(file, '{"encoding":"o200k_base"}');
  assert.deepEqual(await cachedReleaseTokenStats(again, cache), counted);
  // One changed query text, or a query moved to another subtask, is another digest.
  const q = again.tasks.text2code.queries[0];
  const edited = {
    ...again,
    tasks: {
      ...again.tasks,
      text2code: { ...again.tasks.text2code, queries: [{ ...q, query: `${q.query} ` }, ...again.tasks.text2code.queries.slice(1)] },
    },
  };
  assert.notEqual(releaseTokenDigest(edited), releaseTokenDigest(release));
  const moved = {
    ...again,
    tasks: {
      ...again.tasks,
      text2code: { ...again.tasks.text2code, queries: [{ ...q, subtask: 't2c_search_rust' }, ...again.tasks.text2code.queries.slice(1)] },
    },
  };
  assert.notEqual(releaseTokenDigest(moved), releaseTokenDigest(release));
  assert.ok(readFileSync(file, 'utf8').includes('cl100k_base'));
});

test('token statistics keyed by the release files digest: the same files are read back without hashing every text, other files are counted', async (t) => {
  const dir = join(projectRoot, 'data', 'coreb-mini', 'release');
  const { release } = await loadRelease(dir);
  const cache = mkdtempSync(join(tmpdir(), 'coreb-tokens-'));
  t.after(() => rmSync(cache, { recursive: true, force: true }));
  const counted = await cachedReleaseTokenStats(release, cache, undefined, 'a'.repeat(64));
  const [name] = readdirSync(join(cache, 'datasets'));
  assert.notEqual(name, `${releaseTokenDigest(release)}.tokens.json`, 'the files key, not the text digest');
  const marked = { ...counted, queryTasks: { ...counted.queryTasks, code2code: { items: 1, meanTokens: 777 } } };
  writeFileSync(join(cache, 'datasets', name!), JSON.stringify(marked));
  assert.equal((await cachedReleaseTokenStats(release, cache, undefined, 'a'.repeat(64))).queryTasks.code2code.meanTokens, 777);
  // Other files (an edited release) are another key: counted, never the marked copy.
  assert.deepEqual(await cachedReleaseTokenStats(release, cache, undefined, 'b'.repeat(64)), counted);
  assert.equal(readdirSync(join(cache, 'datasets')).length, 2);
});
