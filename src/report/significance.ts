/**
 * Paired significance tests over per-query values (the kernels of `coreb compare`): Student's t
 * distribution (exact, via the regularised incomplete beta function), the paired t-test, Fisher's
 * randomization test with random sign flips, a paired bootstrap confidence interval, and the
 * Holm–Bonferroni adjustment. Pure and deterministic given a seed.
 */

import type { EventLoopTurns } from '../core/event-loop-turns.js';
import { createRng } from '../core/random.js';

/** The seeded PRNG the tests here use (defined in core, shared with mining). */
export { createRng };

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9; relative error ~1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0];
  for (let i = 1; i < 9; i++) s += LANCZOS[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** Continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes §6.4). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(a, b, x)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(b, a, 1 - x)) / b;
}

/**
 * Two-sided tail probability of Student's t distribution with `df` degrees of freedom:
 * P(|T| >= |t|) = I_{df/(df+t²)}(df/2, 1/2). Infinite |t| gives 0.
 */
export function studentTTwoSided(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return regularizedBeta(df / (df + t * t), df / 2, 0.5);
}

/** CDF of Student's t distribution: P(T <= t). */
export function studentTCdf(t: number, df: number): number {
  const tail = studentTTwoSided(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

/** Quantile of Student's t distribution (inverse CDF, by bisection to ~1e-12), 0 < p < 1. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile needs 0 < p < 1, got ${p}`);
  if (p === 0.5) return 0;
  let lo = -1;
  let hi = 1;
  while (studentTCdf(lo, df) > p) lo *= 2;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(lo)); i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Result of one paired test: the mean difference (treatment − control), a CI when the test gives one, the p-value. */
export interface PairedTestResult {
  /** Mean of the per-query differences. */
  delta: number;
  /** Confidence interval of the mean difference, or null. */
  ci: [number, number] | null;
  /** Two-sided p-value. */
  pValue: number;
}

function differences(treatment: ArrayLike<number>, control: ArrayLike<number>): Float64Array {
  if (treatment.length !== control.length) {
    throw new RangeError(`paired samples differ in length (${treatment.length} vs ${control.length})`);
  }
  const d = new Float64Array(treatment.length);
  for (let i = 0; i < d.length; i++) d[i] = treatment[i] - control[i];
  return d;
}

function mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return x.length > 0 ? s / x.length : 0;
}

/**
 * Two-sided paired Student's t-test (as `scipy.stats.ttest_rel`): t = mean(d) / (sd(d) / √n),
 * df = n − 1, with the `confidence` (default 0.95) t interval of the mean difference.
 * Degenerate cases: n < 2 or all differences equal zero give p = 1; a constant non-zero difference
 * (sd = 0) gives p = 0 (scipy returns NaN for both).
 */
export function pairedTTest(treatment: ArrayLike<number>, control: ArrayLike<number>, confidence = 0.95): PairedTestResult {
  const d = differences(treatment, control);
  const n = d.length;
  const m = mean(d);
  if (n < 2) return { delta: m, ci: null, pValue: 1 };
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (d[i] - m) * (d[i] - m);
  const sd = Math.sqrt(ss / (n - 1));
  if (sd === 0) return { delta: m, ci: [m, m], pValue: m === 0 ? 1 : 0 };
  const se = sd / Math.sqrt(n);
  const q = studentTQuantile(1 - (1 - confidence) / 2, n - 1);
  return { delta: m, ci: [m - q * se, m + q * se], pValue: studentTTwoSided(m / se, n - 1) };
}

/**
 * The sign flips of the randomization test, drawn once for a query count, a number of rounds and a
 * seed: round `r` flips query `i` when bit `i % 32` of the round's word `floor(i / 32)` is set (the
 * words drawn from the seeded PRNG round after round). Every pair of systems scored on the same `n`
 * queries is tested with the same flips, so each system's flipped sums ({@link signFlipSums}) are
 * computed once and a pair's rounds are differences of two of them: a board of `m` rows costs `m`
 * passes over the queries instead of `m²/2`.
 */
export interface SignFlips {
  /** Queries per round. */
  n: number;
  /** Rounds (sign-flip permutations). */
  rounds: number;
  /** Its seed. */
  seed: number;
  /** `rounds * ceil(n / 32)` words, round after round. */
  words: Uint32Array;
}

const signFlipMemo = new Map<string, SignFlips>();

/**
 * Rounds a step of the sign-flip work covers: the async variants look at the event loop between
 * steps (at 1,000 queries a step is a few milliseconds; 800,000 rounds were one block of ~1 s,
 * longer on a busy machine, that Ctrl-C had to wait out).
 */
const ROUNDS_PER_STEP = 4096;

/** Runs a stepped computation to its end. */
function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
  }
}

