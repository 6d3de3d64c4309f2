import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc, Query } from '../core/dataset.js';
import { isCorebError } from '../core/errors.js';
import { Bm25Index, buildBm25IndexData, buildBm25IndexDataAsync, createBm25Index, createBm25Retriever, resolveBm25Options } from './bm25.js';
import { encodeBm25IndexData } from './bm25-store.js';

const plain = { stopwords: 'none', stem: false, minLength: 1, k1: 1.2, b: 0.75, queryTf: 'binary' } as const;
const docs: Doc[] = [
  { id: 'd1', text: 'apple banana apple' },
  { id: 'd2', text: 'banana cherry' },
  { id: 'd3', text: 'cherry cherry cherry date' },
];
const q = (id: string, text: string): Query => ({ id, text });

test('BM25 scores on a 3-document corpus match the Lucene formula computed by hand', async () => {
  const index = createBm25Index(docs, plain);
  const run = await index.search([q('q', 'apple cherry')], 10);
  // N = 3, dl = 3, 2, 4, avgdl = 3; df(apple) = 1, df(cherry) = 2; k1 = 1.2, b = 0.75.
  const idfApple = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
  const idfCherry = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
  const d1 = (idfApple * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 3) / 3));
  const d2 = (idfCherry * 1 * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 2) / 3));
  const d3 = (idfCherry * 3 * 2.2) / (3 + 1.2 * (0.25 + (0.75 * 4) / 3));
  const list = run.get('q');
  assert.ok(list);
  assert.deepEqual(list.docIds, ['d1', 'd3', 'd2']);
  assert.ok(list.scores instanceof Float32Array, 'scores are float32 so search order equals metrics order');
  const expected = [d1, d3, d2];
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(list.scores[i] - expected[i]) < 1e-6, `score ${i}: ${list.scores[i]} vs ${expected[i]}`);
});

test('BM25 query term frequency modes: raw counts repeated terms, binary does not', async () => {
  const raw = createBm25Index(docs, { ...plain, queryTf: 'raw' });
  const bin = createBm25Index(docs, plain);
  const r1 = (await raw.search([q('q', 'date date apple')], 3)).get('q');
  const r2 = (await bin.search([q('q', 'date date apple')], 3)).get('q');
  assert.ok(r1 && r2);
  // Binary: apple (tf 2, short doc) beats date (tf 1, long doc); raw doubles date's weight.
  assert.deepEqual(r2.docIds, ['d1', 'd3']);
  assert.deepEqual(r1.docIds, ['d3', 'd1']);
});

test('BM25 breaks score ties by docid descending in code-point order and never returns unmatched docs', async () => {
  const tied: Doc[] = [
    { id: 'd10', text: 'x y' },
    { id: 'd9', text: 'x y' },
    { id: 'd1', text: 'x y' },
    { id: 'e', text: 'z' },
  ];
  const list = (await createBm25Index(tied, plain).search([q('q', 'x')], 10)).get('q');
  assert.deepEqual(list?.docIds, ['d9', 'd10', 'd1']);
});

test('BM25 depth cuts the list, exclusions do not use up the depth, unknown terms give an empty list', async () => {
  const index = createBm25Index(docs, plain);
  const run = await index.search([q('a', 'banana cherry'), q('b', 'zebra')], 2, {
    exclude: new Map([['a', ['d2', 'not-a-doc']]]),
  });
  assert.equal(run.get('a')?.docIds.length, 2);
  assert.ok(!run.get('a')?.docIds.includes('d2'));
  assert.deepEqual(run.get('b')?.docIds, []);
});

test('BM25 matches code identifiers against natural-language text', async () => {
  const code: Doc[] = [
    { id: 'c1', text: 'def maxRemovals(playlist, favorite_sequence):\n    return 0' },
    { id: 'c2', text: 'int shortestPath(vector<int>& graph) { return 0; }' },
  ];
  const list = (await createBm25Index(code).search([q('q', 'Find the shortest path in a graph')], 2)).get('q');
  assert.equal(list?.docIds[0], 'c2');
  const cross = (await createBm25Index(code).search([q('q', 'int favoriteSequence; maxRemovals(x)')], 1)).get('q');
  assert.equal(cross?.docIds[0], 'c1');
});

