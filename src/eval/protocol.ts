/**
 * The two evaluation protocols `coreb eval` offers, as data: CoREB's own (paper §A.6, §B.9) and what
 * BEIR/MTEB would report on the same run. Everything downstream reads these semantics, never a flag.
 */
import { CorebError } from '../core/errors.js';
import { PROTOCOLS, type ProtocolName, type ProtocolSemantics } from '../core/eval-results.js';
import { resolveProtocol } from '../metrics/index.js';

/** Options that refine a protocol. */
export interface ProtocolOptions {
  /**
   * coreb only: how c2t_match queries without a rel-2 document enter the means. `exclude` (default)
   * leaves them out (paper §A.3); `zero` counts them, each scoring 0 (paper §A.6).
   */
  c2tMatchNegatives?: 'exclude' | 'zero';
}

/** The measures every evaluation reports, as display labels, in display order. */
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

/**
 * Resolves a protocol name to its full semantics.
 * - `coreb`: relevance level 2, strict nDCG (labels < 2 zeroed), code-to-code anchors removed before
 *   ranking, c2t_match negatives excluded (or zero), overall = mean over all pooled queries.
 * - `beir`: relevance level 1, trec nDCG with graded gains, `ignore_identical_ids`, every query with
 *   qrels counted, BEIR's own MRR, aggregates rounded to 5 decimals, overall = mean of the task
 *   means (MTEB style).
 * @throws CorebError `USAGE` for an unknown name.
 */
export function resolveEvalProtocol(name: string, options: ProtocolOptions = {}): ProtocolSemantics {
  if (!(PROTOCOLS as readonly string[]).includes(name)) {
    throw new CorebError('USAGE', `unknown protocol \`${name}\`; valid protocols: ${PROTOCOLS.join(', ')}`);
  }
  const common = { scores: 'float32', ties: 'score-desc,docid-desc-utf8', population: 'run-and-qrels' } as const;
  if ((name as ProtocolName) === 'beir') {
    if (options.c2tMatchNegatives !== undefined) {
      throw new CorebError('USAGE', 'c2t_match negatives handling applies to protocol `coreb` only (beir counts every query with qrels)');
    }
    return {
      name: 'beir',
      ...resolveProtocol('trec'),
      ...common,
      anchorExclusion: false,
      ignoreIdenticalIds: true,
      c2tMatchNegatives: 'include',
      mrr: 'beir',
      overall: 'task-mean',
      roundDigits: 5,
    };
  }
  return {
    name: 'coreb',
    ...resolveProtocol('coreb'),
    ...common,
    anchorExclusion: true,
    ignoreIdenticalIds: false,
    c2tMatchNegatives: options.c2tMatchNegatives ?? 'exclude',
    mrr: 'trec',
    overall: 'query-weighted',
    roundDigits: null,
  };
}

/**
 * Rounds like Python's `round(x, digits)`: correctly rounded, exact decimal ties to even (BEIR rounds
 * its means this way). JS `toFixed` is correctly rounded too but sends exact ties up.
 */
export function roundHalfEven(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const scale = 10 ** digits;
  const y = x * scale;
  const fl = Math.floor(y);
  // An exact tie needs x to be a dyadic rational with a short expansion; y is then exact too.
  if (y - fl === 0.5 && Number.isInteger(x * 2 ** 20)) return (fl % 2 === 0 ? fl : fl + 1) / scale;
  return Number(x.toFixed(digits));
}
