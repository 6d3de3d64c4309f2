import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventLoopTurns } from '../core/event-loop-turns.js';
import {
  createRng,
  holmAdjust,
  logGamma,
  pairedBootstrap,
  pairedBootstrapMany,
  pairedTTest,
  randomizationTest,
  signFlipSums,
  signFlipSumsAsync,
  signFlips,
  signFlipsAsync,
  studentTCdf,
  studentTQuantile,
  studentTTwoSided,
} from './significance.js';

const close = (actual: number, expected: number, rel = 1e-10, what = '') =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.max(1e-300, Math.abs(expected)), `${what} ${actual} vs ${expected}`);

test('logGamma matches factorials and Γ(1/2) = √π', () => {
  assert.ok(Math.abs(logGamma(1)) < 1e-14, 'lnΓ(1) = 0');
  close(Math.exp(logGamma(6)), 120, 1e-13);
  close(Math.exp(logGamma(0.5)), Math.sqrt(Math.PI), 1e-13);
  close(logGamma(101), 363.73937555556347, 1e-13); // ln(100!)
});

test('Student t two-sided tail equals the closed forms for df = 1 (Cauchy) and df = 2', () => {
  for (const t of [0.1, 0.5, 1, 2.5, 10, 100]) {
    close(studentTTwoSided(t, 1), 1 - (2 / Math.PI) * Math.atan(t), 1e-12, `df=1 t=${t}`);
    close(studentTTwoSided(-t, 2), 1 - t / Math.sqrt(2 + t * t), 1e-12, `df=2 t=${t}`);
  }
  assert.equal(studentTTwoSided(Infinity, 5), 0);
  assert.equal(studentTTwoSided(0, 5), 1);
});

// Reference values from scipy 1.17.1: 2*stats.t.sf(|t|, df), stats.t.cdf(t, df), stats.t.ppf(p, df).
const SCIPY_T: Array<[number, number, number, number]> = [
  [0.5, 1, 0.7048327646991335, 0.6475836176504333],
  [2.0, 5, 0.10193947882985835, 0.9490302605850708],
  [2.228, 10, 0.05001177181711132, 0.9749941140914443],
  [-3.5, 29, 0.0015244463146546023, 0.0007622231573273012],
  [0.1, 2500, 0.9203523434835416, 0.5398238282582293],
  [4.2, 2500, 2.7626180580087612e-5, 0.99998618690971],
  [10, 7, 2.1394202890772802e-5, 0.9999893028985546],
  [1.96, 1e6, 0.04999606758526985, 0.9750019662073651],
];

test('Student t distribution equals scipy.stats.t', () => {
  for (const [t, df, p2, cdf] of SCIPY_T) {
    close(studentTTwoSided(t, df), p2, 1e-9, `two-sided t=${t} df=${df}`);
    close(studentTCdf(t, df), cdf, 1e-9, `cdf t=${t} df=${df}`);
  }
  close(studentTQuantile(0.975, 9), 2.262157162798205, 1e-9);
  close(studentTQuantile(0.975, 100), 1.9839715185235518, 1e-9);
  close(studentTQuantile(0.995, 3), 5.840909309733355, 1e-9);
  close(studentTQuantile(0.025, 9), -2.262157162798205, 1e-9);
});

const A = [0.61, 0.42, 0.88, 0.1, 0.55, 0.73, 0.29, 0.91, 0.47, 0.66, 0.38, 0.8];
const B = [0.52, 0.4, 0.71, 0.15, 0.43, 0.7, 0.31, 0.77, 0.39, 0.58, 0.41, 0.69];

test('paired t-test equals scipy.stats.ttest_rel (p and 95% CI)', () => {
  const r = pairedTTest(A, B);
  close(r.pValue, 0.01184431571026405, 1e-9, 'p');
  close(r.delta, 0.06166666666666667, 1e-12, 'delta');
  close(r.ci![0], 0.016589735916235936, 1e-8, 'lo');
  close(r.ci![1], 0.10674359741709744, 1e-8, 'hi');
  // Swapping the systems flips the sign of delta, not the p-value.
  const s = pairedTTest(B, A);
  close(s.pValue, r.pValue, 1e-12);
  close(s.delta, -r.delta, 1e-12);
});

