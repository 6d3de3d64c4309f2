import { test } from 'node:test';
import assert from 'node:assert/strict';
import { f16OfFloat32Bits, float32sToF16, float32sToF16Scalar } from './float-format.js';
import { decodeF16Simd, encodeF16Simd, hasFloat16Simd } from './float16-simd.js';
import { float16Table, readBlock } from './vector-store.js';

test('the SIMD decode gives every binary16 value as the table does, at any offset and length', (t) => {
  if (!hasFloat16Simd()) return t.skip('no WebAssembly SIMD in this runtime');
  const table = float16Table();
  // Every pattern, twice, so a call spans more than one 65,536-value piece.
  const all = Uint16Array.from({ length: 2 * 65536 + 13 }, (_, i) => (i * 40503) & 0xffff);
  const out = new Float32Array(all.length + 5).fill(7);
  assert.equal(decodeF16Simd(all, 3, all.length - 3, out, 5), true);
  for (let i = 3; i < all.length; i++) {
    const want = table[all[i]];
    const got = out[i - 3 + 5];
    assert.ok(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want)), `half ${all[i].toString(16)}: ${got} vs ${want}`);
  }
  assert.deepEqual([...out.subarray(0, 5)], [7, 7, 7, 7, 7], 'nothing written before the offset');
});

test('the SIMD rounding gives the bits f16OfFloat32Bits gives: every exponent and sign, the rounding edges, NaN', (t) => {
  if (!hasFloat16Simd()) return t.skip('no WebAssembly SIMD in this runtime');
  // Every top half (sign, exponent, 7 mantissa bits) with low halves at and around the rounding
  // points of normal (13 dropped bits) and subnormal results, plus a seeded spread.
  const lows = [0, 1, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0xffff];
  let a = 12345;
  const bits = new Uint32Array(65536 * (lows.length + 2) + 7);
  let n = 0;
  for (let hi = 0; hi < 65536; hi++) {
    for (const lo of lows) bits[n++] = ((hi << 16) | lo) >>> 0;
    for (let k = 0; k < 2; k++) {
      a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
      bits[n++] = ((hi << 16) | (a & 0xffff)) >>> 0;
    }
  }
  const values = new Float32Array(bits.buffer);
  const simd = new Uint16Array(values.length + 3);
  assert.equal(encodeF16Simd(values, simd, 3), true);
  const scalar = new Uint16Array(values.length);
  float32sToF16Scalar(values, scalar);
  const viaDefault = new Uint16Array(values.length);
  float32sToF16(values, viaDefault);
  for (let i = 0; i < values.length; i++) {
    const want = f16OfFloat32Bits(bits[i]);
    if (simd[i + 3] !== want || scalar[i] !== want || viaDefault[i] !== want) {
      assert.fail(`bits ${bits[i].toString(16)}: simd ${simd[i + 3].toString(16)}, scalar ${scalar[i].toString(16)}, want ${want.toString(16)}`);
    }
  }
});

test('float16 stores decode as the table does (a block, and rows through a row map)', () => {
  const dim = 300;
  const rows = 6;
  const values = Float32Array.from({ length: rows * dim }, (_, i) => Math.sin(i) * 3);
  const chunk = new Uint16Array(rows * dim);
  float32sToF16(values, chunk);
  const store = { rows, dim, dtype: 'float16' as const, chunkRows: rows, chunks: [chunk] };
  const table = float16Table();
  const whole = readBlock(store, 0, rows, new Float32Array(rows * dim));
  for (let i = 0; i < rows * dim; i++) assert.equal(whole[i], table[chunk[i]]);
  const mapped = readBlock({ ...store, rows: 2, rowMap: Int32Array.from([4, 1]) }, 0, 2, new Float32Array(2 * dim));
  for (let j = 0; j < dim; j++) {
    assert.equal(mapped[j], table[chunk[4 * dim + j]]);
    assert.equal(mapped[dim + j], table[chunk[dim + j]]);
  }
});
