/**
 * A WebAssembly SIMD kernel for the dot products of dense search, assembled here from its opcodes
 * (no toolchain, no binary file): 4 queries x 2 documents per pass in f32x4 lanes, several times
 * the scalar JavaScript kernel. Used by `denseTopK` when the runtime supports WebAssembly SIMD.
 */

import {
  BLOCK,
  END,
  I32,
  I32_ADD as ADD,
  I32_GE_U as GE_U,
  I32_MUL as MUL,
  I32_SHL as SHL,
  LOOP,
  V128,
  br,
  brIf,
  compileWasm,
  get,
  i32c,
  section,
  set,
  tee,
  uleb,
  wasmApi as wasm,
  wasmName as name,
  type WasmMemory,
} from '../core/wasm.js';

const F32_ADD = 0x92;
const v128Load = [0xfd, 0x00, 0x02, 0x00];
const v128Zero = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
const F32X4_ADD = [0xfd, 0xe4, 0x01];
const F32X4_MUL = [0xfd, 0xe6, 0x01];
const lane = (l: number) => [0xfd, 0x1f, l];

// Parameters: 0 q, 1 nq (multiple of 4), 2 d, 3 nd (multiple of 2), 4 dim (multiple of 4), 5 out
// (byte pointers). i32 locals: 6 i, 7 j, 8 k (bytes), 9-12 query row pointers, 13 doc row pointer,
// 14 row bytes, 15 out row bytes, 16 out pointer. v128 locals: 17-20 accumulators of document j,
// 21-24 of document j + 1, 25 and 26 the two document vectors.
const hsum = (a: number) => [...get(a), ...lane(0), ...get(a), ...lane(1), F32_ADD, ...get(a), ...lane(2), ...get(a), ...lane(3), F32_ADD, F32_ADD];
const accumulate = (a: number, qp: number, x: number) => [
  ...get(a),
  ...get(qp),
  ...get(8),
  ADD,
  ...v128Load,
  ...get(x),
  ...F32X4_MUL,
  ...F32X4_ADD,
  ...set(a),
];
const store = (a: number, offset: number) => [...get(16), ...hsum(a), 0x38, 0x02, offset];

const BODY: number[] = [
  ...get(4),
  ...i32c(2),
  SHL,
  ...set(14),
  ...get(3),
  ...i32c(2),
  SHL,
  ...set(15),
  ...i32c(0),
  ...set(6),
  ...BLOCK,
  ...LOOP,
  ...get(6),
  ...get(1),
  GE_U,
  ...brIf(1),
  ...get(0),
  ...get(6),
  ...get(14),
  MUL,
  ADD,
  ...tee(9),
  ...get(14),
  ADD,
  ...tee(10),
  ...get(14),
  ADD,
  ...tee(11),
  ...get(14),
  ADD,
  ...set(12),
  ...i32c(0),
  ...set(7),
  ...BLOCK,
  ...LOOP,
  ...get(7),
  ...get(3),
  GE_U,
  ...brIf(1),
  ...get(2),
  ...get(7),
  ...get(14),
  MUL,
  ADD,
  ...set(13),
  ...v128Zero,
  ...tee(17),
  ...tee(18),
  ...tee(19),
  ...tee(20),
  ...tee(21),
  ...tee(22),
  ...tee(23),
  ...set(24),
  ...i32c(0),
  ...set(8),
  ...BLOCK,
  ...LOOP,
  ...get(8),
  ...get(14),
  GE_U,
  ...brIf(1),
  ...get(13),
  ...get(8),
  ADD,
  ...v128Load,
  ...set(25),
  ...get(13),
  ...get(14),
  ADD,
  ...get(8),
  ADD,
  ...v128Load,
  ...set(26),
  ...accumulate(17, 9, 25),
  ...accumulate(18, 10, 25),
  ...accumulate(19, 11, 25),
  ...accumulate(20, 12, 25),
  ...accumulate(21, 9, 26),
  ...accumulate(22, 10, 26),
  ...accumulate(23, 11, 26),
  ...accumulate(24, 12, 26),
  ...get(8),
  ...i32c(16),
  ADD,
  ...set(8),
  ...br(0),
  END,
  END,
  ...get(5),
  ...get(6),
  ...get(15),
  MUL,
  ADD,
  ...get(7),
  ...i32c(2),
  SHL,
  ADD,
  ...set(16),
  ...store(17, 0),
  ...store(21, 4),
  ...get(16),
  ...get(15),
  ADD,
  ...set(16),
  ...store(18, 0),
  ...store(22, 4),
  ...get(16),
  ...get(15),
  ADD,
  ...set(16),
  ...store(19, 0),
  ...store(23, 4),
  ...get(16),
  ...get(15),
  ADD,
  ...set(16),
  ...store(20, 0),
  ...store(24, 4),
  ...get(7),
  ...i32c(2),
  ADD,
  ...set(7),
  ...br(0),
  END,
  END,
  ...get(6),
  ...i32c(4),
  ADD,
  ...set(6),
  ...br(0),
  END,
  END,
  END,
];

