/**
 * A learned vocabulary bridge between problem statements and code. Statements say "subsequence",
 * programs say `dp`, `j`, `append`; BM25 sees only the words both share. IBM Model 1 (Brown et al.
 * 1993, "The Mathematics of Statistical Machine Translation", model 1; Berger & Lafferty 1999,
 * "Information Retrieval as Statistical Translation") learns P(code term | text term) and the
 * reverse from (statement, program) pairs by EM; a query is expanded into its likeliest terms in
 * the other vocabulary and ranked by a second, weighted BM25 pass, fused with the first. Pure: the
 * table is built from token lists and read from plain JSON.
 */
import type { Doc, Query } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { IndexOptions, RankedList, Retriever, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { describeBm25, loadOrBuildBm25Index, resolveBm25Options, type Bm25Options, type Bm25RetrieverContext } from './bm25.js';
import { fuseRrf, RRF_DEFAULT_K, rrfInputDepth } from './rrf.js';

/** One training pair: the terms of a statement and of a program that solves it. */
export interface BridgePair {
  text: readonly string[];
  code: readonly string[];
}

/** Options of {@link trainBridge}. */
export interface BridgeTrainOptions {
  /** EM iterations. Default 5. */
  iterations?: number;
  /** Distinct terms kept per side of a pair, the highest tf-idf first (bounds the cost). Default 64. */
  termsPerDoc?: number;
  /** Translations kept per source term, the likeliest first. Default 20. */
  keepPerTerm?: number;
  /** Translations below this probability are dropped. Default 0.01. */
  minProbability?: number;
  /** Source terms seen in fewer pairs than this get no row. Default 2. */
  minPairs?: number;
}

/** Defaults of {@link BridgeTrainOptions}. */
export const BRIDGE_TRAIN_DEFAULTS: Readonly<Required<BridgeTrainOptions>> = {
  iterations: 5,
  termsPerDoc: 64,
  keepPerTerm: 20,
  minProbability: 0.01,
  minPairs: 2,
};

/** Source term -> [target term, P(target | source)] pairs, likeliest first. */
export type TranslationTable = Map<string, Array<[string, number]>>;

/** A trained bridge: both directions. */
export interface BridgeTables {
  /** P(code term | text term): expands text queries into code (text-to-code). */
  textToCode: TranslationTable;
  /** P(text term | code term): expands code queries into statement words (code-to-text). */
  codeToText: TranslationTable;
}

/**
 * The `termsPerDoc` distinct terms of each document with the highest tf x idf (idf = ln(N / df)
 * over the documents given), ties by term; as integer ids into `vocab`.
 */
function salientTerms(docs: ReadonlyArray<readonly string[]>, termsPerDoc: number, vocab: Map<string, number>): Int32Array[] {
  const df = new Map<string, number>();
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const n = docs.length;
  return tfs.map((tf) => {
    const ranked = [...tf].map(([t, c]) => [t, c * Math.log(n / (df.get(t) as number))] as const);
    ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const ids = ranked.slice(0, termsPerDoc).map(([t]) => {
      let id = vocab.get(t);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(t, id);
      }
      return id;
    });
    return Int32Array.from(ids);
  });
}

/**
 * IBM Model 1 of P(target | source) over aligned pairs, with a NULL source word: uniform start,
 * then `iterations` EM rounds: for each pair and target term c, each source term s (and NULL)
 * receives the count t(c|s) / sum_s' t(c|s'); t(c|s) = count(s, c) / sum_c' count(s, c').
 */
