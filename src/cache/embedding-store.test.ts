/**
 * The file-segment store and the cached embedder: round trips, torn tails and damaged records
 * after a crash, pruning, per-call deduplication and zero requests on a second identical call.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { EmbedOptions, Embedder, EmbeddingMatrix } from '../core/embedding.js';
import { cacheKey, createCachedEmbedder, namespaceOf } from './cached-embedder.js';
import { openEmbeddingStore, pruneEmbeddingStore } from './embedding-store.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'coreb-cache-'));
  dirs.push(d);
  return d;
}

const NS = namespaceOf({ provider: 'fake', model: 'm' });
function key(text: string, role = 'document'): Buffer {
  return cacheKey(NS, role, { template: '{text}', text });
}

function segments(root: string): string[] {
  return readdirSync(join(root, 'embeddings-v1')).filter((f) => f.endsWith('.ceb'));
}

test('vectors written, flushed and reopened come back bit for bit', () => {
  const root = tempDir();
  const s = openEmbeddingStore(root);
  const v = Float32Array.of(0.1, -2.5, 3e-8, 1 / 3);
  s.put(NS, key('a'), v);
  assert.deepEqual(s.get(key('a')), v, 'readable before flush');
  s.close();
  const s2 = openEmbeddingStore(root);
  assert.deepEqual(s2.get(key('a')), v);
  assert.equal(s2.get(key('b')), undefined);
  assert.equal(s2.stats().keys, 1);
  s2.close();
});

test('a torn tail (interrupted append) is ignored; earlier records and later writes survive', () => {
  const root = tempDir();
  const s = openEmbeddingStore(root);
  s.put(NS, key('a'), Float32Array.of(1, 2));
  s.put(NS, key('b'), Float32Array.of(3, 4));
  s.close();
  const seg = join(root, 'embeddings-v1', segments(root)[0]);
  const whole = readFileSync(seg);
  // Simulate a crash in the middle of writing a third record: its first 30 bytes only.
  appendFileSync(seg, whole.subarray(0, 30));
  const s2 = openEmbeddingStore(root);
  assert.equal(s2.stats().tornTails, 1);
  assert.deepEqual(s2.get(key('b')), Float32Array.of(3, 4));
  s2.put(NS, key('c'), Float32Array.of(5, 6));
  s2.close();
  const s3 = openEmbeddingStore(root);
  assert.deepEqual(s3.get(key('a')), Float32Array.of(1, 2));
  assert.deepEqual(s3.get(key('c')), Float32Array.of(5, 6));
  s3.close();
});

test('a flipped byte in a vector is caught by the checksum: a miss, not a wrong vector', () => {
  const root = tempDir();
  const s = openEmbeddingStore(root);
  s.put(NS, key('a'), Float32Array.of(1, 2, 3));
  s.close();
  const seg = join(root, 'embeddings-v1', segments(root)[0]);
  const buf = readFileSync(seg);
  buf[buf.length - 2] ^= 0xff;
  writeFileSync(seg, buf);
  const s2 = openEmbeddingStore(root);
  assert.equal(s2.get(key('a')), undefined);
  assert.equal(s2.stats().corrupt, 1);
  s2.close();
});

test('prune compacts duplicates and drops what the options select', () => {
  const root = tempDir();
  const other = namespaceOf({ provider: 'fake', model: 'other' });
  for (let round = 0; round < 3; round++) {
    const s = openEmbeddingStore(root);
    s.registerNamespace(NS, { provider: 'fake', model: 'm' });
    s.registerNamespace(other, { provider: 'fake', model: 'other' });
    s.put(NS, key('a'), Float32Array.of(round));
    s.put(other, cacheKey(other, 'document', { template: '{text}', text: 'a' }), Float32Array.of(9));
    s.close();
  }
  assert.equal(segments(root).length, 3);
  const r = pruneEmbeddingStore(root);
  assert.equal(r.kept, 2);
  assert.equal(r.segmentsAfter, 1);
  const s = openEmbeddingStore(root);
  assert.deepEqual(s.get(key('a')), Float32Array.of(2), 'the latest write wins');
  s.close();
  const r2 = pruneEmbeddingStore(root, { match: { model: 'other' } });
  assert.equal(r2.kept, 1);
  assert.equal(r2.dropped, 1);
  const r3 = pruneEmbeddingStore(root, { writtenBefore: Date.now() + 1000 });
  assert.equal(r3.kept, 0);
  assert.equal(segments(root).length, 0);
});

/** A fake embedder that counts the texts it is asked for. */
function countingEmbedder(): Embedder & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    id: 'fake:m',
    asked,
    describe: () => ({ provider: 'fake', model: 'm' }),
    prepare: (text, o) => ({ template: o.role === 'query' ? 'q: {text}' : '{text}', text: o.role === 'query' ? `q: ${text}` : text }),
    async embed(texts: readonly string[], o: EmbedOptions): Promise<EmbeddingMatrix> {
      asked.push([...texts]);
      const data = new Float32Array(texts.length * 2);
      texts.forEach((t, i) => {
        data[i * 2] = t.length;
        data[i * 2 + 1] = o.role === 'query' ? 1 : 0;
      });
      o.onRows?.(
        texts.map((_, i) => i),
        { rows: texts.length, dim: 2, data },
      );
      return { rows: texts.length, dim: 2, data };
    },
  };
}

