/**
 * Code-aware BM25: the code-aware tokeniser, an inverted index over typed arrays built once per
 * corpus, and term-at-a-time scoring of many queries with a reused accumulator and a bounded heap.
 */
import type { Doc, Query } from '../core/dataset.js';
import { CorebError, isCorebError } from '../core/errors.js';
import type { Logger, Progress } from '../core/progress.js';
import type { IndexOptions, RankedList, Retriever, RetrieverDescription, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { Bm25ForwardList, type ForwardListOptions } from './bm25-forward.js';
import { type Bm25IndexStore, bm25IndexKey, decodeBm25IndexDataAsync, encodeBm25IndexData } from './bm25-store.js';
import { checkAborted, EventLoopTurns, rankDocIds, resolveExcluded, runSteps, runStepsAsync, validateDepth } from './common.js';
import type { TokenizerOptions } from './tokenize.js';
import { createTokenizer, resolveTokenizerOptions, STOP_LISTS, TermInterner } from './tokenize.js';
import { TopK } from './top-k.js';
import { type Bm25IndexData, QUERY_TF_MODES, type QueryTfMode, type ResolvedBm25Options } from './bm25-types.js';

export { QUERY_TF_MODES, type Bm25IndexData, type QueryTfMode, type ResolvedBm25Options };

/** Options of {@link createBm25Retriever} / {@link createBm25Index}. */
export interface Bm25Options extends TokenizerOptions {
  /** Term-frequency saturation. Default 8 (tuned; see {@link BM25_DEFAULTS}). */
  k1?: number;
  /** Length normalisation in [0, 1]. Default 1. */
  b?: number;
  /** Query term-frequency handling. Default `'saturate'`. */
  queryTf?: QueryTfMode;
  /** k3 for `queryTf: 'saturate'` (>= 0). Default 4. */
  k3?: number;
  /**
   * Document fields joined (with a blank line) into the indexed text: `title`, `text`, or
   * `meta.<key>` for a string in `Doc.meta` (e.g. `meta.abbreviatedText`). Missing or non-string
   * fields are skipped. Default `['title', 'text']`: only what every retriever sees (the code, or a
   * text document's full text; CoREB has no titles), the text a dense model embeds.
   *
   * Adding a `meta.` field is an explicit choice, and a risky one: a field present on one label
   * class only is a label proxy. In CoREB `meta.abbreviatedText` is set on every original problem
   * text and on none of the near-miss texts, so indexing it separates positives from hard
   * negatives by the field's presence (v202602, coreb protocol: c2t nDCG@10 0.6453 with it vs
   * 0.6055 without; the field alone, 0.6994, beats the full text). `coreb validate` and
   * `coreb eval` warn about such fields.
   */
  fields?: readonly string[];
  /**
   * Pseudo-relevance feedback (RM3): number of top documents of a first pass whose terms expand the
   * query; 0 turns feedback off. Default 0.
   */
  feedbackDocs?: number;
  /** RM3: number of expansion terms kept (by relevance-model weight). Default 20. */
  feedbackTerms?: number;
  /** RM3: weight lambda of the expansion in [0, 1] (1 - lambda stays on the query). Default 0.5. */
  feedbackWeight?: number;
}

/**
 * The value type of every {@link Bm25Options} key, for spec parsers (e.g. `bm25?k1=0.9&fields=text`):
 * `number`, `boolean`, `string` (a name: `queryTf` one of {@link QUERY_TF_MODES}, `stopwords` a
 * key of `STOP_LISTS`) or `list` (comma-separated strings).
 */
export const BM25_OPTION_TYPES = {
  k1: 'number',
  b: 'number',
  k3: 'number',
  minLength: 'number',
  feedbackDocs: 'number',
  feedbackTerms: 'number',
  feedbackWeight: 'number',
  queryTf: 'string',
  stopwords: 'string',
  fields: 'list',
  splitIdentifiers: 'boolean',
  keepWhole: 'boolean',
  keepNumbers: 'boolean',
  stem: 'boolean',
} as const satisfies Record<keyof Bm25Options, 'number' | 'boolean' | 'string' | 'list'>;

/**
 * Defaults, tuned on CoREB release_v2602 only with `bench/search-bm25-tune.ts` (in-sample there):
 * k1 8, b 1, query term frequency saturated with k3 4, fields title + text. The tokeniser's own
 * defaults (code stop list, minLength 1, no numbers, S-stemming, split identifiers + whole) come
 * from the same search. The grid, every step and the numbers: docs/eval.md, "BM25 defaults".
 */
export const BM25_DEFAULTS = {
  k1: 8,
  b: 1,
  queryTf: 'saturate',
  k3: 4,
  fields: ['title', 'text'],
  feedbackDocs: 0,
  feedbackTerms: 20,
  feedbackWeight: 0.5,
} as const satisfies Partial<Bm25Options>;

/**
 * Named parameter sets, one spec parameter away (`bm25?preset=classic`); parameters given beside
 * the preset win. `tuned` is {@link BM25_DEFAULTS} (tuned on CoREB v202602: numbers on that
 * release are in-sample); `classic` is textbook BM25 (Robertson's k1 1.2, b 0.75, raw query term
 * frequency as Lucene) and `anserini` Anserini/Pyserini's defaults (k1 0.9, b 0.4), both with the
 * same code-aware tokeniser and fields, so they differ from `tuned` in the scoring only.
 */
export const BM25_PRESETS = {
  tuned: {},
  classic: { k1: 1.2, b: 0.75, queryTf: 'raw' },
  anserini: { k1: 0.9, b: 0.4, queryTf: 'raw' },
} as const satisfies Record<string, Partial<Bm25Options>>;

/** A BM25 preset name. */
export type Bm25PresetName = keyof typeof BM25_PRESETS;

/** Fills BM25 defaults and checks ranges (throws `USAGE`). */
export function resolveBm25Options(options: Bm25Options = {}): ResolvedBm25Options {
  const r: ResolvedBm25Options = {
    k1: options.k1 ?? BM25_DEFAULTS.k1,
    b: options.b ?? BM25_DEFAULTS.b,
    queryTf: options.queryTf ?? BM25_DEFAULTS.queryTf,
    k3: options.k3 ?? BM25_DEFAULTS.k3,
    fields: options.fields ?? BM25_DEFAULTS.fields,
    feedbackDocs: options.feedbackDocs ?? BM25_DEFAULTS.feedbackDocs,
    feedbackTerms: options.feedbackTerms ?? BM25_DEFAULTS.feedbackTerms,
    feedbackWeight: options.feedbackWeight ?? BM25_DEFAULTS.feedbackWeight,
    ...resolveTokenizerOptions(options),
  };
  if (!Number.isInteger(r.feedbackDocs) || r.feedbackDocs < 0 || !Number.isInteger(r.feedbackTerms) || r.feedbackTerms < 1) {
    throw new CorebError('USAGE', `bm25: feedbackDocs must be an integer >= 0 and feedbackTerms >= 1, got ${r.feedbackDocs} and ${r.feedbackTerms}`);
  }
  if (!(r.feedbackWeight >= 0 && r.feedbackWeight <= 1)) {
    throw new CorebError('USAGE', `bm25: feedbackWeight must be in [0, 1], got ${r.feedbackWeight}`);
  }
  if (!(r.k1 >= 0) || !Number.isFinite(r.k1)) throw new CorebError('USAGE', `bm25: k1 must be a finite number >= 0, got ${r.k1}`);
  if (!(r.b >= 0 && r.b <= 1)) throw new CorebError('USAGE', `bm25: b must be in [0, 1], got ${r.b}`);
  if (!(r.k3 >= 0) || !Number.isFinite(r.k3)) throw new CorebError('USAGE', `bm25: k3 must be a finite number >= 0, got ${r.k3}`);
  if (!Object.hasOwn(STOP_LISTS, r.stopwords)) {
    throw new CorebError('USAGE', `bm25: stopwords must be one of ${Object.keys(STOP_LISTS).join(', ')}, got ${String(r.stopwords)}`);
  }
  if (!QUERY_TF_MODES.includes(r.queryTf)) {
    throw new CorebError('USAGE', `bm25: queryTf must be one of ${QUERY_TF_MODES.join(', ')}, got ${String(r.queryTf)}`);
  }
  if (r.fields.length === 0) throw new CorebError('USAGE', 'bm25: fields must name at least one document field');
  return r;
}

/**
 * Lucene's BM25 idf (`BM25Similarity`, Lucene >= 6): ln(1 + (N - df + 0.5) / (df + 0.5)).
 * Always positive, unlike Robertson–Spärck Jones idf, so a very common term never lowers a score.
 * @param n number of documents in the corpus.
 * @param df number of documents containing the term.
 */
export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * BM25 term weight of one document: idf * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))
 * (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond", eq. 3.15,
 * with Lucene's idf). Lucene >= 8 drops the constant (k1 + 1) factor, which changes no ranking;
 * coreb keeps it and, unlike Lucene, uses exact document lengths (Lucene encodes them lossily).
 */
export function bm25TermWeight(idf: number, tf: number, dl: number, avgdl: number, k1: number, b: number): number {
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avgdl));
}

