/**
 * glibc-exact `log2` for the nDCG discount. trec_eval divides each gain by glibc `log2(rank + 1)`;
 * V8's Math.log2 differs by one ulp for 243 integers up to 1,000,002, so those come from a table.
 */
import { GLIBC_LOG2_CHECKED_UP_TO, GLIBC_LOG2_EXCEPTIONS } from './glibc-log2-table.js';

let exceptions: Map<number, number> | undefined;

function exceptionTable(): Map<number, number> {
  if (exceptions === undefined) {
    exceptions = new Map();
    const view = new DataView(new ArrayBuffer(8));
    for (const [n, hex] of GLIBC_LOG2_EXCEPTIONS) {
      view.setUint32(0, parseInt(hex.slice(0, 8), 16));
      view.setUint32(4, parseInt(hex.slice(8), 16));
      exceptions.set(n, view.getFloat64(0));
    }
  }
  return exceptions;
}

/**
 * `log2(n)` bit-identical to glibc for every integer `n` in [1, 1,000,002] (checked range
 * {@link GLIBC_LOG2_CHECKED_UP_TO}); above that it is V8's Math.log2, which may differ by one ulp.
 */
export function glibcLog2(n: number): number {
  const fix = n >= 1375 ? exceptionTable().get(n) : undefined;
  return fix === undefined ? Math.log2(n) : fix;
}

let discounts = new Float64Array(0);

/**
 * nDCG discount denominators: element `i` is glibc `log2(i + 2)` (the discount of 0-based rank i).
 * Grown on demand and shared; callers must not write to it.
 * @param length - minimum number of ranks needed.
 */
export function discountTable(length: number): Float64Array {
  if (discounts.length < length) {
    const next = new Float64Array(Math.max(length, discounts.length * 2, 1024));
    for (let i = 0; i < next.length; i++) next[i] = glibcLog2(i + 2);
    discounts = next;
  }
  return discounts;
}

export { GLIBC_LOG2_CHECKED_UP_TO };
