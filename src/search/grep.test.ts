import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGrepRetriever, grepPatterns, grepScore } from './grep.js';

test('grep: the query words as patterns, documents by patterns matched then occurrences, exclusions honoured', async () => {
  assert.deepEqual(grepPatterns('Fix the JSON encoder for datetime in to_json'), ['fix', 'json', 'encoder', 'datetime', 'to_json']);
  assert.equal(grepScore('def to_json(x): return json.dumps(x)', ['json', 'xml']), 1 + 1 - 1 / (1 + 2));
  assert.equal(grepScore('nothing here', ['json']), 0);
  const index = await createGrepRetriever().index([
    { id: 'a', text: 'json json json' },
    { id: 'b', text: 'encoder for json' },
    { id: 'c', title: 'src/json_encoder.py', text: 'class Encoder: pass' },
    { id: 'd', text: 'unrelated' },
    { id: 'e', text: 'encoder for json' },
  ]);
  const out = await index.search([{ id: 'q', text: 'JSON encoder' }], 10, { exclude: new Map([['q', ['e']]]) });
  // b and c match both patterns (c through its path), once each: tie, docid descending; a matches one.
  assert.deepEqual(out.get('q')?.docIds, ['c', 'b', 'a']);
  const none = await index.search([{ id: 'q', text: 'a to' }], 10);
  assert.deepEqual(none.get('q')?.docIds, []);
});