function model1(
  sources: readonly Int32Array[],
  targets: readonly Int32Array[],
  sourceVocab: number,
  o: Required<BridgeTrainOptions>,
): Map<number, Array<[number, number]>> {
  const NULL = sourceVocab;
  // Every co-occurring (s, c) gets a slot; each pair keeps its slot matrix (|S|+1) x |T|.
  const slotOf = new Map<number, number>();
  const slotSource: number[] = [];
  const slotTarget: number[] = [];
  const targetSpace = Math.max(1, ...targets.map((t) => (t.length === 0 ? 0 : Math.max(...t) + 1)));
  const pairSlots = sources.map((src, i) => {
    const tgt = targets[i];
    const m = new Int32Array((src.length + 1) * tgt.length);
    let k = 0;
    for (let a = 0; a <= src.length; a++) {
      const s = a === src.length ? NULL : src[a];
      for (let b = 0; b < tgt.length; b++) {
        const key = s * targetSpace + tgt[b];
        let slot = slotOf.get(key);
        if (slot === undefined) {
          slot = slotSource.length;
          slotOf.set(key, slot);
          slotSource.push(s);
          slotTarget.push(tgt[b]);
        }
        m[k++] = slot;
      }
    }
    return m;
  });
  const slots = slotSource.length;
  const prob = new Float64Array(slots).fill(1);
  const count = new Float64Array(slots);
  const total = new Float64Array(sourceVocab + 1);
  for (let it = 0; it < o.iterations; it++) {
    count.fill(0);
    for (let i = 0; i < sources.length; i++) {
      const rows = sources[i].length + 1;
      const cols = targets[i].length;
      const m = pairSlots[i];
      for (let b = 0; b < cols; b++) {
        let denom = 0;
        for (let a = 0; a < rows; a++) denom += prob[m[a * cols + b]];
        if (denom === 0) continue;
        for (let a = 0; a < rows; a++) {
          const slot = m[a * cols + b];
          count[slot] += prob[slot] / denom;
        }
      }
    }
    total.fill(0);
    for (let k = 0; k < slots; k++) total[slotSource[k]] += count[k];
    for (let k = 0; k < slots; k++) prob[k] = total[slotSource[k]] > 0 ? count[k] / total[slotSource[k]] : 0;
  }
  const pairsWith = new Int32Array(sourceVocab);
  for (const src of sources) for (const s of src) pairsWith[s]++;
  const rows = new Map<number, Array<[number, number]>>();
  for (let k = 0; k < slots; k++) {
    const s = slotSource[k];
    if (s === NULL || pairsWith[s] < o.minPairs || prob[k] < o.minProbability) continue;
    let row = rows.get(s);
    if (row === undefined) rows.set(s, (row = []));
    row.push([slotTarget[k], prob[k]]);
  }
  for (const row of rows.values()) {
    row.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    row.length = Math.min(row.length, o.keepPerTerm);
  }
  return rows;
}

/**
 * Trains both directions of the bridge on `pairs` (terms as the retriever's tokeniser emits them).
 * Deterministic: the same pairs in the same order give the same table.
 */
export function trainBridge(pairs: readonly BridgePair[], options: BridgeTrainOptions = {}): BridgeTables {
  const o = { ...BRIDGE_TRAIN_DEFAULTS, ...options };
  if (!Number.isInteger(o.iterations) || o.iterations < 1)
    throw new CorebError('USAGE', `bridge iterations must be an integer >= 1, got ${o.iterations}`);
  const textVocab = new Map<string, number>();
  const codeVocab = new Map<string, number>();
  const text = salientTerms(
    pairs.map((p) => p.text),
    o.termsPerDoc,
    textVocab,
  );
  const code = salientTerms(
    pairs.map((p) => p.code),
    o.termsPerDoc,
    codeVocab,
  );
  const textTerms = [...textVocab.keys()];
  const codeTerms = [...codeVocab.keys()];
  const named = (rows: Map<number, Array<[number, number]>>, from: string[], to: string[]): TranslationTable =>
    new Map(
      [...rows].sort((a, b) => (from[a[0]] < from[b[0]] ? -1 : 1)).map(([s, row]) => [from[s], row.map(([t, p]) => [to[t], p] as [string, number])]),
    );
  return {
    textToCode: named(model1(text, code, textVocab.size, o), textTerms, codeTerms),
    codeToText: named(model1(code, text, codeVocab.size, o), codeTerms, textTerms),
  };
}

/** Options of {@link expandQuery}. */
export interface BridgeExpandOptions {
  /** Expansion terms kept. Default 20. */
  terms?: number;
}

/**
 * The expansion of a query's terms through `table`: weight(c) = sum over the query's distinct
 * terms t of P(c | t) / n (n = distinct query terms with a row), the `terms` heaviest kept
 * (ties by term), scaled so the heaviest weighs 1. Empty when no query term has a row.
 */
export function expandQuery(queryTerms: readonly string[], table: TranslationTable, options: BridgeExpandOptions = {}): Map<string, number> {
  const keep = options.terms ?? 20;
  const distinct = [...new Set(queryTerms)].filter((t) => table.has(t));
  const w = new Map<string, number>();
  for (const t of distinct) for (const [c, p] of table.get(t) as Array<[string, number]>) w.set(c, (w.get(c) ?? 0) + p / distinct.length);
  const top = [...w].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, keep);
  const max = top[0]?.[1] ?? 0;
  return new Map(top.map(([c, v]) => [c, v / max]));
}

