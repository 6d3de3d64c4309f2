/**
 * Evaluation of a run against qrels with trec_eval 9.0.8 semantics (metrics-spec.md): per-query
 * values in a columnar kernel over typed arrays, the mean over run ∩ qrels (or all qrels queries),
 * and the semantics every result carries.
 */
import type { Qrels, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { codePointRanks, compareCodePoints } from '../core/ids.js';
import { averagePrecision, averagePrecisionAt, logAveragePrecision, MIN_GEO_MEAN } from './average-precision.js';
import { bpref, infAP, logBpref } from './bpref.js';
import type { QrelsColumns, RunColumns } from '../core/columns.js';
import { createColumns } from './columns.js';
import { createContext, ensureCapacity, fillBinaryPrefixes, fillGainPrefixes, NONPOOL } from './context.js';
import { numRel, numRet, numRelRet } from './counts.js';
import { MEASURE_FAMILIES, measureKey, parseMeasures, type MeasureFamilyName, type MeasureSpec } from './measures.js';
import { binG, gainG, ndcgRel, rNdcg } from './gain-measures.js';
import { ndcg, ndcgAt } from './ndcg.js';
import {
  elevenPointAverage,
  iprecAtRecall,
  precisionAt,
  recallAt,
  relativePrecisionAt,
  rPrecision,
  rPrecisionMult,
  successAt,
  accAt,
} from './precision.js';
import { invertRanks, rankQuery, rankQueryByEntries, rankQueryInsertionOrder } from './ranking.js';
import { beirReciprocalRankAt, reciprocalRank, reciprocalRankAt } from './reciprocal-rank.js';
import { numNonrelJudgedRet, setF, setMap, setPrecision, setRecall, setRelativePrecision, utility } from './set-measures.js';

/** nDCG gain mode: `trec` = raw labels, level ignored; `strict` = labels below the level zeroed first. */
export type NdcgMode = 'trec' | 'strict';
/** Score precision for ranking: `float32` = trec_eval 9.0.8 / pytrec_eval; `float64` = trec_eval 10. */
export type ScorePrecision = 'float32' | 'float64';

/** The choices behind a set of numbers; carried by every {@link Evaluation}. */
export interface MeasureSemantics {
  /** Relevance level L: binary measures count label >= L as relevant. */
  relevanceLevel: number;
  ndcg: NdcgMode;
  scores: ScorePrecision;
  /** Ranking order: score descending, ties by docid descending in UTF-8 byte order. */
  ties: 'score-desc,docid-desc-utf8';
  /** True when each query's anchor doc was removed before ranking. */
  anchors: boolean;
  /** Queries averaged over: run ∩ qrels (trec_eval default) or every qrels query (`-c`). */
  population: 'run-and-qrels' | 'all-qrels';
  /** The reference whose numbers these reproduce. */
  reference: 'trec_eval 9.0.8' | 'trec_eval 10.0 scores';
  /** Docs kept per query (trec_eval `-M`); absent when unlimited. */
  maxDocs?: number;
}

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  /** Measure names, parsed by {@link parseMeasures} (e.g. `['ndcg_cut.10', 'recall@100', 'map']`). */
  measures: readonly string[];
  /** Relevance level; default 1 (trec_eval's). Must be an integer >= 1. */
  relevanceLevel?: number;
  /** nDCG gain mode; default `trec`. */
  ndcg?: NdcgMode;
  /** Score precision; default `float32`. */
  scores?: ScorePrecision;
  /** Query id -> anchor doc id, removed from that query's ranking before cutting. Default none. */
  anchors?: ReadonlyMap<string, string>;
  /** Average over every qrels query (missing ones count 0), like trec_eval `-c`. Default false. */
  complete?: boolean;
  /** Keep only the first N ranked docs of each query (after anchor removal), like trec_eval `-M N`. Default unlimited. */
  maxDocs?: number;
}

/**
 * Result of {@link evaluate}. Keys are trec_eval names (`ndcg_cut_10`, `map_cut_10`, `recall_10`,
 * `P_5`, `success_1`, `recip_rank`, `map`, `ndcg`, `num_ret`, ...); MRR@k in trec order is
 * `recip_rank_cut_k` and BEIR-style MRR@k is `mrr_beir_k`. Counts are summed in `aggregate`, which
 * also holds `num_q` and `gm_map` when requested.
 */
