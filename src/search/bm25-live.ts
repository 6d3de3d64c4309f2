/**
 * A BM25 index that changes: documents are added, replaced and removed one at a time, and every
 * search scores exactly as a {@link Bm25Index} built from scratch over the documents present then
 * (same tokens, Lucene idf over the live document count and document frequencies, the live mean
 * length, float32 posting weights, trec tie order). Layout, as Lucene's segments: a compact base
 * (the arrays {@link buildBm25IndexData} builds, with term frequencies) whose removed documents are
 * only marked, plus a small delta of documents added since, kept per document; the statistics are
 * kept exact across both (a removed base document's terms are found by tokenising its text again).
 * {@link compact} folds the delta and the removals into a new base. Search reads term frequencies
 * and computes weights per query, so nothing has to be recomputed when the statistics move.
 */
import type { Doc } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { compareCodePoints } from '../core/ids.js';
import type { RankedList } from '../core/retrieval.js';
import {
  bm25Idf,
  bm25TermWeight,
  buildBm25IndexDataAsync,
  forEachField,
  queryTermWeight,
  resolveBm25Options,
  type Bm25IndexData,
  type Bm25Options,
  type ResolvedBm25Options,
} from './bm25.js';
import { createTokenizer, type Tokenizer } from './tokenize.js';

/** A document of the delta: its distinct terms (first-occurrence order) and their frequencies. */
interface DeltaDoc {
  doc: Doc;
  terms: Int32Array;
  tf: Int32Array;
  length: number;
}

/** Counters of a {@link LiveBm25Index}. */
export interface LiveBm25Stats {
  /** Live documents. */
  documents: number;
  /** Of them, in the base. */
  base: number;
  /** Base documents removed but not yet compacted away. */
  removed: number;
  /** Documents added since the base was built. */
  delta: number;
}

/** A BM25 index documents can be added to and removed from (see the module comment). */
export class LiveBm25Index {
  readonly options: ResolvedBm25Options;
  private readonly tokenize: Tokenizer;
  private vocabulary = new Map<string, number>();
  /** Document frequency per term id over live documents. */
  private df: number[] = [];
  private totalLength = 0;
  // The base.
  private base: Bm25IndexData | undefined;
  private baseDocs: Doc[] = [];
  private basePosition = new Map<string, number>();
  private removed = new Uint8Array(0);
  private removedCount = 0;
  // The delta.
  private readonly delta = new Map<string, DeltaDoc>();
  /** Term id -> delta documents holding it. */
  private deltaPostings = new Map<number, Set<DeltaDoc>>();
  /**
   * Documents added while staging ({@link beginStaging}): held as they are, indexed by the next
   * {@link compact} all at once (a first build of a million chunks through the delta would keep a
   * set entry per posting).
   */
  private staged: Map<string, Doc> | undefined;
  /** The compaction running, and the adds (`doc`) and removals made since it took its documents. */
  private compacting: Promise<void> | undefined;
  private journal: Array<{ id: string; doc?: Doc }> | undefined;
  // Search scratch: a base document's sum and whether it has one (reused query after query).
  private acc = new Float64Array(0);
  private seen = new Uint8Array(0);

  constructor(options: Bm25Options = {}) {
    this.options = resolveBm25Options(options);
    if (this.options.feedbackDocs > 0)
      throw new CorebError('USAGE', 'a live bm25 index takes no RM3 feedback (feedbackDocs): use a built index for that');
    this.tokenize = createTokenizer(this.options);
  }

  /** Live documents (staged ones included). */
  get size(): number {
    return this.baseDocs.length - this.removedCount + this.delta.size + (this.staged?.size ?? 0);
  }

  /**
   * From now until the next {@link compact}, {@link add} only holds documents (searches do not see
   * them); the compaction indexes them with the rest at once. For a first build.
   */
  beginStaging(): void {
    this.staged ??= new Map();
  }

  /** Counters (see {@link LiveBm25Stats}). */
  stats(): LiveBm25Stats {
    return { documents: this.size, base: this.baseDocs.length - this.removedCount, removed: this.removedCount, delta: this.delta.size };
  }

  /** True when a live document has this id. */
  has(id: string): boolean {
    if (this.delta.has(id) || this.staged?.has(id) === true) return true;
    const p = this.basePosition.get(id);
    return p !== undefined && this.removed[p] === 0;
  }

