/**
 * The judge's kept builds: one compile serves every call with the same key, the least recently used
 * builds go past the size budget (never one a call is using), a build not worth keeping is removed
 * when its last call is done, and clearing removes them all.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createBuildCache, dirBytes } from './build-cache.js';

function maker(root: string, bytes: number, made: string[]) {
  return (name: string) => async () => {
    made.push(name);
    const dir = mkdtempSync(join(root, `${name}-`));
    writeFileSync(join(dir, 'prog'), Buffer.alloc(bytes));
    return { dir, ok: !name.startsWith('bad') };
  };
}

test('a key builds once for concurrent and later calls; past the budget the least recently used idle build is removed', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-builds-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const made: string[] = [];
  const make = maker(root, 1000, made);
  const cache = createBuildCache<{ dir: string; ok: boolean }>(2500);
  const keep = (b: { ok: boolean }) => b.ok;
  const [a1, a2] = await Promise.all([cache.acquire('a', make('a'), keep), cache.acquire('a', make('a'), keep)]);
  assert.deepEqual(made, ['a']);
  assert.equal(a1.build.dir, a2.build.dir);
  assert.equal(a1.made !== a2.made, true, 'one call made it, the other reused it');
  a1.release();
  a2.release();
  const b = await cache.acquire('b', make('b'), keep);
  b.release();
  const again = await cache.acquire('a', make('a'), keep); // a is now the most recent
  assert.equal(again.made, false);
  again.release();
  const c = await cache.acquire('c', make('c'), keep); // 3 x 1000 bytes > 2500: b (least recent, idle) goes
  c.release();
  assert.deepEqual(made, ['a', 'b', 'c']);
  assert.equal(existsSync(b.build.dir), false);
  assert.equal(existsSync(a1.build.dir), true);
  assert.equal(cache.stats().evicted, 1);
  assert.equal(cache.stats().hits, 2);
  assert.ok(cache.stats().bytes <= 2500);
  // a build in use is never removed, even over the budget
  const d = await cache.acquire('d', make('d'), keep);
  const e = await cache.acquire('e', make('e'), keep);
  assert.equal(existsSync(d.build.dir), true);
  d.release();
  e.release();
  cache.clear();
  for (const x of [a1, c, d, e]) assert.equal(existsSync(x.build.dir), false, `${x.build.dir} removed by clear`);
});

test('a build not worth keeping is built again by the next call and removed when its last user is done', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-builds-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const made: string[] = [];
  const make = maker(root, 10, made);
  const cache = createBuildCache<{ dir: string; ok: boolean }>(1 << 20);
  const keep = (b: { ok: boolean }) => b.ok;
  const [x, y] = await Promise.all([cache.acquire('k', make('bad1'), keep), cache.acquire('k', make('bad1'), keep)]);
  x.release();
  assert.equal(existsSync(x.build.dir), true, 'still used by the second call');
  y.release();
  assert.equal(existsSync(x.build.dir), false);
  const z = await cache.acquire('k', make('bad2'), keep);
  assert.deepEqual(made, ['bad1', 'bad2']);
  z.release();
  assert.equal(cache.stats().bytes, 0);
  assert.equal(dirBytes(root), 0);
});
