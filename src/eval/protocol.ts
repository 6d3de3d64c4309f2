/**
 * The evaluation protocols `coreb eval` offers, as data: CoREB's published protocol (paper §A.6,
 * §B.9, the official runner), what MTEB reports for its CoREB tasks, and what BEIR's evaluator
 * reports on the same run. Everything downstream reads these semantics, never a flag.
 */
import { CorebError } from '../core/errors.js';
import { PROTOCOLS, type ProtocolName, type ProtocolSemantics } from '../core/eval-results.js';
import { parseMeasures } from '../metrics/measures.js';
import { measurePreset } from '../metrics/evaluate.js';

/** Options that refine a protocol. */
export interface ProtocolOptions {
  /**
   * coreb only: how c2t_match queries without a rel-2 document enter the means. `zero` (default)
   * counts them, each scoring 0 (paper §A.6, every published number); `exclude` leaves them out
   * (paper §A.3 wording).
   */
  c2tMatchNegatives?: 'exclude' | 'zero';
}

/** The measures the coreb and beir protocols report, as display labels, in display order. */
export const EVAL_MEASURES = [
  'ndcg@1',
  'ndcg@3',
  'ndcg@5',
  'ndcg@10',
  'map@10',
  'map@100',
  'recall@1',
  'recall@3',
  'recall@5',
  'recall@10',
  'recall@100',
  'mrr@10',
  'p@1',
  'p@3',
  'p@5',
  'p@10',
] as const;

/** MTEB's retrieval cutoffs (`AbsTaskRetrieval.k_values`). */
export const MTEB_CUTOFFS = [1, 3, 5, 10, 20, 100, 1000] as const;

/**
 * The measures the mteb protocol reports, in MTEB's order: nDCG, MAP, Recall, P, MRR and hit rate
 * (trec_eval `success`) at every {@link MTEB_CUTOFFS} cutoff.
 */
export const MTEB_MEASURES: readonly string[] = ['ndcg', 'map', 'recall', 'p', 'mrr', 'hit'].flatMap((m) => MTEB_CUTOFFS.map((k) => `${m}@${k}`));

/**
 * A protocol as scoring sees it: its semantics plus the measures a user asked for on top of its own
 * (`coreb eval --measures`). Extra measures never change what a protocol's own numbers mean, so
 * they are not part of the protocol written to results (nor of its fingerprint).
 */
export type ScoringProtocol = ProtocolSemantics & { extraMeasures?: readonly string[] };

/** The measure labels a protocol reports, in display order, then any extra measures asked for. */
export function protocolMeasures(protocol: Pick<ProtocolSemantics, 'name'> & { extraMeasures?: readonly string[] }): readonly string[] {
  const own = protocol.name === 'mteb' ? MTEB_MEASURES : EVAL_MEASURES;
  const extra = (protocol.extraMeasures ?? []).filter((m) => !own.includes(m));
  return extra.length === 0 ? own : [...own, ...extra];
}

/**
 * Checks the measures of `--measures`: each one measure at one cutoff as `coreb metrics` knows it
 * (`ndcg@100`, `recall@1000`, `p@5`, `map`, or a trec_eval name such as `ndcg_cut_100`); labels
 * are lower-cased, repeats dropped, order kept.
 * @throws CorebError `MEASURE` naming the first entry that is not one measure.
 */
export function resolveExtraMeasures(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of list.flatMap((x) => x.split(','))) {
    const m = raw.trim().toLowerCase();
    if (m === '') continue;
    const specs = parseMeasures([m]);
    if (specs.length !== 1 || specs[0].params.length > 1) {
      throw new CorebError('MEASURE', `--measures: \`${raw.trim()}\` is not one measure at one cutoff (e.g. ndcg@100, recall@1000, map)`);
    }
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

/**
 * Resolves a protocol name to its full semantics.
 * - `coreb` (the published protocol): relevance level 2, strict nDCG (labels < 2 zeroed),
 *   code-to-code anchors removed before ranking, c2t_match negatives counted as 0 (`zero`, or
 *   `exclude`), leaderboard ranked by the query-weighted overall.
 * - `mteb`: what MTEB reports for CorebT2CRetrieval / CorebC2TRetrieval / CorebC2CRetrieval:
 *   qrels reduced to rel-2 documents and queries without one dropped (so c2t_match negatives are
 *   gone), anchors kept, relevance level 1, pytrec_eval nDCG, MAP, Recall, P and hit rate
 *   (`success`) at k in {1,3,5,10,20,100,1000} with means rounded to 5 decimals, MTEB's own MRR
 *   (label > 0, Python sort order; its mean is not rounded, as in MTEB), ranked by the task mean.
 * - `beir`: BEIR's evaluator: relevance level 1, trec nDCG with graded gains,
 *   `ignore_identical_ids`, every query with qrels counted, BEIR's own MRR, aggregates rounded to
 *   5 decimals, ranked by the task mean.
 * @throws CorebError `USAGE` for an unknown name or an option the protocol does not take.
 */
export function resolveProtocol(name: string, options: ProtocolOptions = {}): ProtocolSemantics {
  if (!(PROTOCOLS as readonly string[]).includes(name)) {
    throw new CorebError('USAGE', `unknown protocol \`${name}\`; valid protocols: ${PROTOCOLS.join(', ')}`);
  }
  const common = { scores: 'float32', ties: 'score-desc,docid-desc-utf8', population: 'run-and-qrels' } as const;
  if ((name as ProtocolName) !== 'coreb' && options.c2tMatchNegatives !== undefined) {
    throw new CorebError(
      'USAGE',
      `c2t_match negatives handling applies to protocol \`coreb\` only (${name === 'mteb' ? 'mteb drops queries without a rel-2 document' : 'beir counts every query with qrels'})`,
    );
  }
  if ((name as ProtocolName) === 'beir') {
    return {
      name: 'beir',
      ...measurePreset('trec'),
      ...common,
      anchorExclusion: false,
      ignoreIdenticalIds: true,
      qrels: 'as-is',
      c2tMatchNegatives: 'include',
      mrr: 'beir',
      rankBy: 'taskMean',
      roundDigits: 5,
      unrounded: [],
    };
  }
  if ((name as ProtocolName) === 'mteb') {
    return {
      name: 'mteb',
      ...measurePreset('trec'),
      ...common,
      anchorExclusion: false,
      ignoreIdenticalIds: false,
      qrels: 'positives-only',
      c2tMatchNegatives: 'exclude',
      mrr: 'mteb',
      rankBy: 'taskMean',
      roundDigits: 5,
      unrounded: MTEB_MEASURES.filter((m) => m.startsWith('mrr@')),
    };
  }
  return {
    name: 'coreb',
    ...measurePreset('coreb'),
    ...common,
    anchorExclusion: true,
    ignoreIdenticalIds: false,
    qrels: 'as-is',
    c2tMatchNegatives: options.c2tMatchNegatives ?? 'zero',
    mrr: 'trec',
    rankBy: 'overall',
    roundDigits: null,
    unrounded: [],
  };
}

export { roundHalfEven } from '../core/round.js';
