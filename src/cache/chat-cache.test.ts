/** The chat reply cache: keyed by the full request, survives reopening, never re-asks, stores atomically. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ChatModel, ChatRequest } from '../core/chat.js';
import { chatCacheKey, chatCachePath, createCachedChatModel } from './chat-cache.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-chat-cache-'));
after(() => rmSync(root, { recursive: true, force: true }));

function fakeModel(model = 'm'): ChatModel & { sent: ChatRequest[] } {
  const sent: ChatRequest[] = [];
  return {
    id: `fake:${model}`,
    sent,
    identity: () => ({ provider: 'fake', model }),
    describe: () => ({ provider: 'fake', model }),
    resolve: (r) => ({ messages: r.messages, maxTokens: r.maxTokens ?? 100, ...(r.temperature !== undefined ? { temperature: r.temperature } : {}) }),
    async complete(r) {
      sent.push(r);
      await new Promise((res) => setTimeout(res, 5));
      return { text: `reply ${sent.length}: ${r.messages.at(-1)?.content}`, finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } };
    },
  };
}
const req = (content: string, temperature?: number): ChatRequest => ({ messages: [{ role: 'user', content }], temperature });

test('a cached reply is served without a call, also after reopening; usage is kept', async () => {
  const inner = fakeModel();
  const a = createCachedChatModel(inner, root);
  const r1 = await a.complete(req('hello'));
  assert.equal(r1.cached, false);
  const r2 = await a.complete(req('hello'));
  assert.deepEqual(r2, { ...r1, cached: true });
  const b = createCachedChatModel(inner, root);
  const r3 = await b.complete(req('hello'));
  assert.equal(r3.text, r1.text);
  assert.deepEqual(r3.usage, { inputTokens: 3, outputTokens: 4 });
  assert.equal(inner.sent.length, 1);
  assert.deepEqual(a.counters(), { hits: 1, calls: 1 });
  assert.deepEqual(b.counters(), { hits: 1, calls: 0 });
});

test('the key covers model, messages and parameters; tracing does not change it', async () => {
  const m = fakeModel('k');
  const base = chatCacheKey(m, req('x'));
  assert.notEqual(base, chatCacheKey(m, req('y')));
  assert.notEqual(base, chatCacheKey(m, req('x', 0.5)));
  assert.notEqual(base, chatCacheKey(fakeModel('other'), req('x')));
  assert.notEqual(base, chatCacheKey(m, { ...req('x'), maxTokens: 5 }));
  assert.equal(base, chatCacheKey(m, { messages: [{ content: 'x', role: 'user' }] }));
  const c = createCachedChatModel(m, root);
  await c.complete(req('x'), { trace: { stage: 's', item: 'a' } });
  await c.complete(req('x'), { trace: { stage: 's', item: 'b' } });
  assert.equal(m.sent.length, 1);
});

test('identical requests in flight at once are sent once', async () => {
  const m = fakeModel('burst');
  const c = createCachedChatModel(m, root);
  const rs = await Promise.all([1, 2, 3].map(() => c.complete(req('same'))));
  assert.equal(m.sent.length, 1);
  assert.equal(new Set(rs.map((r) => r.text)).size, 1);
});

test('no temporary files remain; a corrupt entry is a CACHE error naming the file', async () => {
  const m = fakeModel('corrupt');
  const c = createCachedChatModel(m, root);
  await c.complete(req('z'));
  const key = c.keyOf(req('z'));
  const dir = join(root, 'chat-v1', key.slice(0, 2));
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  );
  writeFileSync(chatCachePath(root, key), '{"key": "tor');
  await assert.rejects(c.complete(req('z')), (e: Error & { code?: string }) => e.code === 'CACHE' && e.message.includes(chatCachePath(root, key)));
});
