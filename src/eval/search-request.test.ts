import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Doc } from '../core/dataset.js';
import { answerSearch, parseSymbolQuery, pathMatcher, type RankSource, symbolMatch } from './search-request.js';

test('path patterns: folders, ** and *, a bare name in any folder, ? one character', () => {
  const m = (p: string[], path: string) => pathMatcher(p)(path);
  assert.ok(m(['src/'], 'src/a/b.py'));
  assert.ok(!m(['src/'], 'lib/src/a.py'));
  assert.ok(m(['**/*.py'], 'a.py') && m(['**/*.py'], 'x/y/a.py'));
  assert.ok(m(['src/**/*.go'], 'src/x.go') && m(['src/**/*.go'], 'src/a/b/x.go') && !m(['src/**/*.go'], 'cmd/x.go'));
  assert.ok(m(['*.go'], 'cmd/main.go') && !m(['*.go'], 'cmd/main.gox'));
  assert.ok(m(['test_*'], 'tests/test_core.py') && !m(['test_*'], 'tests/core_test.py'));
  assert.ok(m(['src/*.py'], 'src/a.py') && !m(['src/*.py'], 'src/x/a.py'));
  assert.ok(m(['a?.c'], 'd/ab.c') && !m(['a?.c'], 'd/abc.c'));
  assert.ok(m(['a+b(1).txt'], 'a+b(1).txt'), 'regex characters are literal');
  assert.ok(m(['x/', '*.md'], 'README.md'));
});

test('symbol queries: parsed, and matched closest first', () => {
  assert.deepEqual(parseSymbolQuery('symbol:Parser.parse  with  tokens '), { symbol: 'Parser.parse', rest: 'with  tokens' });
  assert.equal(parseSymbolQuery('parse symbol:x'), undefined);
  assert.equal(symbolMatch('Parser.parse', 'Parser.parse'), 0);
  assert.equal(symbolMatch('Parser.parse', 'parse'), 1);
  assert.equal(symbolMatch('Parser::parse', 'parse'), 1);
  assert.equal(symbolMatch('Parser.Parse', 'parse'), 2);
  assert.equal(symbolMatch('parseAll', 'parse'), 3);
  assert.equal(symbolMatch('load', 'parse'), undefined);
  assert.equal(symbolMatch(undefined, 'parse'), undefined);
});

/** Docs `f<i>` of alternating Python and Go files, two chunks each, ranked in id order; the depths asked are recorded. */
function source(n: number): RankSource & { asked: number[] } {
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const file = Math.floor(i / 2);
    const go = file % 2 === 1;
    docs.push({
      id: `d${i}`,
      text: `chunk ${i}`,
      meta: {
        metaPath: go ? `cmd/f${file}.go` : `src/f${file}.py`,
        metaLanguage: go ? 'go' : 'python',
        metaSymbol: i === 7 ? 'Parser.parse' : i === 3 ? 'parse_all' : i === 12 ? 'parse' : `fn${i}`,
        metaStartLine: 1 + (i % 2) * 10,
      },
    });
  }
  const asked: number[] = [];
  return {
    asked,
    size: n,
    documents: () => docs,
    async rank(text, depth) {
      asked.push(depth);
      // the words `chunk 12` put d12 first; anything else ranks in order
      const order = text.includes('12') ? [docs[12], ...docs.filter((d) => d.id !== 'd12')] : docs;
      const top = order.slice(0, depth);
      return { docs: top, scores: top.map((_, i) => 100 - i) };
    },
  };
}

test('a filtered search goes deeper until k hits pass, and never further than the corpus', async () => {
  const s = source(1000);
  const a = await answerSearch(s, 'q', 5, { languages: ['Go'] });
  assert.ok('hits' in a);
  assert.deepEqual(
    a.hits.map((h) => h.id),
    ['d2', 'd3', 'd6', 'd7', 'd10'],
  );
  assert.deepEqual(
    a.hits.map((h) => h.rank),
    [1, 2, 3, 4, 5],
  );
  assert.deepEqual(s.asked, [100]);
  // one file only: deeper and deeper, to the whole corpus
  const b = await answerSearch(s, 'q', 5, { paths: ['cmd/f499.go'] });
  assert.ok('hits' in b);
  assert.deepEqual(
    b.hits.map((h) => h.id),
    ['d998', 'd999'],
  );
  assert.deepEqual(s.asked.slice(1), [100, 400, 1000]);
  const none = await answerSearch(s, 'q', 5, { paths: ['nowhere/'] });
  assert.deepEqual(none, { hits: [] });
});

test('grouped by file: k files at their best chunk, each with its chunks; with filters', async () => {
  const s = source(40);
  const a = await answerSearch(s, 'q', 3, { groupByFile: true, perFile: 1, paths: ['src/'] });
  assert.ok('files' in a);
  assert.deepEqual(
    a.files.map((f) => [f.rank, f.path, f.score, f.hits.map((h) => h.id)]),
    [
      [1, 'src/f0.py', 100, ['d0']],
      [2, 'src/f2.py', 96, ['d4']],
      [3, 'src/f4.py', 92, ['d8']],
    ],
  );
  const two = await answerSearch(s, 'q', 2, { groupByFile: true });
  assert.ok('files' in two);
  assert.deepEqual(
    two.files.map((f) => f.hits.map((h) => h.id)),
    [
      ['d0', 'd1'],
      ['d2', 'd3'],
    ],
  );
});

test('symbol: queries list the closest matches first, the words breaking ties, filters applied', async () => {
  const s = source(40);
  const a = await answerSearch(s, 'symbol:parse', 10);
  assert.ok('hits' in a);
  // d12 `parse` (same name), d7 `Parser.parse` (last part), d3 `parse_all` (contains)
  assert.deepEqual(
    a.hits.map((h) => [h.id, h.symbol]),
    [
      ['d12', 'parse'],
      ['d7', 'Parser.parse'],
      ['d3', 'parse_all'],
    ],
  );
  const go = await answerSearch(s, 'symbol:parse', 10, { languages: ['go'] });
  assert.ok('hits' in go);
  assert.deepEqual(
    go.hits.map((h) => h.id),
    ['d7', 'd3'],
  );
  assert.deepEqual(await answerSearch(s, 'symbol:nothing_is_called_this', 10), { hits: [] });
});

test('bad requests are refused with the field named', async () => {
  const s = source(4);
  await assert.rejects(answerSearch(s, ' ', 5), /non-empty string/);
  await assert.rejects(answerSearch(s, 'q', 0), /k must be an integer/);
  await assert.rejects(answerSearch(s, 'q', 5, { paths: [''] }), /paths must be a list of non-empty strings/);
  await assert.rejects(answerSearch(s, 'q', 5, { perFile: 0 }), /perFile must be/);
});
