/**
 * `coreb compare` as a library call: paired two-sided tests of every retriever against a baseline
 * over the per-query values of one measure, per task and overall, with Holm–Bonferroni adjustment;
 * and the all-pairs variant the HTML report uses for ranx-style superscripts.
 */
import { didYouMean } from '../core/suggest.js';
import { CorebError } from '../core/errors.js';
import type { EventLoopTurns } from '../core/event-loop-turns.js';
import type { EvalResults, RetrieverResult } from '../core/eval-results.js';
import { latexEscape, renderTable } from '../core/table.js';
import {
  holmAdjust,
  pairedBootstrap,
  pairedBootstrapMany,
  pairedBootstrapManyAsync,
  pairedTTest,
  randomizationPValue,
  randomizationTest,
  signFlipSumsAsync,
  signFlipsAsync,
  type PairedTestResult,
} from './significance.js';

/** Test names of `coreb compare --test`. */
export const COMPARE_TESTS = ['t-test', 'randomization', 'bootstrap'] as const;
/** A paired test. */
export type CompareTest = (typeof COMPARE_TESTS)[number];

/** Options of {@link compareResults}. */
export interface CompareResultsOptions {
  /** Baseline retriever name. Default: the first retriever of the results. */
  baseline?: string;
  /** Measure label as in the results (`ndcg@10`, `recall@100`, ...). Default `ndcg@10`. */
  measure?: string;
  /** Tests to run. Default: all three. */
  tests?: readonly CompareTest[];
  /** PRNG seed of the randomization test and the bootstrap. Default 42. */
  seed?: number;
  /** Sign-flip rounds of the randomization test. Default 10,000. */
  permutations?: number;
  /** Resamples of the bootstrap. Default 10,000. */
  bootstrapSamples?: number;
  /** Confidence level of the t and bootstrap intervals. Default 0.95. */
  confidence?: number;
  /** Turns of the event loop between steps, and the signal that stops the tests there (Ctrl-C). Default: none. */
  turns?: EventLoopTurns;
}

/** One test of one retriever against the baseline in one scope. */
export interface Comparison {
  retriever: string;
  /** `overall` (all queries pooled) or a task name. */
  scope: string;
  measure: string;
  test: CompareTest;
  /** Mean per-query difference, retriever − baseline. */
  delta: number;
  /** Confidence interval of {@link delta} (t-test: t interval; bootstrap: percentile), or null (randomization). */
  ci: [number, number] | null;
  pValue: number;
  /** Holm–Bonferroni adjusted p-value across all comparisons of the same test. */
  pHolm: number;
  /** Paired queries (present in both retrievers' per-query values). */
  queries: number;
}

/** What {@link compareResults} returns (the JSON `coreb compare --format json` prints). */
export interface CompareReport {
  baseline: string;
  measure: string;
  /** Settings that decide the numbers, for reproduction. */
  settings: { seed: number; permutations: number; bootstrapSamples: number; confidence: number; tests: CompareTest[] };
  comparisons: Comparison[];
  /**
   * Pairs not tested because the two retrievers were scored on different queries in that scope (a
   * partial run): a test on their common queries would sit beside means computed on others.
   */
  skipped: Array<{ retriever: string; scope: string; reason: string }>;
}

/** Paired values of one measure for two retrievers in one scope, in query-id order. */
export interface PairedValues {
  ids: string[];
  a: Float64Array;
  b: Float64Array;
}

function requirePerQuery(r: RetrieverResult): NonNullable<RetrieverResult['perQuery']> {
  if (r.perQuery === undefined) {
    throw new CorebError('VALIDATION', `retriever \`${r.name}\` has no per-query values; re-run \`coreb eval\` without --no-per-query`, {
      field: 'perQuery',
    });
  }
  return r.perQuery;
}

/**
 * Per-query values of `measure` for retrievers `a` and `b` over the queries both evaluated in
 * `scope` (`overall` = every task). Missing measure values are an error.
 */
export function pairValues(a: RetrieverResult, b: RetrieverResult, measure: string, scope: string): PairedValues {
  const pa = requirePerQuery(a);
  const pb = requirePerQuery(b);
  const ids = Object.keys(pa)
    .filter((id) => (scope === 'overall' || pa[id].task === scope) && pb[id] !== undefined && pb[id].task === pa[id].task)
    .sort();
  const va = new Float64Array(ids.length);
  const vb = new Float64Array(ids.length);
  ids.forEach((id, i) => {
    const x = pa[id].metrics[measure];
    const y = pb[id].metrics[measure];
    if (typeof x !== 'number' || typeof y !== 'number') {
      throw new CorebError('VALIDATION', `query \`${id}\` has no \`${measure}\` value`, { field: `perQuery.${id}.metrics` });
    }
    va[i] = x;
    vb[i] = y;
  });
  return { ids, a: va, b: vb };
}

