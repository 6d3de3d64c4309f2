/**
 * Reciprocal-rank fusion (RRF): combines the ranked lists of several retrievers into one, using
 * only ranks, so retrievers with incomparable score scales (BM25, cosine) fuse without calibration.
 */
import type { Doc, Query } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { Interner } from '../core/ids.js';
import type { IndexOptions, RankedList, Retriever, RetrieverDescription, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { validateDepth } from './common.js';
import { createTieRanks, TopK } from './top-k.js';

/** Options of {@link fuseRrf} and {@link createRrfRetriever}. */
export interface RrfOptions {
  /** The RRF constant k (> 0). Default 60 (Cormack et al. 2009). */
  k?: number;
  /** One weight per input list (finite, >= 0). Default all 1. */
  weights?: readonly number[];
}

/** Default RRF constant. */
export const RRF_DEFAULT_K = 60;

function resolveRrf(options: RrfOptions, inputs: number): { k: number; weights: number[] } {
  const k = options.k ?? RRF_DEFAULT_K;
  if (!(k > 0) || !Number.isFinite(k)) throw new CorebError('USAGE', `rrf: k must be a finite number > 0, got ${k}`);
  const weights = options.weights ? [...options.weights] : new Array<number>(inputs).fill(1);
  if (weights.length !== inputs) {
    throw new CorebError('USAGE', `rrf: ${weights.length} weights given for ${inputs} retrievers; give one weight per retriever`);
  }
  for (const w of weights) {
    if (!(w >= 0) || !Number.isFinite(w)) throw new CorebError('USAGE', `rrf: weights must be finite numbers >= 0, got ${w}`);
  }
  return { k, weights };
}

/**
 * Fuses ranked lists of one query: score(d) = sum over lists i containing d of
 * w_i / (k + rank_i(d)), rank 1-based (Cormack, Clarke & Büttcher 2009, "Reciprocal rank fusion
 * outperforms Condorcet and individual rank learning methods", SIGIR; k = 60 there). A document
 * absent from a list contributes nothing for it. The fused list keeps the top `depth`, in trec order
 * (score rounded to float32 descending, docid descending by code point); the sum runs in list order.
 */
export function fuseRrf(lists: readonly RankedList[], depth: number, options: RrfOptions = {}): RankedList {
  validateDepth(depth);
  const { k, weights } = resolveRrf(options, lists.length);
  const interned = new Interner();
  const sums: number[] = [];
  for (let i = 0; i < lists.length; i++) {
    const w = weights[i];
    const docIds = lists[i].docIds;
    for (let r = 0; r < docIds.length; r++) {
      const d = interned.intern(docIds[r]);
      if (d === sums.length) sums.push(0);
      sums[d] += w / (k + r + 1);
    }
  }
  const ids = interned.strings;
  const heap = new TopK(Math.min(depth, Math.max(ids.length, 1)), createTieRanks(ids));
  for (let d = 0; d < ids.length; d++) heap.push(d, sums[d]);
  const outDocs = new Int32Array(heap.capacity);
  const outScores = new Float32Array(heap.capacity);
  const m = heap.drainInto(outDocs, outScores);
  const docIds = new Array<string>(m);
  for (let i = 0; i < m; i++) docIds[i] = ids[outDocs[i]];
  return { docIds, scores: outScores.slice(0, m) };
}

/** The depth each input of an rrf retriever is searched to for a fused `depth`: `inputDepth`, by default max(depth, 100). */
export function rrfInputDepth(depth: number, inputDepth?: number): number {
  return inputDepth ?? Math.max(depth, 100);
}

/** Options of {@link createRrfRetriever}. */
export interface RrfRetrieverOptions extends RrfOptions {
  /**
   * Depth requested from each input retriever. Default: the fused depth, but at least 100
   * (Cormack et al. fuse deep lists; a document ranked 101st still adds 1/(k+101)).
   */
  inputDepth?: number;
}

/**
 * The `rrf` retriever: indexes the corpus with every input retriever, searches each, and fuses
 * the lists per query with {@link fuseRrf}. Exclusions are passed down to the inputs.
 */
export function createRrfRetriever(retrievers: readonly Retriever[], options: RrfRetrieverOptions = {}): Retriever {
  if (retrievers.length === 0) throw new CorebError('USAGE', 'rrf: give at least one retriever to fuse');
  const { k, weights } = resolveRrf(options, retrievers.length);
  if (options.inputDepth !== undefined) validateDepth(options.inputDepth);
  return {
    name: `rrf(${retrievers.map((r) => r.name).join(',')})`,
    describe(): RetrieverDescription {
      return {
        kind: 'rrf',
        formula: 'sum_i w_i / (k + rank_i(d)), rank 1-based (Cormack et al. 2009)',
        k,
        weights,
        inputDepth: options.inputDepth ?? 'max(depth, 100)',
        inputs: retrievers.map((r) => r.describe()),
      };
    },
    async index(docs: readonly Doc[], indexOptions: IndexOptions = {}): Promise<RetrieverIndex> {
      const indexes: RetrieverIndex[] = [];
      for (const r of retrievers) indexes.push(await r.index(docs, indexOptions));
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, searchOptions: SearchOptions = {}) {
          validateDepth(depth);
          const inputDepth = rrfInputDepth(depth, options.inputDepth);
          const runs: Map<string, RankedList>[] = [];
          for (const index of indexes) runs.push(await index.search(queries, inputDepth, searchOptions));
          const out = new Map<string, RankedList>();
          const empty: RankedList = { docIds: [], scores: new Float32Array(0) };
          for (const q of queries) {
            out.set(
              q.id,
              fuseRrf(
                runs.map((run) => run.get(q.id) ?? empty),
                depth,
                { k, weights },
              ),
            );
          }
          return out;
        },
      };
    },
  };
}
