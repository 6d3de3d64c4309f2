import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Embedder, EmbeddingMatrix } from '../core/embedding.js';
import { dedupeEmbedder } from './create-retriever.js';

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