/** Weight of a query term that occurs `qtf` times in the query under the `queryTf` rule. */
export function queryTermWeight(qtf: number, mode: QueryTfMode, k3: number): number {
  if (mode === 'raw') return qtf;
  if (mode === 'binary') return 1;
  return (qtf * (k3 + 1)) / (k3 + qtf);
}

/**
 * Calls `visit` with each configured, non-empty string field of a document, in field order.
 * @throws CorebError `USAGE` for a field that is not title, text or meta.KEY.
 */
export function forEachField(doc: Doc, fields: readonly string[], visit: (text: string) => void): void {
  for (const f of fields) {
    let v: unknown;
    if (f === 'text') v = doc.text;
    else if (f === 'title') v = doc.title;
    else if (f.startsWith('meta.')) v = doc.meta?.[f.slice(5)];
    else throw new CorebError('USAGE', `bm25: unknown field "${f}"; use title, text or meta.<key>`);
    if (typeof v === 'string' && v.length > 0) visit(v);
  }
}

/** Returns a typed array of at least `need` elements holding `a`'s first `used` elements (grows by half). */
function ensure<T extends Int32Array | Uint16Array>(a: T, need: number, used: number, fill = 0): T {
  if (need <= a.length) return a;
  const size = Math.max(need, Math.ceil(a.length * 1.5), 1024);
  if (size > 0x7fffffff) throw new CorebError('USAGE', `bm25: the index needs more than 2^31 entries (${need}); split the corpus`);
  const out = new (a.constructor as new (n: number) => T)(size);
  out.set(a.subarray(0, used));
  if (fill !== 0) out.fill(fill, used);
  return out;
}

