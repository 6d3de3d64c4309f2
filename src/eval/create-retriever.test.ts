import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Embedder, EmbeddingMatrix } from '../core/embedding.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc, Query } from '../core/dataset.js';
import { createUniform } from '../core/random.js';
import { writeIdsFile, writeNpy } from '../dataset/npy.js';
import { createRetriever, dedupeEmbedder } from './create-retriever.js';
import { parseRetrieverSpec } from './retriever-spec.js';

test('dedupeEmbedder sends each distinct text once and returns one row per input text, in order', async () => {
  const calls: string[][] = [];
  const inner: Embedder = {
    id: 'fake',
    describe: () => ({ provider: 'fake' }),
    async embed(texts): Promise<EmbeddingMatrix> {
      calls.push([...texts]);
      const data = new Float32Array(texts.length * 2);
      texts.forEach((t, i) => data.set([t.length, t.charCodeAt(0)], i * 2));
      return { rows: texts.length, dim: 2, data };
    },
  };
  const m = await dedupeEmbedder(inner).embed(['ab', 'c', 'ab', 'c', 'xyz'], { role: 'document' });
  assert.deepEqual(calls, [['ab', 'c', 'xyz']]);
  assert.equal(m.rows, 5);
  assert.deepEqual([...m.data], [2, 97, 1, 99, 2, 97, 1, 99, 3, 120]);
});

test('embeddings:DIR over its memory budget is searched streamed from docs.npy, with the in-memory results bit for bit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-stream-'));
  const r = createUniform(11);
  const nd = 157;
  const dim = 24;
  // Values in {-1, 0, 1}: many exact ties; ids in an order unlike the rows'.
  const docs = { rows: nd, dim, data: Float32Array.from({ length: nd * dim }, () => Math.floor(r() * 3) - 1) };
  const ids = Array.from({ length: nd }, (_, i) => `doc-${(i * 37) % nd}`);
  const queries = { rows: 9, dim, data: Float32Array.from({ length: 9 * dim }, () => Math.floor(r() * 3) - 1) };
  await writeNpy(join(dir, 'docs.npy'), docs);
  await writeIdsFile(join(dir, 'docs.ids'), ids);
  await writeNpy(join(dir, 'queries.npy'), queries);
  await writeIdsFile(
    join(dir, 'queries.ids'),
    Array.from({ length: 9 }, (_, i) => `q${i}`),
  );
  // A corpus of some of the file's rows, in another order; queries excluding a document each.
  const corpus: Doc[] = ids.filter((_, i) => i % 4 !== 1).map((id) => ({ id, text: '' }));
  corpus.reverse();
  const qs: Query[] = Array.from({ length: 9 }, (_, i) => ({ id: `q${i}`, text: '' }));
  const exclude = new Map(qs.map((q, i) => [q.id, [corpus[i].id]]));
  const ctx = { baseDir: dir, env: {} };
  const lists = async (spec: string) => {
    const retriever = await createRetriever(parseRetrieverSpec(spec), ctx);
    const index = await retriever.index(corpus);
    return { description: retriever.describe(), lists: await index.search(qs, 30, { exclude }) };
  };
  for (const dtype of ['float32', 'float16']) {
    for (const threads of [1, 2]) {
      const inMemory = await lists(`embeddings:${dir}?dtype=${dtype}&threads=${threads}`);
      // 157 x 24 float32 = 15 kB: a 2 kB budget streams it in 512-byte chunks (5 or 10 rows each).
      const streamed = await lists(`embeddings:${dir}?dtype=${dtype}&threads=${threads}&memory=2KB`);
      assert.deepEqual(streamed.lists, inMemory.lists, `${dtype} threads ${threads}`);
      const enc = (d: typeof streamed.description) => (d.encoder as Record<string, unknown>).streamed;
      assert.deepEqual(enc(streamed.description), { memoryBytes: 2048, chunkBytes: 512 });
      assert.equal(enc(inMemory.description), undefined);
    }
  }
  const first = (await lists(`embeddings:${dir}?memory=0`)).lists.get('q0');
  const scores = first?.scores ?? new Float32Array(0);
  assert.ok(
    scores.some((s, i) => i > 0 && s === scores[i - 1]),
    'the lists hold tied scores',
  );
});
