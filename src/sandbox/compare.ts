/**
 * Output comparators of the judge. The rule is chosen per run and recorded with every result, because
 * judges disagree here (LiveCodeBench: stripped lines or exact decimals; ExecEval: tokens within 1e-12;
 * judge0: rstrip exact) and float outputs fail falsely under exact rules.
 */
import type { ComparatorName } from '../core/execution.js';

/** Options of {@link compareOutput}. */
export interface CompareOptions {
  /** Absolute and relative tolerance for numbers under `tokens`; default 1e-6. */
  tolerance?: number;
}

/** Outcome of a comparison: `ok`, or the first difference in words. */
export interface CompareOutcome {
  ok: boolean;
  detail?: string;
}

/**
 * Compares program output `actual` with one acceptable `expected` output.
 *
 * - `exact` (LiveCodeBench-compatible): both texts are stripped and split into lines; line counts must
 *   match; each pair of stripped lines must be equal, or else both split on whitespace into the same
 *   number of decimals that are exactly equal (`1.50` = `1.5`, `2` = `2.0`; no tolerance).
 * - `tokens`: whitespace-separated tokens; equal strings, or equal numbers. When the expected token is an
 *   integer literal the value must be exactly equal (`007` = `7`, `7.0` = `7`, but `7512862832` is not
 *   `7512862831`: a relative tolerance would accept off-by-one answers on large counts). Otherwise both
 *   numbers may differ by `|a - b| <= tol` or `|a - b| <= tol * |b|` (tol default 1e-6), the Codeforces
 *   `rcmp`-style rule for real-valued answers.
 * - `lines`: each line right-stripped, trailing empty lines dropped, then equal.
 */
export function compareOutput(comparator: ComparatorName, actual: string, expected: string, options: CompareOptions = {}): CompareOutcome {
  switch (comparator) {
    case 'exact':
      return compareExact(actual, expected);
    case 'tokens':
      return compareTokens(actual, expected, options.tolerance ?? 1e-6);
    case 'lines':
      return compareLines(actual, expected);
  }
}

/** True when `actual` matches any of `expected` (several acceptable outputs). */
export function compareAny(comparator: ComparatorName, actual: string, expected: readonly string[], options: CompareOptions = {}): CompareOutcome {
  let first: CompareOutcome = { ok: false, detail: 'no expected output' };
  for (let i = 0; i < expected.length; i++) {
    const r = compareOutput(comparator, actual, expected[i], options);
    if (r.ok) return r;
    if (i === 0) first = r;
  }
  return first;
}

function clip(s: string): string {
  return JSON.stringify(s.length > 40 ? s.slice(0, 40) + '…' : s);
}

function compareExact(actual: string, expected: string): CompareOutcome {
  const a = actual.trim().split('\n');
  const e = expected.trim().split('\n');
  if (a.length !== e.length) return { ok: false, detail: `${a.length} lines, expected ${e.length}` };
  for (let i = 0; i < a.length; i++) {
    const x = a[i].trim();
    const y = e[i].trim();
    if (x === y) continue;
    const xs = x.split(/\s+/);
    const ys = y.split(/\s+/);
    let same = xs.length === ys.length;
    for (let k = 0; same && k < xs.length; k++) {
      const p = canonicalDecimal(xs[k]);
      same = p !== undefined && p === canonicalDecimal(ys[k]);
    }
    if (!same) return { ok: false, detail: `line ${i + 1}: ${clip(x)}, expected ${clip(y)}` };
  }
  return { ok: true };
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A canonical form of a decimal literal so that equal values compare equal as strings
 * (`-0` = `0`, `1.50` = `1.5`, `1e2` = `100`); undefined when `s` is not a decimal.
 */
export function canonicalDecimal(s: string): string | undefined {
  const m = DECIMAL.exec(s);
  if (!m) return undefined;
  const [, sign, int = '', frac = '', exp = '0'] = m;
  if (int === '' && frac === '') return undefined;
  let digits = (int + frac).replace(/^0+/, '');
  let e = Number(exp) - frac.length;
  if (digits === '') return '0';
  const trailing = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trailing);
  e += trailing;
  return `${sign === '-' ? '-' : ''}${digits}e${e}`;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

/**
 * Version of the comparison rules; part of every judge description (and so of resume keys), so results
 * judged under older rules are judged again. 2: integer expected tokens compare exactly under `tokens`.
 */
export const COMPARATOR_RULES_VERSION = 2;

function compareTokens(actual: string, expected: string, tol: number): CompareOutcome {
  const a = actual.split(/\s+/).filter((t) => t !== '');
  const e = expected.split(/\s+/).filter((t) => t !== '');
  if (a.length !== e.length) return { ok: false, detail: `${a.length} tokens, expected ${e.length}` };
  for (let i = 0; i < a.length; i++) {
    if (a[i] === e[i]) continue;
    if (INTEGER.test(e[i])) {
      if (NUMBER.test(a[i]) && canonicalDecimal(a[i]) === canonicalDecimal(e[i])) continue;
    } else if (NUMBER.test(a[i]) && NUMBER.test(e[i])) {
      const x = Number(a[i]);
      const y = Number(e[i]);
      const d = Math.abs(x - y);
      if (d <= tol || d <= tol * Math.abs(y)) continue;
    }
    return { ok: false, detail: `token ${i + 1}: ${clip(a[i])}, expected ${clip(e[i])}` };
  }
  return { ok: true };
}

function linesOf(s: string): string[] {
  const lines = s.split('\n').map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function compareLines(actual: string, expected: string): CompareOutcome {
  const a = linesOf(actual);
  const e = linesOf(expected);
  const n = Math.max(a.length, e.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== e[i]) {
      return { ok: false, detail: `line ${i + 1}: ${clip(a[i] ?? '<missing>')}, expected ${clip(e[i] ?? '<missing>')}` };
    }
  }
  return { ok: true };
}

/**
 * Compares two JSON values for `functional` tests: deep equality, numbers within `tolerance`
 * (absolute or relative) when given, exact otherwise.
 */
export function jsonEqual(a: unknown, b: unknown, tolerance?: number): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a === b) return true;
    if (tolerance === undefined) return false;
    const d = Math.abs(a - b);
    return d <= tolerance || d <= tolerance * Math.abs(b);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i], tolerance));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    if (Array.isArray(a) || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tolerance))
    );
  }
  return a === b;
}