test('cached embedder: repeats within a call are encoded once; a second call asks for nothing', async () => {
  const root = tempDir();
  const inner = countingEmbedder();
  const store = openEmbeddingStore(root);
  const e = createCachedEmbedder(inner, store);
  const texts = ['aa', 'b', 'aa', 'ccc', 'b'];
  const m1 = await e.embed(texts, { role: 'document' });
  assert.deepEqual(inner.asked, [['aa', 'b', 'ccc']]);
  assert.deepEqual(Array.from(m1.data), [2, 0, 1, 0, 2, 0, 3, 0, 1, 0]);
  const m2 = await e.embed(texts, { role: 'document' });
  assert.equal(inner.asked.length, 1, 'no inner call the second time');
  assert.deepEqual(m2.data, m1.data);
  assert.deepEqual(e.counters(), { requested: 10, hits: 5, duplicates: 4, encoded: 3 });
  store.close();
  // Another process (a new store on the same dir) sees the vectors too.
  const inner2 = countingEmbedder();
  const e2 = createCachedEmbedder(inner2, openEmbeddingStore(root));
  assert.deepEqual((await e2.embed(['ccc'], { role: 'document' })).data, Float32Array.of(3, 0));
  assert.equal(inner2.asked.length, 0);
});

test('cache keys separate roles, templates and embedder identities', async () => {
  const root = tempDir();
  const inner = countingEmbedder();
  const e = createCachedEmbedder(inner, openEmbeddingStore(root));
  await e.embed(['x'], { role: 'document' });
  await e.embed(['x'], { role: 'query' });
  assert.equal(inner.asked.length, 2, 'query role is a different key');
  const other = { ...countingEmbedder(), describe: () => ({ provider: 'fake', model: 'm', dimensions: 64 }) };
  const e2 = createCachedEmbedder(other, openEmbeddingStore(root));
  await e2.embed(['x'], { role: 'document' });
  assert.equal(other.asked.length, 1, 'another identity does not share vectors');
  assert.notDeepEqual(key('x', 'query'), key('x', 'document'));
  assert.notDeepEqual(cacheKey(NS, 'query', { template: 'A{text}', text: 'Ax' }), cacheKey(NS, 'query', { template: '{text}', text: 'Ax' }));
  assert.notDeepEqual(
    cacheKey(NS, 'query', { template: '{text}', text: 'x', inputType: 'RETRIEVAL_QUERY' }),
    cacheKey(NS, 'query', { template: '{text}', text: 'x', inputType: 'CODE_RETRIEVAL_QUERY' }),
  );
});

test('an inner failure keeps the batches that arrived before it', async () => {
  const root = tempDir();
  let calls = 0;
  const flaky: Embedder = {
    id: 'fake:flaky',
    describe: () => ({ provider: 'fake', model: 'flaky' }),
    async embed(texts, o) {
      calls++;
      const data = Float32Array.from(texts.map((t) => t.length));
      o.onRows?.([0], { rows: 1, dim: 1, data: data.subarray(0, 1) });
      if (calls === 1) throw new Error('connection lost after the first batch');
      return { rows: texts.length, dim: 1, data };
    },
  };
  const e = createCachedEmbedder(flaky, openEmbeddingStore(root));
  await assert.rejects(e.embed(['aaaa', 'bb'], { role: 'document' }), /connection lost/);
  const asked: string[][] = [];
  const again = createCachedEmbedder(
    {
      ...flaky,
      embed: async (texts, o) => {
        asked.push([...texts]);
        return flaky.embed(texts, o);
      },
    },
    openEmbeddingStore(root),
  );
  const m = await again.embed(['aaaa', 'bb'], { role: 'document' });
  assert.deepEqual(asked, [['bb']], 'only the missing text is asked for');
  assert.deepEqual(Array.from(m.data), [4, 2]);
});
