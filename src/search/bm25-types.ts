/**
 * The shapes BM25's index and its on-disk store share (a leaf: both import it, neither imports the
 * other for a type).
 */
import type { ResolvedTokenizerOptions } from './tokenize.js';

/**
 * How a term repeated in the query counts.
 * - `raw`: weight = query term frequency (Lucene: every occurrence is one more clause).
 * - `binary`: weight 1 (each distinct term once).
 * - `saturate`: Robertson's k3 saturation, weight = qtf (k3 + 1) / (k3 + qtf).
 */
export const QUERY_TF_MODES = ['raw', 'binary', 'saturate'] as const;
/** A query term-frequency mode. */
export type QueryTfMode = (typeof QUERY_TF_MODES)[number];

/** Fully resolved BM25 parameters. */
export interface ResolvedBm25Options extends ResolvedTokenizerOptions {
  k1: number;
  b: number;
  queryTf: QueryTfMode;
  k3: number;
  fields: readonly string[];
  feedbackDocs: number;
  feedbackTerms: number;
  feedbackWeight: number;
}

/** The parts of an index that are computed from the corpus (what an on-disk index stores). */
export interface Bm25IndexData {
  docIds: readonly string[];
  /** Terms by id. */
  terms: readonly string[];
  /** term -> id, the inverse of `terms` (optional: built from `terms` when missing). */
  vocabulary?: ReadonlyMap<string, number>;
  documentFrequency: Int32Array;
  docLengths: Int32Array;
  termStart: Int32Array;
  postingDocs: Int32Array;
  /**
   * Term frequency of each posting: 16-bit when every frequency is below 65,536 (2 bytes per
   * posting; what the build and the on-disk index produce then), else 32-bit. Absent from data
   * built with `searchOnly` (the BM25 weights were computed in its place): such data can be
   * searched, but not stored or expanded with RM3.
   */
  postingTf?: Uint16Array | Int32Array;
}
