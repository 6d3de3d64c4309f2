import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Doc, Query } from '../core/dataset.js';
import { isCorebError } from '../core/errors.js';
import type { RankedList, Retriever } from '../core/retrieval.js';
import { createRrfRetriever, fuseRrf } from './rrf.js';

const list = (...ids: string[]): RankedList => ({ docIds: ids, scores: Float32Array.from(ids.map((_, i) => 1 / (i + 1))) });

test('RRF fuses two lists as the formula computed by hand says', () => {
  const fused = fuseRrf([list('a', 'b', 'c'), list('c', 'a', 'd')], 10);
  // a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63.
  assert.deepEqual(fused.docIds, ['a', 'c', 'b', 'd']);
  assert.ok(Math.abs(fused.scores[0] - (1 / 61 + 1 / 62)) < 1e-7);
  assert.ok(Math.abs(fused.scores[3] - 1 / 63) < 1e-7);
});

test('RRF weights and k change the fused order', () => {
  // weights 1, 3: a = 1/61 + 3/62, c = 1/63 + 3/61, b = 1/62, d = 3/63.
  assert.deepEqual(fuseRrf([list('a', 'b', 'c'), list('c', 'a', 'd')], 10, { weights: [1, 3] }).docIds, ['c', 'a', 'd', 'b']);
  // k = 1: a = 1/2 + 1/3 = 0.833, c = 1/4 + 1/2 = 0.75.
  const k1 = fuseRrf([list('a', 'b', 'c'), list('c', 'a', 'd')], 2, { k: 1 });
  assert.deepEqual(k1.docIds, ['a', 'c']);
  assert.ok(Math.abs(k1.scores[0] - (1 / 2 + 1 / 3)) < 1e-7);
});

test('RRF ties are broken by docid descending in code-point order', () => {
  assert.deepEqual(fuseRrf([list('d1', 'd10'), list('d10', 'd1')], 10).docIds, ['d10', 'd1']);
});

test('RRF rejects bad parameters', () => {
  assert.throws(
    () => fuseRrf([list('a')], 1, { k: 0 }),
    (e) => isCorebError(e, 'USAGE'),
  );
  assert.throws(
    () => fuseRrf([list('a')], 1, { weights: [1, 2] }),
    (e) => isCorebError(e, 'USAGE'),
  );
  assert.throws(
    () => createRrfRetriever([]),
    (e) => isCorebError(e, 'USAGE'),
  );
});

/** A retriever returning a fixed order for every query. */
function fixed(name: string, order: string[]): Retriever {
  return {
    name,
    describe: () => ({ kind: 'fixed', order }),
    async index(docs: readonly Doc[]) {
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, o = {}) {
          const ex = (q: Query) => new Set(o.exclude?.get(q.id) ?? []);
          return new Map(queries.map((q) => [q.id, list(...order.filter((d) => !ex(q).has(d)).slice(0, depth))]));
        },
      };
    },
  };
}

test('rrf retriever fuses its members per query and passes exclusions down', async () => {
  const r = createRrfRetriever([fixed('x', ['a', 'b', 'c']), fixed('y', ['c', 'a', 'd'])]);
  assert.equal(r.name, 'rrf(x,y)');
  const d = r.describe();
  assert.equal(d.kind, 'rrf');
  assert.equal(d.k, 60);
  assert.equal((d.inputs as unknown[]).length, 2);
  const index = await r.index(['a', 'b', 'c', 'd'].map((id) => ({ id, text: id })));
  const run = await index.search(
    [
      { id: 'q', text: '' },
      { id: 'p', text: '' },
    ],
    3,
    { exclude: new Map([['p', ['a']]]) },
  );
  assert.deepEqual(run.get('q')?.docIds, ['a', 'c', 'b']);
  assert.deepEqual(run.get('p')?.docIds, ['c', 'b', 'd']);
});
