import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numpySkipReason, runPython } from '../../test/support/python.js';
import { isCorebError } from '../core/errors.js';
import { decodeFloats, encodeFloats, layoutSafetensors, openSafetensors, saveSafetensors, type TensorPlan } from './safetensors.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'coreb-st-'));

function values(n: number, seed: number): Float64Array {
  let s = seed;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.fround(((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 4);
  return out;
}

const PLAN: TensorPlan[] = [
  { name: 'b.lora_B.weight', dtype: 'BF16', shape: [5, 3] },
  { name: 'a.lora_A.weight', dtype: 'F32', shape: [3, 7] },
  { name: 'odd', dtype: 'F16', shape: [3] },
  { name: 'scalar', dtype: 'F64', shape: [] },
];

async function writeSample(file: string): Promise<Map<string, Float64Array>> {
  const data = new Map(
    PLAN.map((t, i) => [
      t.name,
      values(
        t.shape.reduce((a, b) => a * b, 1),
        i + 1,
      ),
    ]),
  );
  await saveSafetensors(file, PLAN, (t) => encodeFloats(data.get(t.name)!, t.dtype as 'F32'), { metadata: { format: 'pt', note: 'x' } });
  return data;
}

test('layout: header padded with spaces to an 8-byte boundary, tensors contiguous and aligned to their element size', () => {
  for (let extra = 0; extra < 9; extra++) {
    const { prefix, tensors } = layoutSafetensors([{ name: 'x'.repeat(extra + 1), dtype: 'F16', shape: [3] }, ...PLAN]);
    assert.equal(prefix.length % 8, 0);
    const n = Number(new DataView(prefix.buffer).getBigUint64(0, true));
    assert.equal(8 + n, prefix.length);
    const json = Buffer.from(prefix.subarray(8)).toString('utf8');
    assert.match(json, /^\{.*\} *$/);
    let at = 0;
    for (const t of tensors) {
      assert.equal(t.dataOffsets[0], at);
      assert.equal(t.dataOffsets[0] % ({ F64: 8, F32: 4, BF16: 2, F16: 2 } as Record<string, number>)[t.dtype], 0, t.name);
      at = t.dataOffsets[1];
    }
  }
});

test('write then read: header, metadata and values (F32/F64 exact, BF16/F16 rounded once)', async () => {
  const file = join(tmp(), 'm.safetensors');
  const data = await writeSample(file);
  const r = await openSafetensors(file);
  try {
    assert.deepEqual(r.header.metadata, { format: 'pt', note: 'x' });
    assert.equal(r.header.dataStart % 8, 0);
    for (const t of PLAN) {
      const info = r.info(t.name)!;
      assert.deepEqual([info.dtype, info.shape], [t.dtype, t.shape]);
      const got = await r.readFloats(t.name);
      const want = decodeFloats(encodeFloats(data.get(t.name)!, t.dtype as 'F32'), t.dtype as 'F32');
      assert.deepEqual([...got], [...want], t.name);
      if (t.dtype === 'F32' || t.dtype === 'F64') assert.deepEqual([...got], [...data.get(t.name)!]);
    }
  } finally {
    await r.close();
  }
});

test('reads are per tensor: opening reads only the header, one tensor reads only its bytes', async () => {
  const file = join(tmp(), 'big.safetensors');
  const plan: TensorPlan[] = Array.from({ length: 40 }, (_, i) => ({ name: `t${i}`, dtype: 'F32', shape: [64, 64] }));
  await saveSafetensors(file, plan, (t) => encodeFloats(values(64 * 64, Number(t.name.slice(1))), 'F32'));
  const r = await openSafetensors(file);
  const headerBytes = r.header.dataStart;
  assert.equal(r.bytesRead, headerBytes);
  await r.readFloats('t17');
  assert.equal(r.bytesRead, headerBytes + 64 * 64 * 4);
  assert.ok(r.bytesRead < statSync(file).size / 20);
  await r.close();
});

test('malformed files are PARSE errors naming the file and the tensor', async () => {
  const dir = tmp();
  const make = (name: string, header: string, bufferBytes: number) => {
    const json = Buffer.from(header);
    const f = join(dir, name);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    writeFileSync(f, Buffer.concat([len, json, Buffer.alloc(bufferBytes)]));
    return f;
  };
  const cases: Array<[string, RegExp]> = [
    [make('dtype.st', '{"w":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}}', 8), /field `w`: unknown dtype "F12"/],
    [make('size.st', '{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', 8), /field `w`: data_offsets span 8 bytes but F32 \[3\] needs 12/],
    [
      make('gap.st', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}', 12),
      /field `b`: data_offsets start at 8 but the previous tensor ends at 4/,
    ],
    [make('trunc.st', '{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}', 8), /tensors cover 16 bytes but the data buffer holds 8/],
    [make('json.st', '{"w": nope}', 0), /header is not JSON/],
    [make('meta.st', '{"__metadata__":{"a":1}}', 0), /`__metadata__.a` must be a string/],
  ];
  for (const [f, re] of cases) {
    await assert.rejects(
      openSafetensors(f),
      (e: unknown) => isCorebError(e, 'PARSE') && (e as Error).message.includes(f) && re.test((e as Error).message),
    );
  }
  const huge = join(dir, 'huge.st');
  const len = Buffer.alloc(16);
  len.writeBigUInt64LE(1n << 40n);
  writeFileSync(huge, len);
  await assert.rejects(openSafetensors(huge), /header length 1099511627776 exceeds the file/);
  await assert.rejects(openSafetensors(join(dir, 'missing.st')), (e: unknown) => isCorebError(e, 'NOT_FOUND'));
});

test('an aborted write leaves no file', async () => {
  const dir = tmp();
  const ac = new AbortController();
  await assert.rejects(
    saveSafetensors(
      join(dir, 'x.safetensors'),
      PLAN,
      (t) => {
        ac.abort(new Error('stop'));
        return new Uint8Array(t.dataOffsets[1] - t.dataOffsets[0]);
      },
      { signal: ac.signal },
    ),
    /stop/,
  );
  assert.deepEqual(readdirSync(dir), []);
});

const PY_READER = String.raw`
import sys, json, struct, numpy as np
path = sys.argv[1]
raw = open(path, 'rb').read()
(n,) = struct.unpack('<Q', raw[:8])
assert (8 + n) % 8 == 0, 'data must start 8-byte aligned'
header = json.loads(raw[8:8 + n].decode('utf-8'))
buf = raw[8 + n:]
out = {'__metadata__': header.pop('__metadata__', {})}
for name, e in header.items():
    b, end = e['data_offsets']
    chunk = buf[b:end]
    if e['dtype'] == 'BF16':
        a = (np.frombuffer(chunk, dtype='<u2').astype(np.uint32) << 16).view(np.float32)
    else:
        a = np.frombuffer(chunk, dtype={'F32': '<f4', 'F16': '<f2', 'F64': '<f8'}[e['dtype']])
    a = a.reshape(e['shape'])
    out[name] = {'dtype': e['dtype'], 'shape': list(a.shape), 'values': a.astype(np.float64).ravel().tolist()}
print(json.dumps(out))
`;

test('python + numpy parse the written file from the documented layout and get the same tensors', async (t) => {
  const skip = numpySkipReason();
  if (skip) return t.skip(skip);
  const file = join(tmp(), 'py.safetensors');
  const data = await writeSample(file);
  const parsed = JSON.parse(runPython(PY_READER, [file])) as Record<string, { dtype: string; shape: number[]; values: number[] }>;
  assert.deepEqual(parsed.__metadata__, { format: 'pt', note: 'x' });
  for (const p of PLAN) {
    assert.equal(parsed[p.name].dtype, p.dtype);
    assert.deepEqual(parsed[p.name].shape, p.shape);
    const want = decodeFloats(encodeFloats(data.get(p.name)!, p.dtype as 'F32'), p.dtype as 'F32');
    assert.deepEqual(parsed[p.name].values, [...want], p.name);
  }
});

test('a file python writes from the documented layout (unpadded header, any key order) reads back', async (t) => {
  const skip = numpySkipReason();
  if (skip) return t.skip(skip);
  const file = join(tmp(), 'from-py.safetensors');
  runPython(
    String.raw`
import sys, json, struct, numpy as np
a = np.arange(6, dtype='<f4').reshape(2, 3) / 7
b = np.array([1.5, -2.25, 65504.0], dtype='<f2')
header = {'zeta': {'dtype': 'F16', 'shape': [3], 'data_offsets': [0, 6]}, 'alpha': {'dtype': 'F32', 'shape': [2, 3], 'data_offsets': [6, 30]}}
h = json.dumps(header).encode()
open(sys.argv[1], 'wb').write(struct.pack('<Q', len(h)) + h + b.tobytes() + a.tobytes())
`,
    [file],
  );
  const r = await openSafetensors(file);
  assert.deepEqual([...(await r.readFloats('zeta'))], [1.5, -2.25, 65504]);
  assert.deepEqual(
    [...(await r.readFloats('alpha'))],
    [0, 1, 2, 3, 4, 5].map((x) => Math.fround(x / 7)),
  );
  assert.deepEqual(r.info('alpha')!.shape, [2, 3]);
  await r.close();
  assert.ok(readFileSync(file).length > 0);
});