export interface Evaluation {
  /** Evaluated queries (run ∩ qrels) in trec_eval order (qid by code point), per-query values. */
  perQuery: Map<string, Record<string, number>>;
  aggregate: Record<string, number>;
  semantics: MeasureSemantics;
  /** Qrels queries absent from the run (counted as 0 when `complete`). */
  missingQueryIds: string[];
}

/** One output column of a {@link ColumnarEvaluation}. */
export interface EvaluationColumn {
  key: string;
  family: MeasureFamilyName;
  /** False for summary-only measures (num_q, gm_map). */
  perQuery: boolean;
  /** True for integer counts (printed with `%ld`). */
  count: boolean;
  /** True for a string per query (relstring): its values are in {@link ColumnarEvaluation.text}, NaN in `values`. */
  text: boolean;
}

/** Columnar result: one row of `columns.length` values per evaluated query. */
export interface ColumnarEvaluation {
  /** Columns in trec_eval print order (runid is not a column). */
  columns: EvaluationColumn[];
  /** True when `runid` was requested. */
  runid: boolean;
  /** Evaluated query ids in trec_eval order. */
  queryIds: string[];
  /** Row-major values, `queryIds.length * columns.length`. */
  values: Float64Array;
  /** Aggregate per column (means, sums, counts, geometric means; NaN for a text column). */
  aggregate: Float64Array;
  /** Column index -> one string per query (in `queryIds` order), for text columns (relstring). */
  text: Map<number, string[]>;
  missingQueryIds: string[];
  semantics: MeasureSemantics;
}

/** Options of {@link evaluateColumns}: like {@link EvaluateOptions} with parsed measures. */
export interface ColumnarOptions extends Omit<EvaluateOptions, 'measures'> {
  specs: readonly MeasureSpec[];
}

/** The measure presets: the part of a protocol that scoring one run needs. */
export const MEASURE_PRESETS = ['trec', 'coreb'] as const;

/**
 * The measure semantics of a preset, to spread into {@link EvaluateOptions}: `trec` = trec_eval's
 * defaults (relevance level 1, trec nDCG); `coreb` = those of the CoREB protocol (`resolveProtocol('coreb')`
 * in eval/: relevance level 2, strict nDCG), with code-to-code anchors applied by the caller. The
 * other protocols (mteb, beir) also change which queries count and how means are rounded, which
 * only a whole evaluation knows (`coreb eval --protocol`).
 */
export function measurePreset(p: (typeof MEASURE_PRESETS)[number]): Required<Pick<EvaluateOptions, 'relevanceLevel' | 'ndcg'>> {
  return p === 'coreb' ? { relevanceLevel: 2, ndcg: 'strict' } : { relevanceLevel: 1, ndcg: 'trec' };
}

interface PlanItem {
  family: MeasureFamilyName;
  params: readonly number[];
  at: number;
}

/** Builds the semantics record of a set of options. */
export function resolveSemantics(options: Omit<EvaluateOptions, 'measures'>): MeasureSemantics {
  const level = options.relevanceLevel ?? 1;
  if (!Number.isInteger(level) || level < 1) {
    throw new CorebError('USAGE', `relevance level must be an integer >= 1, got ${level}`);
  }
  const scores = options.scores ?? 'float32';
  return {
    relevanceLevel: level,
    ndcg: options.ndcg ?? 'trec',
    scores,
    ties: 'score-desc,docid-desc-utf8',
    anchors: options.anchors !== undefined && options.anchors.size > 0,
    population: options.complete ? 'all-qrels' : 'run-and-qrels',
    reference: scores === 'float64' ? 'trec_eval 10.0 scores' : 'trec_eval 9.0.8',
    ...(options.maxDocs !== undefined ? { maxDocs: options.maxDocs } : {}),
  };
}

/**
 * Evaluates queries one at a time against columnar qrels: the per-query kernel behind
 * {@link evaluateColumns}, usable on a run that is never held whole (a TREC file streamed query by
 * query). Rows may be added in any order; {@link QueryEvaluator.finish} sorts them into trec_eval
 * order (qid by code point) and aggregates exactly as trec_eval does. Memory: the qrels, one row of
 * `columns.length` doubles per evaluated query, and scratch for the largest query.
 */
