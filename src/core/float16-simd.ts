/**
 * IEEE binary16 <-> float32 conversion in WebAssembly SIMD, eight values a step, assembled here
 * from its opcodes. The same values as the scalar paths (`float16Table` lookups to decode,
 * `f16OfFloat32Bits`, round to nearest, ties to even, to encode), several times faster: float16
 * document vectors are decoded block by block at every search and rounded once at load.
 *
 * Decode (per 32-bit lane holding half bits h; m = h & 0x7fff): normal halves rebias the exponent,
 * `(m << 13) + (112 << 23)`, infinities and NaN add the bias again (exponent 255); zero and
 * subnormals are `m * 2^-24` (exact in float32); then the sign.
 * Encode (a = float bits without the sign): results that stay normal take one integer sum,
 * `(a - 0x37fff001 + ((a >> 13) & 1)) >> 13` (rebias, just under half an ulp plus the kept bit's
 * parity, then drop 13 bits; a carry may reach infinity, as it should); subnormal results come
 * from adding 0.5 in float32 (the addition rounds to nearest even at the half's last place) and
 * subtracting its bits; larger magnitudes are infinity, NaN stays NaN (quiet, top payload bits
 * kept); then the sign.
 */
import {
  BLOCK,
  END,
  I32,
  I32_ADD,
  I32_GE_U,
  I32_SHL,
  LOOP,
  V128,
  br,
  brIf,
  compileWasm,
  get,
  i32c,
  section,
  set,
  simd,
  uleb,
  wasmApi,
  wasmName,
  type WasmMemory,
} from './wasm.js';

const load = (offset: number) => [...simd(0x00), 0, ...uleb(offset)];
const store = (offset: number) => [...simd(0x0b), 0, ...uleb(offset)];
/** v128.const of four equal 32-bit lanes. */
const splat = (bits: number) => {
  const b = [bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, (bits >>> 24) & 0xff];
  return [...simd(0x0c), ...b, ...b, ...b, ...b];
};
const AND = simd(0x4e);
const OR = simd(0x50);
const BITSELECT = simd(0x52); // (v1, v2, c) -> (v1 & c) | (v2 & ~c)
const I32X4_EQ = simd(0x37);
const I32X4_LT_U = simd(0x3a);
const I32X4_GT_U = simd(0x3c);
const NARROW_U = simd(0x86); // i16x8.narrow_i32x4_u (lanes here are 0..0xffff: no saturation)
const EXTEND_LOW_U = simd(0xa9); // i32x4.extend_low_i16x8_u
const EXTEND_HIGH_U = simd(0xaa);
const SHL = simd(0xab);
const SHR_U = simd(0xad);
const I32X4_ADD = simd(0xae);
const I32X4_SUB = simd(0xb1);
const F32X4_ADD = simd(0xe4);
const F32X4_MUL = simd(0xe6);
const F32X4_FROM_I32 = simd(0xfa); // f32x4.convert_i32x4_s

// Both functions: params 0 src, 1 dst, 2 n (values, a multiple of 8; byte pointers); local 3 end.
/** Half bits in v128 local `x` (one per 32-bit lane) -> float32 bits on the stack. Uses locals m, o. */
const halfToFloat = (x: number, m: number, o: number) => [
  ...get(x),
  ...splat(0x7fff),
  ...AND,
  ...set(m),
  ...get(m),
  ...i32c(13),
  ...SHL,
  ...splat(0x38000000),
  ...I32X4_ADD,
  ...get(m),
  ...splat(0x7c00),
  ...AND,
  ...splat(0x7c00),
  ...I32X4_EQ,
  ...splat(0x38000000),
  ...AND,
  ...I32X4_ADD,
  ...set(o),
  ...get(m),
  ...F32X4_FROM_I32,
  ...splat(0x33800000), // 2^-24
  ...F32X4_MUL,
  ...get(o),
  ...get(m),
  ...splat(0x7c00),
  ...AND,
  ...splat(0),
  ...I32X4_EQ,
  ...BITSELECT,
  ...get(x),
  ...splat(0x8000),
  ...AND,
  ...i32c(16),
  ...SHL,
  ...OR,
];

/** Float bits in v128 local `b` -> half bits on the stack (one per 32-bit lane). Uses local a. */
const floatToHalf = (b: number, a: number) => [
  ...get(b),
  ...splat(0x7fffffff),
  ...AND,
  ...set(a),
  // Normal result.
  ...get(a),
  ...splat(0x37fff001),
  ...I32X4_SUB,
  ...get(a),
  ...i32c(13),
  ...SHR_U,
  ...splat(1),
  ...AND,
  ...I32X4_ADD,
  ...i32c(13),
  ...SHR_U,
  // Subnormal or zero result.
  ...get(a),
  ...splat(0x3f000000),
  ...F32X4_ADD,
  ...splat(0x3f000000),
  ...I32X4_SUB,
  // Infinity, or NaN.
  ...get(a),
  ...splat(0x7fffff),
  ...AND,
  ...i32c(13),
  ...SHR_U,
  ...splat(0x7e00),
  ...OR,
  ...splat(0x7c00),
  ...get(a),
  ...splat(0x7f800000),
  ...I32X4_GT_U,
  ...BITSELECT,
  ...get(a),
  ...splat(0x38800000),
  ...I32X4_LT_U,
  ...BITSELECT,
  ...get(a),
  ...splat(0x38800000),
  ...I32X4_SUB,
  ...splat(0x0f000000),
  ...I32X4_LT_U,
  ...BITSELECT,
  ...get(b),
  ...splat(0x80000000),
  ...AND,
  ...i32c(16),
  ...SHR_U,
  ...OR,
];

