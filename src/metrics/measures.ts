/**
 * Measure names: the table of supported measure families in trec_eval's print order, and the parser
 * that turns `ndcg_cut.10`, `P.5,10`, `ndcg@10`, `mrr@10`, `all`, ... into {@link MeasureSpec}s.
 */
import { CorebError } from '../core/errors.js';

/** trec_eval's default cutoffs for P, recall, ndcg_cut and map_cut. */
export const TREC_DEFAULT_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000] as const;
/** Cutoffs used by `all`: 1,3,5,10,15,20,30,100,200,500,1000. */
export const ALL_CUTOFFS = [1, 3, 5, 10, 15, 20, 30, 100, 200, 500, 1000] as const;
/** trec_eval's default multiples of R for Rprec_mult. */
export const RPREC_MULT_DEFAULTS = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2] as const;
/** trec_eval's default recall points for iprec_at_recall. */
export const IPREC_DEFAULT_POINTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] as const;

/**
 * How a family is parameterised, aggregated and printed.
 * - `params`: `none` (scalar), `int` (rank cutoffs k > 0), `fraction` (recall points in [0, 1]) or
 *   `multiple` (multiples of num_rel, >= 0).
 * - `agg`: `mean` (arithmetic mean over queries), `sum` (counts), `gm` (geometric mean, summary only),
 *   `count` (number of queries, summary only), `text` (a string: runid in the summary only,
 *   relstring per query only).
 * - `perQuery`: false when trec_eval prints it only in the summary.
 */
export interface MeasureFamily {
  params: 'none' | 'int' | 'fraction' | 'multiple';
  agg: 'mean' | 'sum' | 'gm' | 'count' | 'text';
  perQuery: boolean;
  /** Default parameters when the name is given bare (trec_eval's). */
  defaults: readonly number[];
  /** True for measures trec_eval 9.0.8 itself has (printed by `--format trec` in its order). */
  trec: boolean;
  /** What the measure is, for `--help` and docs. */
  doc: string;
}