/** Per row (its per-query object) and scope: the sorted ids, and what the tests derive from them. */
interface ScopeVectors {
  ids: string[];
  /** The ids joined, to compare populations in one string comparison. */
  key: string;
  /** Measure -> the values in id order. */
  values: Map<string, Float64Array>;
  /** `measure/rounds/seed` -> the flipped sums of the randomization test. */
  flipSums: Map<string, Float64Array>;
}
const scopeVectors = new WeakMap<object, Map<string, ScopeVectors>>();

/** The cached ids (and derived vectors) of a row in a scope: a board tests each row against every other, once each. */
function vectorsOf(r: RetrieverResult, scope: string): ScopeVectors {
  const pq = requirePerQuery(r);
  let byScope = scopeVectors.get(pq);
  if (byScope === undefined) scopeVectors.set(pq, (byScope = new Map()));
  let v = byScope.get(scope);
  if (v === undefined) {
    const ids = Object.keys(pq)
      .filter((id) => scope === 'overall' || pq[id].task === scope)
      .sort();
    v = { ids, key: ids.join('\n'), values: new Map(), flipSums: new Map() };
    byScope.set(scope, v);
  }
  return v;
}

/** A row's values of `measure` over its queries in `scope`, in id order (cached). */
function scopeValues(r: RetrieverResult, scope: string, measure: string): Float64Array {
  const v = vectorsOf(r, scope);
  let values = v.values.get(measure);
  if (values === undefined) {
    const pq = r.perQuery!;
    values = new Float64Array(v.ids.length);
    for (let i = 0; i < v.ids.length; i++) {
      const x = pq[v.ids[i]].metrics[measure];
      if (typeof x !== 'number') {
        throw new CorebError('VALIDATION', `query \`${v.ids[i]}\` has no \`${measure}\` value`, { field: `perQuery.${v.ids[i]}.metrics` });
      }
      values[i] = x;
    }
    v.values.set(measure, values);
  }
  return values;
}

/**
 * The randomization test of two rows scored on the same queries of `scope` (checked by the caller,
 * {@link populationMismatch}), from each row's flipped sums, computed once per row, measure and
 * settings and kept with the row: the same p-value as {@link randomizationTest} on the pair.
 */
async function cachedRandomization(
  a: RetrieverResult,
  b: RetrieverResult,
  measure: string,
  scope: string,
  s: { permutations: number; seed: number },
  turns: EventLoopTurns | undefined,
): Promise<PairedTestResult> {
  const va = scopeValues(a, scope, measure);
  const vb = scopeValues(b, scope, measure);
  let observed = 0;
  let scale = 0;
  for (let q = 0; q < va.length; q++) {
    observed += va[q] - vb[q];
    scale += Math.abs(va[q] - vb[q]);
  }
  const sums = async (r: RetrieverResult, values: Float64Array): Promise<Float64Array> => {
    const v = vectorsOf(r, scope);
    const key = `${measure}/${s.permutations}/${s.seed}`;
    let cached = v.flipSums.get(key);
    if (cached === undefined) {
      cached = await signFlipSumsAsync(values, await signFlipsAsync(values.length, s.permutations, s.seed, turns), turns);
      v.flipSums.set(key, cached);
    }
    return cached;
  };
  const pValue = randomizationPValue(await sums(a, va), await sums(b, vb), observed, scale);
  return { delta: va.length > 0 ? observed / va.length : 0, ci: null, pValue };
}

/** The query ids a retriever was scored on in `scope` (`overall` or a task), sorted. */
export function scopeQueryIds(r: RetrieverResult, scope: string): string[] {
  return vectorsOf(r, scope).ids;
}

/**
 * Why two retrievers cannot be tested against each other in `scope`, or undefined when they can:
 * their means must be computed on the same queries, or a mark would sit beside a number it does not
 * describe.
 */
export function populationMismatch(a: RetrieverResult, b: RetrieverResult, scope: string): string | undefined {
  const va = vectorsOf(a, scope);
  const vb = vectorsOf(b, scope);
  if (va.key === vb.key) return undefined;
  const ia = va.ids;
  const ib = vb.ids;
  const common = ia.filter((id) => b.perQuery![id] !== undefined).length;
  return `scored on other queries (${ia.length} vs ${ib.length}, ${common} in common)`;
}

