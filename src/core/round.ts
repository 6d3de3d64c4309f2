/**
 * Decimal rounding as Python's `round(x, digits)` does it, which BEIR's and MTEB's written numbers
 * use: one definition for the protocols' aggregates and the MTEB export.
 */

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
