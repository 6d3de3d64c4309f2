import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, Query } from '../core/dataset.js';
import { isCorebError } from '../core/errors.js';
import { Bm25Index, createBm25Index, loadOrBuildBm25Index, resolveBm25Options } from './bm25.js';
import { type Bm25IndexStore, bm25IndexKey, decodeBm25IndexData, decodeBm25IndexDataAsync, encodeBm25IndexData } from './bm25-store.js';

const docs: Doc[] = [
  { id: 'p1', text: 'def maxValue(nums): return max(nums) # largest value' },
  { id: 'p2', text: 'int favoriteSequence; long removals = 0; sort(a.begin(), a.end());' },
  { id: 'p3', text: 'Given an array of integers, return the largest sum of a contiguous subarray.', title: 'Größe' },
  { id: 'é4', text: 'shortest path in a graph with dijkstra priority queue queue queue' },
];
const queries: Query[] = [
  { id: 'q1', text: 'largest value in an array' },
  { id: 'q2', text: 'priority queue shortest path' },
  { id: 'q3', text: 'sort removals sequence' },
];
const concat = (chunks: readonly Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(chunks));

async function same(a: Bm25Index, b: Bm25Index): Promise<void> {
  const ra = await a.search(queries, 10);
  const rb = await b.search(queries, 10);
  for (const q of queries) {
    assert.deepEqual(rb.get(q.id)?.docIds, ra.get(q.id)?.docIds, q.id);
    assert.deepEqual(Array.from(rb.get(q.id)?.scores ?? []), Array.from(ra.get(q.id)?.scores ?? []), q.id);
  }
}

test('an encoded BM25 index decodes to the same index: identical lists and scores, for any k1, b, query tf and RM3', async () => {
  const base = resolveBm25Options();
  const key = await bm25IndexKey(docs, base);
  const bytes = concat(encodeBm25IndexData(createBm25Index(docs).data, key));
  for (const options of [{}, { k1: 1.2, b: 0.75, queryTf: 'raw' as const }, { feedbackDocs: 2, feedbackTerms: 5 }]) {
    const resolved = resolveBm25Options(options);
    assert.equal(await bm25IndexKey(docs, resolved), key, 'k1, b, query tf and RM3 do not change the stored arrays');
    await same(createBm25Index(docs, options), new Bm25Index(decodeBm25IndexData(bytes, key), resolved));
  }
  // Term frequencies past 65535 are stored as int32.
  const heavy: Doc[] = [...docs, { id: 'big', text: 'queue '.repeat(70000) }];
  const hk = await bm25IndexKey(heavy, base);
  const decoded = decodeBm25IndexData(concat(encodeBm25IndexData(createBm25Index(heavy).data, hk)), hk);
  assert.ok(Array.from(decoded.postingTf ?? []).includes(70000));
  assert.ok(decoded.postingTf instanceof Int32Array, 'a frequency past 65535 keeps 32-bit frequencies');
  assert.ok(createBm25Index(docs).data.postingTf instanceof Uint16Array, 'frequencies below 65536 take 2 bytes per posting');
  await same(createBm25Index(heavy), new Bm25Index(decoded, base));
});

test('the index key changes with the corpus and the tokeniser parameters', async () => {
  const base = resolveBm25Options();
  const key = await bm25IndexKey(docs, base);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.notEqual(await bm25IndexKey([...docs.slice(0, 3), { ...docs[3], text: `${docs[3].text}!` }], base), key);
  assert.notEqual(await bm25IndexKey([...docs.slice(0, 3), { ...docs[3], id: 'other' }], base), key);
  assert.notEqual(await bm25IndexKey([docs[1], docs[0], docs[2], docs[3]], base), key);
  assert.notEqual(await bm25IndexKey(docs, resolveBm25Options({ stem: false })), key);
  assert.notEqual(await bm25IndexKey(docs, resolveBm25Options({ fields: ['text'] })), key, 'p3 has a title');
  // A field boundary is part of the key: "ab" + "" differs from "a" + "b".
  assert.notEqual(await bm25IndexKey([{ id: 'x', title: 'ab', text: '' }], base), await bm25IndexKey([{ id: 'x', title: 'a', text: 'b' }], base));
});

test('decoding rejects another key, a bad magic, a newer format, a flipped byte and a truncated file, saying which', async () => {
  const options = resolveBm25Options();
  const key = await bm25IndexKey(docs, options);
  const good = concat(encodeBm25IndexData(createBm25Index(docs).data, key));
  const fails = (bytes: Uint8Array, k: string, pattern: RegExp) =>
    assert.throws(
      () => decodeBm25IndexData(bytes, k),
      (e: unknown) => isCorebError(e, 'VALIDATION') && pattern.test(e.message),
    );
  fails(good, 'ab'.repeat(32), /expected abababababab/);
  const magic = good.slice();
  magic[0] ^= 1;
  fails(magic, key, /magic/);
  const format = Buffer.from(good);
  const at = format.indexOf('"format":1');
  format.write('"format":9', at);
  fails(new Uint8Array(format), key, /format 9/);
  for (const i of [good.length - 40, good.length - 5, 200]) {
    const flipped = good.slice();
    flipped[i] ^= 0x10;
    fails(flipped, key, /checksum|JSON|terms|ids/);
  }
  fails(good.subarray(0, good.length - 8), key, /truncated/);
  fails(new Uint8Array(3), key, /magic/);
});

