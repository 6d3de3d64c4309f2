import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureTables, tempDir, writeJsonlRelease } from '../../test/e2e/validate-fixture.js';
import { loadRelease } from './release.js';
import { join } from 'node:path';
import { releaseTasks, taskAnchors } from './release-tasks.js';
import { releaseToWire, saveRelease } from './release-save.js';
import { releaseStats, renderReleaseStats, retrievalTaskStats, sliceLanguage, subtaskVariant, summarizeCounts } from './release-stats.js';
import { subtaskLanguage } from './release-schema.js';

async function fixture() {
  return (await loadRelease(writeJsonlRelease(tempDir(), fixtureTables()))).release;
}

test('releaseTasks gives each task its corpus, typed queries and a qrels map', async () => {
  const tasks = releaseTasks(await fixture());
  assert.deepEqual(
    tasks.text2code.corpus.map((d) => d.id),
    ['c1', 'c2', 'c3', 'c4', 'c5'],
  );
  assert.equal(tasks.code2code.corpus, tasks.text2code.corpus, 'code tasks share one corpus');
  assert.deepEqual(
    tasks.code2text.corpus.map((d) => d.id),
    ['t1', 't2', 't3'],
  );
  const c2 = tasks.text2code.corpus[1];
  assert.deepEqual([c2.language, c2.problemId, c2.meta?.model, c2.meta?.passed], ['java', 'p1', 'model-b', true]);
  assert.equal(tasks.code2text.corpus[0].meta?.abbreviatedText, 'Count things for p1.');

  const [t1, t2] = tasks.text2code.queries;
  assert.deepEqual(
    [t1.task, t1.subtask, t1.language, t1.subQueryType, t1.problemId],
    ['text2code', 't2c_canonical_retro_any', 'any', 'abbreviated', 'p1'],
  );
  assert.equal(t2.language, 'python');
  assert.equal(t1.anchorId, undefined);

  const c2c = tasks.code2code.queries[0];
  assert.deepEqual([c2c.language, c2c.anchorId, c2c.subtask], ['java', 'c2', 'c2c_cross_lang']);

  const [r1, r2, match] = tasks.code2text.queries;
  assert.deepEqual([r1.language, r1.anchorId, r1.subQueryType], ['python', 'c1', 'full_description']);
  assert.deepEqual([r2.language, r2.subQueryType], ['java', 'canonical_description']);
  assert.equal(match.subQueryType, 'full', 'c2t_match falls back to the top-level text_type');
  assert.equal(match.meta?.textType, 'full', 'a null meta.text_type does not hide text_type');

  assert.deepEqual(
    [...tasks.text2code.qrels.get('q_t2c_1')!],
    [
      ['c1', 2],
      ['c2', 2],
      ['c3', 1],
    ],
  );
  assert.equal(tasks.code2text.qrels.get('q_c2t_3')?.get('t1'), 1);
});

test('releaseStats counts tables, slices, relevance levels and positives per query', async () => {
  const s = releaseStats(await fixture());
  assert.equal(s.tables.code_corpus, 5);
  assert.equal(s.tables.code2text_qrels, 4);
  assert.deepEqual(s.code.byLanguage, { python: 3, java: 2 });
  assert.deepEqual([s.code.passed, s.code.problems], [4, 2]);
  assert.deepEqual([s.text.originals, s.text.hardNegatives, s.text.withAbbreviatedText], [2, 1, 2]);
  assert.equal(s.queries, 7);
  const t2c = s.tasks.text2code;
  assert.deepEqual(t2c.byLanguage, { any: 1, python: 1, java: 1 });
  assert.deepEqual(t2c.byVariantLanguage, { canonical_retro: { any: 1 }, search: { python: 1 }, full_retro: { java: 1 } });
  assert.deepEqual(t2c.qrelsByRelevance, { '2': 4, '1': 3 });
  // positives per query: q1 2, q2 1, q3 1
  assert.deepEqual(t2c.positivesPerQuery, { n: 3, min: 1, median: 1, mean: 4 / 3, max: 2 });
  const c2t = s.tasks.code2text;
  assert.deepEqual(c2t.byLanguage, { python: 2, any: 1 });
  assert.equal(c2t.queriesWithoutPositive, 1);
  assert.deepEqual(c2t.positivesPerQuery, { n: 3, min: 0, median: 1, mean: 2 / 3, max: 1 });
  assert.deepEqual([c2t.danglingDocIds, c2t.danglingQueryIds, c2t.danglingAnchors], [0, 0, 0]);
  const text = renderReleaseStats(s);
  assert.match(text, /code_corpus\s+5/);
  assert.match(text, /qrels: 7 \(rel=2: 4, rel=1: 3\)/);
  assert.match(text, /dangling ids: 0/);
});

