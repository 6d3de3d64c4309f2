/**
 * A counting semaphore that sizes the judge's worker pool: every sandboxed process (compile or test
 * run) holds one slot, so at most `size` run at once however many programs are in flight.
 */

/** A slot pool; `run` waits for a free slot, runs `fn` and frees the slot. */
export interface SlotPool {
  /** Number of slots. */
  readonly size: number;
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** Creates a pool of `size` slots (at least 1). */
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