/** How {@link buildBm25IndexDataAsync} runs and what it keeps. */
export interface Bm25BuildRun {
  signal?: AbortSignal;
  /** Milliseconds of work between two turns of the event loop. Default 50. */
  yieldMs?: number;
  /** Called with the number of documents indexed so far at each turn. */
  onDocs?: (done: number) => void;
  /**
   * Keep no term frequencies: each posting's BM25 weight under the build's `k1` and `b` is
   * computed as the postings are laid out, and the data has no `postingTf` (2 bytes less per
   * posting after the build, 6 less at its peak). For an index that is searched and dropped: not
   * with a store or RM3. Default false.
   */
  searchOnly?: boolean;
  /** Where a large build's forward list goes (see {@link Bm25ForwardList}). Default: `os.tmpdir()`, past 2^21 postings. */
  forwardList?: ForwardListOptions;
}

/**
 * Builds the index data in one pass over the corpus: each document's text goes through a
 * {@link TermInterner} (integer term ids, no per-token strings), its distinct terms and their
 * frequencies are appended to a forward list ({@link Bm25ForwardList}: in memory up to 2^21
 * postings, then in an unlinked temporary file), then a counting sort by term turns the forward
 * list into postings in increasing document order. Time is linear in the number of postings;
 * memory holds the postings (6 bytes each: document 4, frequency 2 while they fit) and the
 * vocabulary, and the forward list only while it is small.
 */
export function buildBm25IndexData(docs: readonly Doc[], options: ResolvedBm25Options): Bm25IndexData {
  return runSteps(bm25IndexSteps(docs, options, {}));
}

/** Documents indexed between two points where {@link buildBm25IndexDataAsync} may give the event loop a turn. */
const BM25_STEP_DOCS = 1024;

/**
 * {@link buildBm25IndexData} that gives the event loop a turn at least every `yieldMs` milliseconds
 * (default 50), so a signal handler runs and `signal` stops a long build (a million documents take
 * tens of seconds) between two steps of {@link BM25_STEP_DOCS} documents or one chunk of postings.
 * Same result, bit for bit.
 * @throws CorebError `INTERRUPTED` when `signal` aborts (the message names how far the build got and the signal's reason); `IO` when the temporary forward list cannot be written.
 */
export async function buildBm25IndexDataAsync(docs: readonly Doc[], options: ResolvedBm25Options, run: Bm25BuildRun = {}): Promise<Bm25IndexData> {
  const turns = new EventLoopTurns(run.signal, run.yieldMs);
  const steps = bm25IndexSteps(docs, options, run);
  try {
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
      if (turns.due()) {
        run.onDocs?.(step.value);
        await turns.take(() => `bm25 index of ${docs.length} documents stopped after ${step.value}`);
      }
    }
  } finally {
    steps.return(undefined as never);
  }
}

/** The mean of the document lengths, 1 for an empty corpus or one without terms. */
function averageLength(docLengths: Int32Array): number {
  const n = docLengths.length;
  let total = 0;
  for (let d = 0; d < n; d++) total += docLengths[d];
  return n > 0 && total > 0 ? total / n : 1;
}

/** Posting weights computed by a `searchOnly` build, and for which k1 and b. */
const builtWeights = new WeakMap<Bm25IndexData, { k1: number; b: number; weights: Float32Array }>();

/**
 * The build of {@link buildBm25IndexData} as steps: yields the documents indexed so far every
 * {@link BM25_STEP_DOCS} documents, then once per chunk of the forward list laid out.
 */
