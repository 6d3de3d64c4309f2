import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEndpointSlots } from './endpoint-slots.js';

test('slots are per endpoint, shared by every holder, handed over in order, and abortable while waiting', async () => {
  const s = createEndpointSlots(2);
  await s.acquire('http://a/v1');
  await s.acquire('http://a/v1/');
  assert.equal(s.free('http://a/v1'), 0, 'a trailing slash names the same endpoint');
  assert.equal(s.free('http://b/v1'), 2, 'another endpoint has its own slots');
  const order: string[] = [];
  const w1 = s.acquire('http://a/v1').then(() => order.push('w1'));
  const w2 = s.acquire('http://a/v1').then(() => order.push('w2'));
  const ac = new AbortController();
  const w3 = s.acquire('http://a/v1', ac.signal);
  ac.abort();
  await assert.rejects(w3, /interrupted while waiting/);
  s.release('http://a/v1');
  await w1;
  s.release('http://a/v1');
  await w2;
  assert.deepEqual(order, ['w1', 'w2']);
  assert.equal(s.free('http://a/v1'), 0);
  s.release('http://a/v1');
  s.release('http://a/v1');
  assert.equal(s.free('http://a/v1'), 2);
  assert.deepEqual(s.peaks(), { 'http://a/v1': 2 });
});
