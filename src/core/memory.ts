/**
 * One full garbage collection on request, for batch work that has just let go of a large
 * transient structure (an index build's word tables and scratch arrays) and is about to run long
 * on what it kept.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The collector: undefined until first looked up, null when the runtime offers none. */
let collect: (() => void) | null | undefined;

/**
 * Runs one full (mark-compact) collection of the V8 heap, freeing garbage and the array buffers
 * only garbage held, so the process's resident memory drops to what is live. Left alone, V8 lets
 * the heap grow by a factor of the live size before it collects old objects, and that slack adds
 * to the peak of whatever runs next.
 *
 * Node starts without `global.gc`; the first call turns on `--expose-gc` and takes the `gc`
 * function from a fresh context (V8 installs it in contexts made after the flag is set; the main
 * context is not changed). Costs one full collection: about 0.1 s for a 300 MB heap.
 * @returns true when a collection ran; false when the runtime offers no way to ask for one.
 */
export function collectGarbage(): boolean {
  if (collect === undefined) collect = findCollector();
  if (collect === null) return false;
  collect();
  return true;
}

function findCollector(): (() => void) | null {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}

/**
 * {@link collectGarbage}, then waits while V8's sweeper (on another thread) frees the array
 * buffers the collection found dead: polls `process.memoryUsage().arrayBuffers` every `pollMs`
 * (default 5 ms) until it stops falling, at most `maxMs` (default 250 ms). Use it before work
 * that allocates a lot, so the memory freed is given back first rather than added to its peak.
 * @returns the bytes of array buffers freed while waiting (0 when no collector is available).
 */
export async function releaseGarbage(maxMs = 250, pollMs = 5): Promise<number> {
  const before = process.memoryUsage().arrayBuffers;
  if (!collectGarbage()) return 0;
  const start = performance.now();
  let last = before;
  for (;;) {
    await new Promise((r) => setTimeout(r, pollMs));
    const now = process.memoryUsage().arrayBuffers;
    if ((now >= last && now < before) || performance.now() - start >= maxMs) return Math.max(0, before - now);
    last = now;
  }
}

/** Calls of {@link withHeapHeadroom} running now (the flag is restored when the last ends). */
let headroomDepth = 0;

/** True when node was started with V8's heap growing factor set (then coreb leaves it alone). */
function userSetsHeapGrowing(): boolean {
  return process.execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'));
}

/**
 * Runs `work` with V8's old generation allowed to grow by `percent` (default 50) of what is live
 * before its next collection (`--heap-growing-percent`), then puts the default rule back. For
 * long work that allocates little on the heap: after a collection V8 may set the next limit only
 * ~10% above the live size, less than the young generation could promote, and then starts a full
 * marking of the heap at once, over and over (every ~200 ms, 100-150 ms each at a million
 * documents' ids) while nothing is freed. A search on onnxruntime ran 13-15 CPU s instead of 7 in
 * about half of the runs at 1M x 384; with this headroom, none did in 12. Left as it is when node
 * was started with the flag (`node --heap-growing-percent=N ...`).
 */
export async function withHeapHeadroom<T>(work: () => Promise<T>, percent = 50): Promise<T> {
  if (userSetsHeapGrowing()) return work();
  if (headroomDepth++ === 0) setFlagsFromString(`--heap-growing-percent=${Math.max(1, Math.round(percent))}`);
  try {
    return await work();
  } finally {
    if (--headroomDepth === 0) setFlagsFromString('--heap-growing-percent=0');
  }
}