test('bm25 retriever describes its variant and parameters, and rejects bad ones', async () => {
  const r = createBm25Retriever({ k1: 0.9, b: 0.4 });
  const d = r.describe();
  assert.equal(d.kind, 'bm25');
  assert.equal(d.variant, 'lucene');
  assert.equal(d.k1, 0.9);
  assert.equal(d.b, 0.4);
  assert.doesNotThrow(() => JSON.stringify(d));
  const index = await r.index(docs);
  assert.equal(index.size, 3);
  assert.throws(
    () => createBm25Retriever({ b: 2 }),
    (e) => isCorebError(e, 'USAGE'),
  );
  await assert.rejects(index.search([q('q', 'apple')], 0), (e) => isCorebError(e, 'USAGE'));
  await assert.rejects(r.index([...docs, { id: 'd1', text: 'dup' }]), (e) => isCorebError(e, 'VALIDATION'));
});

test('BM25 search stops with INTERRUPTED when the signal is aborted', async () => {
  const index = createBm25Index(docs, plain);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(index.search([q('q', 'apple')], 5, { signal: ac.signal }), (e) => isCorebError(e, 'INTERRUPTED'));
});

test('RM3 feedback adds terms of the top documents to the query', async () => {
  const corpus: Doc[] = [
    { id: 'd1', text: 'apple banana' },
    { id: 'd2', text: 'banana cherry' },
    { id: 'd3', text: 'kiwi' },
  ];
  const off = (await createBm25Index(corpus, plain).search([q('q', 'apple')], 3)).get('q');
  assert.deepEqual(off?.docIds, ['d1']);
  const rm3 = createBm25Index(corpus, { ...plain, feedbackDocs: 1, feedbackTerms: 5, feedbackWeight: 0.5 });
  const on = (await rm3.search([q('q', 'apple')], 3)).get('q');
  assert.deepEqual(on?.docIds, ['d1', 'd2'], 'banana, from d1, now retrieves d2');
  assert.deepEqual(createBm25Retriever({ feedbackDocs: 5 }).describe().feedback, { method: 'rm3', docs: 5, terms: 20, weight: 0.5 });
});

/** A corpus of `n` documents over a few hundred words, enough for several build steps. */
function manyDocs(n: number): Doc[] {
  return Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: `w${i % 397} v${(i * 7) % 211} u${(i * 13) % 101} common term${i % 5}` }));
}

test('the stepwise BM25 build gives the event loop turns, equals the one-step build and its rankings, and stops on abort', async () => {
  const corpus = manyDocs(5000);
  const options = resolveBm25Options(plain);
  const whole = buildBm25IndexData(corpus, options);
  let turns = 0;
  const seen: number[] = [];
  const timer = setInterval(() => turns++, 0);
  const stepped = await buildBm25IndexDataAsync(corpus, options, { yieldMs: 0, onDocs: (done) => seen.push(done) });
  clearInterval(timer);
  assert.deepEqual(
    seen,
    [1024, 2048, 3072, 4096, 5000],
    'a turn after every 1,024 documents, then one per chunk of postings laid out, when yieldMs is 0',
  );
  assert.ok(turns > 0, 'timers ran while the index was being built');
  assert.deepEqual(stepped, whole);

  const viaRetriever = await createBm25Retriever(plain).index(corpus);
  const queries = [q('q1', 'w3 v21 common'), q('q2', 'term4 u7')];
  assert.deepEqual(await viaRetriever.search(queries, 20), await createBm25Index(corpus, plain).search(queries, 20));

  const controller = new AbortController();
  await assert.rejects(
    buildBm25IndexDataAsync(corpus, options, { yieldMs: 0, signal: controller.signal, onDocs: (done) => done >= 2048 && controller.abort() }),
    (e: unknown) => isCorebError(e) && e.code === 'INTERRUPTED',
  );
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(
    createBm25Retriever(plain).index(corpus, { signal: aborted.signal }),
    (e: unknown) => isCorebError(e) && e.code === 'INTERRUPTED',
  );
});

test('a term frequency past 65,535 in one document is counted exactly (the build widens its 16-bit counts)', () => {
  const docs: Doc[] = [
    { id: 'a', text: 'zebra '.repeat(70_000) + 'lion' },
    { id: 'b', text: 'zebra lion lion' },
    { id: 'c', text: 'zebra '.repeat(65_535) },
  ];
  const data = buildBm25IndexData(docs, resolveBm25Options({}));
  assert.ok(data.postingTf instanceof Int32Array);
  const t = data.terms.indexOf('zebra');
  const tfs = [...data.postingTf.subarray(data.termStart[t], data.termStart[t + 1])];
  assert.deepEqual(tfs, [70_000, 1, 65_535]);
  const lion = data.terms.indexOf('lion');
  assert.deepEqual([...data.postingTf.subarray(data.termStart[lion], data.termStart[lion + 1])], [1, 2]);
  // Below the limit the counts stay 16-bit.
  assert.ok(buildBm25IndexData(docs.slice(1), resolveBm25Options({})).postingTf instanceof Uint16Array);
});