function* bm25IndexSteps(
  docs: readonly Doc[],
  options: ResolvedBm25Options,
  run: Pick<Bm25BuildRun, 'searchOnly' | 'forwardList'>,
): Generator<number, Bm25IndexData, void> {
  const n = docs.length;
  let interner: TermInterner | undefined = new TermInterner(options);
  const docLengths = new Int32Array(n);
  const fwdStart = new Int32Array(n + 1);
  const forward = new Bm25ForwardList(run.forwardList);
  try {
    // One document's distinct terms and frequencies, in first-occurrence order; slot[t] is term t's place.
    let docTerms = new Int32Array(1024);
    let docTf = new Int32Array(1024);
    let df = new Int32Array(1024);
    let lastDoc = new Int32Array(1024).fill(-1);
    let slot = new Int32Array(1024);
    const scan = (text: string) => interner?.scan(text);
    for (let d = 0; d < n; d++) {
      interner.reset();
      forEachField(docs[d], options.fields, scan);
      const v = interner.vocabulary.size;
      if (v > df.length) {
        const used = df.length;
        df = ensure(df, v, used);
        lastDoc = ensure(lastDoc, v, used, -1);
        slot = ensure(slot, v, used);
      }
      const ids = interner.ids;
      const count = interner.length;
      if (count > docTerms.length) {
        docTerms = ensure(docTerms, count, 0);
        docTf = ensure(docTf, count, 0);
      }
      let k = 0;
      for (let i = 0; i < count; i++) {
        const t = ids[i];
        if (lastDoc[t] !== d) {
          lastDoc[t] = d;
          slot[t] = k;
          docTerms[k] = t;
          docTf[k++] = 1;
          df[t]++;
        } else docTf[slot[t]]++;
      }
      forward.append(docTerms, docTf, k);
      if (forward.length > 0x7fffffff) {
        throw new CorebError('USAGE', `bm25: the index needs more than 2^31 postings (${forward.length} after ${d + 1} documents); split the corpus`);
      }
      docLengths[d] = count;
      fwdStart[d + 1] = forward.length;
      if ((d + 1) % BM25_STEP_DOCS === 0) yield d + 1;
    }
    // Only the vocabulary outlives the scan: the word table and the scratch arrays can go before the postings are allocated.
    const vocabulary = interner.vocabulary;
    interner = undefined;
    lastDoc = slot = docTerms = docTf = new Int32Array(0);
    const v = vocabulary.size;
    const f = forward.length;
    const termStart = new Int32Array(v + 1);
    for (let t = 0; t < v; t++) termStart[t + 1] = termStart[t] + df[t];
    const fill = termStart.slice(0, v);
    const postingDocs = new Int32Array(f);
    let terms: string[] | undefined;
    const data = {
      docIds: docs.map((doc) => doc.id),
      // Listed when asked for (storing the index): the vocabulary map holds the same strings.
      get terms(): string[] {
        terms ??= [...vocabulary.keys()];
        return terms;
      },
      vocabulary,
      documentFrequency: df.slice(0, v),
      docLengths,
      termStart,
      postingDocs,
    } as Bm25IndexData;
    let d = 0;
    let i = 0;
    if (run.searchOnly === true) {
      // The weights the index would derive from the frequencies (same function, same float32).
      const { k1, b } = options;
      const avgdl = averageLength(docLengths);
      const idf = new Float64Array(v);
      for (let t = 0; t < v; t++) idf[t] = bm25Idf(n, df[t]);
      const weights = new Float32Array(f);
      for (const c of forward.chunks()) {
        for (let j = 0; j < c.count; j++, i++) {
          while (fwdStart[d + 1] <= i) d++;
          const t = c.terms[j];
          const p = fill[t]++;
          postingDocs[p] = d;
          weights[p] = bm25TermWeight(idf[t], c.tf[j], docLengths[d], avgdl, k1, b);
        }
        yield n;
      }
      builtWeights.set(data, { k1, b, weights });
    } else {
      const postingTf = forward.maxTf < 65536 ? new Uint16Array(f) : new Int32Array(f);
      for (const c of forward.chunks()) {
        for (let j = 0; j < c.count; j++, i++) {
          while (fwdStart[d + 1] <= i) d++;
          const p = fill[c.terms[j]]++;
          postingDocs[p] = d;
          postingTf[p] = c.tf[j];
        }
        yield n;
      }
      data.postingTf = postingTf;
    }
    return data;
  } finally {
    forward.close();
  }
}

/** What a {@link Bm25Index} computes from its data and options. */
interface Bm25Derived {
  options: ResolvedBm25Options;
  vocabulary: ReadonlyMap<string, number>;
  avgDocLength: number;
  postingWeights: Float32Array;
  fwdStart: Int32Array;
  fwdTerms: Int32Array;
  fwdTf: Int32Array;
  tieRanks: Int32Array;
  /** The index of a document id, -1 when absent (see {@link rankDocIds}). */
  positionOf: (id: string) => number;
}

/** Derived parts computed in steps by {@link Bm25Index.fromDataAsync}, handed to the constructor. */
const derivedFor = new WeakMap<Bm25IndexData, Bm25Derived>();
/** Loop iterations (documents, terms, postings) between two points where a derivation may yield. */
const DERIVE_STEP = 1 << 16;

/** The `USAGE` error for data without term frequencies asked for what needs them. */
function noFrequencies(what: string): CorebError {
  return new CorebError(
    'USAGE',
    `bm25: ${what} needs term frequencies, and this index data was built with searchOnly (it has none); build it again without`,
  );
}

/**
 * Computes what a {@link Bm25Index} derives from `data`, yielding every {@link DERIVE_STEP}
 * documents, terms or about as many postings: the tie ranks and id lookup ({@link rankDocIds},
 * where duplicate ids throw `VALIDATION`), the posting weights (taken from a `searchOnly` build of
 * the same k1 and b), RM3's forward index and the vocabulary map.
 */