test('paired t-test degenerate cases', () => {
  assert.equal(pairedTTest([0.5, 0.5], [0.5, 0.5]).pValue, 1);
  assert.equal(pairedTTest([0.6, 0.7], [0.5, 0.6]).pValue, 0);
  assert.equal(pairedTTest([1], [0]).pValue, 1);
});

/** Exact two-sided sign-flip p-value by enumerating all 2^n labellings (independent reference). */
function exactSignFlip(a: number[], b: number[]): number {
  const d = a.map((x, i) => x - b[i]);
  const obs = Math.abs(d.reduce((s, x) => s + x, 0));
  let hits = 0;
  for (let mask = 0; mask < 1 << d.length; mask++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += mask & (1 << i) ? -d[i] : d[i];
    if (Math.abs(s) >= obs - 1e-12) hits++;
  }
  return hits / (1 << d.length);
}

/** ranx-style randomization (swap each pair with probability 1/2, compare |Δmean|), own PRNG. */
function swapRandomization(a: number[], b: number[], rounds: number, seed: number): number {
  let x = seed;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const obs = Math.abs(a.reduce((s, v, i) => s + v - b[i], 0) / a.length);
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < a.length; i++) {
      const swap = rand() < 0.5;
      sa += swap ? b[i] : a[i];
      sb += swap ? a[i] : b[i];
    }
    if (Math.abs(sa - sb) / a.length >= obs - 1e-12) hits++;
  }
  return (hits + 1) / (rounds + 1);
}

test('randomization test is within Monte Carlo error of the exact and of an independent implementation', () => {
  const exact = exactSignFlip(A, B);
  assert.equal(exact, 66 / 4096); // scipy/numpy enumeration gives 66 of 4096 as well
  const n = 10000;
  const se = Math.sqrt((exact * (1 - exact)) / n);
  for (const seed of [1, 42, 7]) {
    const r = randomizationTest(A, B, { seed });
    assert.ok(Math.abs(r.pValue - exact) < 4 * se + 1 / n, `seed ${seed}: ${r.pValue} vs exact ${exact}`);
  }
  const other = swapRandomization(A, B, n, 12345);
  assert.ok(Math.abs(randomizationTest(A, B).pValue - other) < 4 * Math.SQRT2 * se + 2 / n, `vs independent ${other}`);
  // Seeded: same seed, same p; p is never 0 ((hits + 1) / (n + 1)).
  assert.equal(randomizationTest(A, B, { seed: 3 }).pValue, randomizationTest(A, B, { seed: 3 }).pValue);
  const identical = randomizationTest(A, A, { permutations: 99 });
  assert.equal(identical.pValue, 1);
  const far = randomizationTest(new Array(40).fill(1), new Array(40).fill(0), { permutations: 999 });
  assert.equal(far.pValue, 1 / 1000);
});

test('paired bootstrap: percentile CI near the normal interval, seeded, p consistent with the t-test', () => {
  const r = pairedBootstrap(A, B, { seed: 5 });
  const t = pairedTTest(A, B);
  close(r.delta, t.delta, 1e-12);
  assert.ok(r.ci![0] < r.delta && r.delta < r.ci![1]);
  // The bootstrap SE is the plug-in sd/√n, slightly narrower than the t interval.
  assert.ok(Math.abs(r.ci![0] - t.ci![0]) < 0.015 && Math.abs(r.ci![1] - t.ci![1]) < 0.015, `${r.ci} vs ${t.ci}`);
  assert.ok(r.pValue < 0.05 && r.pValue > 0.0001, `bootstrap p ${r.pValue}`);
  assert.deepEqual(pairedBootstrap(A, B, { seed: 5 }), r);
});