test('stats count dangling ids the validator would report', async () => {
  const t = fixtureTables();
  t.text2code_qrels[0].doc_id = 'ghost';
  t.code2code_queries[0].meta_anchor_code_id = 'ghost';
  const s = releaseStats((await loadRelease(writeJsonlRelease(tempDir(), t))).release);
  assert.equal(s.tasks.text2code.danglingDocIds, 1);
  assert.equal(s.tasks.code2code.danglingAnchors, 1);
});

test('summaries: median of an even count is the mean of the middle two', () => {
  assert.deepEqual(summarizeCounts([4, 1, 3, 2]), { n: 4, min: 1, median: 2.5, mean: 2.5, max: 4 });
  assert.deepEqual(summarizeCounts([]), { n: 0, min: 0, median: 0, mean: 0, max: 0 });
  assert.equal(subtaskVariant('t2c_canonical_retro_python'), 'canonical_retro');
  assert.equal(subtaskVariant('c2t_match'), 'match');
  assert.equal(subtaskVariant('c2c_cross_lang'), 'cross_lang');
});

test('retrievalTaskStats counts positives at the given level', () => {
  const qrels = new Map([
    [
      'a',
      new Map([
        ['d1', 1],
        ['d2', 0],
      ]),
    ],
    ['b', new Map([['d1', 2]])],
  ]);
  const s = retrievalTaskStats({ name: 'x', corpus: [], queries: [], qrels }, 1);
  assert.deepEqual([s.qrels, s.judgedQueries, s.positivesPerQuery.mean], [3, 2, 1]);
  assert.equal(retrievalTaskStats({ name: 'x', corpus: [], queries: [], qrels }, 2).positivesPerQuery.mean, 0.5);
});

test('taskAnchors maps each query to its anchor code item', async () => {
  const tasks = releaseTasks(await fixture());
  assert.deepEqual([...taskAnchors(tasks.code2code)], [['q_c2c_1', 'c2']]);
  assert.equal(taskAnchors(tasks.text2code).size, 0);
  assert.equal(taskAnchors(tasks.code2text).get('q_c2t_2'), 'c4');
});

test('saveRelease writes the wire format back: reloading gives the same records', async () => {
  const original = await fixture();
  const dir = join(tempDir(), 'out');
  await saveRelease(dir, original);
  const again = await loadRelease(dir);
  assert.deepEqual(again.issues, []);
  assert.deepEqual(again.release.codeCorpus, original.codeCorpus);
  assert.deepEqual(again.release.textCorpus, original.textCorpus);
  assert.deepEqual(again.release.tasks, original.tasks);
  assert.deepEqual(releaseToWire(original).code2code_queries, fixtureTables().code2code_queries);
});

test('subtask language slices: the last part when it is any or a CoREB language', () => {
  assert.equal(subtaskLanguage('t2c_search_go'), 'go');
  assert.equal(subtaskLanguage('c2t_full_retro_any'), 'any');
  assert.equal(subtaskLanguage('c2t_match'), undefined);
  assert.equal(subtaskLanguage('c2c_cross_lang'), undefined);
  assert.equal(subtaskVariant('t2c_search_any'), 'search');
  assert.equal(sliceLanguage('text2code', 't2c_search_ruby', 'none'), 'ruby');
  assert.equal(sliceLanguage('text2code', 't2c_other', 'none'), 'any');
  assert.equal(sliceLanguage('code2code', 'c2c_cross_lang', null, 'java'), 'java');
});
