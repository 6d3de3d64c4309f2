import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc } from '../core/dataset.js';
import { createRng } from '../core/random.js';
import { createBm25Index } from './bm25.js';
import { LiveBm25Index } from './bm25-live.js';

const WORDS = [
  'parse',
  'render',
  'items',
  'strip',
  'token',
  'json',
  'reader',
  'writer',
  'getValue',
  'set_value',
  'HTTPServer',
  'the',
  'a',
  'of',
  'x1',
  'cache',
];

function randomDoc(id: string, u: () => number): Doc {
  const n = 3 + (u() % 30);
  const words = Array.from({ length: n }, () => WORDS[u() % WORDS.length]);
  return { id, title: `src/${WORDS[u() % WORDS.length]}.py`, text: words.join(' ') };
}

/** The live index's answers equal a fresh index's over the same documents, score for score, for every query. */
async function assertSameAsFresh(live: LiveBm25Index, docs: Map<string, Doc>, what: string): Promise<void> {
  const fresh = createBm25Index([...docs.values()]);
  const queries = ['parse items', 'json reader writer', 'getValue set value', 'http server cache', 'the strip token token', 'nothing here'];
  const expected = await fresh.search(
    queries.map((text, i) => ({ id: `q${i}`, text })),
    20,
  );
  queries.forEach((text, i) => {
    const got = live.search(text, 20);
    const want = expected.get(`q${i}`)!;
    assert.deepEqual(got.docIds, want.docIds, `${what}: "${text}" ids`);
    assert.deepEqual([...got.scores], [...want.scores], `${what}: "${text}" scores`);
  });
}

test('a live bm25 index scores exactly as a fresh index over its documents, through adds, replacements, removals and compaction', async () => {
  const u = createRng(17);
  const live = new LiveBm25Index();
  const docs = new Map<string, Doc>();
  for (let i = 0; i < 200; i++) {
    const d = randomDoc(`d${i}`, u);
    docs.set(d.id, d);
    live.add(d);
  }
  await assertSameAsFresh(live, docs, 'all in the delta');
  await live.compact();
  assert.deepEqual(live.stats(), { documents: 200, base: 200, removed: 0, delta: 0 });
  await assertSameAsFresh(live, docs, 'compacted');
  for (let step = 0; step < 120; step++) {
    const id = `d${u() % 260}`;
    if (u() % 3 === 0 && docs.has(id)) {
      assert.equal(live.remove(id), true);
      docs.delete(id);
    } else {
      const d = randomDoc(id, u);
      docs.set(id, d);
      live.add(d);
    }
  }
  const s = live.stats();
  assert.ok(s.removed > 0 && s.delta > 0, JSON.stringify(s));
  assert.equal(s.documents, docs.size);
  await assertSameAsFresh(live, docs, 'after edits');
  await live.compact();
  await assertSameAsFresh(live, docs, 'compacted again');
  assert.equal(live.remove('absent'), false);
});

test('staged documents (a first build) are held, replaced and removed by id, and indexed by the next compaction exactly', async () => {
  const u = createRng(5);
  const live = new LiveBm25Index();
  live.beginStaging();
  const docs = new Map<string, Doc>();
  for (let i = 0; i < 150; i++) {
    const d = randomDoc(`d${i % 120}`, u);
    docs.set(d.id, d);
    live.add(d);
  }
  assert.equal(live.remove('d3'), true);
  docs.delete('d3');
  assert.equal(live.size, docs.size);
  assert.equal(live.get('d7'), docs.get('d7'));
  assert.equal(live.search(docs.get('d7')!.text, 5).docIds.length, 0, 'staged documents are not searched');
  await live.compact();
  assert.deepEqual(live.stats(), { documents: docs.size, base: docs.size, removed: 0, delta: 0 });
  await assertSameAsFresh(live, docs, 'staged, then compacted');
  // staging ends with the compaction: later adds are searched at once
  const d = randomDoc('late', u);
  docs.set(d.id, d);
  live.add(d);
  await assertSameAsFresh(live, docs, 'an add after the staging');
});

test('adds and removals while a compaction builds apply at once and survive it (searches exact throughout)', async () => {
  const u = createRng(9);
  const live = new LiveBm25Index();
  const docs = new Map<string, Doc>();
  for (let i = 0; i < 300; i++) {
    const d = randomDoc(`d${i}`, u);
    docs.set(d.id, d);
    live.add(d);
  }
  await live.compact();
  const running = live.compact();
  for (let step = 0; step < 40; step++) {
    const id = `d${u() % 320}`;
    if (u() % 2 === 0 && docs.has(id)) {
      live.remove(id);
      docs.delete(id);
    } else {
      const d = randomDoc(id, u);
      docs.set(id, d);
      live.add(d);
    }
  }
  assert.equal(live.compact(), running, 'a second call waits for the running compaction');
  await assertSameAsFresh(live, docs, 'while compacting');
  await running;
  assert.equal(live.size, docs.size);
  await assertSameAsFresh(live, docs, 'after the compaction, the changes replayed');
});