function* bm25DerivedSteps(data: Bm25IndexData, options: ResolvedBm25Options): Generator<void, Bm25Derived, void> {
  const { docIds, docLengths, documentFrequency: df, termStart, postingDocs, postingTf } = data;
  const n = docIds.length;
  const v = df.length;
  const { tieRanks, positionOf } = rankDocIds(docIds);
  yield;
  const avgdl = averageLength(docLengths);
  const { k1, b } = options;
  const built = builtWeights.get(data);
  let postingWeights: Float32Array;
  if (built !== undefined && built.k1 === k1 && built.b === b) postingWeights = built.weights;
  else {
    if (postingTf === undefined) throw noFrequencies(`k1 ${k1} and b ${b} (the data's weights are for k1 ${built?.k1} and b ${built?.b})`);
    postingWeights = new Float32Array(postingDocs.length);
    let sinceYield = 0;
    for (let t = 0; t < v; t++) {
      const idf = bm25Idf(n, df[t]);
      const end = termStart[t + 1];
      for (let p = termStart[t]; p < end; p++) {
        postingWeights[p] = bm25TermWeight(idf, postingTf[p], docLengths[postingDocs[p]], avgdl, k1, b);
      }
      sinceYield += end - termStart[t] + 1;
      if (sinceYield >= 16 * DERIVE_STEP) {
        sinceYield = 0;
        yield;
      }
    }
  }
  // RM3 reads documents' terms: a forward index by a counting sort of the postings by document.
  const fwdStart = new Int32Array(options.feedbackDocs > 0 ? n + 1 : 1);
  const fwdTerms = new Int32Array(options.feedbackDocs > 0 ? postingDocs.length : 0);
  const fwdTf = new Int32Array(fwdTerms.length);
  if (options.feedbackDocs > 0) {
    if (postingTf === undefined) throw noFrequencies('RM3 feedback (feedbackDocs > 0)');
    for (let p = 0; p < postingDocs.length; p++) fwdStart[postingDocs[p] + 1]++;
    for (let d = 0; d < n; d++) fwdStart[d + 1] += fwdStart[d];
    yield;
    const fill = fwdStart.slice(0, n);
    for (let t = 0; t < v; t++) {
      for (let p = termStart[t], end = termStart[t + 1]; p < end; p++) {
        const i = fill[postingDocs[p]]++;
        fwdTerms[i] = t;
        fwdTf[i] = postingTf[p];
      }
      if ((t & (DERIVE_STEP - 1)) === DERIVE_STEP - 1) yield;
    }
  }
  let vocabulary = data.vocabulary;
  if (vocabulary === undefined) {
    const built = new Map<string, number>();
    for (let t = 0; t < data.terms.length; t++) {
      built.set(data.terms[t], t);
      if ((t & (DERIVE_STEP - 1)) === DERIVE_STEP - 1) yield;
    }
    vocabulary = built;
  }
  return { options, vocabulary, avgDocLength: avgdl, postingWeights, fwdStart, fwdTerms, fwdTf, tieRanks, positionOf };
}

/**
 * An inverted index over one corpus. Postings are stored CSR-style: the documents of term t are
 * `postingDocs[termStart[t] .. termStart[t + 1])`, in increasing document order, with their BM25
 * term weights precomputed in `postingWeights` (float32), so a query costs one multiply-add per
 * posting of its terms and never touches documents that share no term with it. Built by
 * {@link buildBm25IndexData} (one pass, integer term ids); memory after the build: 10 bytes per
 * posting (doc id 4, term frequency 2 (4 past 65,535), weight 4; 8 more with RM3's forward index;
 * 8 in all when the retriever built it `searchOnly`) plus the vocabulary.
 */
export class Bm25Index implements RetrieverIndex {
  /** Number of documents. */
  readonly size: number;
  /** Resolved parameters. */
  readonly options: ResolvedBm25Options;
  /** Document ids in index order. */
  readonly docIds: readonly string[];
  /** term -> term id. */
  readonly vocabulary: ReadonlyMap<string, number>;
  /** Document frequency per term id. */
  readonly documentFrequency: Int32Array;
  /** Indexed length (number of terms) per document. */
  readonly docLengths: Int32Array;
  /** Mean indexed document length. */
  readonly avgDocLength: number;
  /** The corpus-derived arrays (what {@link Bm25Index.fromData} takes back). */
  readonly data: Bm25IndexData;
  private readonly termStart: Int32Array;
  /** Forward index for RM3 (built only with `feedbackDocs > 0`): the distinct terms of doc d are `fwdTerms[fwdStart[d] .. fwdStart[d + 1])`. */
  private readonly fwdStart: Int32Array;
  private readonly fwdTerms: Int32Array;
  private readonly fwdTf: Int32Array;
  private readonly postingDocs: Int32Array;
  private readonly postingWeights: Float32Array;
  private readonly tieRanks: Int32Array;
  private tokenize: ((text: string) => string[]) | undefined;
  /** Query words -> term ids of this index (created on the first search; caches the query words seen). */
  private queryTerms: TermInterner | undefined;
  /** The index of a document id, -1 when absent: an excluded id is found by binary search (no Map of a million ids). */
  private readonly positionOf: (id: string) => number;

  /** Builds the index. Use {@link createBm25Index}. */
  constructor(docs: readonly Doc[], options: ResolvedBm25Options);
  /** Takes back index data built (or stored) for these options. */
  constructor(data: Bm25IndexData, options: ResolvedBm25Options);
  constructor(source: readonly Doc[] | Bm25IndexData, options: ResolvedBm25Options) {
    const data = Array.isArray(source) ? buildBm25IndexData(source as readonly Doc[], options) : (source as Bm25IndexData);
    let derived = derivedFor.get(data);
    derivedFor.delete(data);
    if (derived?.options !== options) derived = runSteps(bm25DerivedSteps(data, options));
    this.data = data;
    this.options = options;
    this.size = data.docIds.length;
    this.docIds = data.docIds;
    this.vocabulary = derived.vocabulary;
    this.documentFrequency = data.documentFrequency;
    this.docLengths = data.docLengths;
    this.avgDocLength = derived.avgDocLength;
    this.termStart = data.termStart;
    this.fwdStart = derived.fwdStart;
    this.fwdTerms = derived.fwdTerms;
    this.fwdTf = derived.fwdTf;
    this.postingDocs = data.postingDocs;
    this.postingWeights = derived.postingWeights;
    this.tieRanks = derived.tieRanks;
    this.positionOf = derived.positionOf;
  }

