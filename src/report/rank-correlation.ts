/**
 * Rank correlations for the cross-release stability view (the paper's Table 14): Spearman's ρ
 * (Pearson correlation of average ranks) and Kendall's τ-b (tie-corrected). Pure.
 */

/** Average ranks (1-based; ties share the mean of their positions), descending by value. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
  const ranks = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = r;
    i = j + 1;
  }
  return ranks;
}

function pearson(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy);
}

/** Spearman's ρ of two paired samples (NaN for fewer than 2 pairs or a constant sample). */
export function spearman(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError('samples differ in length');
  if (x.length < 2) return NaN;
  return pearson(averageRanks(x), averageRanks(y));
}

/** Kendall's τ-b of two paired samples (NaN for fewer than 2 pairs or a constant sample). */
export function kendallTauB(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError('samples differ in length');
  let concordant = 0;
  let discordant = 0;
  let tx = 0;
  let ty = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign(x[i] - x[j]);
      const dy = Math.sign(y[i] - y[j]);
      if (dx === 0 && dy === 0) continue;
      if (dx === 0) tx++;
      else if (dy === 0) ty++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  }
  const d = Math.sqrt((concordant + discordant + tx) * (concordant + discordant + ty));
  return d === 0 ? NaN : (concordant - discordant) / d;
}