/** Runs one named test on paired values (treatment `a`, control `b`). */
export function runPairedTest(
  test: CompareTest,
  a: Float64Array,
  b: Float64Array,
  o: Required<Omit<CompareResultsOptions, 'baseline' | 'measure' | 'tests' | 'turns'>>,
): PairedTestResult {
  if (test === 't-test') return pairedTTest(a, b, o.confidence);
  if (test === 'randomization') return randomizationTest(a, b, { permutations: o.permutations, seed: o.seed });
  return pairedBootstrap(a, b, { samples: o.bootstrapSamples, seed: o.seed, confidence: o.confidence });
}

/** The retriever names of a results file, checking they are unique (pairs are named by them). */
function retrieverByName(results: EvalResults): Map<string, RetrieverResult> {
  const m = new Map<string, RetrieverResult>();
  for (const r of results.retrievers) {
    if (m.has(r.name)) throw new CorebError('VALIDATION', `two retrievers are named \`${r.name}\`; names must be unique to compare`);
    m.set(r.name, r);
  }
  return m;
}

function resolveSettings(options: CompareResultsOptions): CompareReport['settings'] {
  return {
    seed: options.seed ?? 42,
    permutations: options.permutations ?? 10000,
    bootstrapSamples: options.bootstrapSamples ?? 10000,
    confidence: options.confidence ?? 0.95,
    tests: [...(options.tests ?? COMPARE_TESTS)],
  };
}

/**
 * Tests every retriever against the baseline, overall and per task, with each requested test.
 * Holm's adjustment runs per test over all (retriever, scope) comparisons made with it.
 * @throws CorebError `USAGE` for an unknown baseline or measure, `VALIDATION` without per-query values.
 */
export async function compareResults(results: EvalResults, options: CompareResultsOptions = {}): Promise<CompareReport> {
  const turns = options.turns;
  const stopped = (what: string) => () => `coreb compare stopped during ${what}`;
  const byName = retrieverByName(results);
  const baselineName = options.baseline ?? results.retrievers[0].name;
  const baseline = byName.get(baselineName);
  if (baseline === undefined) {
    throw new CorebError(
      'USAGE',
      `--baseline \`${baselineName}\` is not a retriever of the results${didYouMean(baselineName, byName.keys())} (retrievers: ${[...byName.keys()].join(', ')})`,
    );
  }
  const measure = options.measure ?? 'ndcg@10';
  if (!results.measures.includes(measure)) {
    throw new CorebError('USAGE', `--measure \`${measure}\` is not in the results; measures: ${results.measures.join(', ')}`);
  }
  if (byName.size < 2) throw new CorebError('USAGE', 'the results hold one retriever; compare needs at least two');
  const s = resolveSettings(options);
  const scopes = ['overall', ...Object.keys(baseline.tasks)];
  const comparisons: Comparison[] = [];
  const skipped: CompareReport['skipped'] = [];
  // The bootstrap of every retriever against the baseline in a scope in one pass over the draws
  // (each equal to its own pairedBootstrap).
  const boot = new Map<string, Map<RetrieverResult, PairedTestResult>>();
  if (s.tests.includes('bootstrap')) {
    for (const scope of scopes) {
      const eligible = results.retrievers.filter((r) => r !== baseline && populationMismatch(r, baseline, scope) === undefined);
      if (eligible.length === 0) continue;
      const pvs = eligible.map((r) => pairValues(r, baseline, measure, scope));
      const bootOptions = { samples: s.bootstrapSamples, seed: s.seed, confidence: s.confidence };
      const tested =
        turns === undefined
          ? pairedBootstrapMany(
              pvs.map((pv) => pv.a),
              pvs[0].b,
              bootOptions,
            )
          : await pairedBootstrapManyAsync(
              pvs.map((pv) => pv.a),
              pvs[0].b,
              bootOptions,
              turns,
            );
      boot.set(scope, new Map(eligible.map((r, i) => [r, tested[i]])));
      if (turns?.due()) await turns.take(stopped(`the bootstrap (${scope})`));
    }
  }
  for (const r of results.retrievers) {
    if (r === baseline) continue;
    if (turns?.due()) await turns.take(stopped(`the tests of ${r.name}`));
    for (const scope of scopes) {
      const mismatch = populationMismatch(r, baseline, scope);
      if (mismatch !== undefined) {
        skipped.push({ retriever: r.name, scope, reason: mismatch });
        continue;
      }
      const pv = pairValues(r, baseline, measure, scope);
      for (const test of s.tests) {
        const t =
          test === 'randomization'
            ? await cachedRandomization(r, baseline, measure, scope, s, turns)
            : test === 'bootstrap'
              ? boot.get(scope)!.get(r)!
              : runPairedTest(test, pv.a, pv.b, s);
        comparisons.push({ retriever: r.name, scope, measure, test, delta: t.delta, ci: t.ci, pValue: t.pValue, pHolm: NaN, queries: pv.ids.length });
      }
    }
  }
  for (const test of s.tests) {
    const family = comparisons.filter((c) => c.test === test);
    holmAdjust(family.map((c) => c.pValue)).forEach((p, i) => (family[i].pHolm = p));
  }
  return { baseline: baselineName, measure, settings: s, comparisons, skipped };
}