  /**
   * {@link Bm25Index} over index data (built or stored), computing what it derives from the data
   * (BM25 weights of every posting, the vocabulary map, the id map, tie ranks, RM3's forward
   * index) in steps that give the event loop a turn every `run.yieldMs` milliseconds (default 50),
   * so `run.signal` stops it. Same index as the constructor.
   * @throws CorebError `INTERRUPTED` when `run.signal` aborts; `VALIDATION` on duplicate document ids.
   */
  static async fromDataAsync(
    data: Bm25IndexData,
    options: ResolvedBm25Options,
    run: { signal?: AbortSignal; yieldMs?: number } = {},
  ): Promise<Bm25Index> {
    const derived = await runStepsAsync(
      bm25DerivedSteps(data, options),
      run,
      () => `preparing the bm25 index of ${data.docIds.length} documents stopped`,
    );
    derivedFor.set(data, derived);
    return new Bm25Index(data, options);
  }

  /**
   * Adds the BM25 score of every document sharing a term with the weighted query to `acc` (which
   * is all zeros on entry) and lists those documents in `touched`. Returns how many there are.
   */
  private accumulate(weights: ReadonlyMap<number, number>, acc: Float64Array, touched: Int32Array): number {
    let nTouched = 0;
    const { termStart, postingDocs, postingWeights } = this;
    for (const [t, w] of weights) {
      for (let p = termStart[t], end = termStart[t + 1]; p < end; p++) {
        const d = postingDocs[p];
        if (acc[d] === 0) touched[nTouched++] = d;
        acc[d] += w * postingWeights[p];
      }
    }
    return nTouched;
  }

  /**
   * RM3 (Lavrenko & Croft 2001, "Relevance-based language models"; Abdul-Jaleel et al. 2004, UMass
   * at TREC 2004): the relevance model P(t|R) = sum over the m feedback documents d of
   * P(d|q) * tf(t, d) / |d|, with P(d|q) = the document's first-pass BM25 score normalised to sum 1;
   * the `feedbackTerms` heaviest terms, renormalised, are mixed with the query's own normalised term
   * weights: w'(t) = (1 - lambda) w(t) + lambda P(t|R).
   */
  private expandQuery(weights: ReadonlyMap<number, number>, docs: Int32Array, scores: Float32Array, m: number): Map<number, number> {
    let total = 0;
    for (let i = 0; i < m; i++) total += scores[i];
    const rm = new Map<number, number>();
    if (total > 0) {
      for (let i = 0; i < m; i++) {
        const d = docs[i];
        const len = this.docLengths[d];
        if (len === 0) continue;
        const pd = scores[i] / total;
        for (let f = this.fwdStart[d], end = this.fwdStart[d + 1]; f < end; f++) {
          const t = this.fwdTerms[f];
          rm.set(t, (rm.get(t) ?? 0) + (pd * this.fwdTf[f]) / len);
        }
      }
    }
    const top = [...rm].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, this.options.feedbackTerms);
    let rmTotal = 0;
    for (const [, w] of top) rmTotal += w;
    let qTotal = 0;
    for (const w of weights.values()) qTotal += w;
    const lambda = this.options.feedbackWeight;
    const out = new Map<number, number>();
    for (const [t, w] of weights) out.set(t, ((1 - lambda) * w) / qTotal);
    if (rmTotal > 0) for (const [t, w] of top) out.set(t, (out.get(t) ?? 0) + (lambda * w) / rmTotal);
    return out;
  }

  /** The terms BM25 sees for `text` (the same tokeniser as the index). */
  terms(text: string): string[] {
    this.tokenize ??= createTokenizer(this.options);
    return this.tokenize(text);
  }

  /**
   * Scores every query against the corpus (term at a time) and keeps the top `depth` documents.
   * Only documents sharing at least one term with the query are returned (all have score > 0).
   */
  async search(queries: readonly Query[], depth: number, options: SearchOptions = {}): Promise<Map<string, RankedList>> {
    return this.rankAll(queries.length, (qi) => ({ id: queries[qi].id, weights: this.queryWeights(queries[qi].text) }), depth, options, true);
  }

  /** A query text's term weights: its terms' frequencies under the `queryTf` rule. */
  private queryWeights(text: string): Map<number, number> {
    const { queryTf, k3 } = this.options;
    this.queryTerms ??= new TermInterner(this.options, this.vocabulary as Map<string, number>, true);
    const queryTerms = this.queryTerms;
    const qtf = new Map<number, number>();
    queryTerms.reset();
    queryTerms.scan(text);
    for (let i = 0; i < queryTerms.length; i++) {
      const t = queryTerms.ids[i];
      qtf.set(t, (qtf.get(t) ?? 0) + 1);
    }
    const weights = new Map<number, number>();
    for (const [t, c] of qtf) weights.set(t, queryTermWeight(c, queryTf, k3));
    return weights;
  }

  /**
   * Ranks weighted bags of index terms (terms as the tokeniser emits them; a term not in the
   * vocabulary is skipped), optionally added to a query text's own weights: score(d) = sum over
   * terms t of w(t) * BM25(t, d), w = the text's weight (as {@link search}) + the bag's. No
   * feedback. Used by query expansion (the vocabulary bridge), whose terms come with weights.
   */
  async searchTerms(
    queries: ReadonlyArray<{ id: string; terms: ReadonlyMap<string, number>; text?: string }>,
    depth: number,
    options: SearchOptions = {},
  ): Promise<Map<string, RankedList>> {
    return this.rankAll(
      queries.length,
      (qi) => {
        const q = queries[qi];
        const weights = q.text !== undefined ? this.queryWeights(q.text) : new Map<number, number>();
        for (const [term, w] of q.terms) {
          const t = this.vocabulary.get(term);
          if (t !== undefined && w > 0) weights.set(t, (weights.get(t) ?? 0) + w);
        }
        return { id: q.id, weights };
      },
      depth,
      options,
      false,
    );
  }

  /** Document frequency of a term (0 when it is not in the vocabulary). */
  termDocumentFrequency(term: string): number {
    const t = this.vocabulary.get(term);
    return t === undefined ? 0 : this.documentFrequency[t];
  }

  /** The search loop of {@link search} and {@link searchTerms}: query `qi`'s id and term weights from `weightsOf`. */
  private async rankAll(
    count: number,
    weightsOf: (qi: number) => { id: string; weights: Map<number, number> },
    depth: number,
    options: SearchOptions,
    withFeedback: boolean,
  ): Promise<Map<string, RankedList>> {
    validateDepth(depth);
    const out = new Map<string, RankedList>();
    const n = this.size;
    const acc = new Float64Array(n);
    const touched = new Int32Array(n);
    const excluded = new Uint8Array(n);
    const heap = new TopK(Math.min(depth, Math.max(n, 1)), this.tieRanks);
    const outDocs = new Int32Array(heap.capacity);
    const outScores = new Float32Array(heap.capacity);
    const { feedbackDocs } = this.options;
    const feedback =
      withFeedback && feedbackDocs > 0
        ? {
            heap: new TopK(feedbackDocs, this.tieRanks),
            docs: new Int32Array(feedbackDocs),
            scores: new Float32Array(feedbackDocs),
          }
        : undefined;
    options.progress?.start('bm25 search', count);
    checkAborted(options.signal);
    // A turn of the event loop every 50 ms, not every so many queries: a query over a million documents takes tens of ms.
    const turns = new EventLoopTurns(options.signal);
    for (let qi = 0; qi < count; qi++) {
      if (turns.due()) await turns.take(() => `bm25 search stopped after ${qi} of ${count} queries`);
      const q = weightsOf(qi);
      let weights = q.weights;
      const ex = resolveExcluded(options.exclude?.get(q.id), this.positionOf);
      for (const d of ex) excluded[d] = 1;
      if (feedback !== undefined && weights.size > 0) {
        const nTouched = this.accumulate(weights, acc, touched);
        for (let i = 0; i < nTouched; i++) {
          const d = touched[i];
          if (excluded[d] === 0) feedback.heap.push(d, acc[d]);
          acc[d] = 0;
        }
        const m = feedback.heap.drainInto(feedback.docs, feedback.scores);
        weights = this.expandQuery(weights, feedback.docs, feedback.scores, m);
      }
      const nTouched = this.accumulate(weights, acc, touched);
      // Most touched documents cannot enter a full heap: one float32 comparison with its
      // threshold skips the call (push breaks ties at the threshold exactly).
      let bar = heap.threshold;
      for (let i = 0; i < nTouched; i++) {
        const d = touched[i];
        if (excluded[d] === 0 && Math.fround(acc[d]) >= bar) {
          heap.push(d, acc[d]);
          bar = heap.threshold;
        }
        acc[d] = 0;
      }
      for (const d of ex) excluded[d] = 0;
      const m = heap.drainInto(outDocs, outScores);
      const docIds = new Array<string>(m);
      for (let i = 0; i < m; i++) docIds[i] = this.docIds[outDocs[i]];
      out.set(q.id, { docIds, scores: outScores.slice(0, m) });
      options.progress?.tick();
    }
    options.progress?.done();
    return out;
  }
}