/** Runs a stepped computation, giving the event loop a turn between steps when one is due (and stopping there when aborted). */
async function runStepsAsync<T>(steps: Generator<void, T>, turns: EventLoopTurns | undefined, stopped: () => string): Promise<T> {
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
    if (turns?.due()) await turns.take(stopped);
  }
}

/** Draws the words of {@link signFlips}, round after round from the seeded PRNG, a step at a time. */
function* drawSignFlips(n: number, rounds: number, seed: number): Generator<void, SignFlips> {
  const perRound = Math.ceil(n / 32);
  const words = new Uint32Array(rounds * perRound);
  const rng = createRng(seed);
  for (let r0 = 0; r0 < rounds; r0 += ROUNDS_PER_STEP) {
    fillWords(words, rng, r0 * perRound, Math.min(rounds, r0 + ROUNDS_PER_STEP) * perRound);
    yield;
  }
  return { n, rounds, seed, words };
}

// The steps' loops live in plain functions (V8 optimizes those well; a hot loop inside a generator
// ran about three times slower).

function fillWords(words: Uint32Array, rng: () => number, from: number, to: number): void {
  for (let i = from; i < to; i++) words[i] = rng();
}

function rememberFlips(key: string, flips: SignFlips): SignFlips {
  if (signFlipMemo.size >= 64) signFlipMemo.delete(signFlipMemo.keys().next().value as string);
  signFlipMemo.set(key, flips);
  return flips;
}

/** The sign flips of {@link SignFlips} for `n` queries (memoised per n, rounds and seed: ~1.3 MB per 10,000 rounds of 1,000 queries). */
export function signFlips(n: number, rounds: number, seed: number): SignFlips {
  const key = `${n}/${rounds}/${seed}`;
  return signFlipMemo.get(key) ?? rememberFlips(key, runSteps(drawSignFlips(n, rounds, seed)));
}

/** {@link signFlips}, giving the event loop a turn every `turns` interval (the same flips, the same memo). */
export async function signFlipsAsync(n: number, rounds: number, seed: number, turns: EventLoopTurns | undefined): Promise<SignFlips> {
  const key = `${n}/${rounds}/${seed}`;
  const memo = signFlipMemo.get(key);
  if (memo !== undefined) return memo;
  const flips = await runStepsAsync(drawSignFlips(n, rounds, seed), turns, () => `the sign flips stopped (${rounds} rounds)`);
  return signFlipMemo.get(key) ?? rememberFlips(key, flips);
}

/**
 * For each round of `flips`, the sum of `values` with the flipped ones negated:
 * `Σ x_i − 2 Σ_{i flipped} x_i`, the flipped part summed eight queries at a time from a table of the
 * 256 subset sums of each group of eight (so a round costs n/8 look-ups, not n additions).
 */
export function signFlipSums(values: ArrayLike<number>, flips: SignFlips): Float64Array {
  return runSteps(flipSumSteps(values, flips));
}

/** {@link signFlipSums}, giving the event loop a turn every `turns` interval (the same sums, bit for bit). */
export function signFlipSumsAsync(values: ArrayLike<number>, flips: SignFlips, turns: EventLoopTurns | undefined): Promise<Float64Array> {
  return runStepsAsync(flipSumSteps(values, flips), turns, () => `the randomization test stopped (${flips.rounds} rounds)`);
}

