import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import type { RankedList } from '../core/retrieval.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSubtaskGlob, resolveTasks } from './eval-data.js';
import { protocolMeasures } from './protocol.js';
import { runEval } from './run-eval.js';
import { runFileDepth, slugify, trecRunChunks, trecRunLines } from './run-files.js';

test('--subtasks globs: * is any run, ? one character, commas separate, other characters are literal', () => {
  const keep = compileSubtaskGlob('t2c_search_*, c2c_cross_lan?,c2t.match');
  assert.equal(keep('t2c_search_python'), true);
  assert.equal(keep('t2c_canonical_retro_python'), false);
  assert.equal(keep('c2c_cross_lang'), true);
  assert.equal(keep('c2c_cross_language'), false);
  assert.equal(keep('c2t_match'), false, 'a dot is not a regex wildcard');
  assert.equal(keep('c2t.match'), true);
  assert.equal(keep(undefined), false);
});

test('--tasks accepts short and long names, comma lists, once each, in the order given', () => {
  assert.deepEqual(resolveTasks(undefined), ['text2code', 'code2text', 'code2code']);
  assert.deepEqual(resolveTasks(['c2c,t2c', 'code2code']), ['code2code', 'text2code']);
  assert.throws(
    () => resolveTasks(['t2x']),
    (e) => isCorebError(e, 'USAGE') && /unknown task `t2x`; valid tasks: t2c, c2t, c2c/.test(e.message),
  );
});

test('run file names are safe slugs of the spec', () => {
  assert.equal(slugify('rrf:bm25,embeddings:/tmp/e5 vectors.jsonl'), 'rrf_bm25_embeddings_tmp_e5_vectors.jsonl');
  assert.equal(slugify('///'), 'retriever');
  assert.equal(slugify('x'.repeat(200)).length, 80);
});

test('TREC run lines: 1-based ranks, queries without a list skipped', () => {
  const lists = new Map([['q1', { docIds: ['d2', 'd1'], scores: Float32Array.of(2.5, 1) }]]);
  const lines = [
    ...trecRunLines(
      [
        { id: 'q0', text: '' },
        { id: 'q1', text: '' },
      ],
      lists,
      'tag',
    ),
  ];
  assert.deepEqual(lines, ['q1 Q0 d2 1 2.5 tag', 'q1 Q0 d1 2 1 tag']);
});

test('run files at a depth keep the documents tied with the last one; the depth is what the measures reported read', () => {
  const lists = new Map([['q', { docIds: ['a', 'b', 'c', 'd', 'e'], scores: Float32Array.of(5, 4, 3, 3, 1) }]]);
  const at = (d?: number) => [...trecRunLines([{ id: 'q', text: '' }], lists, 't', d)].map((l) => l.split(' ')[2]);
  assert.deepEqual(at(2), ['a', 'b']);
  assert.deepEqual(at(3), ['a', 'b', 'c', 'd'], 'd ties c at the cut: kept, so a re-sort of the file cannot change the top 3');
  assert.deepEqual(at(10), ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(at(), ['a', 'b', 'c', 'd', 'e']);
  assert.equal(runFileDepth(protocolMeasures({ name: 'coreb' })), 100);
  assert.equal(runFileDepth(protocolMeasures({ name: 'mteb' })), 1000);
  assert.equal(runFileDepth(protocolMeasures({ name: 'coreb', extraMeasures: ['recall@1000'] })), 1000);
  assert.equal(runFileDepth(protocolMeasures({ name: 'coreb', extraMeasures: ['map'] })), undefined, 'uncut AP reads every document');
});

test('a library caller need not pass corebVersion: the results carry this package’s version', async () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const { results } = await runEval({ data: join(root, 'data', 'coreb-mini', 'release'), tasks: ['c2c'], datasetStats: false });
  assert.equal(results.coreb.version, pkg.version);
  assert.equal(results.retrievers[0].name, 'bm25');
});

test('run chunks are the run lines as bytes: ids in any script, ties at the depth, scores as printed', () => {
  const lists = new Map<string, RankedList>([
    ['q1', { docIds: ['d3', 'é-2', '文書1', 'd0'], scores: Float32Array.from([2.5, 1.100000023841858, 1.100000023841858, -0]) }],
    ['q2', { docIds: [], scores: new Float32Array(0) }],
    ['q3', { docIds: Array.from({ length: 12000 }, (_, i) => `doc${i}`), scores: Float64Array.from({ length: 12000 }, (_, i) => 1e21 - i * 1e6) }],
  ]);
  const queries = [
    { id: 'q1', text: '' },
    { id: 'q2', text: '' },
    { id: 'q-absent', text: '' },
    { id: 'q3', text: '' },
  ];
  for (const depth of [undefined, 1, 2, 100]) {
    const chunks = [...trecRunChunks(queries, lists, 'tag ü', depth)];
    const lines = [...trecRunLines(queries, lists, 'tag ü', depth)];
    assert.equal(chunks.join(''), lines.map((l) => `${l}\n`).join(''), `depth ${depth}`);
    if (depth === undefined) assert.ok(chunks.length > 1, 'long runs come in several chunks');
  }
  // trecRunLines is cut from the chunks, so the text itself is checked here: ties at the depth, any script, float32 scores in 9 digits, doubles in full.
  const q1 = [...trecRunChunks([{ id: 'q1', text: '' }], lists, 'tag ü', 2)].join('');
  assert.equal(q1, 'q1 Q0 d3 1 2.5 tag ü\nq1 Q0 é-2 2 1.10000002 tag ü\nq1 Q0 文書1 3 1.10000002 tag ü\n');
  assert.ok([...trecRunChunks([{ id: 'q3', text: '' }], lists, 't', 1)].join('').startsWith('q3 Q0 doc0 1 1e+21 t\n'));
});
