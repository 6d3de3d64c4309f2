import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RELEASE_TABLES } from '../core/dataset.js';
import { sharedPath } from '../../test/support/shared.js';
import { tempDir, writeParquetRelease, type WireTables } from '../../test/e2e/validate-fixture.js';
import { loadRelease } from './release.js';
import { releaseToWire } from './release-save.js';
import { releaseStats } from './release-stats.js';
import { loadCl100kCounter, releaseTokenStats, verifiedByModelLanguage } from './release-tokens.js';
import { releaseTasks } from './release-tasks.js';
import { validateRelease } from './validate-release.js';

const DIR = sharedPath('data', 'coreb', 'release_v2602');

/** The raw rows, parsed independently of the code under test. */
function rawTables(): WireTables {
  const out = {} as WireTables;
  for (const t of RELEASE_TABLES) {
    out[t] = readFileSync(join(DIR, `${t}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  return out;
}

test('release_v2602 loads with its published counts and no problems', async () => {
  const { release, issues } = await loadRelease(DIR);
  assert.deepEqual(issues, []);
  assert.deepEqual(validateRelease(release), []);
  assert.equal(release.split, 'release_v2602');
  assert.equal(release.codeCorpus.length, 1670);
  assert.equal(release.textCorpus.length, 835);
  assert.equal(release.tasks.text2code.queries.length, 1165);
  assert.equal(release.tasks.code2code.queries.length, 169);
  assert.equal(release.tasks.code2text.queries.length, 1270);
  const raw = rawTables();
  for (const task of ['text2code', 'code2code', 'code2text'] as const) {
    assert.equal(release.tasks[task].qrels.length, raw[`${task}_qrels`].length);
  }
  const s = releaseStats(release);
  for (const task of ['text2code', 'code2code', 'code2text'] as const) {
    const t = s.tasks[task];
    assert.deepEqual([t.danglingQueryIds, t.danglingDocIds, t.danglingAnchors], [0, 0, 0], task);
    const byRel: Record<string, number> = {};
    for (const r of raw[`${task}_qrels`]) byRel[String(r.relevance)] = (byRel[String(r.relevance)] ?? 0) + 1;
    assert.deepEqual(t.qrelsByRelevance, byRel, task);
  }
  assert.equal(s.tasks.code2text.queriesWithoutPositive, raw.code2text_queries.filter((q) => q.subtask === 'c2t_match' && q.label === 0).length);
});

test('release_v2602 tasks: languages, anchors and sub-query types follow the raw fields', async () => {
  const tasks = releaseTasks((await loadRelease(DIR)).release);
  const raw = rawTables();
  const t2cAny = raw.text2code_queries.filter((q) => q.language_constraint === 'none').length;
  assert.equal(tasks.text2code.queries.filter((q) => q.language === 'any').length, t2cAny);
  const codeIds = new Set(tasks.code2code.corpus.map((d) => d.id));
  assert.ok(tasks.code2code.queries.every((q) => q.anchorId !== undefined && codeIds.has(q.anchorId)));
  raw.code2text_queries.forEach((q, i) => {
    const got = tasks.code2text.queries[i];
    assert.equal(got.subQueryType, q.meta_text_type ?? q.text_type, String(q.query_id));
    assert.equal(got.language, q.anchor_language);
  });
  assert.equal(tasks.code2code.qrels.size, 169);
});

test('release_v2602 as published-style parquet (nested and flattened meta) equals the JSONL load', async () => {
  const fromJsonl = (await loadRelease(DIR)).release;
  const tables = rawTables();
  for (const meta of ['nested', 'flat'] as const) {
    const dir = writeParquetRelease(tempDir(), { split: 'release_v2602', meta, tables });
    const { release, issues } = await loadRelease(dir, { format: 'parquet' });
    assert.deepEqual(issues, [], meta);
    assert.deepEqual(release.codeCorpus, fromJsonl.codeCorpus, meta);
    assert.deepEqual(release.textCorpus, fromJsonl.textCorpus, meta);
    assert.deepEqual(release.tasks, fromJsonl.tasks, meta);
  }
});

test('release_v2602 converts back to exactly its wire rows', async () => {
  const { release } = await loadRelease(DIR);
  const wire = releaseToWire(release);
  const raw = rawTables();
  for (const t of RELEASE_TABLES) assert.deepEqual(wire[t], raw[t], t);
});

test('release_v2602 token lengths in cl100k_base are the paper figures (Table 1: search 25.0, full about 448) and its verified programs per model x language', async () => {
  const { release } = await loadRelease(DIR);
  const t = await releaseTokenStats(release, await loadCl100kCounter());
  assert.equal(t.queryVariants.t2c_search.items, 263);
  assert.equal(t.queryVariants.t2c_search.meanTokens.toFixed(1), '25.0');
  assert.ok(Math.abs(t.queryVariants.t2c_full_retro.meanTokens - 448) < 1, String(t.queryVariants.t2c_full_retro.meanTokens));
  assert.equal(t.codeCorpus.all.items, 1670);
  const v = verifiedByModelLanguage(release);
  const passed = Object.values(v).reduce((n, langs) => n + Object.values(langs).reduce((m, c) => m + c.passed, 0), 0);
  // Verified-correct programs = the code corpus rows with meta_passed true, counted independently.
  const raw = rawTables().code_corpus.filter((r) => r.meta_passed === true).length;
  assert.equal(passed, raw);
  assert.deepEqual(Object.keys(v).sort(), ['claude-4-sonnet', 'gemini-3-flash']);
});
