/**
 * `coreb eval` end to end on a tiny CoREB release and a tiny BEIR directory this test writes:
 * hand-checked numbers through `run:` files, precomputed `embeddings:`, BM25 and RRF side by side,
 * the output directory (runs, results.json, leaderboard.md) and the errors a user meets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { jsonl, writeTinyRelease } from './eval-fixture.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-eval-e2e-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const release = join(root, 'release_tiny');
writeTinyRelease(release);

// A run whose numbers are easy to check by hand (see the assertions).
const runFile = join(root, 'hand.trec');
writeFileSync(
  runFile,
  [
    // t2c q1: c3 (hard negative) above c1 and c2: strict nDCG@10 = (2/log2 3 + 2/log2 4) / (2 + 2/log2 3).
    'q_t2c_1 Q0 c3 1 3.0 hand',
    'q_t2c_1 Q0 c1 2 2.0 hand',
    'q_t2c_1 Q0 c2 3 1.0 hand',
    // t2c q2 is missing from the run on purpose.
    // c2c: the anchor c1 first, then c3, then c2. With the anchor removed c2 is at rank 2.
    'q_c2c_1 Q0 c1 1 0.99 hand',
    'q_c2c_1 Q0 c3 2 0.5 hand',
    'q_c2c_1 Q0 c2 3 0.4 hand',
    // c2t: perfect for q1 and the positive pair; the negative pair ranks its noise text first.
    'q_c2t_1 Q0 t1 1 1 hand',
    'q_c2t_m1 Q0 t2 1 1 hand',
    'q_c2t_m2 Q0 t2_noise1 1 1 hand',
  ].join('\n') + '\n',
);

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: got ${actual}, expected ${expected}`);

interface Results {
  schema: string;
  dataset: {
    kind: string;
    sha256: string;
    files: Array<{ path: string; bytes: number; sha256: string }>;
    counts: Record<string, { corpus: number; queries: number }>;
  };
  protocol: Record<string, unknown>;
  retrievers: Array<{
    name: string;
    description: Record<string, unknown>;
    overall: { queries: number; metrics: Record<string, number> };
    taskMean: { queries: number; metrics: Record<string, number> };
    tasks: Record<
      string,
      { queries: number; missingQueries: number; excludedQueries: number; zeroedQueries: number; runFile?: string; metrics: Record<string, number> }
    >;
    subtasks: Record<string, { task: string; queries: number }>;
    languages: Record<string, Record<string, { queries: number }>>;
    subQueryTypes: Record<string, Record<string, { queries: number }>>;
    perQuery?: Record<string, { metrics: Record<string, number>; hnIntrusion: number | null; hardNegativesTop10: number }>;
  }>;
}

test('a run file is scored under the coreb protocol with hand-checked values, and every output file is written', () => {
  const out = join(root, 'out-run');
  const r = runCli(['eval', '--runs', 'plain', '--data', release, '--retriever', `run:${runFile}`, '--out', out, '--format', 'json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Results;
  assert.deepEqual(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')), res, 'stdout JSON = results.json');
  assert.equal(res.schema, 'coreb.eval-results/2');
  assert.equal(res.protocol.name, 'coreb');
  assert.equal(res.protocol.c2tMatchNegatives, 'zero');
  const run = res.retrievers[0];
  const t2c = run.tasks.text2code;
  assert.equal(t2c.queries, 1);
  assert.equal(t2c.missingQueries, 1, 'q_t2c_2 is not in the run');
  const l3 = Math.log2(3);
  close(t2c.metrics['ndcg@10'], (2 / l3 + 2 / 2) / (2 + 2 / l3), 't2c ndcg@10 (strict)');
  close(t2c.metrics['mrr@10'], 1 / 2, 't2c mrr@10');
  close(t2c.metrics['map@10'], (1 / 2 + 2 / 3) / 2, 't2c map@10');
  close(run.perQuery!.q_t2c_1.hnIntrusion!, 1, 't2c intrusion');
  const c2c = run.tasks.code2code;
  close(c2c.metrics['ndcg@10'], 2 / l3 / 2, 'c2c ndcg@10 with the anchor removed');
  close(c2c.metrics['recall@1'], 0, 'c2c recall@1');
  const c2t = run.tasks.code2text;
  assert.equal(c2t.excludedQueries, 0);
  assert.equal(c2t.zeroedQueries, 1, 'the negative pair counts, with 0');
  assert.equal(c2t.queries, 3);
  close(c2t.metrics['ndcg@10'], 2 / 3, 'c2t ndcg@10: two perfect queries and the negative pair');
  // Overall is the mean over the 5 pooled queries; the task mean weighs each task once.
  assert.equal(run.overall.queries, 5);
  close(run.overall.metrics['ndcg@10'], (t2c.metrics['ndcg@10'] + c2c.metrics['ndcg@10'] + 2 * 1) / 5, 'query-weighted overall');
  close(run.taskMean.metrics['ndcg@10'], (t2c.metrics['ndcg@10'] + c2c.metrics['ndcg@10'] + 2 / 3) / 3, 'task mean');
  assert.equal(run.taskMean.queries, 5);
  assert.deepEqual(Object.keys(run.subtasks).sort(), ['c2c_cross_lang', 'c2t_full_retro_python', 'c2t_match', 't2c_canonical_retro_any']);
  assert.equal(run.languages.text2code.any.queries, 1);
  assert.equal(run.subQueryTypes.text2code.abbreviated.queries, 1);
  assert.equal(run.description.kind, 'run');
  // Dataset identity: 8 tables with their real sizes and hashes.
  assert.equal(res.dataset.files.length, 8);
  const cc = res.dataset.files.find((f) => f.path === 'code_corpus.jsonl')!;
  const bytes = readFileSync(join(release, 'code_corpus.jsonl'));
  assert.equal(cc.bytes, bytes.length);
  assert.equal(cc.sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.deepEqual(res.dataset.counts.code2code, { corpus: 6, queries: 1 });
  // Run files: TREC lines, the c2c anchor gone, no temporary files left.
  const c2cRun = readFileSync(join(out, t2c.runFile!.replace('text2code', 'code2code')), 'utf8')
    .trim()
    .split('\n');
  assert.deepEqual(
    c2cRun.map((l) => l.split(' ').slice(0, 4).join(' ')),
    ['q_c2c_1 Q0 c3 1', 'q_c2c_1 Q0 c2 2'],
  );
  assert.ok(readFileSync(join(out, 'leaderboard.md'), 'utf8').includes('| # | retriever |'));
  const leftovers = [...readdirSync(out), ...readdirSync(join(out, 'runs'))].filter((f) => f.endsWith('.tmp'));
  assert.deepEqual(leftovers, []);
});

test('--c2t-match-negatives exclude leaves the negative pair out; the leaderboard states the population', () => {
  const r = runCli([
    'eval',
    '--data',
    release,
    '--retriever',
    `run:${runFile}`,
    '--tasks',
    'c2t',
    '--c2t-match-negatives',
    'exclude',
    '--format',
    'json',
    '--quiet',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const c2t = (JSON.parse(r.stdout) as Results).retrievers[0].tasks.code2text;
  assert.equal(c2t.queries, 2);
  assert.equal(c2t.excludedQueries, 1);
  close(c2t.metrics['ndcg@10'], 1, 'only the two perfect queries');
  const table = runCli(['eval', '--data', release, '--retriever', `run:${runFile}`, '--quiet']);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /c2t_match negatives counted as 0/);
  assert.match(table.stdout, /population: t2c 1 \(1 missing from the run\), c2t 3 \(incl\. 1 c2t_match negatives scored 0\), c2c 1 queries/);
  assert.match(table.stdout, /task-mean ndcg@10/);
});

test('--protocol mteb: rel-2 qrels only, the negative pair dropped, the anchor kept, MTEB cutoffs and hit rate', () => {
  const r = runCli(['eval', '--data', release, '--retriever', `run:${runFile}`, '--protocol', 'mteb', '--format', 'json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Results & { measures: string[] };
  assert.equal(res.protocol.name, 'mteb');
  assert.equal(res.measures.length, 42);
  const run = res.retrievers[0];
  const c2t = run.tasks.code2text;
  assert.deepEqual([c2t.queries, c2t.excludedQueries], [2, 1], 'the negative pair has no rel-2 document');
  // t2c q1: c3 (rel 1, dropped from the qrels) first, then c1, c2 (rel 2): hit@1 0, P@3 2/3.
  const t2c = run.tasks.text2code;
  close(t2c.metrics['hit@1'], 0, 't2c hit@1');
  close(t2c.metrics['p@3'], 0.66667, 't2c p@3 rounded to 5 decimals');
  const l3 = Math.log2(3);
  close(t2c.metrics['ndcg@3'], Math.round(((1 / l3 + 1 / 2) / (1 + 1 / l3)) * 1e5) / 1e5, 'binary nDCG@3 on the reduced qrels');
  // c2c: the anchor c1 stays at rank 1, so the positive c2 is at rank 3.
  const c2c = run.tasks.code2code;
  close(c2c.metrics['mrr@10'], 1 / 3, 'MTEB MRR with the anchor kept');
  close(c2c.metrics['ndcg@10'], Math.round((1 / 2) * 1e5) / 1e5, 'nDCG@10 with the anchor kept');
  close(
    run.taskMean.metrics['ndcg@10'],
    Math.round(((t2c.metrics['ndcg@10'] + c2t.metrics['ndcg@10'] + c2c.metrics['ndcg@10']) / 3) * 1e5) / 1e5,
    'task mean',
  );
});

test("a run with tied scores: --protocol mteb and beir score MRR in the file's order, as MTEB and BEIR read it; coreb in trec order", () => {
  // Ties listed against trec order (trec breaks ties by docid descending: c5, c3, c1 and c4, c1).
  const tied = join(root, 'tied.trec');
  const lines = [
    'q_t2c_1 Q0 c5 1 1.0 tied',
    'q_t2c_1 Q0 c1 2 1.0 tied',
    'q_t2c_1 Q0 c3 3 1.0 tied',
    'q_t2c_1 Q0 c2 4 0.5 tied',
    'q_t2c_2 Q0 c1 1 0.9 tied',
    'q_t2c_2 Q0 c4 2 0.9 tied',
  ];
  writeFileSync(tied, `${lines.join('\n')}\n`);
  // MRR@10 computed here from the file: a stable sort by score, the first document of relevance >= `level`.
  const qrels = readFileSync(join(release, 'text2code_qrels.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { query_id: string; doc_id: string; relevance: number });
  const mrr = (order: 'file' | 'trec', level: number): number => {
    const byQuery = new Map<string, Array<{ doc: string; score: number }>>();
    for (const l of lines) {
      const [q, , doc, , score] = l.split(' ');
      byQuery.set(q, [...(byQuery.get(q) ?? []), { doc, score: Number(score) }]);
    }
    let sum = 0;
    for (const [q, list] of byQuery) {
      const ranked = [...list].sort((a, b) => b.score - a.score || (order === 'trec' ? (a.doc < b.doc ? 1 : -1) : 0));
      const at = ranked.slice(0, 10).findIndex((d) => qrels.some((r) => r.query_id === q && r.doc_id === d.doc && r.relevance >= level));
      sum += at < 0 ? 0 : 1 / (at + 1);
    }
    return sum / byQuery.size;
  };
  const mrrOf = (protocol: string) => {
    const r = runCli([
      'eval',
      '--data',
      release,
      '--retriever',
      `run:${tied}`,
      '--tasks',
      't2c',
      '--protocol',
      protocol,
      '--format',
      'json',
      '--quiet',
    ]);
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout) as Results).retrievers[0].tasks.text2code.metrics['mrr@10'];
  };
  assert.notEqual(mrr('file', 2), mrr('trec', 2), 'the fixture orders ties against trec order');
  close(mrrOf('mteb'), mrr('file', 2), 'mteb MRR@10 (rel-2 qrels) in file order');
  // BEIR keeps every label: the rel-1 c3 counts as relevant (label > 0).
  close(mrrOf('beir'), mrr('file', 1), 'beir MRR@10 in file order');
  close(mrrOf('coreb'), mrr('trec', 2), 'coreb MRR@10 in trec order');
});

test('a query with an empty ranked list stays in the population as 0 and is listed in results.json', () => {
  const dir = join(root, 'release_empty');
  writeTinyRelease(dir);
  const extraQuery = {
    query_id: 'q_t2c_none',
    query: 'zyzzyva quokka',
    split: 'text2code',
    subtask: 't2c_search_any',
    query_type: 'language_agnostic',
    sub_query_type: 'description_search',
    language_constraint: 'none',
    meta_source_problem_id: 'P1',
  };
  writeFileSync(join(dir, 'text2code_queries.jsonl'), readFileSync(join(dir, 'text2code_queries.jsonl'), 'utf8') + jsonl([extraQuery]));
  writeFileSync(
    join(dir, 'text2code_qrels.jsonl'),
    readFileSync(join(dir, 'text2code_qrels.jsonl'), 'utf8') + jsonl([{ query_id: 'q_t2c_none', doc_id: 'c1', relevance: 2 }]),
  );
  const out = join(root, 'out-empty');
  const r = runCli(['eval', '--runs', 'plain', '--data', dir, '--tasks', 't2c', '--out', out, '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const t2c = (JSON.parse(r.stdout) as Results).retrievers[0].tasks.text2code as Results['retrievers'][0]['tasks'][string] & {
    emptyQueries: string[];
  };
  assert.deepEqual(t2c.emptyQueries, ['q_t2c_none']);
  assert.equal(t2c.queries, 3, 'averaged with the others');
  assert.match(r.stderr, /1 text2code query has an empty ranked list/);
  const runQueries = new Set(
    readFileSync(join(out, 'runs', 'bm25.text2code.trec'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0]),
  );
  assert.equal(runQueries.has('q_t2c_none'), false, 'a TREC run cannot hold a query without documents');
  assert.equal(runQueries.size + t2c.emptyQueries.length, t2c.queries, 'run queries + listed empty queries = the population');
});

test('bm25, embeddings and rrf run side by side and print a leaderboard', () => {
  // 2-d vectors: P1 items point along x, P2 items along y; the hard negatives lean the other way.
  const vec = (id: string, kind: string, v: number[]) => ({ id, kind, vector: v });
  const emb = join(root, 'vectors.jsonl');
  writeFileSync(
    emb,
    jsonl([
      vec('c1', 'doc', [1, 0.1]),
      vec('c2', 'doc', [1, 0.05]),
      vec('c3', 'doc', [0.6, 0.8]),
      vec('c4', 'doc', [0.1, 1]),
      vec('c5', 'doc', [0.8, 0.6]),
      vec('c6', 'doc', [0.7, 0.7]),
      vec('t1', 'doc', [1, 0]),
      vec('t2', 'doc', [0, 1]),
      vec('t1_noise1', 'doc', [0.7, 0.7]),
      vec('t2_noise1', 'doc', [0.6, 0.8]),
      vec('q_t2c_1', 'query', [1, 0]),
      vec('q_t2c_2', 'query', [0, 1]),
      vec('q_c2t_1', 'query', [1, 0]),
      vec('q_c2t_m1', 'query', [0, 1]),
      vec('q_c2t_m2', 'query', [0, 1]),
      vec('q_c2c_1', 'query', [1, 0.1]),
    ]),
  );
  const r = runCli([
    'eval',
    '--data',
    release,
    '--retriever',
    'bm25',
    '--retriever',
    `embeddings:${emb}`,
    '--retriever',
    `rrf:bm25,embeddings:${emb}`,
    '--format',
    'json',
    '--quiet',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Results;
  assert.deepEqual(
    res.retrievers.map((x) => x.description.kind),
    ['bm25', 'dense', 'rrf'],
  );
  const dense = res.retrievers[1];
  // Every positive is the nearest vector, so the embeddings retriever is perfect on nDCG@1 on the
  // 5 queries with a positive; the c2t_match negative pair (6th query) scores 0.
  close(dense.overall.metrics['ndcg@1'], 5 / 6, 'dense ndcg@1');
  const md = runCli(['eval', '--data', release, '--retriever', 'bm25', '--retriever', `embeddings:${emb}`, '--format', 'markdown', '--quiet']);
  assert.equal(md.status, 0, md.stderr);
  const board = md.stdout.split('\n').filter((l) => /^\| [12] \|/.test(l));
  assert.equal(board.length, 2, md.stdout);
  assert.ok(board[0].includes(`embeddings:${emb}`), 'best retriever first');
  // The same vectors as a directory of .npy matrices (float32, then stored as float16): same scores.
  const npyDir = join(root, 'vectors-npy');
  mkdirSync(npyDir, { recursive: true });
  const lines = readFileSync(emb, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; kind: string; vector: number[] });
  for (const kind of ['doc', 'query']) {
    const part = lines.filter((l) => l.kind === kind);
    const name = kind === 'doc' ? 'docs' : 'queries';
    const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${part.length}, 2), }`;
    const head = Buffer.alloc(10);
    Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(head);
    head.writeUInt16LE(dict.length + 1, 8);
    const data = Buffer.from(Float32Array.from(part.flatMap((l) => l.vector)).buffer);
    writeFileSync(join(npyDir, `${name}.npy`), Buffer.concat([head, Buffer.from(`${dict}\n`, 'latin1'), data]));
    writeFileSync(join(npyDir, `${name}.ids`), part.map((l) => l.id).join('\n') + '\n');
  }
  const viaNpy = runCli([
    'eval',
    '--data',
    release,
    '--retriever',
    `embeddings:${npyDir}`,
    '--retriever',
    `embeddings:${npyDir}?dtype=float16`,
    '--format',
    'json',
    '--quiet',
  ]);
  assert.equal(viaNpy.status, 0, viaNpy.stderr);
  const npyRes = JSON.parse(viaNpy.stdout) as Results;
  assert.deepEqual(npyRes.retrievers[0].overall.metrics, dense.overall.metrics, 'npy = jsonl');
  close(npyRes.retrievers[1].overall.metrics['ndcg@1'], 5 / 6, 'float16 ndcg@1');
  const table = runCli(['eval', '--data', release, '--quiet']);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /Leaderboard/);
  assert.match(table.stdout, /text2code\s+2\s/);
});

test('a BEIR directory is evaluated with BEIR semantics by default (level 1, 5 decimals)', () => {
  const dir = join(root, 'beir-tiny');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    jsonl([
      { _id: 'd1', title: 'binary search', text: 'find an item in a sorted array by halving' },
      { _id: 'd2', title: 'bubble sort', text: 'swap adjacent items until sorted' },
      { _id: 'd3', title: 'hash map', text: 'constant time lookup by key' },
    ]),
  );
  writeFileSync(
    join(dir, 'queries.jsonl'),
    jsonl([
      { _id: 'q1', text: 'search a sorted array' },
      { _id: 'q2', text: 'sort by swapping adjacent items' },
      { _id: 'q3', text: 'lookup by key' },
    ]),
  );
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td1\t1\n');
  const brun = join(root, 'beir.trec');
  // q1 perfect, q2 at rank 2, q3 at rank 3: ndcg@10 mean = (1 + 1/log2 3 + 1/2) / 3.
  writeFileSync(brun, 'q1 Q0 d1 1 3 x\nq1 Q0 d2 2 2 x\nq2 Q0 d1 1 3 x\nq2 Q0 d2 2 2 x\nq3 Q0 d3 1 3 x\nq3 Q0 d2 2 2 x\nq3 Q0 d1 3 1 x\n');
  const r = runCli(['eval', '--data', dir, '--retriever', `run:${brun}`, '--format', 'json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Results;
  assert.equal(res.dataset.kind, 'beir');
  assert.equal(res.protocol.name, 'beir');
  const task = Object.values(res.retrievers[0].tasks)[0];
  const exact = (1 + 1 / Math.log2(3) + 0.5) / 3;
  assert.equal(task.metrics['ndcg@10'], Math.round(exact * 1e5) / 1e5);
  assert.notEqual(task.metrics['ndcg@10'], exact);
});

test('user errors exit non-zero with a message naming the problem', () => {
  const bad = runCli(['eval', '--data', release, '--retriever', 'splade', '--quiet']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown retriever `splade`/);
  const emb = join(root, 'partial.jsonl');
  writeFileSync(emb, jsonl([{ id: 'c1', kind: 'doc', vector: [1, 0] }]));
  const partial = runCli(['eval', '--data', release, '--retriever', `embeddings:${emb}`, '--quiet']);
  assert.equal(partial.status, 4);
  assert.match(partial.stderr, /ids have no vector/);
  const task = runCli(['eval', '--data', release, '--tasks', 'x2y', '--quiet']);
  assert.equal(task.status, 2);
  assert.match(task.stderr, /unknown task `x2y`/);
  const missing = runCli(['eval', '--data', join(root, 'nope'), '--quiet']);
  assert.equal(missing.status, 3);
});