/** Supported measure families, in trec_eval 9.0.8's print order (ours interleaved where they belong). */
export const MEASURE_FAMILIES = {
  runid: { params: 'none', agg: 'text', perQuery: false, defaults: [], trec: true, doc: 'run tag of the last run line' },
  num_q: { params: 'none', agg: 'count', perQuery: false, defaults: [], trec: true, doc: 'number of queries averaged over' },
  num_ret: { params: 'none', agg: 'sum', perQuery: true, defaults: [], trec: true, doc: 'documents retrieved' },
  num_rel: { params: 'none', agg: 'sum', perQuery: true, defaults: [], trec: true, doc: 'relevant documents (label >= level)' },
  num_rel_ret: { params: 'none', agg: 'sum', perQuery: true, defaults: [], trec: true, doc: 'relevant documents retrieved' },
  map: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'average precision over the whole list' },
  gm_map: { params: 'none', agg: 'gm', perQuery: false, defaults: [], trec: true, doc: 'geometric mean of AP (floor 1e-5)' },
  Rprec: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'precision at rank num_rel' },
  bpref: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'binary preference (Buckley & Voorhees 2004)' },
  recip_rank: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'reciprocal rank of the first relevant document' },
  recip_rank_cut: {
    params: 'int',
    agg: 'mean',
    perQuery: true,
    defaults: [10],
    trec: false,
    doc: 'MRR@k in trec order: recip_rank if the first relevant document is within k, else 0 (= trec_eval -M k -m recip_rank)',
  },
  iprec_at_recall: {
    params: 'fraction',
    agg: 'mean',
    perQuery: true,
    defaults: IPREC_DEFAULT_POINTS,
    trec: true,
    doc: 'interpolated precision at recall points (9.0.8 cutoff rule)',
  },
  P: { params: 'int', agg: 'mean', perQuery: true, defaults: TREC_DEFAULT_CUTOFFS, trec: true, doc: 'precision at k (always divided by k)' },
  relstring: {
    params: 'int',
    agg: 'text',
    perQuery: true,
    defaults: [10],
    trec: true,
    doc: "the labels of the first N (default 10) retrieved docs as a string: 0-9 the label, '>' above 9, '-' not in the qrels, '.' judged negative (unjudged in the pool); per query only",
  },
  recall: { params: 'int', agg: 'mean', perQuery: true, defaults: TREC_DEFAULT_CUTOFFS, trec: true, doc: 'recall at k (divided by num_rel)' },
  infAP: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'inferred AP (Yilmaz & Aslam 2006)' },
  gm_bpref: { params: 'none', agg: 'gm', perQuery: false, defaults: [], trec: true, doc: 'geometric mean of bpref (floor 1e-5)' },
  Rprec_mult: {
    params: 'multiple',
    agg: 'mean',
    perQuery: true,
    defaults: RPREC_MULT_DEFAULTS,
    trec: true,
    doc: 'precision at rank trunc(x * num_rel + 0.9)',
  },
  utility: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'set utility, coefficients 1,-1,0,0' },
  '11pt_avg': { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'mean of iprec_at_recall at the 11 standard points' },
  binG: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'binary G (experimental, trec_eval)' },
  G: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'normalised gain G (experimental, trec_eval)' },
  ndcg: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'nDCG over the whole list, linear gains' },
  ndcg_rel: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'nDCG averaged over relevant docs (experimental)' },
  Rndcg: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'nDCG averaged at R levels (experimental)' },
  ndcg_cut: { params: 'int', agg: 'mean', perQuery: true, defaults: TREC_DEFAULT_CUTOFFS, trec: true, doc: 'nDCG at k, linear gains' },
  map_cut: { params: 'int', agg: 'mean', perQuery: true, defaults: TREC_DEFAULT_CUTOFFS, trec: true, doc: 'AP at k, divided by num_rel' },
  relative_P: {
    params: 'int',
    agg: 'mean',
    perQuery: true,
    defaults: TREC_DEFAULT_CUTOFFS,
    trec: true,
    doc: 'hits(k) / min(k, num_rel): precision up to R, recall after',
  },
  success: { params: 'int', agg: 'mean', perQuery: true, defaults: [1, 5, 10], trec: true, doc: '1 if a relevant document is within k' },
  acc: {
    params: 'int',
    agg: 'mean',
    perQuery: true,
    defaults: [1, 5, 10],
    trec: false,
    doc: '1 if every relevant document is within k (0 without one): localization accuracy (LocAgent, SWE-bench-Lite file localization)',
  },
  set_P: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'num_rel_ret / num_ret' },
  set_relative_P: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'num_rel_ret / min(num_ret, num_rel)' },
  set_recall: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'num_rel_ret / num_rel' },
  set_map: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'set_P * set_recall' },
  set_F: { params: 'none', agg: 'mean', perQuery: true, defaults: [], trec: true, doc: 'harmonic mean of set_P and set_recall (beta 1)' },
  num_nonrel_judged_ret: {
    params: 'none',
    agg: 'sum',
    perQuery: true,
    defaults: [],
    trec: true,
    doc: 'retrieved docs judged non-relevant (0 <= label < level)',
  },
  mrr_beir: {
    params: 'int',
    agg: 'mean',
    perQuery: true,
    defaults: [10],
    trec: false,
    doc: 'BEIR-style MRR@k (opt-in): relevant = gain label > 0, ties in run-file order on double scores, mean over all qrels queries',
  },
} as const satisfies Record<string, MeasureFamily>;

/** A measure family name (trec_eval style). */
export type MeasureFamilyName = keyof typeof MEASURE_FAMILIES;

const FAMILY_NAMES = Object.keys(MEASURE_FAMILIES) as MeasureFamilyName[];

