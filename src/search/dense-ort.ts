/**
 * The `ort` dense kernel: a block of queries times a block of documents as one SGEMM in
 * onnxruntime (MLAS, AVX2/AVX-512 where the CPU has them), run on a one-node ONNX model built here
 * (`Gemm(Q, D, transB=1)`, opset 13). onnxruntime-node is optional: it is imported only when the
 * kernel is asked for (it comes with @huggingface/transformers).
 */
import { CorebError } from '../core/errors.js';

/** The part of onnxruntime-node's API this kernel uses. */
interface OrtTensor {
  readonly data: unknown;
}
interface OrtSession {
  run(feeds: Record<string, OrtTensor>, fetches?: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release?(): Promise<void>;
}
interface OrtModule {
  Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => OrtTensor;
  InferenceSession: {
    create(model: Uint8Array, options: Record<string, unknown>): Promise<OrtSession>;
  };
}

/** The package the `ort` kernel imports. */
export const ORT_PACKAGE = 'onnxruntime-node';

let loaded: Promise<OrtModule> | undefined;

/**
 * Imports onnxruntime-node once (`specifier` is for tests).
 * @throws CorebError `UNSUPPORTED` naming the `kernel=ort` option when the package is missing.
 */
export async function loadOrt(specifier: string = ORT_PACKAGE): Promise<OrtModule> {
  const load = async (): Promise<OrtModule> => {
    try {
      const m = (await import(specifier)) as OrtModule & { default?: OrtModule };
      return m.InferenceSession !== undefined ? m : (m.default as OrtModule);
    } catch (e) {
      throw new CorebError(
        'UNSUPPORTED',
        `dense search kernel=ort needs the optional package ${specifier} (it comes with @huggingface/transformers); ` +
          `install it with \`npm install ${specifier}\`, or use the default kernel (drop kernel=ort)`,
        { cause: e },
      );
    }
  };
  if (specifier !== ORT_PACKAGE) return load();
  loaded ??= load();
  // A failed import is not cached, so installing the package and retrying works.
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

// Protocol buffers, just enough for a ModelProto (onnx.proto3 field numbers).
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let b = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  } while (v > 0);
  return out;
}
const intField = (field: number, v: number): number[] => [...varint(field * 8), ...varint(v)];
const bytesField = (field: number, b: readonly number[]): number[] => [...varint(field * 8 + 2), ...varint(b.length), ...b];
const stringField = (field: number, s: string): number[] => bytesField(field, [...Buffer.from(s, 'utf8')]);

/** ValueInfoProto of a float32 matrix with symbolic dimensions. */
function floatMatrix(field: number, name: string, rows: string, cols: string): number[] {
  const dim = (p: string) => bytesField(1, stringField(2, p));
  const shape = bytesField(2, [...dim(rows), ...dim(cols)]);
  const tensorType = bytesField(1, [...intField(1, 1), ...shape]);
  return bytesField(field, [...stringField(1, name), ...bytesField(2, tensorType)]);
}

/** The serialised model: inputs Q [n, d] and D [m, d] (float32), output S = Q Dᵀ [n, m]. */
export function gemmModel(): Uint8Array {
  const transB = bytesField(5, [...stringField(1, 'transB'), ...intField(3, 1), ...intField(20, 2)]);
  const node = bytesField(1, [
    ...stringField(1, 'Q'),
    ...stringField(1, 'D'),
    ...stringField(2, 'S'),
    ...stringField(3, 'scores'),
    ...stringField(4, 'Gemm'),
    ...transB,
  ]);
  const graph = [
    ...node,
    ...stringField(2, 'coreb-dense'),
    ...floatMatrix(11, 'Q', 'n', 'd'),
    ...floatMatrix(11, 'D', 'm', 'd'),
    ...floatMatrix(12, 'S', 'n', 'm'),
  ];
  const opset = bytesField(8, [...stringField(1, ''), ...intField(2, 13)]);
  return Uint8Array.from([...intField(1, 7), ...opset, ...bytesField(7, graph)]);
}

/** Scores blocks with onnxruntime; one per search call. */
export interface OrtScorer {
  /**
   * `out[i * nd + j]` = float32 dot product of query row i with document row j (row-major, `nq x
   * nd`; valid until the next call). Arrays in shared memory are copied to a scratch block first
   * (onnxruntime-node takes only plain ArrayBuffers).
   */
  scores(queries: Float32Array, nq: number, docs: Float32Array, nd: number, dim: number): Promise<Float32Array>;
  release(): Promise<void>;
}

/**
 * An onnxruntime session running the GEMM model on `threads` intra-op threads.
 * @throws CorebError `UNSUPPORTED` when onnxruntime-node is missing (see {@link loadOrt}).
 */
export async function createOrtScorer(threads: number, specifier?: string): Promise<OrtScorer> {
  const ort = await loadOrt(specifier);
  const session = await ort.InferenceSession.create(gemmModel(), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    executionProviders: ['cpu'],
    // Idle intra-op threads sleep instead of spinning between GEMMs: spinning burned ~1.5 s of
    // CPU per 100k x 768 search on two threads for no wall time gained.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  let qCopy: Float32Array = new Float32Array(0);
  let out: Float32Array = new Float32Array(0);
  let dCopy: Float32Array = new Float32Array(0);
  const plain = (a: Float32Array, scratch: Float32Array): [Float32Array, Float32Array] => {
    if (!(a.buffer instanceof SharedArrayBuffer)) return [a, scratch];
    const s = scratch.length >= a.length ? scratch : new Float32Array(a.length);
    s.set(a);
    return [s.subarray(0, a.length), s];
  };
  const scorer: OrtScorer = {
    async scores(queries, nq, docs, nd, dim) {
      if (nq === 1) {
        // One query row takes MLAS's matrix-vector path, which sums in another order than its
        // matrix-matrix kernel: a zero second row keeps a query's scores the same alone or in any batch.
        const two = new Float32Array(2 * dim);
        two.set(queries.subarray(0, dim));
        return (await scorer.scores(two, 2, docs, nd, dim)).subarray(0, nd);
      }
      const [q, qs] = plain(queries.subarray(0, nq * dim), qCopy);
      const [d, ds] = plain(docs.subarray(0, nd * dim), dCopy);
      qCopy = qs;
      dCopy = ds;
      // The scores are written into one reused block (onnxruntime-node still returns a copy, which
      // is left unread): about a fifth less CPU per GEMM than taking its fresh output.
      if (out.length < nq * nd) out = new Float32Array(nq * nd);
      const view = out.subarray(0, nq * nd);
      await session.run(
        { Q: new ort.Tensor('float32', q, [nq, dim]), D: new ort.Tensor('float32', d, [nd, dim]) },
        { S: new ort.Tensor('float32', view, [nq, nd]) },
      );
      return view;
    },
    async release() {
      await session.release?.();
    },
  };
  return scorer;
}