/** The bridge file format name and version (`format` and `version` of the JSON). */
export const BRIDGE_FORMAT = { format: 'coreb-bridge', version: 1 } as const;

/** A bridge file: the tables, how they were trained, and on what. */
export interface BridgeFile {
  format: 'coreb-bridge';
  version: 1;
  /** The tokeniser settings the terms come from (the BM25 retriever's). */
  tokenizer: Record<string, unknown>;
  training: {
    /** Dataset name, split and sha256 of the training release. */
    dataset: { name: string; split?: string; sha256: string };
    /** Seed problems of the training pairs (in-sample checks compare them with an evaluated release). */
    problems: string[];
    pairs: number;
    options: Required<BridgeTrainOptions>;
  };
  /** Source term -> [[target term, probability], ...]. */
  textToCode: Record<string, Array<[string, number]>>;
  codeToText: Record<string, Array<[string, number]>>;
}

/** The JSON object of a bridge file. */
export function renderBridgeFile(tables: BridgeTables, meta: Pick<BridgeFile, 'tokenizer' | 'training'>): BridgeFile {
  const obj = (t: TranslationTable) =>
    Object.fromEntries([...t].map(([k, row]) => [k, row.map(([c, p]) => [c, Math.round(p * 1e6) / 1e6] as [string, number])]));
  return {
    ...BRIDGE_FORMAT,
    tokenizer: meta.tokenizer,
    training: meta.training,
    textToCode: obj(tables.textToCode),
    codeToText: obj(tables.codeToText),
  };
}

/**
 * Reads a bridge file's JSON value.
 * @throws CorebError `PARSE` naming `file` and the field that is not as documented.
 */
