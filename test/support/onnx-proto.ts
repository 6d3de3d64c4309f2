/**
 * A minimal ONNX protobuf writer (ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto):
 * enough to build small test models in TypeScript without Python or downloads. Field numbers
 * follow onnx/onnx.proto (IR version 8).
 */

/** Protobuf wire types used here. */
const VARINT = 0;
const LEN = 2;

/** ONNX TensorProto.DataType values used here. */
export const ONNX_TYPES = { float: 1, int64: 7 } as const;

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}

/** A protobuf message under construction. */
class Msg {
  private parts: Uint8Array[] = [];
  int(field: number, v: number | bigint): this {
    this.parts.push(Uint8Array.from([...varint((field << 3) | VARINT), ...varint(v)]));
    return this;
  }
  bytes(field: number, b: Uint8Array): this {
    this.parts.push(Uint8Array.from([...varint((field << 3) | LEN), ...varint(b.length)]), b);
    return this;
  }
  str(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  msg(field: number, m: Msg): this {
    return this.bytes(field, m.encode());
  }
  encode(): Uint8Array {
    const len = this.parts.reduce((a, p) => a + p.length, 0);
    const out = new Uint8Array(len);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** A graph input/output: name, element type, shape (numbers fixed, strings symbolic). */
export interface OnnxValue {
  name: string;
  type: keyof typeof ONNX_TYPES;
  shape: (number | string)[];
}

/** A constant tensor (float32 or int64); `dims` empty for a scalar. */
export interface OnnxInitializer {
  name: string;
  dims: number[];
  data: Float32Array | BigInt64Array;
}

/** A node: operator, inputs, outputs, integer attributes. */
export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  intAttrs?: Record<string, number>;
}

/** A whole model. */
export interface OnnxModel {
  inputs: OnnxValue[];
  outputs: OnnxValue[];
  initializers: OnnxInitializer[];
  nodes: OnnxNode[];
  /** Default opset 13. */
  opset?: number;
}

function valueInfo(v: OnnxValue): Msg {
  const shape = new Msg();
  for (const d of v.shape) shape.msg(1, typeof d === 'number' ? new Msg().int(1, d) : new Msg().str(2, d));
  const tensorType = new Msg().int(1, ONNX_TYPES[v.type]).msg(2, shape);
  return new Msg().str(1, v.name).msg(2, new Msg().msg(1, tensorType));
}

/** Encodes `model` as ONNX protobuf bytes. */
export function encodeOnnxModel(model: OnnxModel): Uint8Array {
  const graph = new Msg();
  model.nodes.forEach((n, i) => {
    const node = new Msg();
    for (const x of n.inputs) node.str(1, x);
    for (const x of n.outputs) node.str(2, x);
    node.str(3, `${n.op.toLowerCase()}_${i}`).str(4, n.op);
    // AttributeProto: name 1, type 20 (INT = 2), i 3
    for (const [k, v] of Object.entries(n.intAttrs ?? {})) node.msg(5, new Msg().str(1, k).int(20, 2).int(3, v));
    graph.msg(1, node);
  });
  graph.str(2, 'coreb_tiny');
  for (const t of model.initializers) {
    const tensor = new Msg();
    for (const d of t.dims) tensor.int(1, d);
    tensor
      .int(2, t.data instanceof BigInt64Array ? ONNX_TYPES.int64 : ONNX_TYPES.float)
      .str(8, t.name)
      .bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    graph.msg(5, tensor);
  }
  for (const v of model.inputs) graph.msg(11, valueInfo(v));
  for (const v of model.outputs) graph.msg(12, valueInfo(v));
  return new Msg()
    .int(1, 8)
    .str(2, 'coreb')
    .msg(7, graph)
    .msg(8, new Msg().str(1, '').int(2, model.opset ?? 13))
    .encode();
}
