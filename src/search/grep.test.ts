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

test('grep through its word index ranks exactly as a scan of every document, search after search', async () => {
  // random documents over a small alphabet of words and non-word characters, some non-ASCII
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pieces = ['json', 'Encoder', 'to_json', 'jsonjson', 'İstanbul', 'naïve', 'x9', ' ', '.', '(', '\n', 'déjà'];
  const docs = Array.from({ length: 200 }, (_, i) => ({
    id: `d${i}`,
    text: Array.from({ length: 1 + rand(12) }, () => pieces[rand(pieces.length)]).join(rand(2) === 0 ? '' : ' '),
  }));
  const queries = ['json encoder', 'JSONJSON', 'İstanbul naïve', 'to_json x9 déjà', 'son'].map((text, i) => ({ id: `q${i}`, text }));
  const index = await createGrepRetriever().index(docs);
  for (let round = 0; round < 2; round++) {
    for (const q of queries) {
      const got = (await index.search([q], 1000)).get(q.id);
      const patterns = grepPatterns(q.text);
      const want = docs
        .map((d) => ({ id: d.id, s: Math.fround(grepScore(d.text.toLowerCase(), patterns)) }))
        .filter((x) => x.s > 0)
        .sort((a, b) => b.s - a.s || (a.id < b.id ? 1 : -1));
      assert.deepEqual(
        got?.docIds,
        want.map((x) => x.id),
        `${q.text} (round ${round})`,
      );
    }
  }
});
