import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectGarbage, releaseGarbage, withHeapHeadroom } from './memory.js';

test('collectGarbage runs a full collection that frees the array buffers only garbage held', async () => {
  let garbage: Uint8Array[] | undefined = Array.from({ length: 16 }, () => new Uint8Array(4 << 20).fill(1));
  const held = process.memoryUsage().arrayBuffers;
  assert.ok(held >= 64 << 20, `64 MiB of buffers allocated (${held} bytes)`);
  garbage = undefined;
  assert.equal(garbage, undefined);
  assert.equal(collectGarbage(), true, 'node offers a collector');
  // The buffers are released by V8's sweeper, on another thread, within milliseconds.
  let after = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 100 && after >= held - (48 << 20); i++) {
    await new Promise((r) => setTimeout(r, 10));
    after = process.memoryUsage().arrayBuffers;
  }
  assert.ok(after < held - (48 << 20), `the buffers were freed: ${held} -> ${after} bytes`);
  assert.equal(collectGarbage(), true, 'a second call reuses the collector');
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'the main context gets no global gc');
});

test('releaseGarbage returns once the buffers only garbage held are freed', async () => {
  let garbage: Uint8Array[] | undefined = Array.from({ length: 16 }, () => new Uint8Array(4 << 20).fill(1));
  const held = process.memoryUsage().arrayBuffers;
  assert.ok(garbage.length === 16 && held >= 64 << 20);
  garbage = undefined;
  assert.equal(garbage, undefined);
  const freed = await releaseGarbage(2000);
  assert.ok(freed >= 48 << 20, `reported ${freed} bytes freed`);
  assert.ok(process.memoryUsage().arrayBuffers < held - (48 << 20), 'and they are gone when it returns');
});

test('withHeapHeadroom returns what the work returns, passes its errors on and can be nested', async () => {
  assert.equal(await withHeapHeadroom(async () => withHeapHeadroom(async () => 42)), 42);
  await assert.rejects(
    withHeapHeadroom(async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  // The default rule is back: a heap that grows and is collected again still works.
  let kept: number[][] | undefined = Array.from({ length: 1000 }, () => Array.from({ length: 100 }, (_, i) => i));
  assert.equal(kept.length, 1000);
  kept = undefined;
  assert.equal(collectGarbage(), true);
});
