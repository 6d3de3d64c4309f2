/**
 * Bounded concurrent work, the one way coreb fans work out (judging, build stages, HTTP batches,
 * search requests): a loop with at most `limit` calls in flight ({@link forEachBounded},
 * {@link mapBounded}) and a counting semaphore for calls that arrive on their own
 * ({@link createSlotPool}). Plain promises; no I/O.
 */

/**
 * Calls `fn(item, index)` for every item with at most `limit` calls in flight (items started in
 * order). Rejects with the first error once every started call has settled; after `signal` aborts,
 * no new item is started and the calls in flight are awaited (the caller decides what an abort
 * means: this resolves normally then).
 * @param limit calls in flight at once (>= 1; values below 1 count as 1).
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === undefined && signal?.aborted !== true) {
      const i = next++;
      try {
        await fn(items[i], i);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, Math.floor(limit)), items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

/**
 * {@link forEachBounded} that keeps what each call returns, in item order. Items not started
 * because `signal` aborted are left `undefined` in the result (check the signal before reading it).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  await forEachBounded(
    items,
    limit,
    async (item, i) => {
      out[i] = await fn(item, i);
    },
    signal,
  );
  return out;
}

/** A slot pool; `run` waits for a free slot, runs `fn` and frees the slot. */
export interface SlotPool {
  /** Number of slots. */
  readonly size: number;
  /** Waits for a free slot (waiters are served in order), runs `fn`, frees the slot however `fn` ends. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Creates a counting semaphore of `size` slots (at least 1): the judge's worker pool (every
 * sandboxed process holds one slot) and an HTTP client's own bound on requests in flight.
 */
export function createSlotPool(size: number): SlotPool {
  const n = Math.max(1, Math.floor(size));
  let busy = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return {
    size: n,
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (busy < n) busy++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