test('Holm–Bonferroni: hand-computed adjustments, monotone, capped at 1', () => {
  const adj = holmAdjust([0.01, 0.04, 0.03, 0.005]);
  // sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> max(0.06, 0.04) = 0.06
  [0.03, 0.06, 0.06, 0.02].forEach((e, i) => close(adj[i], e, 1e-12));
  assert.deepEqual(holmAdjust([0.5, 0.9]), [1, 1]);
  const withNaN = holmAdjust([NaN, 0.02]);
  assert.ok(Number.isNaN(withNaN[0]));
  close(withNaN[1], 0.02, 1e-12);
});

test('createRng is deterministic per seed', () => {
  const a = createRng(9);
  const b = createRng(9);
  for (let i = 0; i < 5; i++) assert.equal(a(), b());
  assert.notEqual(createRng(1)(), createRng(2)());
});

test('p-values equal scipy computed live (when python3 with scipy is installed)', (t) => {
  const probe = spawnSync('python3', ['-c', 'import scipy'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('python3 with scipy not installed; the fixed scipy values above still ran');
    return;
  }
  const rng = createRng(77);
  const a = Array.from({ length: 300 }, () => rng() / 2 ** 32);
  const b = a.map((x) => Math.min(1, Math.max(0, x + (rng() / 2 ** 32 - 0.45) * 0.3)));
  const script = `import json,sys\nfrom scipy import stats\nd=json.load(sys.stdin)\nr=stats.ttest_rel(d['a'],d['b'])\nprint(json.dumps([r.pvalue]+list(r.confidence_interval(0.95))))`;
  const out = spawnSync('python3', ['-c', script], { input: JSON.stringify({ a, b }), encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const [p, lo, hi] = JSON.parse(out.stdout) as number[];
  const r = pairedTTest(a, b);
  close(r.pValue, p, 1e-8, 'p');
  close(r.ci![0], lo, 1e-8, 'lo');
  close(r.ci![1], hi, 1e-8, 'hi');
});

/** The sign-flip test written out round by round (each per-query difference flipped by its bit), as coreb did before the flipped sums. */
function naiveRandomization(t: number[], c: number[], rounds: number, seed: number): number {
  const d = t.map((x, i) => x - c[i]);
  const rng = createRng(seed);
  let observed = 0;
  let scale = 0;
  for (const x of d) {
    observed += x;
    scale += Math.abs(x);
  }
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < d.length; i++) {
      if ((i & 31) === 0) bits = rng();
      s += bits & 1 ? -d[i] : d[i];
      bits >>>= 1;
    }
    if (Math.abs(s) >= Math.abs(observed) - 1e-12 * scale) hits++;
  }
  return (hits + 1) / (rounds + 1);
}

test('randomization from per-system flipped sums gives the p-values of flipping each difference, on real, binary and tied values', () => {
  const u = createRng(11);
  for (const n of [1, 7, 32, 33, 300, 2604]) {
    for (const kind of ['real', 'binary', 'thirds']) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < n; i++) {
        const x = u() / 2 ** 32;
        const y = u() / 2 ** 32;
        a.push(kind === 'real' ? x : kind === 'binary' ? Number(x < 0.5) : Math.floor(x * 4) / 3);
        b.push(kind === 'real' ? Math.min(1, y + 0.02) : kind === 'binary' ? Number(y < 0.45) : Math.floor(y * 4) / 3);
      }
      assert.equal(randomizationTest(a, b, { permutations: 2000, seed: 5 }).pValue, naiveRandomization(a, b, 2000, 5), `${kind}, n=${n}`);
    }
  }
  // Thirds whose differences sum to 0 up to rounding: every labelling ties, p = 1.
  const a = [1 / 3, 2 / 3, 0, 1, 1 / 3, 2 / 3];
  const b = [2 / 3, 1 / 3, 1, 0, 2 / 3, 1 / 3];
  assert.equal(randomizationTest(a, b, { permutations: 999 }).pValue, 1);
});

