/**
 * Input checks shared by the search modules: depth, unique document ids, exclusions and
 * cancellation. Public functions call these once; the kernels then trust their inputs.
 */
import { CorebError } from '../core/errors.js';

/** Throws `USAGE` unless `depth` is an integer >= 1. */
export function validateDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 1) {
    throw new CorebError('USAGE', `search depth must be an integer >= 1, got ${depth}`);
  }
}

/** Maps each document id to its index; throws `VALIDATION` on a duplicate id. */
export function validateDocIds(docIds: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < docIds.length; i++) {
    const id = docIds[i];
    if (index.has(id)) {
      throw new CorebError('VALIDATION', `document id "${id}" occurs twice (positions ${index.get(id)} and ${i}); a corpus needs unique ids`);
    }
    index.set(id, i);
  }
  return index;
}

/** Resolves excluded document ids to indices, ignoring ids not in the corpus. */
export function resolveExcluded(ids: readonly string[] | undefined, docIndex: ReadonlyMap<string, number>): number[] {
  if (ids === undefined || ids.length === 0) return [];
  const out: number[] = [];
  for (const id of ids) {
    const i = docIndex.get(id);
    if (i !== undefined) out.push(i);
  }
  return out;
}

/** Throws `INTERRUPTED` when `signal` has been aborted. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new CorebError('INTERRUPTED', 'search interrupted', { cause: signal.reason });
  }
}

import { EventLoopTurns } from '../core/event-loop-turns.js';

export { EventLoopTurns };

/** Runs a generator of steps to its end, synchronously, and returns its value. */
export function runSteps<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Runs a generator of steps to its end, giving the event loop a turn between two steps when
 * `run.yieldMs` (default 50) have passed, and returns its value.
 * @param stopped what was stopped, for the error message.
 * @throws CorebError `INTERRUPTED` when `run.signal` aborts.
 */
export async function runStepsAsync<T>(
  steps: Generator<unknown, T, void>,
  run: { signal?: AbortSignal; yieldMs?: number },
  stopped: () => string,
): Promise<T> {
  const turns = new EventLoopTurns(run.signal, run.yieldMs);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (turns.due()) await turns.take(stopped);
  }
}