export class QueryEvaluator {
  /** Output columns in trec_eval print order. */
  readonly columns: EvaluationColumn[] = [];
  /** True when `runid` was requested. */
  readonly runid: boolean = false;
  readonly semantics: MeasureSemantics;
  private readonly plan: PlanItem[] = [];
  private readonly width: number;
  private readonly level: number;
  private readonly strict: boolean;
  private readonly float64: boolean;
  private readonly maxDocs: number;
  private readonly qrelsIndex = new Map<string, number>();
  private readonly docIndex: Map<string, number> | undefined;
  private readonly stamp: Int32Array;
  private readonly labelOf: Int32Array;
  private readonly ctx: ReturnType<typeof createContext>;
  private ranked: Int32Array;
  private readonly idealGains: Int32Array;
  private beirGains: Int32Array | undefined;
  private docRanks: Int32Array | undefined;
  private rankToDoc: Int32Array = new Int32Array(0);
  private mark = 0;
  private values = new Float64Array(0);
  private readonly rowQids: string[] = [];
  /** Text columns (relstring) -> one string per row added. */
  private readonly texts = new Map<number, string[]>();

  constructor(
    private readonly qrels: QrelsColumns,
    private readonly options: ColumnarOptions,
  ) {
    this.semantics = resolveSemantics(options);
    this.level = this.semantics.relevanceLevel;
    this.strict = this.semantics.ndcg === 'strict';
    this.float64 = this.semantics.scores === 'float64';
    const maxDocs = options.maxDocs ?? Infinity;
    if (!(maxDocs > 0) || (maxDocs !== Infinity && !Number.isInteger(maxDocs))) {
      throw new CorebError('USAGE', `maxDocs must be an integer >= 1, got ${maxDocs}`);
    }
    this.maxDocs = maxDocs;
    let runid = false;
    for (const spec of options.specs) {
      if (spec.family === 'runid') {
        runid = true;
        continue;
      }
      const fam = MEASURE_FAMILIES[spec.family];
      const item: PlanItem = { family: spec.family, params: spec.params, at: this.columns.length };
      this.plan.push(item);
      if (spec.family === 'mrr_beir') this.beirGains = new Int32Array(1);
      const count = fam.agg === 'sum' || fam.agg === 'count';
      const text = fam.agg === 'text';
      if (text) this.texts.set(this.columns.length, []);
      if (spec.params.length === 0) this.columns.push({ key: measureKey(spec.family), family: spec.family, perQuery: fam.perQuery, count, text });
      else
        for (const p of spec.params) this.columns.push({ key: measureKey(spec.family, p), family: spec.family, perQuery: fam.perQuery, count, text });
    }
    this.runid = runid;
    this.width = this.columns.length;
    for (let i = 0; i < qrels.queryIds.length; i++) this.qrelsIndex.set(qrels.queryIds[i], i);
    const docIds = qrels.docIds;
    if (options.anchors !== undefined && options.anchors.size > 0) {
      this.docIndex = new Map();
      for (let i = 0; i < docIds.length; i++) this.docIndex.set(docIds[i], i);
    }
    this.stamp = new Int32Array(docIds.length);
    this.labelOf = new Int32Array(docIds.length);
    let maxQrels = 0;
    for (let i = 0; i < qrels.queryIds.length; i++) maxQrels = Math.max(maxQrels, qrels.offsets[i + 1] - qrels.offsets[i]);
    this.ctx = createContext(1024);
    ensureCapacity(this.ctx, 1024, maxQrels);
    this.ctx.level = this.level;
    this.ranked = new Int32Array(1024);
    this.idealGains = new Int32Array(Math.max(maxQrels, 1));
  }

  /** True when `qid` has qrels (only such queries are evaluated, as in trec_eval). */
  has(qid: string): boolean {
    return this.qrelsIndex.has(qid);
  }

  /** Number of rows added so far. */
  get size(): number {
    return this.rowQids.length;
  }

