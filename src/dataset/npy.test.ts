import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { f16ToFloat64, float64ToF16 } from '../core/float-format.js';
import { readRow } from '../core/vector-store.js';
import { numpySkipReason, runPython } from '../../test/support/python.js';
import { loadEmbeddings } from './embeddings-file.js';
import { loadIdsFile, loadNpyStore, npyHeader, npyIdsPath, readNpyHeader, writeIdsFile, writeNpy } from './npy.js';

const dir = mkdtempSync(join(tmpdir(), 'coreb-npy-'));
const matrix = { rows: 3, dim: 4, data: Float32Array.from([0.1, -2, 3.5, 0, 1, 1, 1, 1, -0.25, 7, 1e-3, 65000]) };

/** A file of `header` (a version 1 .npy header dict) and `bytes` of data. */
function npyWith(name: string, dict: string, dataBytes: number, version = 1): string {
  const text = `${dict}\n`;
  const lenBytes = version === 1 ? 2 : 4;
  const head = Buffer.alloc(8 + lenBytes);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(head);
  if (version === 1) head.writeUInt16LE(text.length, 8);
  else head.writeUInt32LE(text.length, 8);
  const f = join(dir, name);
  writeFileSync(f, Buffer.concat([head, Buffer.from(text, 'latin1'), Buffer.alloc(dataBytes)]));
  return f;
}

test('.npy round trip: float32 exact, float16 rounded to nearest even, header padded to 64 bytes', async () => {
  const f32 = join(dir, 'm32.npy');
  await writeNpy(f32, matrix);
  assert.equal(npyHeader(3, 4, 'float32').length % 64, 0);
  const h = readNpyHeader(f32);
  assert.deepEqual(h, { version: 1, dtype: 'float32', rows: 3, dim: 4, dataOffset: 128 });
  const s = loadNpyStore(f32);
  assert.deepEqual([...readRow(s, 2)], [...matrix.data.subarray(8)]);
  const f16 = join(dir, 'm16.npy');
  await writeNpy(f16, matrix, 'float16');
  const s16 = loadNpyStore(f16);
  assert.equal(s16.dtype, 'float16');
  assert.deepEqual(
    [...readRow(s16, 0)],
    [...matrix.data.subarray(0, 4)].map((x) => f16ToFloat64(float64ToF16(x))),
  );
  // Conversions on load: float16 file as float32 store (exact), float32 file as float16 store.
  assert.deepEqual([...readRow(loadNpyStore(f16, { dtype: 'float32' }), 2)], [...readRow(s16, 2)]);
  assert.deepEqual([...readRow(loadNpyStore(f32, { dtype: 'float16' }), 1)], [1, 1, 1, 1]);
  // Small chunks: rows spread over several shared buffers read the same.
  const chunked = loadNpyStore(f32, { chunkBytes: 16 });
  assert.equal(chunked.chunks.length, 3);
  assert.deepEqual([...readRow(chunked, 1)], [1, 1, 1, 1]);
});

