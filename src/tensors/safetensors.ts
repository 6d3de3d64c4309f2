/**
 * Reads and writes safetensors files (the Hugging Face tensor format PEFT adapters are saved in)
 * without loading them whole: the header is parsed up front and each tensor is read, or written,
 * on its own, so memory stays bounded by the largest tensor in flight.
 *
 * Layout (huggingface/safetensors README, "Format"): 8 bytes N (unsigned little-endian 64-bit
 * integer), then N bytes of UTF-8 JSON `{"NAME": {"dtype", "shape", "data_offsets": [BEGIN, END]},
 * ..., "__metadata__": {string: string}}` (right-padded with spaces), then the byte buffer; offsets
 * are relative to the buffer's start, data is little-endian and row-major, and the tensors cover the
 * buffer contiguously.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CorebError } from '../core/errors.js';
import { bf16ToFloat64, f16ToFloat64, float64ToBf16, float64ToF16 } from '../core/float-format.js';

/** Element size in bytes of every safetensors dtype (safetensors `src/tensor.rs` `Dtype`). */
export const SAFETENSORS_DTYPES = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  F64: 8,
  I64: 8,
  U64: 8,
} as const;
/** A safetensors dtype name. */
export type SafetensorsDtype = keyof typeof SAFETENSORS_DTYPES;

/** The floating-point dtypes coreb decodes to and encodes from numbers. */
export const FLOAT_DTYPES = ['F32', 'F16', 'BF16', 'F64'] as const;
/** A dtype {@link decodeFloats} and {@link encodeFloats} handle. */
export type FloatDtype = (typeof FLOAT_DTYPES)[number];

/** Largest header accepted, in bytes (the reference implementation's limit is 100 MB). */
export const MAX_HEADER_BYTES = 100_000_000;

/** One tensor's entry in a header. */
export interface TensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  /** Dimensions, outermost first (row-major); `[]` is a scalar. */
  shape: number[];
  /** Byte offsets `[begin, end)` relative to the start of the data buffer. */
  dataOffsets: [number, number];
}

/** A parsed safetensors header. */
export interface SafetensorsHeader {
  /** Tensors in data order. */
  tensors: TensorInfo[];
  /** The `__metadata__` string map (empty when absent). */
  metadata: Record<string, string>;
  /** Absolute file offset of the data buffer (8 + N). */
  dataStart: number;
}

/** Number of elements of a shape (1 for a scalar). */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function isDtype(s: unknown): s is SafetensorsDtype {
  return typeof s === 'string' && Object.hasOwn(SAFETENSORS_DTYPES, s);
}

/**
 * Parses and checks a header: `headerJson` is the N bytes after the length prefix, `bufferBytes`
 * the size of the data buffer (file size − 8 − N). Checks every entry's dtype, shape and offsets
 * (`END − BEGIN` = elements × element size) and that the tensors cover the buffer contiguously.
 * @throws CorebError `PARSE` naming the file and the offending tensor.
 */
export function parseSafetensorsHeader(headerJson: Uint8Array, bufferBytes: number, file: string): SafetensorsHeader {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(headerJson);
  } catch (e) {
    throw new CorebError('PARSE', 'safetensors header is not valid UTF-8', { file, cause: e });
  }
  if (!text.startsWith('{'))
    throw new CorebError('PARSE', `safetensors header must start with \`{\`, got ${JSON.stringify(text.slice(0, 20))}`, { file });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new CorebError('PARSE', `safetensors header is not JSON (${(e as Error).message})`, { file, cause: e });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new CorebError('PARSE', 'safetensors header must be a JSON object', { file });
  const metadata: Record<string, string> = {};
  const tensors: TensorInfo[] = [];
  for (const [name, entry] of Object.entries(raw as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        throw new CorebError('PARSE', '`__metadata__` must be an object of strings', { file, field: '__metadata__' });
      }
      for (const [k, v] of Object.entries(entry)) {
        if (typeof v !== 'string')
          throw new CorebError('PARSE', `\`__metadata__.${k}\` must be a string, got ${JSON.stringify(v)}`, { file, field: '__metadata__' });
        metadata[k] = v;
      }
      continue;
    }
    const e = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    const where = { file, field: name };
    if (e === null || typeof e !== 'object') throw new CorebError('PARSE', 'tensor entry must be an object {dtype, shape, data_offsets}', where);
    if (!isDtype(e.dtype)) {
      throw new CorebError('PARSE', `unknown dtype ${JSON.stringify(e.dtype)}; valid: ${Object.keys(SAFETENSORS_DTYPES).join(', ')}`, where);
    }
    if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new CorebError('PARSE', `shape must be a list of non-negative integers, got ${JSON.stringify(e.shape)}`, where);
    }
    const off = e.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((d) => Number.isSafeInteger(d) && d >= 0) || off[1] < off[0]) {
      throw new CorebError('PARSE', `data_offsets must be [BEGIN, END] with 0 <= BEGIN <= END, got ${JSON.stringify(off)}`, where);
    }
    const want = elementCount(e.shape as number[]) * SAFETENSORS_DTYPES[e.dtype];
    if (off[1] - off[0] !== want) {
      throw new CorebError('PARSE', `data_offsets span ${off[1] - off[0]} bytes but ${e.dtype} ${JSON.stringify(e.shape)} needs ${want}`, where);
    }
    tensors.push({ name, dtype: e.dtype, shape: e.shape as number[], dataOffsets: [off[0], off[1]] });
  }
  tensors.sort((a, b) => a.dataOffsets[0] - b.dataOffsets[0] || a.dataOffsets[1] - b.dataOffsets[1]);
  let at = 0;
  for (const t of tensors) {
    if (t.dataOffsets[0] !== at) {
      throw new CorebError(
        'PARSE',
        `data_offsets start at ${t.dataOffsets[0]} but the previous tensor ends at ${at}; tensors must cover the buffer without gaps or overlap`,
        { file, field: t.name },
      );
    }
    at = t.dataOffsets[1];
  }
  if (at !== bufferBytes) {
    throw new CorebError('PARSE', `tensors cover ${at} bytes but the data buffer holds ${bufferBytes} (file truncated or padded)`, { file });
  }
  return { tensors, metadata, dataStart: 8 + headerJson.length };
}