/** Builds a BM25 index over `docs` (ids unique; throws `VALIDATION` otherwise). Pure, synchronous. */
export function createBm25Index(docs: readonly Doc[], options: Bm25Options = {}): Bm25Index {
  return new Bm25Index(docs, resolveBm25Options(options));
}

/** The secret-free description of a BM25 configuration. */
export function describeBm25(options: ResolvedBm25Options): RetrieverDescription {
  return {
    kind: 'bm25',
    variant: 'lucene',
    formula: 'sum over query terms t of wq(qtf) * idf(t) * tf*(k1+1) / (tf + k1*(1-b+b*dl/avgdl)), idf = ln(1+(N-df+0.5)/(df+0.5))',
    k1: options.k1,
    b: options.b,
    queryTf: options.queryTf,
    ...(options.queryTf === 'saturate' ? { k3: options.k3 } : {}),
    feedback:
      options.feedbackDocs > 0 ? { method: 'rm3', docs: options.feedbackDocs, terms: options.feedbackTerms, weight: options.feedbackWeight } : 'none',
    fields: [...options.fields],
    tokenizer: {
      name: 'coreb-code',
      stopwords: options.stopwords,
      splitIdentifiers: options.splitIdentifiers,
      keepWhole: options.keepWhole,
      minLength: options.minLength,
      keepNumbers: options.keepNumbers,
      stem: options.stem ? 's-stemmer' : 'none',
    },
    ties: 'score as float32 descending, then docid descending by code point (trec_eval 9.0.8)',
  };
}

