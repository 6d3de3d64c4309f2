import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { f16ToFloat64, float64ToF16 } from '../core/float-format.js';
import { normalizedStore, normalizeStore, readRow } from '../core/vector-store.js';
import { createUniform } from '../core/random.js';
import { numpySkipReason, runPython } from '../../test/support/python.js';
import { loadEmbeddings } from './embeddings-file.js';
import { loadIdsFile, loadNpyStore, npyHeader, npyIdsPath, openNpyChunks, readNpyHeader, writeIdsFile, writeNpy } from './npy.js';

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
  assert.ok('store' in v.docs);
  assert.equal(v.docs.store.dtype, 'float16');
  assert.equal(v.queries.store.dtype, 'float32');
  assert.equal(v.docs.ids.get('d3'), 2);
  const v32 = await loadEmbeddings(d, { dtype: 'float32' });
  assert.equal('store' in v32.docs && v32.docs.store.dtype, 'float32');
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2']);
  await assert.rejects(loadEmbeddings(d), (e) => isCorebError(e, 'VALIDATION') && /has 3 rows but .*docs\.ids has 2 ids/.test(e.message));
});

test('loadEmbeddings with normalizeDocs: documents of a .npy directory and of a JSONL file rounded once after normalising, queries as written', async () => {
  const d = mkdtempSync(join(dir, 'emb-norm-'));
  const docs = { rows: 3, dim: 4, data: Float32Array.from([3, 4, 0, 0.1, 0.3, 0.7, -0.2, 0.9, 1e-3, 2e-3, 3e-3, 7e-3]) };
  await writeNpy(join(d, 'docs.npy'), docs);
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2', 'd3']);
  await writeNpy(join(d, 'queries.npy'), { rows: 1, dim: 4, data: Float32Array.from([2, 0, 0, 0]) });
  await writeIdsFile(join(d, 'queries.ids'), ['q1']);
  const jsonl = join(dir, 'emb-norm.jsonl');
  const lines = ['d1', 'd2', 'd3'].map((id, i) => JSON.stringify({ id, kind: 'doc', vector: [...docs.data.subarray(i * 4, i * 4 + 4)] }));
  writeFileSync(jsonl, `${[...lines, JSON.stringify({ id: 'q1', kind: 'query', vector: [2, 0, 0, 0] })].join('\n')}\n`);
  const want = normalizedStore(docs, 'float16');
  for (const path of [d, jsonl]) {
    const v = await loadEmbeddings(path, { dtype: 'float16', normalizeDocs: true });
    assert.ok('store' in v.docs && v.docs.normalized === true, path);
    for (let i = 0; i < 3; i++) assert.deepEqual([...readRow(v.docs.store, i)], [...readRow(want, i)], `${path} row ${i}`);
    assert.deepEqual([...readRow(v.queries.store, 0)], [2, 0, 0, 0], 'queries keep their values');
    assert.equal(v.queries.normalized, undefined);
    const raw = await loadEmbeddings(path, { dtype: 'float32' });
    assert.ok('store' in raw.docs && raw.docs.normalized === undefined);
    assert.deepEqual([...readRow(raw.docs.store, 0)], [3, 4, 0, Math.fround(0.1)], 'without normalizeDocs the values of the file');
  }
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

test('loadNpyStore with normalize: a float32 file stored as float16 is rounded once, after normalising (as normalizedStore), other pairings as normalizeStore after the load', async () => {
  const rows = 300;
  const dim = 7;
  const r = createUniform(11);
  const m = { rows, dim, data: Float32Array.from({ length: rows * dim }, () => (r() - 0.5) * 3) };
  m.data.fill(0, 14, 21); // an all-zero row stays zero
  let differs = 0;
  for (const fileDtype of ['float32', 'float16'] as const) {
    const f = join(dir, `normalize-${fileDtype}.npy`);
    await writeNpy(f, m, fileDtype);
    for (const dtype of ['float32', 'float16'] as const) {
      const got = loadNpyStore(f, { dtype, normalize: 'docs', chunkBytes: 64 * dim * 4 });
      const after = loadNpyStore(f, { dtype });
      normalizeStore(after, 'docs');
      const want = fileDtype === 'float32' && dtype === 'float16' ? normalizedStore(m, 'float16') : after;
      for (let i = 0; i < rows; i++) {
        assert.deepEqual([...readRow(got, i)], [...readRow(want, i)], `${fileDtype} -> ${dtype} row ${i}`);
        if (want !== after && readRow(after, i).some((v, j) => v !== readRow(got, i)[j])) differs++;
      }
    }
  }
  assert.ok(differs > 0, 'rounding twice differs from rounding once on some rows');
  const bad = join(dir, 'normalize-nan.npy');
  const data = new Float32Array(4 * dim).fill(0.5);
  data[2 * dim + 3] = Number.NaN;
  await writeNpy(bad, { rows: 4, dim, data });
  for (const dtype of ['float32', 'float16'] as const) {
    assert.throws(
      () => loadNpyStore(bad, { dtype, normalize: 'document vectors of X' }),
      (e) => isCorebError(e, 'VALIDATION') && /document vectors of X: row 2 has a non-finite value \(NaN\) at column 3/.test(e.message),
    );
  }
});

test('openNpyChunks: chunks of a .npy file hold the rows loadNpyStore with normalize gives, in every dtype pairing, for a row subset', async () => {
  const rows = 23;
  const dim = 5;
  const r = createUniform(7);
  const m = { rows, dim, data: Float32Array.from({ length: rows * dim }, () => (r() - 0.5) * 4) };
  m.data.fill(0, 10, 15); // an all-zero row stays zero
  for (const fileDtype of ['float32', 'float16'] as const) {
    const f = join(dir, `chunks-${fileDtype}.npy`);
    await writeNpy(f, m, fileDtype);
    for (const dtype of ['float32', 'float16'] as const) {
      const ref = loadNpyStore(f, { dtype, normalize: 'ref' });
      // Logical documents: file rows 22, 20, ..., 0 (every second row, reversed).
      const rowMap = Int32Array.from({ length: 12 }, (_, i) => 22 - 2 * i);
      const src = openNpyChunks(f, { dtype, rowMap, chunkBytes: 4 * dim * (dtype === 'float16' ? 2 : 4) });
      assert.equal(src.chunkRows, 4);
      assert.equal(src.chunkCount, 6);
      assert.equal(src.rows, 12);
      const seen = new Map<number, number[]>();
      for (let c = 0; c < src.chunkCount; c++) {
        const into = dtype === 'float16' ? new Uint16Array(4 * dim) : new Float32Array(4 * dim);
        const labels = new Int32Array(4);
        const n = await src.readChunk(c, into, labels);
        for (let j = 0; j < n; j++) seen.set(labels[j], [...readRow({ rows: n, dim, dtype, chunkRows: 4, chunks: [into] }, j)]);
      }
      assert.equal(seen.size, 12, `${fileDtype} -> ${dtype}: every document once`);
      for (let i = 0; i < 12; i++) assert.deepEqual(seen.get(i), [...readRow(ref, rowMap[i])], `${fileDtype} -> ${dtype} document ${i}`);
    }
  }
});

test('openNpyChunks: a file truncated after opening, a bad row map and a non-finite value are named', async () => {
  const f = join(dir, 'trunc.npy');
  await writeNpy(f, { rows: 10, dim: 4, data: new Float32Array(40).fill(1) });
  assert.throws(
    () => openNpyChunks(f, { rowMap: Int32Array.from([0, 10]) }),
    (e) => isCorebError(e, 'VALIDATION') && e.message.includes(f) && /entry 1 is 10/.test(e.message),
  );
  assert.throws(
    () => openNpyChunks(f, { rowMap: Int32Array.from([3, 3]) }),
    (e) => isCorebError(e, 'VALIDATION') && /distinct/.test(e.message),
  );
  const src = openNpyChunks(f, { chunkBytes: 4 * 16 });
  truncateSync(f, 128 + 6 * 16);
  const into = new Float32Array(16);
  const labels = new Int32Array(4);
  assert.equal(await src.readChunk(0, into, labels), 4);
  await assert.rejects(
    src.readChunk(1, into, labels),
    (e) => isCorebError(e, 'IO') && e.message.includes(f) && /end of file at row 6; the header says 10 rows/.test(e.message),
  );
  const g = join(dir, 'nan.npy');
  await writeNpy(g, { rows: 3, dim: 2, data: Float32Array.from([1, 0, 0, 1, 0, Number.NaN]) });
  await assert.rejects(
    openNpyChunks(g, { chunkBytes: 16 }).readChunk(1, new Float32Array(4), new Int32Array(2)),
    (e) => isCorebError(e, 'VALIDATION') && /row 2 has a non-finite value \(NaN\) at column 1/.test(e.message),
  );
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(openNpyChunks(g).readChunk(0, new Float32Array(6), new Int32Array(3), ac.signal), (e) => isCorebError(e, 'INTERRUPTED'));
});

test('an embeddings directory over the memory budget is left in its file; the ids count is checked first', async () => {
  const d = mkdtempSync(join(dir, 'emb-big-'));
  await writeNpy(join(d, 'docs.npy'), matrix);
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2', 'd3']);
  await writeNpy(join(d, 'queries.npy'), { rows: 1, dim: 4, data: Float32Array.from([1, 0, 0, 0]) });
  await writeIdsFile(join(d, 'queries.ids'), ['q1']);
  // 3 x 4 float32 = 48 bytes: streamed under 47, read at 48; float16 storage halves it.
  const over = await loadEmbeddings(d, { memoryBytes: 47 });
  assert.ok(!('store' in over.docs));
  assert.equal(over.docs.dtype, 'float32');
  assert.equal(over.docs.chunkBytes, 11);
  assert.equal(over.docs.ids.get('d3'), 2);
  assert.ok('store' in (await loadEmbeddings(d, { memoryBytes: 48 })).docs);
  assert.ok('store' in (await loadEmbeddings(d, { memoryBytes: 47, dtype: 'float16' })).docs);
  assert.ok('store' in (await loadEmbeddings(d)).docs, 'the default budget holds a small matrix');
  assert.ok('store' in over.queries, 'queries are always read');
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2', 'd3', 'd4']);
  await assert.rejects(
    loadEmbeddings(d, { memoryBytes: 0 }),
    (e) => isCorebError(e, 'VALIDATION') && /docs\.npy has 3 rows but .*docs\.ids has 4 ids/.test(e.message),
  );
});

test('an embeddings directory: ids are hashed as read, a corpus in row order needs no map, a repeated id is named by file and line when looked up, CRLF and BOM read', async () => {
  const d = mkdtempSync(join(dir, 'emb-rows-'));
  await writeNpy(join(d, 'docs.npy'), matrix);
  writeFileSync(join(d, 'docs.ids'), '\uFEFFd1\r\nd2\r\nd1\r\n');
  await writeNpy(join(d, 'queries.npy'), { rows: 1, dim: 4, data: Float32Array.from([1, 0, 0, 0]) });
  await writeIdsFile(join(d, 'queries.ids'), ['q1']);
  const v = await loadEmbeddings(d);
  assert.deepEqual(v.docs.ids.list, ['d1', 'd2', 'd1']);
  assert.equal(v.docs.ids.inOrder(['d1', 'd2', 'd1']), true);
  assert.equal(v.docs.ids.inOrder(['d2', 'd1', 'd1']), false);
  assert.throws(
    () => v.docs.ids.get('d2'),
    (e) => isCorebError(e, 'VALIDATION') && /docs\.ids:3:/.test(e.message) && /first on line 1/.test(e.message),
  );
  // The hashes taken while reading are the files' SHA-256.
  const { createHash } = await import('node:crypto');
  for (const name of ['docs.npy', 'docs.ids', 'queries.npy', 'queries.ids']) {
    assert.equal(
      v.fileSha256?.[name],
      createHash('sha256')
        .update(readFileSync(join(d, name)))
        .digest('hex'),
      name,
    );
  }
});

test('an embeddings matrix hashed once is known by its identity on disk: kept while unchanged, hashed again once written', async () => {
  const d = mkdtempSync(join(dir, 'emb-sha-'));
  const cache = join(d, 'cache');
  const docs = { rows: 2, dim: 4, data: Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0]) };
  await writeNpy(join(d, 'docs.npy'), docs);
  await writeIdsFile(join(d, 'docs.ids'), ['d1', 'd2']);
  await writeNpy(join(d, 'queries.npy'), { rows: 1, dim: 4, data: Float32Array.from([1, 0, 0, 0]) });
  await writeIdsFile(join(d, 'queries.ids'), ['q1']);
  const real = (await loadEmbeddings(d)).fileSha256?.['docs.npy'];
  assert.equal((await loadEmbeddings(d, { sha256CacheDir: cache })).fileSha256?.['docs.npy'], real, 'the first load hashes');
  const records = readdirSync(cache).map((name) => ({
    name,
    ...(JSON.parse(readFileSync(join(cache, name), 'utf8')) as { file: string; sha256: string }),
  }));
  assert.deepEqual(records.map((r) => r.file.slice(d.length)).sort(), ['/docs.npy', '/queries.npy']);
  // The record is what a second load believes: a forged one (same identity) is taken as it is...
  const record = records.find((r) => r.file.endsWith('docs.npy'))!;
  writeFileSync(join(cache, record.name), JSON.stringify({ ...record, sha256: 'f'.repeat(64) }));
  assert.equal(
    (await loadEmbeddings(d, { sha256CacheDir: cache })).fileSha256?.['docs.npy'],
    'f'.repeat(64),
    'an unchanged file is not hashed again',
  );
  // ...until the file is written, even with the same bytes: its status-change time moves.
  await new Promise((r) => setTimeout(r, 20));
  await writeNpy(join(d, 'docs.npy'), docs);
  assert.equal((await loadEmbeddings(d, { sha256CacheDir: cache })).fileSha256?.['docs.npy'], real, 'a written file is hashed again');
  assert.equal((await loadEmbeddings(d, { sha256CacheDir: cache })).fileSha256?.['docs.npy'], real);
});