/** An open safetensors file: the header, and tensors read one at a time. */
export interface SafetensorsReader {
  readonly file: string;
  readonly header: SafetensorsHeader;
  /** Tensor entry by name, or undefined. */
  info(name: string): TensorInfo | undefined;
  /** The raw little-endian bytes of one tensor (reads only that range of the file). */
  readBytes(name: string): Promise<Uint8Array>;
  /** One floating-point tensor (F32, F16, BF16, F64) decoded to doubles (exact). */
  readFloats(name: string): Promise<Float64Array>;
  /** Bytes read from the file so far, header included (shows that reads stay per tensor). */
  readonly bytesRead: number;
  close(): Promise<void>;
}

async function readExactly(fh: FileHandle, length: number, position: number, file: string): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0)
      throw new CorebError('PARSE', `unexpected end of file at byte ${position + got} (wanted ${length} bytes at ${position})`, { file });
    got += bytesRead;
  }
  return buf;
}

/**
 * Opens a safetensors file and parses its header (only the first 8 + N bytes are read).
 * @throws CorebError `NOT_FOUND`/`IO` when the file cannot be opened, `PARSE` when it is malformed.
 */
export async function openSafetensors(file: string): Promise<SafetensorsReader> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorebError(code === 'ENOENT' ? 'NOT_FOUND' : 'IO', `cannot open safetensors file (${code ?? (e as Error).message})`, {
      file,
      cause: e,
    });
  }
  try {
    const size = (await fh.stat()).size;
    if (size < 8) throw new CorebError('PARSE', `file is ${size} bytes; a safetensors file starts with an 8-byte header length`, { file });
    const prefix = await readExactly(fh, 8, 0, file);
    const n = new DataView(prefix.buffer).getBigUint64(0, true);
    if (n > BigInt(Math.min(MAX_HEADER_BYTES, size - 8))) {
      throw new CorebError(
        'PARSE',
        `header length ${n} exceeds the file (${size} bytes) or the ${MAX_HEADER_BYTES}-byte limit; not a safetensors file?`,
        { file },
      );
    }
    const headerBytes = await readExactly(fh, Number(n), 8, file);
    const header = parseSafetensorsHeader(headerBytes, size - 8 - Number(n), file);
    const byName = new Map(header.tensors.map((t) => [t.name, t]));
    let bytesRead = 8 + Number(n);
    const get = (name: string): TensorInfo => {
      const t = byName.get(name);
      if (t === undefined) throw new CorebError('NOT_FOUND', `no tensor \`${name}\` in the file`, { file });
      return t;
    };
    const readBytes = async (name: string): Promise<Uint8Array> => {
      const t = get(name);
      const bytes = await readExactly(fh, t.dataOffsets[1] - t.dataOffsets[0], header.dataStart + t.dataOffsets[0], file);
      bytesRead += bytes.length;
      return bytes;
    };
    return {
      file,
      header,
      info: (name) => byName.get(name),
      readBytes,
      async readFloats(name) {
        const t = get(name);
        if (!(FLOAT_DTYPES as readonly string[]).includes(t.dtype)) {
          throw new CorebError('UNSUPPORTED', `tensor \`${name}\` is ${t.dtype}; only ${FLOAT_DTYPES.join(', ')} tensors can be averaged`, { file });
        }
        return decodeFloats(await readBytes(name), t.dtype as FloatDtype);
      },
      get bytesRead() {
        return bytesRead;
      },
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Decodes little-endian `bytes` of a float dtype to doubles (exact for every dtype). */
export function decodeFloats(bytes: Uint8Array, dtype: FloatDtype): Float64Array {
  const size = SAFETENSORS_DTYPES[dtype];
  const n = bytes.length / size;
  const out = new Float64Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) {
    const at = i * size;
    switch (dtype) {
      case 'F32':
        out[i] = view.getFloat32(at, true);
        break;
      case 'F64':
        out[i] = view.getFloat64(at, true);
        break;
      case 'BF16':
        out[i] = bf16ToFloat64(view.getUint16(at, true));
        break;
      case 'F16':
        out[i] = f16ToFloat64(view.getUint16(at, true));
        break;
    }
  }
  return out;
}

/** Encodes doubles as little-endian `dtype` bytes, each value rounded once, to nearest, ties to even. */
export function encodeFloats(values: ArrayLike<number>, dtype: FloatDtype): Uint8Array {
  const size = SAFETENSORS_DTYPES[dtype];
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const at = i * size;
    switch (dtype) {
      case 'F32':
        view.setFloat32(at, values[i], true);
        break;
      case 'F64':
        view.setFloat64(at, values[i], true);
        break;
      case 'BF16':
        view.setUint16(at, float64ToBf16(values[i]), true);
        break;
      case 'F16':
        view.setUint16(at, float64ToF16(values[i]), true);
        break;
    }
  }
  return out;
}