/** One parsed measure: a family and its sorted, de-duplicated parameters (empty for scalars). */
export interface MeasureSpec {
  family: MeasureFamilyName;
  params: number[];
}

/** Families of `all`: every supported numeric measure, cutoffs {@link ALL_CUTOFFS}; BEIR MRR and relstring excluded. */
const ALL_FAMILIES: readonly MeasureFamilyName[] = FAMILY_NAMES.filter((f) => f !== 'mrr_beir' && f !== 'relstring');

/** trec_eval's `official` nickname (all of it is supported). */
const OFFICIAL: readonly MeasureFamilyName[] = [
  'runid',
  'num_q',
  'num_ret',
  'num_rel',
  'num_rel_ret',
  'map',
  'gm_map',
  'Rprec',
  'bpref',
  'recip_rank',
  'iprec_at_recall',
  'P',
];

/** The supported part of trec_eval's `all_trec` nickname, with its defaults. */
const ALL_TREC: readonly MeasureFamilyName[] = [
  ...OFFICIAL,
  'relstring',
  'recall',
  'infAP',
  'gm_bpref',
  'Rprec_mult',
  'utility',
  '11pt_avg',
  'binG',
  'G',
  'ndcg',
  'ndcg_rel',
  'Rndcg',
  'ndcg_cut',
  'map_cut',
  'relative_P',
  'success',
  'set_P',
  'set_relative_P',
  'set_recall',
  'set_map',
  'set_F',
  'num_nonrel_judged_ret',
];

/** `@`-style aliases (case-insensitive) -> family. */
const AT_ALIASES: Readonly<Record<string, MeasureFamilyName>> = {
  ndcg: 'ndcg_cut',
  map: 'map_cut',
  ap: 'map_cut',
  recall: 'recall',
  r: 'recall',
  p: 'P',
  precision: 'P',
  success: 'success',
  hit: 'success',
  hits: 'success',
  acc: 'acc',
  mrr: 'recip_rank_cut',
  rr: 'recip_rank_cut',
  mrr_beir: 'mrr_beir',
  beir_mrr: 'mrr_beir',
  iprec_at_recall: 'iprec_at_recall',
};

/** Bare aliases without parameters -> family. */
const BARE_ALIASES: Readonly<Record<string, MeasureFamilyName>> = {
  mrr: 'recip_rank',
  rr: 'recip_rank',
  ap: 'map',
  mrr_beir: 'mrr_beir',
  rprec: 'Rprec',
  p: 'P',
};

const NUMBER_RE = /^(\d+(\.\d*)?|\.\d+)$/;

interface Pending {
  explicit: Set<number>;
  bare: boolean;
}

function badMeasure(token: string, why: string): CorebError {
  return new CorebError(
    'MEASURE',
    `measure \`${token}\`: ${why}; valid names: all, official, all_trec, ${FAMILY_NAMES.join(', ')}, or ndcg@10-style (ndcg, map, recall, P, success, mrr, mrr_beir)`,
  );
}

function parseParam(family: MeasureFamilyName, text: string, token: string): number {
  const kind = MEASURE_FAMILIES[family].params;
  if (kind === 'none') throw badMeasure(token, `\`${family}\` takes no cutoff`);
  if (!NUMBER_RE.test(text)) throw badMeasure(token, `cutoff \`${text}\` is not a number`);
  const v = Number(text);
  if (kind === 'int' && (!Number.isInteger(v) || v <= 0)) {
    throw badMeasure(token, `cutoff \`${text}\` must be an integer > 0`);
  }
  if (kind === 'fraction' && !(v >= 0 && v <= 1)) throw badMeasure(token, `recall point \`${text}\` must be in [0, 1]`);
  if (kind === 'multiple' && !(v >= 0)) throw badMeasure(token, `multiple \`${text}\` must be >= 0`);
  return v;
}