function* flipSumSteps(values: ArrayLike<number>, flips: SignFlips): Generator<void, Float64Array> {
  const n = values.length;
  if (n !== flips.n) throw new RangeError(`sign flips drawn for ${flips.n} queries, given ${n} values`);
  const groups = Math.ceil(n / 8);
  const table = new Float64Array(groups * 256);
  let total = 0;
  for (let i = 0; i < n; i++) total += values[i];
  for (let g = 0; g < groups; g++) {
    const base = g * 256;
    for (let v = 1; v < 256; v++) {
      const low = 31 - Math.clz32(v & -v); // the lowest set bit of v
      const i = g * 8 + low;
      table[base + v] = table[base + (v & (v - 1))] + (i < n ? values[i] : 0);
    }
  }
  const perRound = Math.ceil(n / 32);
  const rounds = flips.rounds;
  const columns = yield* transposedSteps(flips);
  const flipped = new Float64Array(rounds);
  // A step of rounds at a time, word by word (four groups of eight) within it: the word's four
  // tables stay in the first-level cache and the rounds' words are read in order (the flips kept
  // transposed). Each round adds its words in the same order as a single pass would: the same sums.
  for (let r0 = 0; r0 < rounds; r0 += ROUNDS_PER_STEP) {
    addFlipped(flipped, table, groups, columns, perRound, rounds, r0, Math.min(rounds, r0 + ROUNDS_PER_STEP));
    yield;
  }
  for (let r = 0; r < rounds; r++) flipped[r] = total - 2 * flipped[r];
  return flipped;
}

/** Adds rounds `r0`..`r1` (exclusive) of the flipped part, word by word. */
function addFlipped(
  flipped: Float64Array,
  table: Float64Array,
  groups: number,
  columns: Uint32Array,
  perRound: number,
  rounds: number,
  r0: number,
  r1: number,
): void {
  for (let w = 0; w < perRound; w++) {
    const g = w * 4;
    const t0 = table.subarray(g * 256, g * 256 + 256);
    const t1 = g + 1 < groups ? table.subarray((g + 1) * 256, (g + 2) * 256) : ZERO_TABLE;
    const t2 = g + 2 < groups ? table.subarray((g + 2) * 256, (g + 3) * 256) : ZERO_TABLE;
    const t3 = g + 3 < groups ? table.subarray((g + 3) * 256, (g + 4) * 256) : ZERO_TABLE;
    const col = w * rounds;
    for (let r = r0; r < r1; r++) {
      const word = columns[col + r];
      flipped[r] += t0[word & 255] + t1[(word >>> 8) & 255] + t2[(word >>> 16) & 255] + t3[word >>> 24];
    }
  }
}

const ZERO_TABLE = new Float64Array(256);

function transposeRounds(flips: SignFlips, perRound: number, columns: Uint32Array, r0: number, r1: number): void {
  const { rounds, words } = flips;
  for (let r = r0; r < r1; r++) for (let w = 0; w < perRound; w++) columns[w * rounds + r] = words[r * perRound + w];
}

const transposedMemo = new WeakMap<SignFlips, Uint32Array>();

/** The words of `flips` word-major: `columns[w * rounds + r]` is round r's word w (memoised per flips), a step of rounds at a time. */
function* transposedSteps(flips: SignFlips): Generator<void, Uint32Array> {
  const memo = transposedMemo.get(flips);
  if (memo !== undefined) return memo;
  const perRound = Math.ceil(flips.n / 32);
  const columns = new Uint32Array(flips.words.length);
  for (let r0 = 0; r0 < flips.rounds; r0 += ROUNDS_PER_STEP) {
    transposeRounds(flips, perRound, columns, r0, Math.min(flips.rounds, r0 + ROUNDS_PER_STEP));
    yield;
  }
  transposedMemo.set(flips, columns);
  return columns;
}

/**
 * The randomization p-value of a pair from the two systems' flipped sums over the same flips:
 * (hits + 1) / (rounds + 1), a hit being |sumsA[r] − sumsB[r]| >= |observed| − 1e-12·`scale`,
 * `observed` the sum of the per-query differences and `scale` the sum of their absolute values (the
 * largest any labelling can reach): a labelling that ties the observed one up to rounding counts
 * as a hit, also when the true difference is 0 and rounding left a few 1e-18 of it.
 */
export function randomizationPValue(sumsA: Float64Array, sumsB: Float64Array, observed: number, scale: number): number {
  const threshold = Math.abs(observed) - 1e-12 * scale;
  let hits = 0;
  for (let r = 0; r < sumsA.length; r++) if (Math.abs(sumsA[r] - sumsB[r]) >= threshold) hits++;
  return (hits + 1) / (sumsA.length + 1);
}