  /**
   * Evaluates run query `qid` from its entries `[start, end)` of `docs`/`scores` (doc indices of the
   * qrels' `docIds`, or -1 with `compareEntries` comparing the docids of two entries) and adds its
   * row. A query without qrels is skipped (returns false). Each qid must be added at most once.
   */
  add(qid: string, docs: Int32Array, scores: Float64Array, start: number, end: number, compareEntries?: (a: number, b: number) => number): boolean {
    const qq = this.qrelsIndex.get(qid);
    if (qq === undefined) return false;
    const { qrels, stamp, labelOf, level, strict, float64, ctx, idealGains, width } = this;
    const len = end - start;
    if (this.ranked.length < len) this.ranked = new Int32Array(len * 2);
    if (this.beirGains !== undefined && this.beirGains.length < len) this.beirGains = new Int32Array(len * 2);
    ensureCapacity(ctx, len, 0);
    const ranked = this.ranked;
    const row = this.rowQids.length;
    if (this.values.length < (row + 1) * width) {
      const grown = new Float64Array(Math.max(1024 * width, this.values.length * 2));
      grown.set(this.values);
      this.values = grown;
    }
    const values = this.values;
    const mark = ++this.mark;
    let nRel = 0;
    let nNonrel = 0;
    let m = 0;
    for (let p = qrels.offsets[qq], e = qrels.offsets[qq + 1]; p < e; p++) {
      const d = qrels.docs[p];
      const l = qrels.labels[p];
      stamp[d] = mark;
      labelOf[d] = l;
      if (l >= level) nRel++;
      else if (l >= 0) nNonrel++;
      if (l > 0 && !(strict && l < level)) idealGains[m++] = l;
    }
    if (m > 1) {
      const g = idealGains.subarray(0, m);
      g.sort();
      g.reverse();
    }
    let exclude = -1;
    if (this.docIndex !== undefined) {
      const anchor = this.options.anchors?.get(qid);
      if (anchor !== undefined) exclude = this.docIndex.get(anchor) ?? -1;
    }
    let n: number;
    if (compareEntries === undefined) {
      if (this.docRanks === undefined) {
        this.docRanks = codePointRanks(qrels.docIds);
        this.rankToDoc = invertRanks(this.docRanks);
      }
      n = rankQuery(docs, scores, start, end, exclude, this.docRanks, this.rankToDoc, float64, ranked);
    } else {
      n = rankQueryByEntries(docs, scores, start, end, exclude, compareEntries, float64, ranked);
    }
    const maxDocs = this.maxDocs;
    if (n > maxDocs) n = maxDocs;
    const { labels, gains } = ctx;
    for (let i = 0; i < n; i++) {
      const d = ranked[i];
      const l = d >= 0 && stamp[d] === mark ? labelOf[d] : NONPOOL;
      labels[i] = l;
      gains[i] = l > 0 && !(strict && l < level) ? l : 0;
    }
    ctx.n = n;
    ctx.numRel = nRel;
    ctx.numNonrel = nNonrel;
    fillBinaryPrefixes(ctx);
    fillGainPrefixes(ctx, idealGains, m);
    const base = row * width;
    for (const item of this.plan) {
      const at = base + item.at;
      switch (item.family) {
        case 'num_q':
          values[at] = 1;
          break;
        case 'num_ret':
          values[at] = numRet(ctx);
          break;
        case 'num_rel':
          values[at] = numRel(ctx);
          break;
        case 'num_rel_ret':
          values[at] = numRelRet(ctx);
          break;
        case 'map':
          values[at] = averagePrecision(ctx);
          break;
        case 'gm_map':
          values[at] = logAveragePrecision(ctx);
          break;
        case 'Rprec':
          values[at] = rPrecision(ctx);
          break;
        case 'bpref':
          values[at] = bpref(ctx);
          break;
        case 'recip_rank':
          values[at] = reciprocalRank(ctx);
          break;
        case 'recip_rank_cut':
          reciprocalRankAt(ctx, item.params, values, at);
          break;
        case 'iprec_at_recall':
          iprecAtRecall(ctx, item.params, values, at);
          break;
        case 'P':
          precisionAt(ctx, item.params, values, at);
          break;
        case 'recall':
          recallAt(ctx, item.params, values, at);
          break;
        case 'infAP':
          values[at] = infAP(ctx);
          break;
        case 'gm_bpref':
          values[at] = logBpref(ctx);
          break;
        case 'utility':
          values[at] = utility(ctx);
          break;
        case 'Rprec_mult':
          rPrecisionMult(ctx, item.params, values, at);
          break;
        case '11pt_avg':
          values[at] = elevenPointAverage(ctx);
          break;
        case 'relative_P':
          relativePrecisionAt(ctx, item.params, values, at);
          break;
        case 'binG':
          values[at] = binG(ctx);
          break;
        case 'G':
          values[at] = gainG(ctx);
          break;
        case 'ndcg':
          values[at] = ndcg(ctx);
          break;
        case 'ndcg_rel':
          values[at] = ndcgRel(ctx);
          break;
        case 'Rndcg':
          values[at] = rNdcg(ctx);
          break;
        case 'ndcg_cut':
          ndcgAt(ctx, item.params, values, at);
          break;
        case 'map_cut':
          averagePrecisionAt(ctx, item.params, values, at);
          break;
        case 'success':
          successAt(ctx, item.params, values, at);
          break;
        case 'acc':
          accAt(ctx, item.params, values, at);
          break;
        case 'set_P':
          values[at] = setPrecision(ctx);
          break;
        case 'set_relative_P':
          values[at] = setRelativePrecision(ctx);
          break;
        case 'set_recall':
          values[at] = setRecall(ctx);
          break;
        case 'set_map':
          values[at] = setMap(ctx);
          break;
        case 'set_F':
          values[at] = setF(ctx);
          break;
        case 'num_nonrel_judged_ret':
          values[at] = numNonrelJudgedRet(ctx);
          break;
        case 'mrr_beir': {
          const out = this.beirGains as Int32Array;
          const nb = Math.min(rankQueryInsertionOrder(docs, scores, start, end, exclude, ranked), maxDocs);
          for (let i = 0; i < nb; i++) {
            const d = ranked[i];
            const l = d >= 0 && stamp[d] === mark ? labelOf[d] : 0;
            out[i] = l > 0 && !(strict && l < level) ? l : 0;
          }
          beirReciprocalRankAt(out, nb, item.params, values, at);
          break;
        }
        case 'relstring': {
          const len = Math.min(item.params[0] ?? MEASURE_FAMILIES.relstring.defaults[0], n);
          let str = '';
          for (let i = 0; i < len; i++) {
            const l = labels[i];
            str += l === NONPOOL ? '-' : l < 0 ? '.' : l > 9 ? '>' : String.fromCharCode(48 + l);
          }
          values[at] = Number.NaN;
          (this.texts.get(item.at) as string[])[row] = str;
          break;
        }
        case 'runid':
          break;
      }
    }
    this.rowQids.push(qid);
    return true;
  }