function lookupFamily(name: string): MeasureFamilyName | undefined {
  if ((FAMILY_NAMES as string[]).includes(name)) return name as MeasureFamilyName;
  return BARE_ALIASES[name.toLowerCase()];
}

/** Splits `name.p`, `name@p` or `name_p` into a family and its first parameter text. */
function splitName(token: string): { family: MeasureFamilyName; param?: string } {
  const direct = lookupFamily(token);
  if (direct !== undefined) return { family: direct };
  const at = token.indexOf('@');
  if (at > 0) {
    const family = AT_ALIASES[token.slice(0, at).toLowerCase()] ?? lookupFamily(token.slice(0, at));
    if (family === undefined) throw badMeasure(token, `unknown measure \`${token.slice(0, at)}\``);
    return { family, param: token.slice(at + 1) };
  }
  const dot = token.indexOf('.');
  if (dot > 0) {
    const family = lookupFamily(token.slice(0, dot));
    if (family === undefined) throw badMeasure(token, `unknown measure \`${token.slice(0, dot)}\``);
    return { family, param: token.slice(dot + 1) };
  }
  const m = /^(.+)_(\d+(?:\.\d+)?)$/.exec(token);
  if (m) {
    const family = lookupFamily(m[1]);
    if (family !== undefined && MEASURE_FAMILIES[family].params !== 'none') return { family, param: m[2] };
  }
  throw badMeasure(token, 'unknown measure');
}

/**
 * Parses measure names into specs in trec_eval print order.
 *
 * Accepts trec_eval names (`ndcg_cut.10`, `P.5,10`, `map_cut_10`), `@` names (`ndcg@10`, `recall@100`,
 * `map@10`, `mrr@10` = `recip_rank_cut.10`, `mrr_beir@10`), bare names (`map`, `ndcg`, `recip_rank`,
 * `P` = trec_eval defaults) and the nicknames `all` (every supported measure; cutoffs
 * 1,3,5,10,15,20,30,100,200,500,1000), `official` and `all_trec` (trec_eval's, supported part).
 * Each spec may be a comma list; a bare number continues the previous measure's parameters
 * (`ndcg_cut.1,3,recall.10`). Parameters of one family merge as a set; trec_eval's defaults apply
 * only when no explicit parameter was given for that family.
 * @throws CorebError `MEASURE` on unknown names or bad cutoffs.
 */
export function parseMeasures(specs: readonly string[]): MeasureSpec[] {
  const pending = new Map<MeasureFamilyName, Pending>();
  const get = (f: MeasureFamilyName): Pending => {
    let p = pending.get(f);
    if (p === undefined) {
      p = { explicit: new Set(), bare: false };
      pending.set(f, p);
    }
    return p;
  };
  let previous: MeasureFamilyName | undefined;
  for (const spec of specs) {
    for (const raw of spec.split(',')) {
      const token = raw.trim();
      if (token === '') continue;
      if (NUMBER_RE.test(token)) {
        if (previous === undefined) throw badMeasure(token, 'a bare number must follow a measure with cutoffs');
        get(previous).explicit.add(parseParam(previous, token, token));
        continue;
      }
      const lower = token.toLowerCase();
      if (lower === 'all') {
        for (const f of ALL_FAMILIES) {
          const p = get(f);
          const kind = MEASURE_FAMILIES[f].params;
          if (kind === 'int') for (const k of ALL_CUTOFFS) p.explicit.add(k);
          else p.bare = true;
        }
        previous = undefined;
        continue;
      }
      if (lower === 'official' || lower === 'all_trec') {
        for (const f of lower === 'official' ? OFFICIAL : ALL_TREC) get(f).bare = true;
        previous = undefined;
        continue;
      }
      const { family, param } = splitName(token);
      if (param === undefined) get(family).bare = true;
      else get(family).explicit.add(parseParam(family, param, token));
      previous = MEASURE_FAMILIES[family].params === 'none' ? undefined : family;
    }
  }
  if (pending.size === 0) throw badMeasure(specs.join(','), 'no measure given');
  const out: MeasureSpec[] = [];
  for (const family of FAMILY_NAMES) {
    const p = pending.get(family);
    if (p === undefined) continue;
    const def = MEASURE_FAMILIES[family];
    // relstring is one value: named `relstring` with its default length, `relstring_N` when given one.
    if (family === 'relstring' && p.explicit.size > 1) throw badMeasure(`relstring.${[...p.explicit].join(',')}`, 'relstring takes one length');
    const params =
      def.params === 'none' || (family === 'relstring' && p.explicit.size === 0) ? [] : p.explicit.size > 0 ? [...p.explicit] : [...def.defaults];
    params.sort((a, b) => a - b);
    out.push({ family, params });
  }
  return out;
}