  /** The live document of an id. */
  get(id: string): Doc | undefined {
    const d = this.delta.get(id);
    if (d !== undefined) return d.doc;
    const st = this.staged?.get(id);
    if (st !== undefined) return st;
    const p = this.basePosition.get(id);
    return p !== undefined && this.removed[p] === 0 ? this.baseDocs[p] : undefined;
  }

  /** The live documents: the base's not removed, then the delta's. */
  *documents(): Generator<Doc> {
    for (let p = 0; p < this.baseDocs.length; p++) if (this.removed[p] === 0) yield this.baseDocs[p];
    for (const d of this.delta.values()) yield d.doc;
    yield* this.staged?.values() ?? [];
  }

  /** Distinct term ids and frequencies of a document's fields, in first-occurrence order (terms interned). */
  private termsOf(doc: Doc, intern: boolean): { terms: number[]; tf: number[]; length: number } {
    const index = new Map<number, number>();
    const terms: number[] = [];
    const tf: number[] = [];
    let length = 0;
    forEachField(doc, this.options.fields, (text) => {
      for (const term of this.tokenize(text)) {
        let t = this.vocabulary.get(term);
        if (t === undefined) {
          if (!intern) continue;
          t = this.vocabulary.size;
          this.vocabulary.set(term, t);
          this.df.push(0);
        }
        length++;
        const at = index.get(t);
        if (at === undefined) {
          index.set(t, terms.length);
          terms.push(t);
          tf.push(1);
        } else tf[at]++;
      }
    });
    return { terms, tf, length };
  }

  /** Adds a document, replacing a live one with the same id. */
  add(doc: Doc): void {
    this.remove(doc.id);
    this.journal?.push({ id: doc.id, doc });
    if (this.staged !== undefined) {
      this.staged.set(doc.id, doc);
      return;
    }
    const { terms, tf, length } = this.termsOf(doc, true);
    const d: DeltaDoc = { doc, terms: Int32Array.from(terms), tf: Int32Array.from(tf), length };
    this.delta.set(doc.id, d);
    this.totalLength += length;
    for (const t of terms) {
      this.df[t]++;
      let set = this.deltaPostings.get(t);
      if (set === undefined) this.deltaPostings.set(t, (set = new Set()));
      set.add(d);
    }
  }

  /** Removes the live document with this id; false when there is none. */
  remove(id: string): boolean {
    this.journal?.push({ id });
    if (this.staged?.delete(id) === true) return true;
    const d = this.delta.get(id);
    if (d !== undefined) {
      this.delta.delete(id);
      this.totalLength -= d.length;
      for (const t of d.terms) {
        this.df[t]--;
        this.deltaPostings.get(t)?.delete(d);
      }
      return true;
    }
    const p = this.basePosition.get(id);
    if (p === undefined || this.removed[p] === 1) return false;
    this.removed[p] = 1;
    this.removedCount++;
    const base = this.base as Bm25IndexData;
    this.totalLength -= base.docLengths[p];
    // Its terms, found again from its text (the base keeps no per-document list).
    for (const t of this.termsOf(this.baseDocs[p], false).terms) this.df[t]--;
    return true;
  }

  /**
   * Rebuilds the base from the live documents (the delta and the removals folded in), giving the
   * event loop a turn every 50 ms. Searches give the same results before, during and after; adds
   * and removals made while it builds apply at once and are replayed over the new base. A call
   * while one runs waits for it.
   */
  compact(signal?: AbortSignal): Promise<void> {
    this.compacting ??= (async () => {
      try {
        const docs: Doc[] = [];
        for (let p = 0; p < this.baseDocs.length; p++) if (this.removed[p] === 0) docs.push(this.baseDocs[p]);
        for (const d of this.delta.values()) docs.push(d.doc);
        for (const d of this.staged?.values() ?? []) docs.push(d);
        this.journal = [];
        const data = await buildBm25IndexDataAsync(docs, this.options, signal !== undefined ? { signal } : {});
        const ops = this.journal;
        this.journal = undefined;
        this.staged = undefined;
        this.setBase(docs, data);
        for (const op of ops) {
          if (op.doc !== undefined) this.add(op.doc);
          else this.remove(op.id);
        }
      } finally {
        this.journal = undefined;
        this.compacting = undefined;
      }
    })();
    return this.compacting;
  }