/** Where {@link createBm25Retriever} keeps indexes across runs, and who hears about it. */
export interface Bm25RetrieverContext {
  /**
   * On-disk index store (see `openBm25IndexFileStore` in the cache layer). When given, an index is
   * looked up by {@link bm25IndexKey} before it is built and saved after; a stored index that cannot
   * be read (corrupt, truncated, another format or key) is rebuilt with a warning. Default: none.
   */
  store?: Bm25IndexStore;
  /** Receives the store's warnings and hits. */
  logger?: Logger;
}

/** How {@link loadOrBuildBm25Index} runs: cancellation and progress. */
export interface Bm25IndexRun {
  /** Stops the work (hashing, loading, building, saving) at its next step with `INTERRUPTED`. */
  signal?: AbortSignal;
  /** Milliseconds of work between two turns of the event loop. Default 50. */
  yieldMs?: number;
  /** Reports each phase: `start(label, total)` (`bm25 corpus hash` and `bm25 index` count documents), ticks and `done`. */
  progress?: Progress;
}

/**
 * Indexes `docs`, through `context.store` when given: returns the stored index of the same corpus
 * and parameters, else builds it and stores it (a failed save is a warning, never a failed index).
 * Every phase works in steps and gives the event loop a turn every `run.yieldMs` milliseconds
 * (hashing the corpus for the key, reading and checking the stored file, building with
 * {@link buildBm25IndexDataAsync}, writing the file), so `run.signal` stops it within a step; an
 * interrupted save leaves no file under the key (the store writes a temporary file and renames it).
 * Without a store this is {@link buildBm25IndexDataAsync} plus the index.
 * @throws CorebError `INTERRUPTED` when `run.signal` aborts; `VALIDATION` on duplicate document ids.
 */
export async function loadOrBuildBm25Index(
  docs: readonly Doc[],
  options: ResolvedBm25Options,
  context: Bm25RetrieverContext = {},
  run: Bm25IndexRun = {},
): Promise<Bm25Index> {
  const { store, logger } = context;
  const { signal, progress } = run;
  checkAborted(signal);
  const stepped = (label: string): { onDocs: (done: number) => void; finish: () => void } => {
    progress?.start(label, docs.length);
    let reported = 0;
    return {
      onDocs: (done) => {
        progress?.tick(done - reported);
        reported = done;
      },
      finish: () => {
        progress?.tick(docs.length - reported);
        progress?.done();
      },
    };
  };
  const build = async (): Promise<Bm25Index> => {
    const p = stepped('bm25 index');
    // Without a store or RM3 nothing reads the term frequencies again: the build computes the weights in their place.
    const searchOnly = store === undefined && options.feedbackDocs === 0;
    const data = await buildBm25IndexDataAsync(docs, options, { ...run, onDocs: p.onDocs, searchOnly });
    const index = await Bm25Index.fromDataAsync(data, options, run);
    p.finish();
    return index;
  };
  if (store === undefined) return build();
  const hashing = stepped('bm25 corpus hash');
  const key = await bm25IndexKey(docs, options, { ...run, onDocs: hashing.onDocs });
  hashing.finish();
  let found: Awaited<ReturnType<Bm25IndexStore['load']>>;
  progress?.start('bm25 index read', 0);
  try {
    found = await store.load(key, { signal });
  } catch (e) {
    if (isCorebError(e, 'INTERRUPTED')) throw e;
    logger?.warn(`bm25: ${(e as Error).message}; rebuilding the index`);
  }
  if (found !== undefined) {
    let data: Bm25IndexData | undefined;
    try {
      data = await decodeBm25IndexDataAsync(found.bytes, key, run);
    } catch (e) {
      if (isCorebError(e, 'INTERRUPTED')) throw e;
      logger?.warn(`bm25: ${found.where}: ${(e as Error).message}; rebuilding the index`);
    }
    if (data !== undefined) {
      const index = await Bm25Index.fromDataAsync(data, options, run);
      progress?.done();
      logger?.info(`bm25: index of ${docs.length} documents read from ${found.where}`);
      return index;
    }
  }
  progress?.done();
  const index = await build();
  try {
    const where = await store.save(key, encodeBm25IndexData(index.data, key), { signal });
    logger?.info(`bm25: index of ${docs.length} documents saved to ${where}`);
  } catch (e) {
    if (isCorebError(e, 'INTERRUPTED')) throw e;
    logger?.warn(`bm25: the index could not be saved (${(e as Error).message}); it is rebuilt next time`);
  }
  return index;
}

/**
 * The `bm25` retriever: indexes each corpus with {@link createBm25Index}. Its description names
 * the variant (Lucene BM25), k1, b, the query-tf handling and every tokeniser choice.
 * @example
 * ```ts
 * import { createBm25Retriever, dataset, loadRelease } from 'coreb';
 * const task = dataset.releaseTasks((await loadRelease('data/coreb-mini/release')).release).text2code;
 * const index = await createBm25Retriever({ k1: 1.2, b: 0.75 }).index(task.corpus);
 * const lists = await index.search(task.queries, 10); // query id -> { docIds, scores }, best first
 * ```
 */
export function createBm25Retriever(options: Bm25Options = {}, context: Bm25RetrieverContext = {}): Retriever {
  const resolved = resolveBm25Options(options);
  return {
    name: 'bm25',
    describe: () => describeBm25(resolved),
    async index(docs: readonly Doc[], indexOptions: IndexOptions = {}): Promise<RetrieverIndex> {
      return loadOrBuildBm25Index(docs, resolved, context, indexOptions);
    },
  };
}