/** The trec_eval output key of one family/parameter, e.g. `ndcg_cut_10`, `iprec_at_recall_0.10`. */
export function measureKey(family: MeasureFamilyName, param?: number): string {
  if (param === undefined) return family;
  const kind = MEASURE_FAMILIES[family].params;
  return kind === 'fraction' || kind === 'multiple' ? `${family}_${param.toFixed(2)}` : `${family}_${param}`;
}

/** All output keys of specs, in print order. */
export function measureKeys(specs: readonly MeasureSpec[]): string[] {
  const keys: string[] = [];
  for (const s of specs) {
    if (s.params.length === 0) keys.push(measureKey(s.family));
    else for (const p of s.params) keys.push(measureKey(s.family, p));
  }
  return keys;
}

const LABEL_PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ['ndcg_cut_', 'ndcg@'],
  ['map_cut_', 'map@'],
  ['recall_', 'recall@'],
  ['P_', 'P@'],
  ['success_', 'success@'],
  ['recip_rank_cut_', 'mrr@'],
  ['mrr_beir_', 'mrr_beir@'],
];

/**
 * The `ndcg@10`-style label of a trec_eval output key: `ndcg_cut_10` -> `ndcg@10`, `map_cut_10` ->
 * `map@10`, `recip_rank_cut_10` -> `mrr@10`, `recip_rank` -> `mrr`; other keys are returned unchanged.
 */
export function measureLabel(key: string): string {
  if (key === 'recip_rank') return 'mrr';
  for (const [prefix, label] of LABEL_PREFIXES) {
    if (key.startsWith(prefix) && /^\d+$/.test(key.slice(prefix.length))) return label + key.slice(prefix.length);
  }
  return key;
}

/** Families whose integer parameters are rank cutoffs: they read a list no deeper than their largest one. */
const CUTOFF_FAMILIES: ReadonlySet<MeasureFamilyName> = new Set([
  'P',
  'recall',
  'ndcg_cut',
  'map_cut',
  'relative_P',
  'success',
  'acc',
  'recip_rank_cut',
  'mrr_beir',
  'relstring',
]);
/** Families that read no ranked list (the run tag, query counts, relevant documents in the qrels). */
const LISTLESS_FAMILIES: ReadonlySet<MeasureFamilyName> = new Set(['runid', 'num_q', 'num_rel']);

/**
 * How deep into each ranked list `specs` read: the largest cutoff of the cutoff measures (`ndcg@10`,
 * `recall@100`, …), or undefined when one of them reads the whole list (`map`, `ndcg`, `num_ret`,
 * `bpref`, …). A list cut to this depth gives every one of them the same value.
 */
export function measureReadDepth(specs: readonly MeasureSpec[]): number | undefined {
  let depth = 0;
  for (const s of specs) {
    if (LISTLESS_FAMILIES.has(s.family)) continue;
    if (!CUTOFF_FAMILIES.has(s.family)) return undefined;
    const params = s.params.length > 0 ? s.params : MEASURE_FAMILIES[s.family].defaults;
    depth = Math.max(depth, ...params);
  }
  return depth;
}