/**
 * The baseline `coreb compare` picks when none is named: a BM25 row (the paper's baseline) when the
 * rows hold one; else, for rows in the order a results file gives them, its first row; else (rows
 * of a results store, whose order is the store's file names) the best row by `measure` under the
 * protocol's aggregate. Returns the name and why, for the output to say.
 */
export function defaultBaseline(retrievers: readonly RetrieverResult[], measure: string, ordered: boolean): { name: string; why: string } {
  const bm25 =
    retrievers.find((r) => r.spec === 'bm25') ??
    retrievers.find((r) => r.name === 'bm25') ??
    retrievers.find((r) => (r.description as { kind?: unknown } | undefined)?.kind === 'bm25');
  if (bm25 !== undefined) return { name: bm25.name, why: 'the BM25 row' };
  if (ordered || retrievers.length === 0) return { name: retrievers[0]?.name ?? '', why: 'the first row of the results' };
  const score = (r: RetrieverResult) =>
    typeof r.overall.metrics[measure] === 'number' ? (r.overall.metrics[measure] as number) : Number.NEGATIVE_INFINITY;
  const best = [...retrievers].sort((a, b) => score(b) - score(a) || a.name.localeCompare(b.name))[0];
  return { name: best.name, why: `the best row by ${measure}, as there is no BM25 row` };
}

/** Options of {@link significantWins}. */
export interface WinsOptions {
  measure: string;
  /** `overall` or a task. */
  scope: string;
  test?: CompareTest;
  /** Significance level on the Holm-adjusted p-value. Default 0.05. */
  alpha?: number;
  seed?: number;
  permutations?: number;
  /** Called after each row's pairs: pairs done, pairs in all. */
  onProgress?: (done: number, total: number) => void;
  /** Turns of the event loop between rows, and the signal that stops the tests there (Ctrl-C). Default: none. */
  turns?: EventLoopTurns;
}

/**
 * ranx-style significance marks: for every retriever, the names of the retrievers it significantly
 * beats (higher mean and Holm-adjusted p <= alpha over all pairs). Retrievers without per-query
 * values are left out (empty set), and so is every pair scored on different queries in the scope
 * (see {@link populationMismatch}). Default test: randomization with 10,000 flips, seed 42.
 */
export async function significantWins(retrievers: readonly RetrieverResult[], options: WinsOptions): Promise<Map<string, Set<string>>> {
  const test = options.test ?? 'randomization';
  const s = resolveSettings(options);
  const alpha = options.alpha ?? 0.05;
  const usable = retrievers.filter((r) => r.perQuery !== undefined);
  const pairs: Array<{ a: string; b: string; delta: number; p: number }> = [];
  // The randomization test's flipped sums depend on one row only: computed once per row (and kept
  // with it), a pair is then a pass over the rounds.
  let done = 0;
  const total = (usable.length * (usable.length - 1)) / 2;
  for (let i = 0; i < usable.length; i++) {
    for (let j = i + 1; j < usable.length; j++) {
      done++;
      // Only rows whose means come from the same queries are tested (a partial run is not).
      if (populationMismatch(usable[i], usable[j], options.scope) !== undefined) continue;
      if (vectorsOf(usable[i], options.scope).ids.length === 0) continue;
      let t: PairedTestResult;
      if (test === 'randomization') t = await cachedRandomization(usable[i], usable[j], options.measure, options.scope, s, options.turns);
      else {
        const pv = pairValues(usable[i], usable[j], options.measure, options.scope);
        t = runPairedTest(test, pv.a, pv.b, s);
      }
      pairs.push({ a: usable[i].name, b: usable[j].name, delta: t.delta, p: t.pValue });
      if (options.turns?.due()) await options.turns.take(() => `significance tests stopped after ${done} of ${total} pairs`);
    }
    options.onProgress?.(done, total);
  }
  const adjusted = holmAdjust(pairs.map((p) => p.p));
  const wins = new Map<string, Set<string>>(retrievers.map((r) => [r.name, new Set<string>()]));
  pairs.forEach((p, i) => {
    if (!(adjusted[i] <= alpha) || p.delta === 0) return;
    if (p.delta > 0) wins.get(p.a)!.add(p.b);
    else wins.get(p.b)!.add(p.a);
  });
  return wins;
}

