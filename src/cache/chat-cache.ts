/**
 * A persistent reply cache for chat models, keyed by the full request: the model's identity
 * (provider, model) and the resolved request (messages, temperature, max tokens, seed). One file per
 * reply under `<dir>/chat-v1/<2 hex>/<sha256>.json`, written to a temporary name, synced and renamed,
 * so a process killed at any moment leaves each reply whole or absent. A cached reply is never
 * requested again; tracing headers are not part of the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatCallOptions, ChatModel, ChatReply, ChatRequest } from '../core/chat.js';
import { CorebError } from '../core/errors.js';
import { canonicalJson } from './cached-embedder.js';

/** Layout folder; a new layout gets a new name. */
const LAYOUT = 'chat-v1';

/** What is stored per reply. */
export interface ChatCacheRecord {
  key: string;
  model: Record<string, unknown>;
  request: ReturnType<ChatModel['resolve']>;
  reply: Omit<ChatReply, 'cached'>;
}

/** Counters of a cached model since it was wrapped. */
export interface ChatCacheCounters {
  /** Replies served from the cache. */
  hits: number;
  /** Requests sent to the model (and stored). */
  calls: number;
}

/** A chat model whose replies are cached. */
export interface CachedChatModel extends ChatModel {
  counters(): ChatCacheCounters;
  /** The cache key of a request (sha256 hex). */
  keyOf(request: ChatRequest): string;
}

/** The cache key: SHA-256 over the canonical JSON of the model identity and the resolved request. */
export function chatCacheKey(model: ChatModel, request: ChatRequest): string {
  return createHash('sha256')
    .update(canonicalJson({ model: model.identity(), request: model.resolve(request) }))
    .digest('hex');
}

/** Path of a key's file under `root`. */
export function chatCachePath(root: string, key: string): string {
  return join(root, LAYOUT, key.slice(0, 2), `${key}.json`);
}

/** Reads a cached record; undefined when absent. A torn or foreign file is an error naming it. */
export function readChatCacheRecord(root: string, key: string): ChatCacheRecord | undefined {
  const file = chatCachePath(root, key);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CorebError('CACHE', `cannot read cached reply (${(e as Error).message})`, { file, cause: e });
  }
  try {
    const rec = JSON.parse(text) as ChatCacheRecord;
    if (rec.key !== key || typeof rec.reply?.text !== 'string') throw new Error('key or reply missing');
    return rec;
  } catch (e) {
    throw new CorebError('CACHE', `cached reply is not a valid record (${(e as Error).message}); delete the file to ask again`, { file, cause: e });
  }
}

function writeAtomic(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}

/**
 * Wraps `inner` with the reply cache in `root` (created on first write). Concurrent identical
 * requests within one process are sent once.
 */
export function createCachedChatModel(inner: ChatModel, root: string): CachedChatModel {
  const counters: ChatCacheCounters = { hits: 0, calls: 0 };
  const pending = new Map<string, Promise<ChatReply>>();
  const keyOf = (request: ChatRequest): string => chatCacheKey(inner, request);
  return {
    id: inner.id,
    identity: () => inner.identity(),
    describe: () => inner.describe(),
    resolve: (r) => inner.resolve(r),
    counters: () => ({ ...counters }),
    keyOf,
    async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatReply> {
      const key = keyOf(request);
      const hit = readChatCacheRecord(root, key);
      if (hit !== undefined) {
        counters.hits++;
        return { ...hit.reply, cached: true };
      }
      const running = pending.get(key);
      if (running !== undefined) return { ...(await running), cached: true };
      const p = (async (): Promise<ChatReply> => {
        const reply = await inner.complete(request, options);
        counters.calls++;
        const rec: ChatCacheRecord = {
          key,
          model: inner.identity(),
          request: inner.resolve(request),
          reply: { text: reply.text, finishReason: reply.finishReason, usage: reply.usage },
        };
        const file = chatCachePath(root, key);
        try {
          mkdirSync(join(root, LAYOUT, key.slice(0, 2)), { recursive: true });
          writeAtomic(file, JSON.stringify(rec) + '\n');
        } catch (e) {
          throw new CorebError('CACHE', `cannot store the reply (${(e as Error).message})`, { file, cause: e });
        }
        return { ...rec.reply, cached: false };
      })();
      pending.set(key, p);
      try {
        return await p;
      } finally {
        pending.delete(key);
      }
    },
  };
}
