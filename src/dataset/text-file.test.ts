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

test('lineChunks: any piece sizes give back every byte, in order, as chunks of whole lines (big pieces passed on without a copy of their body)', async () => {
  let seed = 3;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (const target of [1, 16, 64, 1000]) {
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push('x'.repeat(rand(40)) + String(i));
    const text = `${lines.join('\n')}${rand(2) === 0 ? '\n' : ''}`;
    const bytes = Buffer.from(text);
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + rand(rand(3) === 0 ? 400 : 30);
      pieces.push(bytes.subarray(at, at + n));
      at += n;
    }
    const chunks: Buffer[] = [];
    for await (const c of lineChunks(pieces, target)) chunks.push(Buffer.from(c));
    const joined = Buffer.concat(chunks).toString();
    assert.equal(joined, text.endsWith('\n') ? text : `${text}\n`, `target ${target}`);
    for (const c of chunks) assert.equal(c[c.length - 1], 10, 'each chunk ends a line');
  }
});
