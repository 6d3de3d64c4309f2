/**
 * Cells the ranked tables share (leaderboards, compare, the HTML report and the site): a score
 * with 4 decimals and the letter that names a row in significance marks. Pure.
 */

/** A score with 4 decimals (as trec_eval prints), `–` for a missing or non-finite value. */
export function formatScore(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(4);
}

/** The letter of the i-th row of a ranked table: a, b, ..., z, aa, ab, ... (what significance superscripts name). */
export function rowLetter(i: number): string {
  return i < 26 ? String.fromCharCode(97 + i) : rowLetter(Math.floor(i / 26) - 1) + String.fromCharCode(97 + (i % 26));
}