test('pairedBootstrapMany equals pairedBootstrap of each treatment, to the last bit', () => {
  const u = createRng(3);
  const control = Array.from({ length: 257 }, () => u() / 2 ** 32);
  const treatments = [0, 0.01, -0.02, 0.3].map((shift) => control.map((c, i) => Math.min(1, Math.max(0, c + shift + (i % 5 === 0 ? 0.1 : 0)))));
  const many = pairedBootstrapMany(treatments, control, { samples: 500, seed: 9 });
  treatments.forEach((t, j) => assert.deepEqual(many[j], pairedBootstrap(t, control, { samples: 500, seed: 9 })));
});

test('the paired bootstrap is the textbook one: each resample draws n queries with replacement and averages their differences', () => {
  const u = createRng(11);
  const control = Array.from({ length: 103 }, () => u() / 2 ** 32);
  const treatment = control.map((c, i) => Math.min(1, c + (i % 3 === 0 ? 0.08 : -0.01)));
  const samples = 300;
  // Draw by draw, with the same generator and the same draws.
  const rng = createRng(4);
  const d = treatment.map((t, i) => t - control[i]);
  const observed = d.reduce((a, b) => a + b, 0) / d.length;
  const means: number[] = [];
  let hits = 0;
  for (let b = 0; b < samples; b++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor((rng() / 4294967296) * d.length)];
    means.push(s / d.length);
    if (Math.abs(s / d.length - observed) >= Math.abs(observed) * (1 - 1e-12)) hits++;
  }
  means.sort((a, b) => a - b);
  const r = pairedBootstrap(treatment, control, { samples, seed: 4 });
  close(r.delta, observed, 1e-15, 'delta');
  assert.equal(r.pValue, (hits + 1) / (samples + 1));
  const h = (samples - 1) * 0.025;
  close(r.ci![0], means[Math.floor(h)] + (h - Math.floor(h)) * (means[Math.floor(h) + 1] - means[Math.floor(h)]), 1e-12, 'ci low');
});

test('sign flips and flipped sums computed a step at a time are the one-pass ones bit for bit; the event loop runs between steps and Ctrl-C stops them', async () => {
  const rng = createRng(3);
  const values = Float64Array.from({ length: 70 }, () => rng() / 2 ** 32);
  // Rounds over several steps (4,096 each), a partial last one: new seeds, so nothing comes from the memo.
  const rounds = 40_000;
  const flips = await signFlipsAsync(values.length, rounds, 1001, new EventLoopTurns(undefined, 0));
  assert.equal(signFlips(values.length, rounds, 1001), flips, 'one memo for both');
  // Each round's flipped sum, checked against the bits directly (first, step edges, last).
  const sums = signFlipSums(values, flips);
  const perRound = Math.ceil(values.length / 32);
  for (const r of [0, 4_095, 4_096, 16_384, rounds - 1]) {
    let direct = 0;
    for (let i = 0; i < values.length; i++) direct += (flips.words[r * perRound + (i >>> 5)] >>> (i & 31)) & 1 ? -values[i] : values[i];
    close(sums[r], direct, 1e-12, `round ${r}`);
  }
  const oneBlock = signFlipSums(values, signFlips(values.length, rounds, 1002));
  let turnsTaken = 0;
  const counting = new EventLoopTurns(undefined, 0);
  const take = counting.take.bind(counting);
  counting.take = (stopped) => {
    turnsTaken++;
    return take(stopped);
  };
  const stepped = await signFlipSumsAsync(values, await signFlipsAsync(values.length, rounds, 1002, counting), counting);
  assert.deepEqual(stepped, oneBlock);
  assert.ok(turnsTaken >= 3, `the event loop had ${turnsTaken} turns`);
  const controller = new AbortController();
  controller.abort(new Error('interrupted by SIGINT'));
  await assert.rejects(signFlipsAsync(values.length, rounds, 1003, new EventLoopTurns(controller.signal, 0)), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'INTERRUPTED');
    assert.match(e.message, /sign flips stopped .*SIGINT/);
    return true;
  });
});
