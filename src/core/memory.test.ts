import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectGarbage } from './memory.js';

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
