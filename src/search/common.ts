/**
 * Input checks shared by the search modules: depth, unique document ids, exclusions and
 * cancellation. Public functions call these once; the kernels then trust their inputs.
 */
import { CorebError } from '../core/errors.js';
import { codePointOrder, firstDuplicate, indexInOrder, ranksOfOrder } from '../core/ids.js';

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

/** A corpus's document ids checked unique, with their tie ranks and a way to find one. */
export interface RankedDocIds {
  /** Per document index, its docid's code-point rank (the trec tie key of `TopK`). */
  tieRanks: Int32Array;
  /** The index of a document id, or -1 when the corpus lacks it (binary search over the code-point order: no Map of the ids). */
  positionOf(id: string): number;
}

/**
 * {@link validateDocIds} and the tie ranks in one sort, without a Map of the ids:
 * the ids are put in code-point order once (`codePointOrder`), which gives the ranks, and a
 * duplicate shows as two equal neighbours.
 * @throws CorebError `VALIDATION` naming a repeated id and both its positions.
 */
export function rankDocIds(docIds: readonly string[]): RankedDocIds {
  const order = codePointOrder(docIds);
  const dup = firstDuplicate(docIds, order);
  if (dup !== undefined) {
    throw new CorebError('VALIDATION', `document id "${docIds[dup[0]]}" occurs twice (positions ${dup[0]} and ${dup[1]}); a corpus needs unique ids`);
  }
  return {
    tieRanks: ranksOfOrder(order),
    positionOf: (id) => indexInOrder(docIds, order, id),
  };
}

/** Resolves excluded document ids to indices with `positionOf` (-1: not in the corpus, ignored). */
export function resolveExcluded(ids: readonly string[] | undefined, positionOf: (id: string) => number): number[] {
  if (ids === undefined || ids.length === 0) return [];
  const out: number[] = [];
  for (const id of ids) {
    const i = positionOf(id);
    if (i >= 0) out.push(i);
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