/** A tensor to write: its name, dtype and shape (the bytes come later, from a producer). */
export interface TensorPlan {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
}

/**
 * Lays out a file: tensors ordered by element size (largest first) then name, so every tensor
 * starts at a multiple of its element size; the header JSON (`__metadata__` first) padded with
 * spaces so the data buffer starts at a multiple of 8 bytes. Returns the prefix bytes (length +
 * header) and the tensors in data order with their offsets.
 */
export function layoutSafetensors(plan: readonly TensorPlan[], metadata: Record<string, string> = {}): { prefix: Uint8Array; tensors: TensorInfo[] } {
  const seen = new Set<string>();
  for (const t of plan) {
    if (t.name === '__metadata__' || seen.has(t.name)) throw new CorebError('USAGE', `tensor name \`${t.name}\` is reserved or repeated`);
    seen.add(t.name);
  }
  const ordered = [...plan].sort(
    (a, b) => SAFETENSORS_DTYPES[b.dtype] - SAFETENSORS_DTYPES[a.dtype] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  const tensors: TensorInfo[] = [];
  let at = 0;
  for (const t of ordered) {
    const end = at + elementCount(t.shape) * SAFETENSORS_DTYPES[t.dtype];
    tensors.push({ name: t.name, dtype: t.dtype, shape: [...t.shape], dataOffsets: [at, end] });
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, end] };
    at = end;
  }
  let json = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Math.ceil((8 + json.length) / 8) * 8 - 8;
  if (padded > json.length) json = Buffer.concat([json, Buffer.alloc(padded - json.length, 0x20)]);
  const prefix = new Uint8Array(8 + json.length);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(json.length), true);
  prefix.set(json, 8);
  return { prefix, tensors };
}

/** Options of {@link saveSafetensors}. */
export interface SaveSafetensorsOptions {
  /** `__metadata__` (string values only). Default none. */
  metadata?: Record<string, string>;
  /** Checked between tensors; on abort the partial file is removed. */
  signal?: AbortSignal;
}

/**
 * Writes a safetensors file tensor by tensor: `produce(tensor)` is awaited once per tensor, in data
 * order, and must return exactly its bytes; only one tensor's bytes are held at a time. The file is
 * written beside the target and renamed over it when complete (never half-written).
 * @throws CorebError `INTERNAL` when a producer returns the wrong size, `IO` when writing fails.
 */
export async function saveSafetensors(
  file: string,
  plan: readonly TensorPlan[],
  produce: (tensor: TensorInfo) => Promise<Uint8Array> | Uint8Array,
  options: SaveSafetensorsOptions = {},
): Promise<void> {
  const { prefix, tensors } = layoutSafetensors(plan, options.metadata);
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let fh: FileHandle | undefined;
  try {
    fh = await open(tmp, 'w');
    await fh.write(prefix);
    for (const t of tensors) {
      if (options.signal?.aborted) throw options.signal.reason;
      const bytes = await produce(t);
      const want = t.dataOffsets[1] - t.dataOffsets[0];
      if (bytes.length !== want)
        throw new CorebError('INTERNAL', `tensor \`${t.name}\`: producer returned ${bytes.length} bytes, expected ${want}`, { file });
      await fh.write(bytes);
    }
    await fh.close();
    fh = undefined;
    await rename(tmp, file);
  } catch (e) {
    await fh?.close();
    await rm(tmp, { force: true });
    if (e instanceof CorebError || options.signal?.aborted) throw e;
    throw new CorebError('IO', `cannot write safetensors file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file, cause: e });
  }
}