/** Formats a p-value for tables: 4 significant digits, `<1e-4` style below 0.0001. */
export function formatPValue(p: number): string {
  if (Number.isNaN(p)) return '-';
  if (p < 1e-4) return p === 0 ? '0' : p.toExponential(1);
  return p.toFixed(4);
}

/** Renders a compare report as an aligned text table (`*` marks pHolm <= 0.05). */
export function renderCompareTable(report: CompareReport): string {
  const header = ['retriever', 'scope', 'test', 'queries', `Δ ${report.measure}`, '95% CI', 'p', 'p (Holm)', ''];
  const rows = report.comparisons.map((c) => [
    c.retriever,
    c.scope,
    c.test,
    String(c.queries),
    (c.delta >= 0 ? '+' : '') + c.delta.toFixed(4),
    c.ci === null ? '-' : `[${c.ci[0].toFixed(4)}, ${c.ci[1].toFixed(4)}]`,
    formatPValue(c.pValue),
    formatPValue(c.pHolm),
    c.pHolm <= 0.05 ? '*' : '',
  ]);
  const s = report.settings;
  return renderTable({
    title: `compare: baseline ${report.baseline}, measure ${report.measure}, paired two-sided tests; randomization ${s.permutations} sign flips, bootstrap ${s.bootstrapSamples} resamples, seed ${s.seed}`,
    header,
    rows,
    align: 3,
    notes: [
      '* = significant at 0.05 after Holm–Bonferroni over the comparisons of the same test',
      ...(report.skipped.length > 0
        ? [
            `not tested (a test needs both means computed on the same queries): ${report.skipped.map((x) => `${x.retriever} in ${x.scope}, ${x.reason}`).join('; ')}`,
          ]
        : []),
    ],
  });
}

/**
 * Renders a compare report as a markdown or LaTeX table in the style of ranx: one row per
 * retriever (the baseline first), one column per scope (overall, then each task), each cell the
 * mean with a superscript `+` when the retriever is significantly better than the baseline and
 * `−` when significantly worse (Holm-adjusted p <= `alpha` under `test`: the randomization test
 * when it was run, else the first test run).
 */
export function renderCompareTableAs(
  report: CompareReport,
  retrievers: readonly RetrieverResult[],
  format: 'markdown' | 'latex',
  alpha = 0.05,
): string {
  const test: CompareTest = report.settings.tests.includes('randomization') ? 'randomization' : report.settings.tests[0];
  const scopes = [...new Set(['overall', ...report.comparisons.map((c) => c.scope)])];
  const names = [report.baseline, ...new Set(report.comparisons.map((c) => c.retriever))];
  const mean = (name: string, scope: string): number | undefined => {
    const r = retrievers.find((x) => x.name === name);
    const v = scope === 'overall' ? r?.overall.metrics[report.measure] : r?.tasks[scope]?.metrics[report.measure];
    return typeof v === 'number' ? v : undefined;
  };
  const mark = (name: string, scope: string): string => {
    const c = report.comparisons.find((x) => x.retriever === name && x.scope === scope && x.test === test);
    if (c === undefined || !(c.pHolm <= alpha) || c.delta === 0) return '';
    return c.delta > 0 ? '+' : '−';
  };
  const sup = (s: string) => (s === '' ? '' : format === 'markdown' ? `<sup>${s}</sup>` : `\\textsuperscript{${s === '−' ? '$-$' : s}}`);
  const esc = (s: string) => (format === 'latex' ? latexEscape(s) : s);
  const cells = names.map((n) => [
    esc(n) + (n === report.baseline ? (format === 'latex' ? ' (baseline)' : ' _(baseline)_') : ''),
    ...scopes.map((s) => {
      const v = mean(n, s);
      return (v === undefined ? '–' : v.toFixed(4)) + sup(mark(n, s));
    }),
  ]);
  const note = `${report.measure}; + / − = significantly better / worse than ${report.baseline} (${test}, Holm–Bonferroni, p <= ${alpha})`;
  return renderTable({ title: `${report.measure} against ${report.baseline}`, header: ['retriever', ...scopes], rows: cells, notes: [note] }, format);
}