test('loadOrBuildBm25Index builds and saves once, then reads the stored index; a corrupt one is rebuilt with a warning', async () => {
  const files = new Map<string, Uint8Array>();
  let saves = 0;
  const store: Bm25IndexStore = {
    load: async (key) => (files.has(key) ? { bytes: files.get(key) as Uint8Array, where: `mem:${key.slice(0, 8)}` } : undefined),
    save: async (key, chunks) => {
      saves++;
      files.set(key, concat(chunks));
      return `mem:${key.slice(0, 8)}`;
    },
  };
  const log: string[] = [];
  const logger = { info: (m: string) => log.push(`info ${m}`), warn: (m: string) => log.push(`warn ${m}`), debug: () => {} };
  const options = resolveBm25Options();
  const fresh = createBm25Index(docs);
  await same(fresh, await loadOrBuildBm25Index(docs, options, { store, logger }));
  assert.equal(saves, 1);
  await same(fresh, await loadOrBuildBm25Index(docs, options, { store, logger }));
  assert.equal(saves, 1, 'second run reads the stored index');
  assert.match(log.join('\n'), /read from mem:/);
  const [key, bytes] = [...files][0];
  bytes[bytes.length - 30] ^= 0xff;
  log.length = 0;
  await same(fresh, await loadOrBuildBm25Index(docs, options, { store, logger }));
  assert.match(log.join('\n'), /^warn bm25: mem:\w+: stored BM25 index: checksum mismatch .*; rebuilding the index$/m);
  assert.equal(saves, 2, 'the rebuilt index replaces the corrupt one');
  assert.doesNotThrow(() => decodeBm25IndexData(files.get(key) as Uint8Array, key));
  // A store that cannot save or load never fails the index.
  const broken: Bm25IndexStore = {
    load: async () => {
      throw new Error('disk on fire');
    },
    save: async () => {
      throw new Error('read-only');
    },
  };
  log.length = 0;
  await same(fresh, await loadOrBuildBm25Index(docs, options, { store: broken, logger }));
  assert.match(log.join('\n'), /disk on fire; rebuilding[\s\S]*could not be saved \(read-only\)/);
});

/** `n` documents over a few hundred words: several steps of every phase at `yieldMs: 0`. */
function manyDocs(n: number): Doc[] {
  return Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: `w${i % 397} v${(i * 7) % 211} u${(i * 13) % 101} common term${i % 5}` }));
}

test('loadOrBuildBm25Index stops on the signal in every phase (hash, read, build) and then saves nothing; stepped loading equals the one-step decode', async () => {
  const corpus = manyDocs(3000);
  const options = resolveBm25Options();
  const files = new Map<string, Uint8Array>();
  let saves = 0;
  const store: Bm25IndexStore = {
    load: async (key) => (files.has(key) ? { bytes: files.get(key) as Uint8Array, where: 'mem' } : undefined),
    save: async (key, chunks) => {
      saves++;
      files.set(key, concat(chunks));
      return 'mem';
    },
  };
  const stopAt = async (label: string, expectPhase: boolean): Promise<void> => {
    const controller = new AbortController();
    const seen: string[] = [];
    const progress = {
      start: (l: string) => {
        seen.push(l);
        if (l === label) controller.abort(new Error('interrupted by test'));
      },
      tick: () => {},
      done: () => {},
    };
    await assert.rejects(
      loadOrBuildBm25Index(corpus, options, { store }, { signal: controller.signal, yieldMs: 0, progress }),
      (e: unknown) => isCorebError(e, 'INTERRUPTED') && /interrupted by test/.test(e.message),
      label,
    );
    assert.equal(seen.includes(label), expectPhase, `${label} among ${seen.join(', ')}`);
  };
  for (const label of ['bm25 corpus hash', 'bm25 index read', 'bm25 index']) await stopAt(label, true);
  assert.equal(saves, 0, 'an interrupted build saves nothing');
  const built = await loadOrBuildBm25Index(corpus, options, { store }, { yieldMs: 0 });
  assert.equal(saves, 1);
  for (const label of ['bm25 corpus hash', 'bm25 index read']) await stopAt(label, true);
  const queries = [q('q1', 'w3 v21 common'), q('q2', 'term4 u7')];
  const [key, bytes] = [...files][0];
  const stepped = await Bm25Index.fromDataAsync(await decodeBm25IndexDataAsync(bytes, key, { yieldMs: 0 }), options, { yieldMs: 0 });
  assert.deepEqual(await stepped.search(queries, 20), await built.search(queries, 20));
  assert.deepEqual(await stepped.search(queries, 20), await new Bm25Index(decodeBm25IndexData(bytes, key), options).search(queries, 20));
  assert.equal(saves, 1, 'an interrupted read neither rebuilds nor saves');
});

const q = (id: string, text: string): Query => ({ id, text });
