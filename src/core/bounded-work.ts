/**
 * Bounded concurrent work: at most `limit` calls of an async function in flight, items taken in
 * order, stopping to start new items once a signal aborts. The one loop the areas that fan work out
 * (judging, HTTP batches, search requests) share.
 */

/**
 * Calls `fn(item, index)` for every item with at most `limit` calls in flight (items started in
 * order). Rejects with the first error once every started call has settled; after `signal` aborts,
 * no new item is started and the calls in flight are awaited.
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