  /** Takes `docs` and their index data (built or stored for these options) as the whole index. */
  setBase(docs: readonly Doc[], data: Bm25IndexData): void {
    if (data.postingTf === undefined) throw new CorebError('INTERNAL', 'a live bm25 base needs term frequencies');
    if (data.docIds.length !== docs.length)
      throw new CorebError('INTERNAL', `bm25 base: ${data.docIds.length} indexed documents for ${docs.length} given`);
    this.base = data;
    this.baseDocs = [...docs];
    this.basePosition = new Map(docs.map((d, i) => [d.id, i]));
    this.removed = new Uint8Array(docs.length);
    this.removedCount = 0;
    this.delta.clear();
    this.deltaPostings = new Map();
    this.vocabulary = new Map(data.terms.map((t, i) => [t, i]));
    this.df = Array.from(data.documentFrequency);
    let total = 0;
    for (let d = 0; d < data.docLengths.length; d++) total += data.docLengths[d];
    this.totalLength = total;
  }

  /** The base's documents and index data, when there is no delta and no removal (what a store keeps); else undefined. */
  snapshot(): { docs: readonly Doc[]; data: Bm25IndexData } | undefined {
    if (this.base === undefined || this.delta.size > 0 || this.removedCount > 0) return undefined;
    return { docs: this.baseDocs, data: this.base };
  }

  /**
   * The top `depth` live documents for `text`, best first: score = Σ over query terms of
   * w(qtf) × float32(BM25(t, d)) with the live N, df and mean length; trec order (float32 score
   * descending, docid descending). Only documents sharing a term with the query are returned.
   */
  search(text: string, depth: number, exclude?: ReadonlySet<string>): RankedList {
    const { k1, b, queryTf, k3 } = this.options;
    const qtf = new Map<number, number>();
    for (const term of this.tokenize(text)) {
      const t = this.vocabulary.get(term);
      if (t !== undefined) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    }
    const n = this.size;
    const avgdl = n > 0 && this.totalLength > 0 ? this.totalLength / n : 1;
    const base = this.base;
    // Base sums in a reused array (documents touched listed), in the order the terms come: the
    // same additions, so the same doubles, as one map per query.
    const nBase = this.baseDocs.length;
    if (this.acc.length < nBase) {
      this.acc = new Float64Array(nBase);
      this.seen = new Uint8Array(nBase);
    }
    const acc = this.acc;
    const seen = this.seen;
    const touched: number[] = [];
    const deltaAcc = new Map<DeltaDoc, number>();
    for (const [t, c] of qtf) {
      const df = this.df[t];
      if (df <= 0) continue;
      const w = queryTermWeight(c, queryTf, k3);
      const idf = bm25Idf(n, df);
      if (base !== undefined && t < base.terms.length) {
        const tfs = base.postingTf as Uint16Array | Int32Array;
        for (let p = base.termStart[t], end = base.termStart[t + 1]; p < end; p++) {
          const d = base.postingDocs[p];
          if (this.removed[d] === 1) continue;
          const pw = Math.fround(bm25TermWeight(idf, tfs[p], base.docLengths[d], avgdl, k1, b));
          if (seen[d] === 0) {
            seen[d] = 1;
            touched.push(d);
            acc[d] = w * pw;
          } else acc[d] += w * pw;
        }
      }
      for (const d of this.deltaPostings.get(t) ?? []) {
        const at = d.terms.indexOf(t);
        const pw = Math.fround(bm25TermWeight(idf, d.tf[at], d.length, avgdl, k1, b));
        deltaAcc.set(d, (deltaAcc.get(d) ?? 0) + w * pw);
      }
    }
    let hits: Array<{ id: string; score: number }> = [];
    for (const d of touched) {
      seen[d] = 0;
      const id = this.baseDocs[d].id;
      if (exclude?.has(id) !== true) hits.push({ id, score: Math.fround(acc[d]) });
    }
    for (const [d, s] of deltaAcc) if (exclude?.has(d.doc.id) !== true) hits.push({ id: d.doc.id, score: Math.fround(s) });
    if (hits.length > depth) {
      // only what can reach the top `depth` is sorted: the depth-th best score and every tie of it
      const scores = Float32Array.from(hits, (h) => h.score).sort();
      const bar = scores[scores.length - depth];
      hits = hits.filter((h) => h.score >= bar);
    }
    hits.sort((x, y) => y.score - x.score || compareCodePoints(y.id, x.id));
    const top = hits.slice(0, depth);
    return { docIds: top.map((h) => h.id), scores: Float32Array.from(top.map((h) => h.score)) };
  }
}
