import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numpySkipReason, runPython } from '../../test/support/python.js';
import { bf16ToFloat64, f16ToFloat64, float32sToF16, float64ToBf16, float64ToF16 } from './float-format.js';

/** A double from float32 bits. */
function f32(bits: number): number {
  return new Float32Array(new Uint32Array([bits]).buffer)[0];
}
const hex = (h: number) => '0x' + h.toString(16).padStart(4, '0');

test('bf16: exact values, signed zero, infinities and NaN', () => {
  assert.equal(hex(float64ToBf16(1)), '0x3f80');
  assert.equal(hex(float64ToBf16(-2)), '0xc000');
  assert.equal(hex(float64ToBf16(0)), '0x0000');
  assert.equal(hex(float64ToBf16(-0)), '0x8000');
  assert.equal(hex(float64ToBf16(Infinity)), '0x7f80');
  assert.equal(hex(float64ToBf16(-Infinity)), '0xff80');
  const nan = float64ToBf16(NaN);
  assert.equal(nan & 0x7f80, 0x7f80);
  assert.notEqual(nan & 0x007f, 0, 'NaN keeps a non-zero mantissa (not infinity)');
  assert.ok(Number.isNaN(bf16ToFloat64(nan)));
  assert.equal(float64ToBf16(f32(0xffc00001)) & 0x8000, 0x8000, 'NaN keeps its sign');
});

test('bf16: round to nearest, ties to even, from a double in one rounding', () => {
  assert.equal(hex(float64ToBf16(f32(0x3f808000))), '0x3f80', 'tie, even below');
  assert.equal(hex(float64ToBf16(f32(0x3f818000))), '0x3f82', 'tie, even above');
  assert.equal(hex(float64ToBf16(f32(0x3f808001))), '0x3f81', 'just above the tie');
  assert.equal(hex(float64ToBf16(f32(0x3f807fff))), '0x3f80', 'just below the tie');
  // 1 + 2^-8 + 2^-40 rounds to the float32 tie 1 + 2^-8; the double itself is above the tie.
  assert.equal(hex(float64ToBf16(1 + 2 ** -8 + 2 ** -40)), '0x3f81', 'no double rounding');
  assert.equal(hex(float64ToBf16(-(1 + 2 ** -8 + 2 ** -40))), '0xbf81');
  assert.equal(hex(float64ToBf16(1 + 2 ** -8 - 2 ** -40)), '0x3f80');
  assert.equal(hex(float64ToBf16(3.3895e38)), '0x7f7f', 'largest finite');
  assert.equal(hex(float64ToBf16(3.4e38)), '0x7f80', 'past the halfway point: infinity');
  assert.equal(hex(float64ToBf16(1e300)), '0x7f80');
  assert.equal(hex(float64ToBf16(-1e300)), '0xff80');
});

test('bf16: subnormals round to nearest even and decode exactly', () => {
  assert.equal(bf16ToFloat64(0x0001), 2 ** -133);
  assert.equal(hex(float64ToBf16(2 ** -133)), '0x0001');
  assert.equal(hex(float64ToBf16(1.5 * 2 ** -133)), '0x0002', 'tie between 1 and 2 units: even');
  assert.equal(hex(float64ToBf16(2.5 * 2 ** -133)), '0x0002', 'tie between 2 and 3 units: even');
  assert.equal(hex(float64ToBf16(2 ** -134)), '0x0000', 'half the smallest subnormal: tie to zero');
  assert.equal(hex(float64ToBf16(2 ** -134 + 2 ** -160)), '0x0001', 'above the tie (below float32 precision there)');
  assert.equal(hex(float64ToBf16(-(2 ** -149))), '0x8000', 'float32 subnormal far below: signed zero');
  assert.equal(hex(float64ToBf16(1e-320)), '0x0000', 'double subnormal');
});