/** A loop over `[src, src + n * inBytes)`, running `step` and advancing src and dst. */
const loop = (inBytes: number, step: number[], srcStep: number, dstStep: number) => [
  ...get(0),
  ...get(2),
  ...i32c(inBytes === 2 ? 1 : 2),
  I32_SHL,
  I32_ADD,
  ...set(3),
  ...BLOCK,
  ...LOOP,
  ...get(0),
  ...get(3),
  I32_GE_U,
  ...brIf(1),
  ...step,
  ...get(0),
  ...i32c(srcStep),
  I32_ADD,
  ...set(0),
  ...get(1),
  ...i32c(dstStep),
  I32_ADD,
  ...set(1),
  ...br(0),
  END,
  END,
  END,
];

// decode: locals 4 v (8 halves), 5 x, 6 m, 7 o.
const DECODE = loop(
  2,
  [
    ...get(0),
    ...load(0),
    ...set(4),
    ...get(4),
    ...EXTEND_LOW_U,
    ...set(5),
    ...get(1),
    ...halfToFloat(5, 6, 7),
    ...store(0),
    ...get(4),
    ...EXTEND_HIGH_U,
    ...set(5),
    ...get(1),
    ...halfToFloat(5, 6, 7),
    ...store(16),
  ],
  16,
  32,
);

// encode: locals 4 b (4 floats), 5 a, 6 the low four halves.
const ENCODE = loop(
  4,
  [
    ...get(0),
    ...load(0),
    ...set(4),
    ...floatToHalf(4, 5),
    ...set(6),
    ...get(0),
    ...load(16),
    ...set(4),
    ...get(1),
    ...get(6),
    ...floatToHalf(4, 5),
    ...NARROW_U,
    ...store(0),
  ],
  32,
  16,
);

/** Values converted per call (the module's two regions: float32 at 0, binary16 after it). */
const CAPACITY = 1 << 16;
const PAGES = (CAPACITY * 6) / 65536;

function moduleBytes(): Uint8Array {
  const type = section(1, [1, 0x60, 3, I32, I32, I32, 0]);
  const func = section(3, [2, 0, 0]);
  const memory = section(5, [1, 0x00, PAGES]);
  const exports = section(7, [3, ...wasmName('decode'), 0x00, 0, ...wasmName('encode'), 0x00, 1, ...wasmName('memory'), 0x02, 0]);
  const body = (locals: number[], code: number[]) => {
    const b = [...locals, ...code];
    return [...uleb(b.length), ...b];
  };
  const code = section(10, [2, ...body([2, 1, I32, 4, V128], DECODE), ...body([2, 1, I32, 3, V128], ENCODE)]);
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...type, ...func, ...memory, ...exports, ...code]);
}

interface Codec {
  f32: Float32Array;
  f16: Uint16Array;
  decode: (src: number, dst: number, n: number) => void;
  encode: (src: number, dst: number, n: number) => void;
}

/** The codec of this thread: undefined until first asked for, null without WebAssembly SIMD. */
let codec: Codec | null | undefined;

function getCodec(): Codec | null {
  if (codec === undefined) {
    const compiled = compileWasm(moduleBytes());
    if (compiled === null || wasmApi === undefined) codec = null;
    else {
      const instance = new wasmApi.Instance(compiled, {});
      const memory = instance.exports.memory as WasmMemory;
      codec = {
        f32: new Float32Array(memory.buffer, 0, CAPACITY),
        f16: new Uint16Array(memory.buffer, CAPACITY * 4, CAPACITY),
        decode: instance.exports.decode as Codec['decode'],
        encode: instance.exports.encode as Codec['encode'],
      };
    }
  }
  return codec;
}

/** Fewer values than this are converted by the scalar paths (a call and two copies cost more). */
export const SIMD_MIN_VALUES = 256;

/** True when this runtime runs the SIMD conversions. */
export function hasFloat16Simd(): boolean {
  return getCodec() !== null;
}

/**
 * Decodes `count` binary16 values of `src` from `from` into `out` from `outOffset`, in pieces of
 * 65,536 through the module's memory. Returns false (nothing written) without WebAssembly SIMD.
 */
export function decodeF16Simd(src: Uint16Array, from: number, count: number, out: Float32Array, outOffset = 0): boolean {
  const c = getCodec();
  if (c === null) return false;
  for (let i = 0; i < count; i += CAPACITY) {
    const n = Math.min(CAPACITY, count - i);
    c.f16.set(src.subarray(from + i, from + i + n));
    c.decode(CAPACITY * 4, 0, (n + 7) & ~7);
    out.set(n === CAPACITY ? c.f32 : c.f32.subarray(0, n), outOffset + i);
  }
  return true;
}

/**
 * Rounds `src` to binary16 (nearest, ties to even) into `dst` from `dstOffset`, in pieces of
 * 65,536 through the module's memory. Returns false (nothing written) without WebAssembly SIMD.
 */
export function encodeF16Simd(src: Float32Array, dst: Uint16Array, dstOffset = 0): boolean {
  const c = getCodec();
  if (c === null) return false;
  const count = src.length;
  for (let i = 0; i < count; i += CAPACITY) {
    const n = Math.min(CAPACITY, count - i);
    c.f32.set(src.subarray(i, i + n));
    c.encode(0, CAPACITY * 4, (n + 7) & ~7);
    dst.set(n === CAPACITY ? c.f16 : c.f16.subarray(0, n), dstOffset + i);
  }
  return true;
}