  /** Drops every row added so far (to evaluate the run again from the start). */
  reset(): void {
    this.rowQids.length = 0;
    for (const t of this.texts.values()) t.length = 0;
  }

  /**
   * The result: rows in trec_eval order (qid by code point) and the aggregate, summed in that order
   * and divided once (trec_eval meas_acc.c / meas_avg.c). `inRun` tells which qrels queries the run
   * had (the others are `missingQueryIds`, counted as 0 with `complete`).
   */
  finish(inRun: (qid: string) => boolean): ColumnarEvaluation {
    const { qrels, options, columns, width } = this;
    const count = this.rowQids.length;
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => compareCodePoints(this.rowQids[a], this.rowQids[b]));
    const values = new Float64Array(count * width);
    for (let r = 0; r < count; r++) values.set(this.values.subarray(order[r] * width, order[r] * width + width), r * width);
    this.values = new Float64Array(0);
    const missingQueryIds = qrels.queryIds.filter((q) => !inRun(q)).sort(compareCodePoints);
    const denom = options.complete ? qrels.queryIds.length : count;
    // With `complete`, trec_eval 9.0.8 reports num_rel as the number of qrels lines with label > 0
    // over every qrels query, whatever the relevance level (checked against its -c -l 2 output).
    let completeRel = 0;
    if (options.complete) for (let p = 0; p < qrels.labels.length; p++) if (qrels.labels[p] > 0) completeRel++;
    const aggregate = new Float64Array(width);
    for (let c = 0; c < width; c++) {
      let s = 0;
      for (let row = 0; row < count; row++) s += values[row * width + c];
      const col = columns[c];
      const agg = MEASURE_FAMILIES[col.family].agg;
      if (col.family === 'num_q') aggregate[c] = denom;
      else if (agg === 'sum') aggregate[c] = col.family === 'num_rel' && options.complete ? completeRel : s;
      else if (agg === 'gm') {
        if (denom > 0) s += (denom - count) * Math.log(MIN_GEO_MEAN);
        aggregate[c] = denom > 0 ? Math.exp(s / denom) : s;
      } else if (col.family === 'mrr_beir') {
        aggregate[c] = qrels.queryIds.length > 0 ? s / qrels.queryIds.length : 0;
      } else aggregate[c] = denom > 0 ? s / denom : s;
    }
    const queryIds = order.map((i) => this.rowQids[i]);
    this.rowQids.length = 0;
    const text = new Map<number, string[]>();
    for (const [c, rows] of this.texts) {
      text.set(
        c,
        order.map((i) => rows[i]),
      );
      aggregate[c] = Number.NaN;
      rows.length = 0;
    }
    return { columns, runid: this.runid, queryIds, values, aggregate, text, missingQueryIds, semantics: this.semantics };
  }
}

