import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineChunks } from './text-file.js';

test('lineChunks stops a stalled read as soon as the signal aborts', async () => {
  const controller = new AbortController();
  const stalled: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Uint8Array>>(() => undefined) }),
  };
  setTimeout(() => controller.abort(new Error('stop')), 20);
  await assert.rejects(
    (async () => {
      for await (const _ of lineChunks(stalled, 16, controller.signal)) void _;
    })(),
    /stop/,
  );
});
