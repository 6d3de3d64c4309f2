/**
 * A persistent reply cache for chat models, keyed by the full request: the model's identity
 * (provider, model) and the resolved request (messages, temperature, max tokens, seed). One file per
 * reply under `<dir>/chat-v1/<2 hex>/<sha256>.json`, written to a temporary name, synced and renamed,
 * so a process killed at any moment leaves each reply whole or absent. A cached reply is never
 * requested again; tracing headers are not part of the key.
 */
import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import type { ChatCallOptions, ChatModel, ChatReply, ChatRequest } from '../core/chat.js';
import { canonicalJson } from './cached-embedder.js';
import { openJsonFileStore } from './json-file-store.js';

/** Layout folder; a new layout gets a new name. */
export const CHAT_CACHE_LAYOUT = 'chat-v1';
const LAYOUT = CHAT_CACHE_LAYOUT;

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
  /** Removes a request's cached reply (a reply that broke its contract), so it is asked again; true when there was one. */
  evict(request: ChatRequest): boolean;
}

/** The cache key: SHA-256 over the canonical JSON of the model identity and the resolved request. */
export function chatCacheKey(model: ChatModel, request: ChatRequest): string {
  return createHash('sha256')
    .update(canonicalJson({ model: model.identity(), request: model.resolve(request) }))
    .digest('hex');
}

/** Path of a key's file under `root`. */
export function chatCachePath(root: string, key: string): string {
  return openJsonFileStore(root, LAYOUT).path(key);
}

const isRecord = (v: unknown, key: string): boolean => {
  const rec = v as ChatCacheRecord | null;
  return rec !== null && typeof rec === 'object' && rec.key === key && typeof rec.reply?.text === 'string';
};

/** Reads a cached record; undefined when absent. A torn or foreign file is an error naming it. */
export function readChatCacheRecord(root: string, key: string): ChatCacheRecord | undefined {
  return openJsonFileStore<ChatCacheRecord>(root, LAYOUT, isRecord).get(key);
}

/**
 * Wraps `inner` with the reply cache in `root` (created on first write). Concurrent identical
 * requests within one process are sent once.
 */
export function createCachedChatModel(inner: ChatModel, root: string, options: { readAlso?: readonly string[] } = {}): CachedChatModel {
  const store = openJsonFileStore<ChatCacheRecord>(root, LAYOUT, isRecord);
  const others = (options.readAlso ?? []).map((r) => openJsonFileStore<ChatCacheRecord>(r, LAYOUT, isRecord));
  const lookup = (key: string): ChatCacheRecord | undefined => {
    const hit = store.get(key);
    if (hit !== undefined) return hit;
    for (const o of others) {
      const old = o.get(key);
      if (old !== undefined) {
        // Carried over into the main cache, so the next build finds it there.
        store.put(key, old);
        return old;
      }
    }
    return undefined;
  };
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
    evict(request: ChatRequest): boolean {
      const file = store.path(keyOf(request));
      try {
        unlinkSync(file);
        return true;
      } catch {
        return false;
      }
    },
    async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatReply> {
      const key = keyOf(request);
      const hit = lookup(key);
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
        store.put(key, rec);
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