/**
 * Fisher's paired randomization test (Smucker et al., CIKM 2007) by Monte Carlo: each of
 * `permutations` (default 10,000) rounds flips the sign of every per-query difference with
 * probability 1/2 (= swapping the two systems' values of that query); the p-value is
 * (hits + 1) / (permutations + 1), where a hit is |mean of the flipped differences| >= |observed
 * mean| (up to rounding: see {@link randomizationPValue}). The
 * flips are those of {@link signFlips} (the same for every pair of the same size and seed).
 */
export function randomizationTest(
  treatment: ArrayLike<number>,
  control: ArrayLike<number>,
  options: { permutations?: number; seed?: number } = {},
): PairedTestResult {
  const d = differences(treatment, control);
  const n = d.length;
  let observed = 0;
  let scale = 0;
  for (let i = 0; i < n; i++) {
    observed += d[i];
    scale += Math.abs(d[i]);
  }
  const flips = signFlips(n, options.permutations ?? 10000, options.seed ?? 42);
  const pValue = randomizationPValue(signFlipSums(treatment, flips), signFlipSums(control, flips), observed, scale);
  return { delta: n > 0 ? observed / n : 0, ci: null, pValue };
}

/** Linear-interpolated quantile of sorted values (numpy's default `linear` method). */
function quantileSorted(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Paired bootstrap over queries: `samples` (default 10,000) resamples of the query set with
 * replacement; the CI is the percentile interval of the resampled mean differences at
 * `confidence` (default 0.95); the two-sided p-value is the shifted-null bootstrap
 * (Efron & Tibshirani 1993, §16.4): (#{|mean* − mean| >= |mean|} + 1) / (samples + 1).
 */
export function pairedBootstrap(
  treatment: ArrayLike<number>,
  control: ArrayLike<number>,
  options: { samples?: number; seed?: number; confidence?: number } = {},
): PairedTestResult {
  return pairedBootstrapMany([treatment], control, options)[0];
}

/**
 * {@link pairedBootstrap} of several treatments against one control on the same queries, in one
 * pass: each resample's draws are taken once, as counts per query, and every treatment's sum is
 * taken over the queries drawn (four treatments per pass), so `k` treatments cost far less than
 * `k` separate runs. Each result
 * equals `pairedBootstrap(treatments[j], control, options)` exactly (the same draws, the same
 * order of additions).
 */
export function pairedBootstrapMany(
  treatments: ReadonlyArray<ArrayLike<number>>,
  control: ArrayLike<number>,
  options: { samples?: number; seed?: number; confidence?: number } = {},
): PairedTestResult[] {
  const run = bootstrapRun(treatments, control, options);
  for (let b = 0; b < run.samples; b++) run.resample(b);
  return run.finish();
}

/**
 * {@link pairedBootstrapMany} with a turn of the event loop every 50 ms of resampling (`turns`),
 * so Ctrl-C stops it there; the same results.
 */
export async function pairedBootstrapManyAsync(
  treatments: ReadonlyArray<ArrayLike<number>>,
  control: ArrayLike<number>,
  options: { samples?: number; seed?: number; confidence?: number },
  turns: EventLoopTurns,
): Promise<PairedTestResult[]> {
  const run = bootstrapRun(treatments, control, options);
  for (let b = 0; b < run.samples; b++) {
    run.resample(b);
    if ((b & 63) === 63 && turns.due()) await turns.take(() => `the bootstrap stopped after ${b + 1} of ${run.samples} resamples`);
  }
  return run.finish();
}

/** The state of a paired bootstrap of several treatments: one resample at a time, then the results. */
function bootstrapRun(
  treatments: ReadonlyArray<ArrayLike<number>>,
  control: ArrayLike<number>,
  options: { samples?: number; seed?: number; confidence?: number },
): { samples: number; resample(b: number): void; finish(): PairedTestResult[] } {
  const k = treatments.length;
  const diffs = treatments.map((t) => differences(t, control));
  const n = control.length;
  const confidence = options.confidence ?? 0.95;
  if (n === 0) return { samples: 0, resample() {}, finish: () => diffs.map(() => ({ delta: 0, ci: null, pValue: 1 })) };
  const samples = options.samples ?? 10000;
  const rng = createRng(options.seed ?? 42);
  const m = diffs.map((d) => mean(d));
  const threshold = m.map((x) => Math.abs(x) * (1 - 1e-12));
  const means = diffs.map(() => new Float64Array(samples));
  const hits = new Array<number>(k).fill(0);
  // Each resample as the list of queries drawn with their counts (ascending), then every
  // treatment's sum over that list, four treatments per pass with their sums in registers.
  const counts = new Uint32Array(n);
  const drawn = new Int32Array(n);
  const times = new Float64Array(n);
  const record = (t: number, b: number, sum: number): void => {
    const mb = sum / n;
    means[t][b] = mb;
    if (Math.abs(mb - m[t]) >= threshold[t]) hits[t]++;
  };
  const resample = (b: number): void => {
    for (let i = 0; i < n; i++) counts[Math.floor((rng() / 4294967296) * n)]++;
    let q = 0;
    for (let i = 0; i < n; i++) {
      if (counts[i] === 0) continue;
      drawn[q] = i;
      times[q++] = counts[i];
      counts[i] = 0;
    }
    let j = 0;
    for (; j + 4 <= k; j += 4) {
      const d0 = diffs[j];
      const d1 = diffs[j + 1];
      const d2 = diffs[j + 2];
      const d3 = diffs[j + 3];
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let r = 0; r < q; r++) {
        const i = drawn[r];
        const c = times[r];
        s0 += c * d0[i];
        s1 += c * d1[i];
        s2 += c * d2[i];
        s3 += c * d3[i];
      }
      record(j, b, s0);
      record(j + 1, b, s1);
      record(j + 2, b, s2);
      record(j + 3, b, s3);
    }
    for (; j < k; j++) {
      const d = diffs[j];
      let sum = 0;
      for (let r = 0; r < q; r++) sum += times[r] * d[drawn[r]];
      record(j, b, sum);
    }
  };
  const alpha = 1 - confidence;
  const finish = (): PairedTestResult[] =>
    diffs.map((_, j) => {
      means[j].sort();
      return {
        delta: m[j],
        ci: [quantileSorted(means[j], alpha / 2), quantileSorted(means[j], 1 - alpha / 2)],
        pValue: (hits[j] + 1) / (samples + 1),
      };
    });
  return { samples, resample, finish };
}

/**
 * Holm–Bonferroni adjusted p-values, in input order: sort ascending p(1) <= ... <= p(m),
 * p̃(i) = max_{j<=i} min(1, (m − j + 1)·p(j)) (step-down, monotone). Rejecting where
 * p̃ <= α is Holm's procedure at level α. NaN inputs stay NaN and do not count in m.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const idx = pValues.map((p, i) => [p, i] as const).filter(([p]) => !Number.isNaN(p));
  idx.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const m = idx.length;
  const out = pValues.map(() => NaN);
  let running = 0;
  idx.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/**
 * McNemar's exact test (two-sided) on the discordant pairs of a paired 2×2 table: under H0 each of
 * the `b + c` discordant pairs falls either way with probability ½, so p = min(1, 2·P[X ≤ min(b, c)])
 * for X ~ Binomial(b + c, ½). 1 when there is no discordant pair. Terms are exact
 * products up to 1000 discordant pairs and summed in log space beyond (no underflow of 2^−n).
 * @param b pairs passing only in the first condition (e.g. original only)
 * @param c pairs passing only in the second condition (e.g. rewritten only)
 */
export function mcnemarExactP(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0)
    throw new RangeError(`McNemar counts must be non-negative integers, got ${b}, ${c}`);
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let sum = 0;
  if (n <= 1000) {
    // C(n, i) / 2^n by exact-as-possible products (2^-n is exact in doubles down to 2^-1074).
    let term = 2 ** -n;
    for (let i = 0; i <= k; i++) {
      if (i > 0) term = (term * (n - i + 1)) / i;
      sum += term;
    }
  } else {
    let logC = 0; // ln C(n, 0)
    const ln2n = n * Math.LN2;
    for (let i = 0; i <= k; i++) {
      if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
      sum += Math.exp(logC - ln2n);
    }
  }
  return Math.min(1, 2 * sum);
}

/**
 * The unbiased pass@k estimator (Chen et al. 2021): from `n` samples of which `c` pass,
 * pass@k = 1 − C(n−c, k) / C(n, k), computed as the stable product 1 − ∏_{i=n−c+1}^{n} (1 − k/i).
 * For k = 1 it equals c / n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs integers 0 <= c <= n, 1 <= k <= n; got n=${n}, c=${c}, k=${k}`);
  }
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}
