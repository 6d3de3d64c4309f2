/**
 * Conversions between JavaScript numbers and the 16-bit float formats safetensors files hold
 * (IEEE 754 binary16 `F16` and bfloat16 `BF16`), rounding to nearest, ties to even, from a double
 * in one step (no double rounding), with NaN, infinities and subnormals handled.
 */
import { encodeF16Simd, SIMD_MIN_VALUES } from './float16-simd.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * The float32 bit pattern of `x` rounded to odd: exact values pass unchanged; an inexact one takes
 * the neighbouring float32 whose last mantissa bit is 1. Rounding that result to a format with at
 * least 2 fewer mantissa bits (bf16: 8, f16: 11, against float32's 24) equals rounding `x` directly
 * (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
 * to odd", IEEE TC 2008), which is how a double becomes a 16-bit float with a single rounding.
 */
function float32BitsRoundedToOdd(x: number): number {
  f32[0] = x;
  let bits = u32[0];
  const r = f32[0];
  if (r !== x && !Number.isNaN(x) && (bits & 1) === 0) {
    // Inexact (NaN excluded). Step one ulp toward x, to the odd neighbour;
    // sign-magnitude encoding: a smaller magnitude is bits - 1, a larger one bits + 1.
    bits = Math.abs(r) > Math.abs(x) ? bits - 1 : bits + 1;
  }
  return bits >>> 0;
}

/**
 * `x` as bfloat16 bits (sign, 8-bit exponent, 7-bit mantissa), rounded to nearest, ties to even.
 * NaN stays NaN (quiet, sign kept); values past the largest bf16 (about 3.39e38) round to infinity.
 */
export function float64ToBf16(x: number): number {
  const b = float32BitsRoundedToOdd(x);
  if ((b & 0x7fffffff) > 0x7f800000) return ((b >>> 16) | 0x0040) & 0xffff;
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The value of bfloat16 bits `h` (exact: every bf16 value is a float32). */
export function bf16ToFloat64(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

/**
 * `x` as IEEE 754 binary16 bits (sign, 5-bit exponent, 10-bit mantissa), rounded to nearest, ties
 * to even, including into and out of the subnormal range (smallest subnormal 2^-24; values at or
 * below 2^-25 round to a signed zero, exactly 2^-25 is a tie and rounds to even, i.e. zero).
 * Finite values at or above 65520 round to infinity. NaN stays NaN (quiet, sign kept).
 */
export function float64ToF16(x: number): number {
  return f16OfFloat32Bits(float32BitsRoundedToOdd(x));
}

/**
 * Binary16 bits of the float32 with bits `b`, rounded to nearest, ties to even (the one rounding
 * {@link float64ToF16} does after its exact step to float32).
 */
export function f16OfFloat32Bits(b: number): number {
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  const mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 | (mant >>> 13) : 0);
  const e = exp - 112; // rebias 127 -> 15
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal f16: value = M * 2^(exp-150), M = 24-bit significand; f16 subnormal unit 2^-24.
    const shift = 126 - exp;
    if (shift > 24) return sign; // below half the smallest subnormal
    const m = mant | 0x800000;
    let q = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (q & 1) === 1)) q++;
    return sign | q; // q may carry into 0x400, the smallest normal: the encoding is still right
  }
  let q = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (q & 1) === 1)) q++; // a carry may reach 0x7c00 = infinity
  return sign | q;
}

/**
 * Writes `src` (float32) as binary16 bits into `dst` from `dstOffset`, each rounded as
 * {@link float64ToF16} rounds it, without a per-value trip through a double. Magnitudes that stay
 * normal in binary16 (2^-14 up to 65536, where rounding may carry into infinity) take one integer
 * sum: rebias the exponent, add just under half a unit in the last place plus the kept bit's
 * parity (ties to even), shift out the 13 dropped bits. The rest (subnormals, zero, infinities,
 * NaN) go through {@link f16OfFloat32Bits}. The same bits as it for all 2^32 patterns, about 2 ns a
 * value (a quarter of the general path's time). Arrays of 256 values or more are rounded with
 * WebAssembly SIMD where the runtime has it (`encodeF16Simd`: the same bits, about 1 ns a value
 * with the copies in and out).
 */
export function float32sToF16(src: Float32Array, dst: Uint16Array, dstOffset = 0): void {
  if (src.length >= SIMD_MIN_VALUES && encodeF16Simd(src, dst, dstOffset)) return;
  float32sToF16Scalar(src, dst, dstOffset);
}

/** {@link float32sToF16} in JavaScript alone (what runs for short arrays, or without WebAssembly SIMD). */
export function float32sToF16Scalar(src: Float32Array, dst: Uint16Array, dstOffset = 0): void {
  // Int32 lanes keep every value a small integer for V8; one unsigned compare tests the range.
  const bits = new Int32Array(src.buffer, src.byteOffset, src.length);
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i];
    const a = b & 0x7fffffff;
    dst[dstOffset + i] =
      (a - 0x38800000) >>> 0 < 0x0f000000 ? ((b >>> 16) & 0x8000) | ((a - 0x37fff001 + ((a >>> 13) & 1)) >>> 13) : f16OfFloat32Bits(b >>> 0);
  }
}

/** The value of binary16 bits `h` (exact). */
export function f16ToFloat64(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
