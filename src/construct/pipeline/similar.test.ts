import assert from 'node:assert/strict';
import { test } from 'node:test';
import { similarProblems } from './similar.js';

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