test('bf16 and f16: every non-NaN bit pattern decodes and re-encodes to itself', () => {
  for (let h = 0; h < 0x10000; h++) {
    const b = bf16ToFloat64(h);
    if (Number.isNaN(b)) assert.ok((h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0, hex(h));
    else assert.equal(float64ToBf16(b), h, `bf16 ${hex(h)}`);
    const f = f16ToFloat64(h);
    if (Number.isNaN(f)) assert.ok((h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0, hex(h));
    else assert.equal(float64ToF16(f), h, `f16 ${hex(h)}`);
  }
});

test('f16: edge cases (ties, subnormals, overflow, NaN)', () => {
  assert.equal(hex(float64ToF16(1)), '0x3c00');
  assert.equal(hex(float64ToF16(65504)), '0x7bff', 'largest finite');
  assert.equal(hex(float64ToF16(65519.99)), '0x7bff');
  assert.equal(hex(float64ToF16(65520)), '0x7c00', 'tie past the largest finite: even = infinity');
  assert.equal(hex(float64ToF16(-Infinity)), '0xfc00');
  assert.equal(hex(float64ToF16(-0)), '0x8000');
  assert.ok(Number.isNaN(f16ToFloat64(float64ToF16(NaN))));
  assert.equal(hex(float64ToF16(1 + 2 ** -11)), '0x3c00', 'tie, even below');
  assert.equal(hex(float64ToF16(1 + 3 * 2 ** -11)), '0x3c02', 'tie, even above');
  assert.equal(hex(float64ToF16(1 + 2 ** -11 + 2 ** -40)), '0x3c01', 'no double rounding');
  assert.equal(hex(float64ToF16(2 ** -24)), '0x0001', 'smallest subnormal');
  assert.equal(hex(float64ToF16(2 ** -25)), '0x0000', 'half of it: tie to zero');
  assert.equal(hex(float64ToF16(2 ** -25 * 1.0000001)), '0x0001');
  assert.equal(hex(float64ToF16(3 * 2 ** -25)), '0x0002', '1.5 units: tie to even');
  assert.equal(hex(float64ToF16(1023.5 * 2 ** -24)), '0x0400', 'largest subnormal + half: rounds into the normals');
  assert.equal(hex(float64ToF16(-1e-30)), '0x8000');
});

test('f16 conversion of doubles agrees bit for bit with numpy', (t) => {
  const skip = numpySkipReason();
  if (skip) return t.skip(skip);
  let s = 12345;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const xs: number[] = [];
  for (let i = 0; i < 4000; i++) {
    const e = Math.floor(rand() * 50) - 30; // 2^-30 .. 2^20: subnormal, normal and overflow ranges
    xs.push((rand() < 0.5 ? -1 : 1) * (1 + rand()) * 2 ** e);
    // exact halfway points between neighbouring f16 values, and just off them
    const h = Math.floor(rand() * 0x7bff);
    const mid = (f16ToFloat64(h) + f16ToFloat64(h + 1)) / 2;
    xs.push(mid, mid * (1 + 2 ** -45), mid * (1 - 2 ** -45));
  }
  const out = runPython(
    'import sys, json, numpy as np\nxs = np.array(json.load(sys.stdin), dtype=np.float64)\nprint(json.dumps(xs.astype(np.float16).view(np.uint16).tolist()))',
    [],
    JSON.stringify(xs),
  );
  const ref = JSON.parse(out) as number[];
  let bad = 0;
  xs.forEach((x, i) => {
    if (float64ToF16(x) !== ref[i] && bad++ < 5) assert.fail(`x=${x}: coreb ${hex(float64ToF16(x))}, numpy ${hex(ref[i])}`);
  });
});

test('float32sToF16 rounds every float32 as float64ToF16 does (normals, subnormals, ties, overflow, infinities, NaN)', () => {
  const values = new Float32Array(200_000);
  const bits = new Uint32Array(values.buffer);
  let a = 99;
  for (let i = 0; i < bits.length; i++) {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    // Mostly the f16 range (exponents 100..145), with every exponent now and then.
    bits[i] = i % 7 === 0 ? a : (a & 0x807fffff) | ((100 + (a % 46)) << 23);
  }
  values.set(
    [0, -0, 65504, 65520, 65519.996, 2 ** -24, 2 ** -25, 2 ** -25 * 1.5, 1 + 2 ** -11, 1 + 3 * 2 ** -11, Infinity, -Infinity, Number.NaN],
    0,
  );
  // Both edges of the one-sum path: the smallest normal f16 (2^-14) and 65536, with their neighbours.
  const edges = [0x387fffff, 0x38800000, 0x38800001, 0x38801000, 0x477fefff, 0x477ff000, 0x477fffff, 0x47800000, 0x47800001];
  edges.forEach((e, j) => {
    bits[20 + 2 * j] = e;
    bits[21 + 2 * j] = (e | 0x80000000) >>> 0;
  });
  const fast = new Uint16Array(values.length);
  float32sToF16(values, fast);
  for (let i = 0; i < values.length; i++) assert.equal(fast[i], float64ToF16(values[i]), `value ${values[i]} (bits ${bits[i].toString(16)})`);
});
