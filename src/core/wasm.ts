/**
 * Just enough to assemble a WebAssembly module from opcodes (no toolchain, no binary file) and
 * compile it: LEB128, sections, and the slice of the WebAssembly JS API the kernels use (the
 * project's TypeScript libs do not declare it).
 */

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

/** A section: id, byte length, contents. */
export function section(id: number, body: readonly number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

/** A name in a module (length-prefixed UTF-8). */
export function wasmName(s: string): number[] {
  const bytes = [...Buffer.from(s, 'utf8')];
  return [...uleb(bytes.length), ...bytes];
}

/** Value types. */
export const I32 = 0x7f;
export const V128 = 0x7b;
/** `local.get i`, `local.set i`, `local.tee i`. */
export const get = (i: number): number[] => [0x20, i];
export const set = (i: number): number[] => [0x21, i];
export const tee = (i: number): number[] => [0x22, i];
/** `i32.const v` for small non-negative constants (< 64) only. */
export const i32c = (v: number): number[] => [0x41, v];
export const I32_ADD = 0x6a;
export const I32_MUL = 0x6c;
export const I32_SHL = 0x74;
export const I32_GE_U = 0x4f;
/** `block` and `loop` without results, and their `end`. */
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const END = 0x0b;
/** `br_if l`, `br l`. */
export const brIf = (l: number): number[] => [0x0d, l];
export const br = (l: number): number[] => [0x0c, l];
/** A SIMD instruction (prefix 0xfd, then the opcode as LEB128). */
export const simd = (op: number): number[] => [0xfd, ...uleb(op)];

/** The slice of the WebAssembly JS API used by coreb's kernels. */
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** A module's exported memory. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The runtime's WebAssembly, or undefined where there is none. */
export const wasmApi: WasmApi | undefined = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** Compiles `bytes`, or returns null when this runtime does not validate them (e.g. no SIMD). */
export function compileWasm(bytes: Uint8Array): object | null {
  return wasmApi?.validate(bytes) ? new wasmApi.Module(bytes) : null;
}
