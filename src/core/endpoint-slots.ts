/**
 * A bound on requests in flight per endpoint, shared by every client that is handed it: two models
 * served from one base URL share one bound, and each replica of a multi-endpoint model has its
 * own. `coreb build --concurrency N` creates one of these. Plain data and promises; no I/O.
 */
import { CorebError } from './errors.js';

/** Slots per endpoint (keyed by base URL); waiters queue in order. */
export interface EndpointSlots {
  /** Slots per endpoint. */
  readonly perEndpoint: number;
  /** Slots free now at `endpoint` (0 when all are taken). */
  free(endpoint: string): number;
  /**
   * Waits for a slot at `endpoint` and takes it.
   * @throws CorebError `INTERRUPTED` when `signal` aborts while waiting (no slot is then held).
   */
  acquire(endpoint: string, signal?: AbortSignal): Promise<void>;
  /** Gives back a slot taken by {@link acquire}. */
  release(endpoint: string): void;
  /** The most requests ever in flight at once, per endpoint seen. */
  peaks(): Record<string, number>;
}

/** The key of a base URL: trailing slashes dropped. */
export function endpointKey(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Creates per-endpoint slots, `perEndpoint` (at least 1) each. */
export function createEndpointSlots(perEndpoint: number): EndpointSlots {
  const n = Math.max(1, Math.floor(perEndpoint));
  const busy = new Map<string, number>();
  const peak = new Map<string, number>();
  const waiting = new Map<string, Array<{ wake: () => void }>>();
  const take = (k: string): void => {
    const b = (busy.get(k) ?? 0) + 1;
    busy.set(k, b);
    if (b > (peak.get(k) ?? 0)) peak.set(k, b);
  };
  return {
    perEndpoint: n,
    free: (endpoint) => n - (busy.get(endpointKey(endpoint)) ?? 0),
    async acquire(endpoint, signal) {
      const k = endpointKey(endpoint);
      if ((busy.get(k) ?? 0) < n) {
        take(k);
        return;
      }
      if (signal?.aborted) throw new CorebError('INTERRUPTED', 'interrupted while waiting for a free request slot');
      await new Promise<void>((resolve, reject) => {
        const queue = waiting.get(k) ?? [];
        waiting.set(k, queue);
        const onAbort = (): void => {
          const i = queue.indexOf(entry);
          if (i >= 0) queue.splice(i, 1);
          reject(new CorebError('INTERRUPTED', 'interrupted while waiting for a free request slot'));
        };
        // The slot is handed over by release(): busy stays counted for the waiter.
        const entry = {
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        queue.push(entry);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    release(endpoint) {
      const k = endpointKey(endpoint);
      const next = waiting.get(k)?.shift();
      if (next !== undefined) next.wake();
      else busy.set(k, Math.max(0, (busy.get(k) ?? 0) - 1));
    },
    peaks: () => Object.fromEntries(peak),
  };
}