test('a forward list past its in-memory share goes to an unlinked temporary file and gives the same index, bit for bit', async () => {
  const corpus = manyDocs(3000);
  corpus[1700] = { id: 'd1700', text: `${'heavy '.repeat(70_000)}w3` };
  const options = resolveBm25Options(plain);
  const inMemory = await buildBm25IndexDataAsync(corpus, options);
  const dir = mkdtempSync(join(tmpdir(), 'coreb-fwd-test-'));
  try {
    // Chunks of 100 postings, 300 in memory: about 150 chunks go to the file, one of them with 32-bit frequencies.
    const spilled = await buildBm25IndexDataAsync(corpus, options, { forwardList: { chunkEntries: 100, inMemoryEntries: 300, dir } });
    assert.deepEqual(spilled, inMemory);
    assert.ok(spilled.postingTf instanceof Int32Array, 'a frequency of 70,000 widens the postings');
    assert.deepEqual(readdirSync(dir), [], 'nothing is left in the temporary directory');
    const queries = [q('q1', 'w3 heavy'), q('q2', 'term4 u7 common')];
    assert.deepEqual(await new Bm25Index(spilled, options).search(queries, 50), await new Bm25Index(inMemory, options).search(queries, 50));
    const missing = join(dir, 'no-such-dir');
    await assert.rejects(
      buildBm25IndexDataAsync(corpus, options, { forwardList: { chunkEntries: 100, inMemoryEntries: 300, dir: missing } }),
      (e: unknown) => isCorebError(e, 'IO') && e.message.includes(missing) && e.message.includes('TMPDIR'),
    );
    // A corpus whose forward list stays in memory never touches the directory.
    assert.deepEqual(
      await buildBm25IndexDataAsync(corpus.slice(0, 10), options, { forwardList: { dir: missing } }),
      buildBm25IndexData(corpus.slice(0, 10), options),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a searchOnly build keeps no term frequencies and ranks and scores exactly as the full build; what needs them is refused', async () => {
  const corpus = manyDocs(2500);
  const options = resolveBm25Options(plain);
  const full = buildBm25IndexData(corpus, options);
  const lean = await buildBm25IndexDataAsync(corpus, options, { searchOnly: true, forwardList: { chunkEntries: 64, inMemoryEntries: 128 } });
  assert.equal(lean.postingTf, undefined);
  assert.deepEqual(lean.postingDocs, full.postingDocs);
  assert.deepEqual(lean.termStart, full.termStart);
  const queries = [q('q1', 'w3 v21 common'), q('q2', 'term4 u7'), q('q3', 'w10 w11 w12 v0')];
  const exclude = new Map([['q1', ['d3', 'd400']]]);
  const a = await new Bm25Index(lean, options).search(queries, 100, { exclude });
  const b = await new Bm25Index(full, options).search(queries, 100, { exclude });
  assert.deepEqual(a, b, 'same documents, same float32 scores, same exclusions');
  assert.ok(!a.get('q1')?.docIds.includes('d3'));
  assert.throws(
    () => encodeBm25IndexData(lean, 'k'),
    (e: unknown) => isCorebError(e, 'USAGE') && /searchOnly/.test(e.message),
  );
  assert.throws(
    () => new Bm25Index(lean, resolveBm25Options({ ...plain, k1: 2 })),
    (e: unknown) => isCorebError(e, 'USAGE') && /k1 2/.test(e.message),
  );
  assert.throws(
    () => new Bm25Index(lean, resolveBm25Options({ ...plain, feedbackDocs: 3 })),
    (e: unknown) => isCorebError(e, 'USAGE') && /RM3/.test(e.message),
  );
  // The retriever builds searchOnly when nothing reads the frequencies again, and its rankings are the full index's.
  assert.deepEqual(
    await (await createBm25Retriever(plain).index(corpus)).search(queries, 100),
    await new Bm25Index(full, options).search(queries, 100),
  );
});

test('duplicate document ids are refused with both positions', () => {
  const dup: Doc[] = [...docs, { id: 'd0', text: 'x' }, { id: 'd2', text: 'again' }, { id: 'd2', text: 'thrice' }];
  assert.throws(
    () => createBm25Index(dup, plain),
    (e: unknown) => isCorebError(e, 'VALIDATION') && e.message.includes('document id "d2" occurs twice (positions 1 and 4)'),
  );
});