/**
 * Evaluates columnar qrels and run (sharing one doc id space) with parsed measures, the whole run
 * in memory. {@link evaluate} wraps it for map-shaped inputs; {@link QueryEvaluator} is the same
 * kernel one query at a time.
 */
export function evaluateColumns(qrels: QrelsColumns, run: RunColumns, options: ColumnarOptions): ColumnarEvaluation {
  if (qrels.docIds !== run.docIds) {
    throw new CorebError('INTERNAL', 'qrels and run columns must share one docIds table');
  }
  const evaluator = new QueryEvaluator(qrels, options);
  const inRun = new Set<string>();
  for (let i = 0; i < run.queryIds.length; i++) {
    inRun.add(run.queryIds[i]);
    evaluator.add(run.queryIds[i], run.docs, run.scores, run.offsets[i], run.offsets[i + 1], run.compareEntries);
  }
  return evaluator.finish((q) => inRun.has(q));
}

/** Converts a columnar evaluation to maps and records keyed by trec_eval names. */
export function toEvaluation(result: ColumnarEvaluation): Evaluation {
  const { columns, values, queryIds } = result;
  const width = columns.length;
  const perQuery = new Map<string, Record<string, number>>();
  for (let row = 0; row < queryIds.length; row++) {
    const rec: Record<string, number> = {};
    for (let c = 0; c < width; c++) if (columns[c].perQuery && !columns[c].text) rec[columns[c].key] = values[row * width + c];
    perQuery.set(queryIds[row], rec);
  }
  const aggregate: Record<string, number> = {};
  for (let c = 0; c < width; c++) if (!columns[c].text) aggregate[columns[c].key] = result.aggregate[c];
  return { perQuery, aggregate, semantics: result.semantics, missingQueryIds: result.missingQueryIds };
}

/**
 * Evaluates `run` against `qrels` with trec_eval 9.0.8 semantics (defaults: level 1, nDCG `trec`,
 * float32 scores, no anchors, run ∩ qrels). An empty run query is evaluated (every measure 0).
 * @throws CorebError `MEASURE` for unknown measures, `USAGE` for a bad level, `VALIDATION` for NaN
 * scores or non-integer labels.
 * @example
 * ```ts
 * import { evaluate, loadTrecQrelsMap, loadTrecRunMap } from 'coreb';
 * const qrels = await loadTrecQrelsMap('data/examples/qrels.txt');
 * const run = await loadTrecRunMap('data/examples/run.txt');
 * const { aggregate, perQuery } = evaluate(qrels, run, { measures: ['ndcg_cut.10', 'P.5'] });
 * console.log(aggregate.ndcg_cut_10, aggregate.P_5, perQuery.get('q1'));
 * ```
 */
export function evaluate(qrels: Qrels, run: Run, options: EvaluateOptions): Evaluation {
  const specs = parseMeasures(options.measures);
  const cols = createColumns(qrels, run);
  return toEvaluation(evaluateColumns(cols.qrels, cols.run, { ...options, specs }));
}
