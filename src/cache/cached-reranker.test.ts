/**
 * The rerank score cache: a second identical call sends nothing, scores come back bit-exact
 * (float64), repeated pairs are sent once, the key covers identity and instruction, and a call
 * that fails midway keeps what was answered so the rerun sends only the rest.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TaskName } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { RerankOptions, RerankPair, Reranker } from '../core/rerank.js';
import { createCachedReranker, openRerankStore, RERANK_STORE_LAYOUT } from './cached-reranker.js';

/** A reranker answering in batches of 2 with a known score; fails on batch `failAt` (0-based) when set. */
function fake(model: string, failAt?: number): Reranker & { sent: RerankPair[] } {
  const sent: RerankPair[] = [];
  return {
    id: `fake:${model}`,
    sent,
    identity: () => ({ provider: 'fake', model, template: 'plain' }),
    describe: () => ({ provider: 'fake', model }),
    instruction: (task?: TaskName) => (task === 'code2code' ? 'same problem?' : ''),
    async score(pairs: readonly RerankPair[], options: RerankOptions = {}) {
      const out = new Float64Array(pairs.length);
      for (let s = 0, b = 0; s < pairs.length; s += 2, b++) {
        if (b === failAt) throw new CorebError('HTTP', 'injected failure');
        const pos = [s, s + 1].filter((i) => i < pairs.length);
        const sc = Float64Array.from(pos, (i) => pairs[i].query.length * 1e-9 + pairs[i].doc.length + 1 / 3);
        pos.forEach((i, k) => {
          out[i] = sc[k];
          sent.push(pairs[i]);
        });
        options.onScores?.(pos, sc);
      }
      return out;
    },
  };
}

const PAIRS: RerankPair[] = Array.from({ length: 7 }, (_, i) => ({ query: `q${i % 2}`, doc: 'd'.repeat(i + 1) }));

test('second identical call sends nothing and returns bit-identical float64 scores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-rcache-'));
  return (async () => {
    const inner = fake('m');
    const store = openRerankStore(dir);
    const c = createCachedReranker(inner, store);
    const first = await c.score(PAIRS);
    assert.equal(inner.sent.length, 7);
    store.close();
    const store2 = openRerankStore(dir);
    const inner2 = fake('m');
    const again = await createCachedReranker(inner2, store2).score(PAIRS);
    assert.equal(inner2.sent.length, 0);
    assert.deepEqual(Array.from(again), Array.from(first));
    assert.ok(store2.dir.endsWith(RERANK_STORE_LAYOUT));
    store2.close();
  })().finally(() => rmSync(dir, { recursive: true, force: true }));
});

test('repeated pairs are sent once; another model or another instruction is another key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-rcache-'));
  try {
    const store = openRerankStore(dir);
    const a = fake('m');
    const c = createCachedReranker(a, store);
    const scores = await c.score([...PAIRS.slice(0, 2), ...PAIRS.slice(0, 2)]);
    assert.equal(a.sent.length, 2);
    assert.equal(scores[0], scores[2]);
    assert.deepEqual(c.counters(), { requested: 4, hits: 0, duplicates: 2, sent: 2 });
    await c.score(PAIRS.slice(0, 2), { task: 'code2code' });
    assert.equal(a.sent.length, 4, 'a different instruction is a different key');
    await c.score(PAIRS.slice(0, 2), { task: 'text2code' });
    assert.equal(a.sent.length, 4, 'text2code has the same (empty) instruction as no task');
    const b = fake('other');
    await createCachedReranker(b, store).score(PAIRS.slice(0, 2));
    assert.equal(b.sent.length, 2);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a call failing midway keeps the answered batches; the rerun sends only the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-rcache-'));
  try {
    const store = openRerankStore(dir);
    await assert.rejects(createCachedReranker(fake('m', 2), store).score(PAIRS), /injected failure/);
    store.close();
    const store2 = openRerankStore(dir);
    const inner = fake('m');
    const c = createCachedReranker(inner, store2);
    const scores = await c.score(PAIRS);
    assert.deepEqual(inner.sent, PAIRS.slice(4));
    assert.deepEqual(c.counters().hits, 4);
    const whole = await fake('m').score(PAIRS);
    assert.deepEqual(Array.from(scores), Array.from(whole));
    store2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
