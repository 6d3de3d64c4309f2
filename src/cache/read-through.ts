/**
 * The read-through step the embedding and rerank-score caches share: key every input, send each
 * distinct key once, answer cached keys without a request, store every fresh value as soon as the
 * provider reports it (an interrupted run keeps what was answered), and count requests, hits and
 * repeats the same way for both.
 */
import type { Progress } from '../core/progress.js';

/** A progress that forwards only ticks (an inner call reports into the outer step). */
export function tickOnly(p: Progress | undefined): Progress | undefined {
  return p === undefined ? undefined : { start() {}, tick: (n) => p.tick(n), done() {} };
}

/**
 * Groups equal cache keys: `unique` lists the first position of each distinct key, `slotOf[i]`
 * is the slot (index into `unique`) of position i, `duplicates` counts the repeats.
 */
export function groupKeys(keys: readonly Buffer[]): { unique: number[]; slotOf: Int32Array; duplicates: number } {
  const firstOf = new Map<string, number>();
  const slotOf = new Int32Array(keys.length);
  const unique: number[] = [];
  let duplicates = 0;
  keys.forEach((k, i) => {
    const h = k.toString('hex');
    const f = firstOf.get(h);
    if (f === undefined) {
      firstOf.set(h, unique.length);
      slotOf[i] = unique.length;
      unique.push(i);
    } else {
      slotOf[i] = f;
      duplicates++;
    }
  });
  return { unique, slotOf, duplicates };
}

/** The counters {@link readThrough} keeps: inputs asked for, answered from the store, repeated. */
export interface ReadThroughCounters {
  requested: number;
  hits: number;
  duplicates: number;
}

/** What {@link readThrough} needs: the keys, the store's three calls, and how to compute values. */
export interface ReadThroughPlan<V> {
  /** One key per input. */
  keys: readonly Buffer[];
  get(key: Buffer): V | undefined;
  put(key: Buffer, value: V): void;
  /** Makes what `put` wrote durable; called after each reported batch and at the end. */
  flush(): void;
  counters: ReadThroughCounters;
  progress: Progress | undefined;
  /** The progress step's label, e.g. `embedding with openai:m`. */
  label: string;
  /**
   * Computes the values of `inputs` (indices into the caller's inputs, distinct keys not in the
   * store), calling `report(ks, values)` with the values of `inputs[ks[j]]` as the provider
   * answers each batch (they are stored and flushed at once), and returns the value of `inputs[k]`
   * for every k once done.
   */
  compute(
    inputs: readonly number[],
    progress: Progress | undefined,
    report: (ks: readonly number[], values: readonly V[]) => void,
  ): Promise<(k: number) => V>;
}

/**
 * Answers every input from the store or from `plan.compute`, each distinct key computed once.
 * Returns the value of each input position and how many were computed.
 */
export async function readThrough<V>(plan: ReadThroughPlan<V>): Promise<{ values: V[]; computed: number }> {
  const { keys, counters, progress } = plan;
  const n = keys.length;
  counters.requested += n;
  const { unique, slotOf, duplicates } = groupKeys(keys);
  counters.duplicates += duplicates;
  const slots: (V | undefined)[] = unique.map((i) => plan.get(keys[i]));
  const missing = unique.map((_, s) => s).filter((s) => slots[s] === undefined);
  let hits = 0;
  for (let i = 0; i < n; i++) if (slots[slotOf[i]] !== undefined) hits++;
  counters.hits += hits;
  const fill = (s: number, value: V): void => {
    slots[s] = value;
    plan.put(keys[unique[s]], value);
  };
  progress?.start(plan.label, n);
  try {
    // Inputs answered without a request: cache hits, and repeats of an input being computed.
    progress?.tick(n - missing.length);
    if (missing.length > 0) {
      const valueAt = await plan.compute(
        missing.map((s) => unique[s]),
        tickOnly(progress),
        (ks, values) => {
          for (let j = 0; j < ks.length; j++) fill(missing[ks[j]], values[j]);
          plan.flush();
        },
      );
      for (let k = 0; k < missing.length; k++) if (slots[missing[k]] === undefined) fill(missing[k], valueAt(k));
      plan.flush();
    }
  } finally {
    progress?.done();
  }
  return { values: Array.from({ length: n }, (_, i) => slots[slotOf[i]] as V), computed: missing.length };
}
