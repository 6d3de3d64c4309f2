import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, Query } from '../core/dataset.js';
import { createBm25Retriever } from '../search/bm25.js';
import { createRetriever } from './create-retriever.js';
import { createLanguageFilteredRetriever, queryLanguages } from './language-filter.js';
import { parseRetrieverSpec } from './retriever-spec.js';

const LANGS = ['python', 'java', 'cpp', 'go', 'ruby'];
// 200 programs; Python ones are rare (every 10th) and score low, so a shallow search finds none.
const docs: Doc[] = Array.from({ length: 200 }, (_, i) => ({
  id: `d${String(i).padStart(3, '0')}`,
  text: `sort array ${'sort '.repeat(i % 10 === 0 ? 1 : 1 + (i % 7))} item${i}`,
  language: i % 10 === 0 ? 'python' : LANGS[1 + (i % 4)],
}));

test('filter=language keeps exactly the full ranking cut to the query language, searching deeper until depth is met', async () => {
  const plain = await createBm25Retriever().index(docs);
  const filtered = await createLanguageFilteredRetriever(createBm25Retriever(), 'bm25?filter=language').index(docs);
  const queries: Query[] = [
    { id: 'py', text: 'sort array', language: 'python' },
    { id: 'any', text: 'sort array', language: 'any' },
  ];
  const full = await plain.search(queries, 200, { task: 'text2code' });
  const got = await filtered.search(queries, 5, { task: 'text2code' });
  const lang = new Map(docs.map((d) => [d.id, d.language]));
  const expected = full
    .get('py')!
    .docIds.filter((id) => lang.get(id) === 'python')
    .slice(0, 5);
  assert.equal(expected.length, 5);
  assert.deepEqual(got.get('py')!.docIds, expected);
  assert.deepEqual(got.get('any')!.docIds, full.get('any')!.docIds.slice(0, 5), 'an any query is not filtered');
  // Scores are the inner retriever's.
  const fullScores = new Map(full.get('py')!.docIds.map((id, i) => [id, full.get('py')!.scores[i]]));
  got.get('py')!.docIds.forEach((id, i) => assert.equal(got.get('py')!.scores[i], fullScores.get(id)));
});

test('the languages a query asks for: t2c language_constraint, c2c target languages, nothing for c2t or any', () => {
  assert.deepEqual([...(queryLanguages({ id: 'a', text: '', language: 'go' }, 'text2code') ?? [])], ['go']);
  assert.equal(queryLanguages({ id: 'a', text: '', language: 'any' }, 'text2code'), undefined);
  assert.deepEqual(
    [...(queryLanguages({ id: 'a', text: '', language: 'go', meta: { targetLanguages: ['java', 'cpp'] } }, 'code2code') ?? [])],
    ['java', 'cpp'],
  );
  assert.equal(queryLanguages({ id: 'a', text: '', language: 'python' }, 'code2text'), undefined);
});

test('filter=language in specs: any kind, beside name=, in rrf; described; a wrong value refused', async () => {
  assert.deepEqual(parseRetrieverSpec('bm25?k1=0.9&filter=language'), {
    kind: 'bm25',
    text: 'bm25?k1=0.9&filter=language',
    params: { k1: 0.9 },
    filter: 'language',
  });
  const named = parseRetrieverSpec('bm25?filter=language&name=lexical');
  assert.equal(named.name, 'lexical');
  assert.equal(named.filter, 'language');
  const rrf = parseRetrieverSpec('rrf:bm25,run:x.trec,filter=language');
  assert.equal(rrf.filter, 'language');
  assert.equal(rrf.kind === 'rrf' && rrf.members.length, 2);
  assert.throws(() => parseRetrieverSpec('bm25?filter=lang'), /unknown filter `lang`; valid: language/);
  const r = await createRetriever(parseRetrieverSpec('bm25?filter=language'), { baseDir: '.', env: {} });
  assert.equal(r.describe().filter, 'language');
});
