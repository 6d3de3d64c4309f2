import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVAL_RESULTS_SCHEMA, type EvalResults, type RetrieverResult } from '../core/eval-results.js';
import { entryPath, hasEntry, listEntries, readEntry, removeEntries, writeEntry } from './results-store.js';

const group = { queries: 2, metrics: { 'ndcg@10': 0.5 } };
const row = (name: string, description: Record<string, unknown>): RetrieverResult =>
  ({
    name,
    spec: name,
    description,
    overall: group,
    taskMean: group,
    tasks: { text2code: group },
    subtasks: {},
    languages: {},
    subQueryTypes: {},
    timings: { indexMs: 1, searchMs: 1, evaluateMs: 1, totalMs: 3 },
  }) as unknown as RetrieverResult;

const results = (rows: RetrieverResult[], over: Partial<EvalResults> = {}): EvalResults =>
  ({
    schema: EVAL_RESULTS_SCHEMA,
    coreb: { version: 'test' },
    createdAt: '2026-12-01T00:00:00Z',
    dataset: { kind: 'coreb-release', dir: '/x', split: 'release_v2602', files: [], sha256: 'ab'.repeat(32), counts: {} },
    protocol: { name: 'coreb', relevanceLevel: 2 } as unknown as EvalResults['protocol'],
    measures: ['ndcg@10'],
    options: { depth: 1000, tasks: ['text2code'], subtasks: null },
    retrievers: rows,
    timings: { loadMs: 1, totalMs: 2 },
    ...over,
  }) as EvalResults;

test('entry paths: one per retriever identity x dataset x scoring; transport settings and other rows do not matter', () => {
  const r = results([]);
  const bm25 = row('bm25', { kind: 'bm25', k1: 0.9 });
  const p = entryPath(bm25, r);
  assert.match(p, /^bm25__[0-9a-f]{8}\/release_v2602__abababab\/coreb__[0-9a-f]{8}\.json$/);
  assert.equal(entryPath(row('bm25', { kind: 'bm25', k1: 0.9 }), r), p, 'stable');
  assert.notEqual(entryPath(row('bm25', { kind: 'bm25', k1: 1.2 }), r), p, 'parameters are identity');
  const dense = (endpoint: string) => row('dense', { kind: 'dense', model: 'm', revision: 'r1', endpoints: [endpoint], batchSize: 8 });
  assert.equal(entryPath(dense('http://a/v1'), r), entryPath(dense('http://b/v1'), r), 'the server is not identity');
  assert.notEqual(
    entryPath(row('dense', { kind: 'dense', model: 'm', revision: 'r2' }), r),
    entryPath(row('dense', { kind: 'dense', model: 'm', revision: 'r1' }), r),
  );
  assert.notEqual(entryPath(bm25, results([], { dataset: { ...r.dataset, sha256: 'cd'.repeat(32) } })), p, 'a changed dataset is a new entry');
  assert.notEqual(entryPath(bm25, results([], { options: { ...r.options, depth: 100 } })), p, 'depth');
  assert.notEqual(entryPath(bm25, results([], { options: { ...r.options, tasks: ['code2code'] } })), p, 'tasks');
  assert.notEqual(entryPath(bm25, results([], { protocol: { ...r.protocol, relevanceLevel: 1 } })), p, 'protocol semantics');
  assert.equal(entryPath(row('a/b c?x=1', {}), r).split('/')[0].startsWith('a_b_c_x_1__'), true, 'names are file-safe');
});

test('write, read, list and remove entries; concurrent writes lose nothing; bad paths are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-store-'));
  try {
    const rows = Array.from({ length: 20 }, (_, i) => row(`r${i}`, { kind: 'bm25', i }));
    const r = results(rows, { failed: [{ name: 'x', spec: 'x', code: 'HTTP', error: 'down' }] });
    const paths = await Promise.all(rows.map((x) => writeEntry(dir, r, x)));
    assert.equal(new Set(paths).size, 20);
    const listed = await listEntries(dir);
    assert.deepEqual(
      listed.map((e) => e.path),
      [...paths].sort(),
    );
    const one = await readEntry(dir, paths[3]);
    assert.deepEqual(
      one.results.retrievers.map((x) => x.name),
      ['r3'],
      'an entry holds its row only',
    );
    assert.equal(one.results.failed, undefined, 'failures of other rows are not kept');
    assert.ok(hasEntry(dir, rows[3], r));
    assert.equal(JSON.parse(readFileSync(join(dir, ...paths[3].split('/')), 'utf8')).schema, EVAL_RESULTS_SCHEMA);
    removeEntries(dir, [paths[3]]);
    assert.equal(hasEntry(dir, rows[3], r), false);
    assert.equal((await listEntries(dir)).length, 19);
    assert.throws(() => removeEntries(dir, ['../etc/passwd']), /is not an entry path/);
    assert.throws(() => removeEntries(dir, [paths[3]]), /no entry .* in the results store/);
    assert.deepEqual(await listEntries(join(dir, 'absent')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
