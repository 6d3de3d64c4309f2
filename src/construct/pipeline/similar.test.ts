import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Embedder } from '../../core/embedding.js';
import { similarProblems, similarProblemsByEmbedding } from './similar.js';

test('similar problems: shared rare terms rank first, unrelated texts fall under the 0.1 cut, k bounds the list', () => {
  const docs = [
    { id: 'a', text: 'Count the number of palindromic substrings of a string of lowercase letters.' },
    { id: 'b', text: 'Given a string, count palindromic substrings that have odd length.' },
    { id: 'c', text: 'Find the shortest path in a weighted graph with Dijkstra.' },
    { id: 'd', text: 'Shortest path between two cities on a weighted road graph.' },
    { id: 'e', text: 'Print the total of integers read.' },
  ];
  const s = similarProblems(docs);
  assert.deepEqual(s.get('a'), ['b']);
  assert.deepEqual(s.get('c'), ['d']);
  assert.deepEqual(s.get('e'), []);
  assert.equal(similarProblems(docs, 1, 0).get('a')?.length, 1);
});

test('similar problems by embedding: ranked by cosine of the vectors (rows normalised here), the same cut and k, each text embedded once as a document', async () => {
  const vectors: Record<string, number[]> = {
    // a and c share no words but point the same way; b is far from everything; d is a scaled copy of a.
    a: [1, 0, 0],
    b: [0, 0, 1],
    c: [0.9, 0.1, 0],
    d: [5, 0, 0.5],
  };
  const docs = Object.keys(vectors).map((id) => ({ id, text: `text ${id}` }));
  const seen: Array<{ texts: readonly string[]; role: string }> = [];
  const embedder: Embedder = {
    id: 'fake:vectors',
    describe: () => ({ provider: 'fake' }),
    async embed(texts, options) {
      seen.push({ texts, role: options.role });
      const data = new Float32Array(texts.length * 3);
      texts.forEach((t, i) => data.set(vectors[t.slice(5)], i * 3));
      return { rows: texts.length, dim: 3, data };
    },
  };
  const s = await similarProblemsByEmbedding(docs, embedder);
  assert.deepEqual(s.get('a'), ['d', 'c']);
  assert.deepEqual(s.get('b'), [], 'd is at cosine 0.0995, under the 0.1 cut');
  assert.deepEqual(s.get('c')?.[0], 'a');
  assert.deepEqual(seen, [{ texts: docs.map((d) => d.text), role: 'document' }]);
  assert.equal((await similarProblemsByEmbedding(docs, embedder, undefined, 1)).get('a')?.length, 1);
});