export function parseBridgeFile(value: unknown, file: string): { file: BridgeFile; tables: BridgeTables } {
  const fail = (field: string, expected: string): never => {
    throw new CorebError('PARSE', `not a coreb bridge file: field \`${field}\` must be ${expected} (make one with \`coreb bridge train\`)`, {
      file,
      field,
    });
  };
  if (value === null || typeof value !== 'object') fail('(root)', 'an object');
  const v = value as Partial<BridgeFile>;
  if (v.format !== 'coreb-bridge') fail('format', '"coreb-bridge"');
  if (v.version !== 1) fail('version', '1');
  if (v.tokenizer === null || typeof v.tokenizer !== 'object') fail('tokenizer', 'an object');
  if (v.training === null || typeof v.training !== 'object' || !Array.isArray(v.training?.problems)) fail('training.problems', 'a list');
  const table = (name: 'textToCode' | 'codeToText'): TranslationTable => {
    const t = v[name];
    if (t === null || typeof t !== 'object') return fail(name, 'an object of term -> [[term, probability], ...]');
    const out: TranslationTable = new Map();
    for (const [k, row] of Object.entries(t as Record<string, unknown>)) {
      if (!Array.isArray(row) || !row.every((e) => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number' && Number.isFinite(e[1])))
        fail(`${name}.${k}`, 'a list of [term, probability] pairs');
      out.set(k, row as Array<[string, number]>);
    }
    return out;
  };
  return { file: v as BridgeFile, tables: { textToCode: table('textToCode'), codeToText: table('codeToText') } };
}

/** Options of {@link createBridgedBm25Retriever}. */
export interface BridgeSearchOptions {
  /** Expansion terms per query (`mix`, `rrf`). Default 20. */
  terms?: number;
  /**
   * `tlm` (default): the plain pass's top max(depth, 100) rescored by the translation language
   * model ({@link translationScore}) and fused with it by RRF (the rescored list weighs `weight`);
   * `mix`: one BM25 pass over the query's own terms plus the expansion terms weighted `weight` x
   * their expansion weight; `rrf`: a second pass over the expansion alone, fused with the plain pass
   * by RRF with weight `weight`. Measured on two problem-disjoint halves of v202602 (each half's
   * bridge evaluated on the other): `tlm` at 0.5 raised code-to-text nDCG@10 on both (+0.028,
   * +0.017); `mix` was neutral (+0.0005) and `rrf` lost 0.09.
   */
  mode?: 'mix' | 'rrf' | 'tlm';
  /** Weight of the bridge: the rescored list's RRF weight (`tlm`), lambda (`mix`), the expanded pass's RRF weight (`rrf`). Default 0.5. */
  weight?: number;
  /** `mix`, `rrf`: expansion terms in more than this share of the corpus's documents are dropped. Default 0.1. */
  maxDf?: number;
  /** RRF constant. Default 60. */
  k?: number;
  /** What goes into the description: the file, its sha256, what it was trained on. */
  describe?: Record<string, unknown>;
}

/** Smoothing of {@link translationScore}. */
export interface TranslationSmoothing {
  /** Weight of the collection model (Jelinek–Mercer). Default 0.2. */
  alpha: number;
  /** Share of the document model given to translation (the rest is the document's own terms). Default 0.5. */
  beta: number;
}

/** Smoothing chosen on two problem-disjoint halves of v202602 (each half's bridge evaluated on the other half). */
export const TRANSLATION_SMOOTHING_DEFAULTS: Readonly<TranslationSmoothing> = { alpha: 0.2, beta: 0.5 };

/** A document's model for {@link translationScore}: its term frequencies and translated terms. */
export interface TranslatedDoc {
  tf: Map<string, number>;
  /** Number of terms (at least 1). */
  length: number;
  /** w -> sum over the document's terms t of P(w | t) P(t | d). */
  translated: Map<string, number>;
}

/** The {@link TranslatedDoc} of a document's terms through `table` (document term t -> [w, P(w | t)]). */
export function translateDoc(doc: readonly string[], table: TranslationTable): TranslatedDoc {
  const tf = new Map<string, number>();
  for (const t of doc) tf.set(t, (tf.get(t) ?? 0) + 1);
  const length = Math.max(1, doc.length);
  const translated = new Map<string, number>();
  for (const [t, c] of tf) {
    const row = table.get(t);
    if (row === undefined) continue;
    for (const [w, p] of row) translated.set(w, (translated.get(w) ?? 0) + (p * c) / length);
  }
  return { tf, length, translated };
}

/** A query prepared for {@link translationScore}: its distinct terms, their counts and collection probabilities. */
export interface TranslationQuery {
  terms: string[];
  counts: Float64Array;
  /** alpha x P(w | C) per term (a term the collection lacks: 1 / (|C| + 1)). */
  background: Float64Array;
}

/** Prepares a query's terms for {@link translationScore}. */
export function prepareTranslationQuery(
  query: readonly string[],
  background: ReadonlyMap<string, number>,
  smoothing: TranslationSmoothing = TRANSLATION_SMOOTHING_DEFAULTS,
): TranslationQuery {
  const counts = new Map<string, number>();
  for (const w of query) counts.set(w, (counts.get(w) ?? 0) + 1);
  const terms = [...counts.keys()];
  const floor = 1 / (background.size + 1);
  return {
    terms,
    counts: Float64Array.from(terms, (w) => counts.get(w) as number),
    background: Float64Array.from(terms, (w) => smoothing.alpha * (background.get(w) ?? floor)),
  };
}

/**
 * Berger & Lafferty's translation language model (SIGIR 1999, model 1): log P(q | d) =
 * sum over query terms w of log( (1 - alpha) [beta sum_t P(w | t) P(t | d) + (1 - beta) P(w | d)] + alpha P(w | C) ),
 * P(t | d) = tf(t, d) / |d|, P(w | C) the collection frequency (a term the collection lacks:
 * 1 / (|C| + 1)); a query term counts as often as it occurs.
 */
export function translationScore(
  query: TranslationQuery,
  doc: TranslatedDoc,
  smoothing: TranslationSmoothing = TRANSLATION_SMOOTHING_DEFAULTS,
): number {
  let score = 0;
  const { terms, counts, background } = query;
  const keep = 1 - smoothing.alpha;
  for (let i = 0; i < terms.length; i++) {
    const w = terms[i];
    const direct = (doc.tf.get(w) ?? 0) / doc.length;
    const p = smoothing.beta * (doc.translated.get(w) ?? 0) + (1 - smoothing.beta) * direct;
    score += counts[i] * Math.log(keep * p + background[i]);
  }
  return score;
}

/** Defaults of {@link BridgeSearchOptions}. */
export const BRIDGE_SEARCH_DEFAULTS = { terms: 20, mode: 'tlm', weight: 0.5, maxDf: 0.1, k: RRF_DEFAULT_K } as const;

/**
 * BM25 with the bridge: each text-to-code query is also expanded into code terms (P(code | text)),
 * each code-to-text query into statement words (P(text | code)); the expanded bag is ranked by a
 * weighted BM25 pass ({@link Bm25Index.searchTerms}) and fused with the plain pass by RRF
 * (1/(k + r_plain) + weight/(k + r_expanded)), both searched to max(depth, 100). Code-to-code
 * queries get the plain pass. Documents excluded for a query are excluded from both passes.
 */
export function createBridgedBm25Retriever(
  bm25: Bm25Options,
  tables: BridgeTables,
  options: BridgeSearchOptions = {},
  context: Bm25RetrieverContext = {},
): Retriever {
  const resolved = resolveBm25Options(bm25);
  const terms = options.terms ?? BRIDGE_SEARCH_DEFAULTS.terms;
  const weight = options.weight ?? BRIDGE_SEARCH_DEFAULTS.weight;
  const k = options.k ?? BRIDGE_SEARCH_DEFAULTS.k;
  const mode = options.mode ?? BRIDGE_SEARCH_DEFAULTS.mode;
  const maxDf = options.maxDf ?? BRIDGE_SEARCH_DEFAULTS.maxDf;
  return {
    name: 'bm25',
    describe: () => ({
      ...describeBm25(resolved),
      bridge: { ...(options.describe ?? {}), terms, mode, weight, maxDf, ...(mode === 'rrf' ? { k } : {}) },
    }),
    async index(docs: readonly Doc[], indexOptions: IndexOptions = {}): Promise<RetrieverIndex> {
      const index = await loadOrBuildBm25Index(docs, resolved, context, indexOptions);
      // The translation model reads each document's terms and the collection's term frequencies.
      const docTerms = new Map<string, string[]>();
      const translatedDocs = new Map<string, TranslatedDoc>();
      const background = new Map<string, number>();
      let tokens = 0;
      if (mode === 'tlm') {
        for (const d of docs) {
          const t = index.terms(d.title ? `${d.title} ${d.text}` : d.text);
          docTerms.set(d.id, t);
          for (const x of t) background.set(x, (background.get(x) ?? 0) + 1);
          tokens += t.length;
        }
        for (const [x, c] of background) background.set(x, c / tokens);
      }
      return {
        size: index.size,
        async search(queries: readonly Query[], depth: number, search: SearchOptions = {}): Promise<Map<string, RankedList>> {
          const table = search.task === 'text2code' ? tables.textToCode : search.task === 'code2text' ? tables.codeToText : undefined;
          if (table === undefined) return index.search(queries, depth, search);
          const limit = maxDf * index.size;
          const expansion = (q: Query): Map<string, number> => {
            const kept = new Map<string, number>();
            for (const [c, w] of expandQuery(index.terms(q.text), table, { terms: terms * 3 })) {
              const df = index.termDocumentFrequency(c);
              if (df > 0 && df <= limit && kept.size < terms) kept.set(c, w * weight);
            }
            return kept;
          };
          if (mode === 'tlm') {
            // The query's terms are in the other vocabulary: the reverse table translates the document's.
            const reverse = search.task === 'text2code' ? tables.codeToText : tables.textToCode;
            const inputDepth = rrfInputDepth(depth);
            const plain = await index.search(queries, inputDepth, search);
            const out = new Map<string, RankedList>();
            for (const q of queries) {
              const a = plain.get(q.id) as RankedList;
              const prepared = prepareTranslationQuery(index.terms(q.text), background);
              const scored = a.docIds.map((id) => {
                const key = `${search.task}\u0000${id}`;
                let doc = translatedDocs.get(key);
                if (doc === undefined) translatedDocs.set(key, (doc = translateDoc(docTerms.get(id) ?? [], reverse)));
                return { id, score: translationScore(prepared, doc) };
              });
              // Best first; ties by docid descending (trec order).
              scored.sort((x, y) => y.score - x.score || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0));
              const second = { docIds: scored.map((x) => x.id), scores: Float64Array.from(scored, (x) => x.score) };
              out.set(q.id, fuseRrf([a, second], depth, { k, weights: [1, weight] }));
            }
            return out;
          }
          if (mode === 'mix')
            return index.searchTerms(
              queries.map((q) => ({ id: q.id, text: q.text, terms: expansion(q) })),
              depth,
              search,
            );
          const inputDepth = rrfInputDepth(depth);
          const plain = await index.search(queries, inputDepth, search);
          const expanded = await index.searchTerms(
            queries.map((q) => ({ id: q.id, terms: new Map([...expansion(q)].map(([c, w]) => [c, w / weight])) })),
            inputDepth,
            search,
          );
          const out = new Map<string, RankedList>();
          for (const q of queries) {
            const a = plain.get(q.id) as RankedList;
            const b = expanded.get(q.id) as RankedList;
            out.set(q.id, fuseRrf([a, b], depth, { k, weights: [1, weight] }));
          }
          return out;
        },
      };
    },
  };
}