function moduleBytes(): Uint8Array {
  const type = section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]);
  const func = section(3, [1, 0]);
  const memory = section(5, [1, 0x00, 1]);
  const exports = section(7, [2, ...name('scores'), 0x00, 0, ...name('memory'), 0x02, 0]);
  const locals = [2, 11, I32, 10, V128];
  const body = [...locals, ...BODY];
  const code = section(10, [1, ...uleb(body.length), ...body]);
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...type, ...func, ...memory, ...exports, ...code]);
}

/**
 * Dot products of a block of query rows with a block of document rows in WebAssembly memory.
 * Rows are padded with zeros to a multiple of 4 floats, the query block to a multiple of 4 rows
 * and the document block to a multiple of 2. Each score is the sum, in float32, of four lane sums (dimensions j = 0, 1, 2, 3 mod 4)
 * added as (l0 + l1) + (l2 + l3): deterministic and independent of block sizes.
 */
export interface WasmDotKernel {
  /**
   * Scores `nq` query rows against `nd` document rows (both `dim` floats per row, row-major) and
   * returns `out`: row-major, query row i's scores at `out[i * stride + j]` (a view into wasm
   * memory, valid until the next call).
   */
  scores(queries: Float32Array, nq: number, docs: Float32Array, nd: number, dim: number): { out: Float32Array; stride: number };
}

let cached: object | null | undefined;

/** The compiled kernel module (compiled once), or null when this runtime lacks WebAssembly SIMD. */
function kernelModule(): object | null {
  if (cached === undefined) {
    cached = compileWasm(moduleBytes());
  }
  return cached;
}

/** True when this runtime runs the WebAssembly SIMD kernel (checked without instantiating it). */
export function hasWasmSimd(): boolean {
  return kernelModule() !== null;
}

/** Returns a new kernel instance, or undefined when this runtime lacks WebAssembly SIMD. */
export function createWasmDotKernel(): WasmDotKernel | undefined {
  const compiled = kernelModule();
  if (compiled === null || wasm === undefined) return undefined;
  const instance = new wasm.Instance(compiled, {});
  const memory = instance.exports.memory as WasmMemory;
  const run = instance.exports.scores as (q: number, nq: number, d: number, nd: number, dim: number, out: number) => void;
  return {
    scores(queries, nq, docs, nd, dim) {
      const pdim = (dim + 3) & ~3;
      const pnq = (nq + 3) & ~3;
      const pnd = (nd + 1) & ~1;
      const qBytes = pnq * pdim * 4;
      const dBytes = pnd * pdim * 4;
      const oBytes = pnq * pnd * 4;
      const need = qBytes + dBytes + oBytes;
      if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
      const heap = new Float32Array(memory.buffer);
      const qOff = 0;
      const dOff = qBytes / 4;
      const oOff = (qBytes + dBytes) / 4;
      if (pdim === dim) {
        heap.set(queries.subarray(0, nq * dim), qOff);
        heap.fill(0, qOff + nq * dim, dOff);
        heap.set(docs.subarray(0, nd * dim), dOff);
        heap.fill(0, dOff + nd * dim, oOff);
      } else {
        heap.fill(0, qOff, oOff);
        for (let r = 0; r < nq; r++) heap.set(queries.subarray(r * dim, (r + 1) * dim), qOff + r * pdim);
        for (let r = 0; r < nd; r++) heap.set(docs.subarray(r * dim, (r + 1) * dim), dOff + r * pdim);
      }
      run(qOff * 4, pnq, dOff * 4, pnd, pdim, oOff * 4);
      return { out: heap.subarray(oOff, oOff + pnq * pnd), stride: pnd };
    },
  };
}