test('.npy headers: versions 2 and 3 read; wrong dtype, order, shape or size named with the file', () => {
  const ok2 = npyWith('v2.npy', "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12, 2);
  assert.deepEqual({ ...readNpyHeader(ok2), dataOffset: 0 }, { version: 2, dtype: 'float16', rows: 2, dim: 3, dataOffset: 0 });
  const ok3 = npyWith('v3.npy', "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", 0, 3);
  assert.equal(readNpyHeader(ok3).rows, 0);
  const cases: Array<[string, string, number, RegExp]> = [
    ['be.npy', "{'descr': '>f4', 'fortran_order': False, 'shape': (1, 1), }", 4, /dtype '>f4'; expected '<f4'/],
    ['f8.npy', "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", 8, /dtype '<f8'/],
    ['fortran.npy', "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }", 4, /fortran_order is True/],
    ['3d.npy', "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }", 4, /expected 2-D/],
    ['1d.npy', "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16, /expected 2-D/],
    ['short.npy', "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 12, /needs \d+ bytes, the file has/],
    ['nodescr.npy', "{'fortran_order': False, 'shape': (2, 2), }", 16, /lacks descr/],
  ];
  for (const [name, dict, bytes, re] of cases) {
    const f = npyWith(name, dict, bytes);
    assert.throws(
      () => readNpyHeader(f),
      (e) => isCorebError(e, 'PARSE') && re.test(e.message) && e.message.includes(f),
      name,
    );
  }
  const junk = join(dir, 'junk.npy');
  writeFileSync(junk, 'not numpy at all');
  assert.throws(
    () => readNpyHeader(junk),
    (e) => isCorebError(e, 'PARSE') && /magic/.test(e.message),
  );
  assert.throws(
    () => readNpyHeader(join(dir, 'missing.npy')),
    (e) => isCorebError(e, 'IO'),
  );
});

test('ids files: one per line, blank and duplicate ids named by line', async () => {
  const f = join(dir, 'a.ids');
  await writeIdsFile(f, ['x', 'y z', 'é']);
  assert.deepEqual(await loadIdsFile(f), ['x', 'y z', 'é']);
  assert.equal(npyIdsPath('/a/docs.npy'), '/a/docs.ids');
  writeFileSync(join(dir, 'dup.ids'), 'a\nb\na\n');
  await assert.rejects(
    loadIdsFile(join(dir, 'dup.ids')),
    (e) => isCorebError(e, 'VALIDATION') && /dup\.ids:3:/.test(e.message) && /first on line 1/.test(e.message),
  );
  writeFileSync(join(dir, 'blank.ids'), 'a\n\nb\n');
  await assert.rejects(loadIdsFile(join(dir, 'blank.ids')), (e) => isCorebError(e, 'VALIDATION') && /blank\.ids:2:/.test(e.message));
  await assert.rejects(writeIdsFile(join(dir, 'bad.ids'), ['a\nb']), (e) => isCorebError(e, 'VALIDATION'));
});

test('an embeddings directory pairs docs/queries .npy with their ids and checks the counts', async () => {
  const d = mkdtempSync(join(dir, 'emb-'));
  await writeNpy(join(d, 'docs.npy'), matrix, 'float16');
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2', 'd3']);
  await writeNpy(join(d, 'queries.npy'), { rows: 1, dim: 4, data: Float32Array.from([1, 0, 0, 0]) });
  await writeIdsFile(join(d, 'queries.ids'), ['q1']);
  const v = await loadEmbeddings(d);
  assert.equal(v.format, 'npy');
  assert.equal(v.docs.store.dtype, 'float16');
  assert.equal(v.queries.store.dtype, 'float32');
  assert.equal(v.docs.ids.get('d3'), 2);
  assert.equal((await loadEmbeddings(d, { dtype: 'float32' })).docs.store.dtype, 'float32');
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2']);
  await assert.rejects(loadEmbeddings(d), (e) => isCorebError(e, 'VALIDATION') && /has 3 rows but .*docs\.ids has 2 ids/.test(e.message));
});

test("numpy reads the .npy files coreb writes and coreb reads numpy's (versions 1 and 3, float32 and float16)", (t) => {
  const skip = numpySkipReason();
  if (skip !== undefined) return t.skip(skip);
  const ours = join(dir, 'ours.npy');
  return writeNpy(ours, matrix, 'float16').then(() => {
    const back = JSON.parse(
      runPython(
        'import sys, json, numpy as np\na = np.load(sys.argv[1])\nprint(json.dumps([str(a.dtype), list(a.shape), a.astype(float).tolist()]))',
        [ours],
      ),
    );
    assert.deepEqual(back[0], 'float16');
    assert.deepEqual(back[1], [3, 4]);
    assert.deepEqual(
      back[2][0],
      [...matrix.data.subarray(0, 4)].map((x) => f16ToFloat64(float64ToF16(x))),
    );
    const p1 = join(dir, 'np1.npy');
    const p3 = join(dir, 'np3.npy');
    runPython(
      'import sys, numpy as np\nfrom numpy.lib import format as F\na = np.arange(12, dtype=np.float32).reshape(3, 4) / 7\nnp.save(sys.argv[1], a)\nwith open(sys.argv[2], "wb") as f: F.write_array(f, a.astype(np.float16), version=(3, 0))',
      [p1, p3],
    );
    const s1 = loadNpyStore(p1);
    assert.deepEqual(
      [...readRow(s1, 1)],
      [4, 5, 6, 7].map((x) => Math.fround(Math.fround(x) / 7)),
    );
    const s3 = loadNpyStore(p3);
    assert.equal(readNpyHeader(p3).version, 3);
    assert.deepEqual(
      [...readRow(s3, 1)],
      [4, 5, 6, 7].map((x) => f16ToFloat64(float64ToF16(Math.fround(Math.fround(x) / 7)))),
    );
    assert.ok(readFileSync(p1).length > 0);
  });
});
