/**
 * The retriever shapes shared by search (which implements BM25, dense search and fusion) and bench
 * (which wires retriever specs, runs them per task and scores the results). No I/O here.
 */
import type { Doc, Query, TaskName } from './dataset.js';
import type { Progress } from './progress.js';

/**
 * Secret-free JSON description of a retriever: its kind, variant and every parameter that changes
 * its output. Goes into every result file. Example: `{ kind: 'bm25', variant: 'lucene', k1: 1.2 }`.
 */
export interface RetrieverDescription {
  /** Retriever family, e.g. `bm25`, `dense`, `rrf`, `run`. */
  kind: string;
  [key: string]: unknown;
}

/**
 * One query's ranked result, best first, in trec_eval order: score rounded to float32 descending,
 * ties broken by docid descending in code-point (UTF-8 byte) order. Both arrays have equal length
 * (at most the requested depth).
 */
export interface RankedList {
  docIds: string[];
  /**
   * Scores aligned with `docIds`. coreb's own retrievers return float32 values so that the order
   * above is exactly the order the metrics derive from the scores; a run read from a file may keep
   * its double scores.
   */
  scores: Float32Array | Float64Array;
}

/** Options for {@link Retriever.index}. */
export interface IndexOptions {
  /** The CoREB task the corpus is indexed for (embedders pick instruction templates with it). */
  task?: TaskName;
  signal?: AbortSignal;
  progress?: Progress;
}

/** Options for {@link RetrieverIndex.search}. */
export interface SearchOptions {
  /** The CoREB task the queries belong to. */
  task?: TaskName;
  /**
   * Per query id, document ids never to return (e.g. the code-to-code anchor). Excluded documents
   * do not take a place in the top `depth`, so a list still holds `depth` documents when the corpus
   * has enough. Default: none.
   */
  exclude?: ReadonlyMap<string, readonly string[]>;
  signal?: AbortSignal;
  progress?: Progress;
}

/** A corpus indexed once, searched by many queries. */
export interface RetrieverIndex {
  /** Number of indexed documents. */
  readonly size: number;
  /**
   * Ranks the whole corpus for every query and keeps the top `depth` (>= 1) documents. A list may
   * be shorter when fewer documents are scored (BM25 returns only documents sharing a term).
   * @returns query id -> ranked list, with an entry (possibly empty) for every query.
   */
  search(queries: readonly Query[], depth: number, options?: SearchOptions): Promise<Map<string, RankedList>>;
}

/** Anything that ranks a corpus for queries: BM25, dense search over embeddings, fusion, a run file. */
export interface Retriever {
  /** Short display name, e.g. `bm25`, `rrf(bm25,dense:e5)`. */
  readonly name: string;
  /** Secret-free description (kind, variant, parameters); goes into every result file. */
  describe(): RetrieverDescription;
  /** Indexes `docs` (in order; ids must be unique) once and returns a handle to search them. */
  index(docs: readonly Doc[], options?: IndexOptions): Promise<RetrieverIndex>;
  /**
   * What it spent beyond ranking so far (a chat model's calls and tokens for query expansion);
   * goes into its result's `usage`. Absent for retrievers that spend nothing else.
   */
  report?(): Record<string, unknown>;
}
