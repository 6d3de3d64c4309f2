/**
 * The contamination study's summary (paper §3 step 2, §A.7, Table 13): per model and per language,
 * Pass@1 on the original problems and on their counterfactual rewrites, the difference, the paired
 * 2×2 table and McNemar's exact p-value. Pure: it reads judged outcomes, not files.
 */
import { mcnemarExactP, passAtK } from './significance.js';

/** One judged program of the study. */
export interface ContaminationOutcome {
  /** Solver label (the build's corpus `model` name). */
  model: string;
  /** Problem id (LiveCodeBench `question_id`). */
  problem: string;
  language: string;
  arm: 'original' | 'rewritten';
  /** Sample index, 0-based (< samples). */
  sample: number;
  /** Passed every test of the problem it was written for; a reply without a program counts as failed. */
  passed: boolean;
}

/** The fields of one cell (a model, or a model and language). */
export interface ContaminationCell {
  original: { passAt1: number };
  rewritten: { passAt1: number };
  /** rewritten.passAt1 − original.passAt1 (the paper's Δ = Ann − Orig; negative when rewriting hurts). */
  delta: number;
  /** Pairs (problem, language, sample i original ↔ sample i rewritten) by outcome. */
  table: { bothPass: number; originalOnly: number; rewrittenOnly: number; neither: number };
  /** McNemar's exact two-sided p on originalOnly vs rewrittenOnly. */
  mcnemarP: number;
}

/** `contamination.json`. */
export interface ContaminationSummary {
  models: Record<string, ContaminationCell & { languages: Record<string, ContaminationCell> }>;
}

function cell(outcomes: readonly ContaminationOutcome[], samples: number): ContaminationCell {
  // pass@1 per (problem, language, arm) from its samples, averaged over (problem, language).
  const passes = new Map<string, number>();
  const units = new Set<string>();
  const pairs = new Map<string, { o?: boolean; r?: boolean }>();
  for (const x of outcomes) {
    const unit = `${x.problem}\u0000${x.language}`;
    units.add(unit);
    const k = `${unit}\u0000${x.arm}`;
    passes.set(k, (passes.get(k) ?? 0) + (x.passed ? 1 : 0));
    const pk = `${unit}\u0000${x.sample}`;
    const pair = pairs.get(pk) ?? {};
    if (x.arm === 'original') pair.o = x.passed;
    else pair.r = x.passed;
    pairs.set(pk, pair);
  }
  const mean = (arm: string): number => {
    if (units.size === 0) return 0;
    let s = 0;
    for (const u of units) s += passAtK(samples, passes.get(`${u}\u0000${arm}`) ?? 0, 1);
    return s / units.size;
  };
  const table = { bothPass: 0, originalOnly: 0, rewrittenOnly: 0, neither: 0 };
  for (const { o = false, r = false } of pairs.values()) {
    if (o && r) table.bothPass++;
    else if (o) table.originalOnly++;
    else if (r) table.rewrittenOnly++;
    else table.neither++;
  }
  const original = mean('original');
  const rewritten = mean('rewritten');
  return {
    original: { passAt1: original },
    rewritten: { passAt1: rewritten },
    delta: rewritten - original,
    table,
    mcnemarP: mcnemarExactP(table.originalOnly, table.rewrittenOnly),
  };
}

/**
 * Summarises judged outcomes. Every (model, problem, language, arm) is expected to have `samples`
 * outcomes (a missing one counts as failed); models and languages are listed in code-point order.
 * @param samples samples per problem, language and arm (the n of the pass@k estimator); default 1
 */
export function summarizeContamination(outcomes: readonly ContaminationOutcome[], samples = 1): ContaminationSummary {
  const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const models: ContaminationSummary['models'] = {};
  for (const m of sorted(outcomes.map((x) => x.model))) {
    const mine = outcomes.filter((x) => x.model === m);
    const languages: Record<string, ContaminationCell> = {};
    for (const l of sorted(mine.map((x) => x.language)))
      languages[l] = cell(
        mine.filter((x) => x.language === l),
        samples,
      );
    models[m] = { ...cell(mine, samples), languages };
  }
  return { models };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const pv = (p: number): string => (p >= 0.001 ? p.toFixed(3) : p.toExponential(1));

/** The summary as a plain-text table (one row per model, then one per model and language). */
export function renderContaminationTable(s: ContaminationSummary): string {
  const head = ['model', 'language', 'orig Pass@1', 'rewr Pass@1', 'Δ pts', 'both', 'orig only', 'rewr only', 'neither', 'McNemar p'];
  const rows: string[][] = [];
  const row = (m: string, l: string, c: ContaminationCell): string[] => [
    m,
    l,
    pct(c.original.passAt1),
    pct(c.rewritten.passAt1),
    signed(c.delta),
    String(c.table.bothPass),
    String(c.table.originalOnly),
    String(c.table.rewrittenOnly),
    String(c.table.neither),
    pv(c.mcnemarP),
  ];
  for (const [m, c] of Object.entries(s.models)) {
    rows.push(row(m, 'all', c));
    for (const [l, lc] of Object.entries(c.languages)) rows.push(row('', l, lc));
  }
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]): string =>
    r
      .map((x, i) => (i < 2 ? x.padEnd(w[i]) : x.padStart(w[i])))
      .join('  ')
      .trimEnd();
  return [fmt(head), ...rows.map(fmt)].join('\n') + '\n';
}
