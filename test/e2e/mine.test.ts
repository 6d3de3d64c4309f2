import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { runCli } from '../support/cli.js';
import { numpySkipReason, runPython } from '../support/python.js';
import { projectRoot } from '../support/shared.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');
const tmp = () => mkdtempSync(join(tmpdir(), 'coreb-mine-e2e-'));
const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    // biome-ignore lint/suspicious/noExplicitAny: rows of several JSONL tables, read loosely in assertions
    .map((l) => JSON.parse(l) as Record<string, any>);

interface WireRecord {
  query_id: string;
  task: string;
  query: string;
  pos: Array<{ id: string; text: string }>;
  hard_neg: Array<{ id: string; text: string }>;
  easy_neg: Array<{ id: string; text: string }>;
}

/** Mined once for the suite: records of the bundled sample with BM25. */
const mined = (() => {
  const dir = tmp();
  const out = join(dir, 'records.jsonl');
  const r = runCli(['mine', '--data', MINI, '--retriever', 'bm25', '--out', out, '--quiet']);
  return { dir, out, r };
})();

test('coreb mine: one record per rel-2 qrel, a manifest with counts and the run, a warning about disjointness', () => {
  const { out, r } = mined;
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /without --exclude-problems/);
  const records = jsonl(out) as unknown as WireRecord[];
  const rel2 = { T2C: 0, C2T: 0, C2C: 0 } as Record<string, number>;
  for (const [t, label] of [
    ['text2code', 'T2C'],
    ['code2text', 'C2T'],
    ['code2code', 'C2C'],
  ]) {
    for (const q of jsonl(join(MINI, `${t}_qrels.jsonl`))) if (q.relevance === 2) rel2[label]++;
  }
  for (const t of Object.keys(rel2)) assert.equal(records.filter((x) => x.task === t).length, rel2[t], t);
  assert.deepEqual(Object.keys(records[0]), ['query_id', 'task', 'subtask', 'query', 'pos', 'hard_neg', 'easy_neg']);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.counts.records, records.length);
  assert.equal(manifest.counts.byTask.t2c.records, rel2.T2C);
  assert.equal(manifest.retriever.spec, 'bm25');
  assert.equal(manifest.retriever.description.kind, 'bm25');
  assert.deepEqual(manifest.options.window, [10, 100]);
  assert.equal(manifest.excludeProblems, null);
});

test('coreb mine --run FILE (a TREC run written by coreb eval) gives the same records as --retriever bm25', () => {
  const dir = tmp();
  const ev = runCli(['eval', '--runs', 'plain', '--data', MINI, '--retriever', 'bm25', '--out', join(dir, 'eval'), '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const runs = readdirSync(join(dir, 'eval', 'runs')).map((f) => readFileSync(join(dir, 'eval', 'runs', f), 'utf8'));
  writeFileSync(join(dir, 'all.trec'), runs.join(''));
  const r = runCli(['mine', '--data', MINI, '--run', join(dir, 'all.trec'), '--out', join(dir, 'from-run.jsonl'), '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(jsonl(join(dir, 'from-run.jsonl')), jsonl(mined.out));
  assert.equal(JSON.parse(readFileSync(join(dir, 'from-run.jsonl.manifest.json'), 'utf8')).retriever.description.kind, 'run');
});

/** A release the test builds: the sample's rows of `problems` only (a stand-in for a later release sharing them). */
function subsetRelease(dir: string, problems: Set<string>): string {
  mkdirSync(dir, { recursive: true });
  const keepQueries = new Set<string>();
  for (const f of readdirSync(MINI)) {
    if (f === 'manifest.json') continue;
    if (f.endsWith('_qrels.jsonl')) continue;
    const rows = jsonl(join(MINI, f)).filter((r) => problems.has(r.meta_source_problem_id ?? r.meta?.source_problem_id));
    for (const r of rows) if (r.query_id) keepQueries.add(r.query_id);
    writeFileSync(join(dir, f), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  for (const f of readdirSync(MINI).filter((x) => x.endsWith('_qrels.jsonl'))) {
    writeFileSync(
      join(dir, f),
      jsonl(join(MINI, f))
        .filter((r) => keepQueries.has(r.query_id))
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
  }
  return dir;
}

test('--exclude-problems RELEASE refuses overlap listing the problems; --drop-overlap leaves them out; ids and files work too', () => {
  const dir = tmp();
  const problemOf = new Map<string, string>();
  for (const f of ['code_corpus', 'text_corpus', 'text2code_queries', 'code2text_queries', 'code2code_queries']) {
    for (const r of jsonl(join(MINI, `${f}.jsonl`)))
      problemOf.set(
        f.endsWith('_queries') ? r.query_id : f === 'code_corpus' ? r.code_id : r.text_id,
        r.meta_source_problem_id ?? r.meta?.source_problem_id,
      );
  }
  const all = [...new Set(problemOf.values())].filter((p) => !p.includes('_noise')).sort();
  const shared = new Set([all[1], all[5]]);
  const test03 = subsetRelease(join(dir, 'release_v2603'), shared);
  const bad = runCli(['mine', '--data', MINI, '--retriever', 'bm25', '--exclude-problems', test03, '--out', join(dir, 'x.jsonl'), '--quiet']);
  assert.equal(bad.status, 4, bad.stderr);
  assert.match(
    bad.stderr,
    new RegExp(`shares 2 problem\\(s\\) with --exclude-problems, so its records would not be problem-disjoint: ${[...shared].sort().join(', ')}\\. `),
  );
  assert.equal(existsSync(join(dir, 'x.jsonl')), false);
  const ok = runCli([
    'mine',
    '--data',
    MINI,
    '--retriever',
    'bm25',
    '--exclude-problems',
    test03,
    '--drop-overlap',
    '--out',
    join(dir, 'ok.jsonl'),
    '--quiet',
  ]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.doesNotMatch(ok.stderr, /without --exclude-problems/);
  const records = jsonl(join(dir, 'ok.jsonl')) as unknown as WireRecord[];
  assert.ok(records.length > 0 && records.length < jsonl(mined.out).length);
  for (const r of records) {
    for (const id of [r.query_id, ...[...r.pos, ...r.hard_neg, ...r.easy_neg].map((p) => p.id)])
      assert.ok(!shared.has(problemOf.get(id)!), `${id} is from an excluded problem`);
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'ok.jsonl.manifest.json'), 'utf8'));
  assert.deepEqual(manifest.excludeProblems.overlap, [...shared].sort());
  assert.equal(manifest.excludeProblems.sources[0].kind, 'release');
  // a list of ids, and a file of ids, are the same exclusion
  writeFileSync(join(dir, 'ids.txt'), `# test problems\n${[...shared].join('\n')}\n`);
  for (const v of [[...shared].join(','), join(dir, 'ids.txt')]) {
    const r = runCli(['mine', '--data', MINI, '--retriever', 'bm25', '--exclude-problems', v, '--out', join(dir, 'y.jsonl'), '--quiet']);
    assert.equal(r.status, 4, v);
    assert.match(r.stderr, /shares 2 problem\(s\)/);
  }
  const missing = runCli([
    'mine',
    '--data',
    MINI,
    '--retriever',
    'bm25',
    '--exclude-problems',
    join(dir, 'nope'),
    '--out',
    join(dir, 'y.jsonl'),
    '--quiet',
  ]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /no such release directory or file/);
});

/** (query, document, label) triples of an export, read by python from the format's documented fields. */
const PY_READ = String.raw`
import sys, json, re
fmt, path = sys.argv[1], sys.argv[2]
out = []
for line in open(path, encoding='utf-8'):
    o = json.loads(line)
    if fmt == 'sentence-transformers':
        assert list(o) == ['query', 'passage', 'label']
        out.append([o['query'], o['passage'], int(o['label'])])
    elif fmt == 'sentence-transformers-lists':
        assert len(o['docs']) == len(o['labels'])
        out += [[o['query'], d, int(l)] for d, l in zip(o['docs'], o['labels'])]
    elif fmt == 'flagembedding':
        assert isinstance(o['prompt'], str) and o['prompt']
        out += [[o['query'], d, 1] for d in o['pos']] + [[o['query'], d, 0] for d in o['neg']]
    elif fmt == 'ms-swift':
        (m,) = o['messages']; assert m['role'] == 'user'
        for key, lab in (('positive_messages', 1), ('negative_messages', 0)):
            for turn in o[key]:
                (t,) = turn; assert t['role'] == 'assistant'
                out.append([m['content'], t['content'], lab])
    elif fmt == 'llama-factory':
        assert o['input'] == '' and o['system'].startswith('Judge whether the Document')
        m = re.fullmatch(r'<Instruct>: (.*?)\n<Query>: (.*)\n<Document>: (.*)', o['instruction'], re.S)
        assert o['output'] in ('<think>\n\n</think>\n\nyes', '<think>\n\n</think>\n\nno'), o['output']
        out.append([m.group(2), m.group(3), 1 if o['output'].endswith('yes') else 0])
    elif fmt == 'yesno-examples':
        assert o['label'] in ('yes', 'no')
        out.append([o['query'], o['document'], 1 if o['label'] == 'yes' else 0, o['query_id'], o['doc_id'], o['prompt'], o['instruction']])
print(json.dumps(out))
`;

test("exports read back by an independent python reader give the records' (query, document, label) set", (t) => {
  const skip = numpySkipReason();
  if (skip) return t.skip(skip);
  // 20 records of each task (a task's own instruction and shapes) are what the formats need: the
  // exports of all ~1,200 cost 3 s more and check nothing more.
  const perTask = new Map<string, number>();
  const records = (jsonl(mined.out) as unknown as WireRecord[]).filter((r) => {
    const n = perTask.get(r.task) ?? 0;
    perTask.set(r.task, n + 1);
    return n < 20;
  });
  assert.equal(perTask.size, 3, 'records of the three tasks');
  const from = join(mined.dir, 'records-sample.jsonl');
  writeFileSync(from, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const key = (q: string, d: string, l: number) => JSON.stringify([q, d, l]);
  const all = new Set<string>();
  for (const r of records) {
    for (const p of r.pos) all.add(key(r.query, p.text, 1));
    for (const p of [...r.hard_neg, ...r.easy_neg]) all.add(key(r.query, p.text, 0));
  }
  const read = (format: string, extra: string[] = []) => {
    const out = join(mined.dir, `${format}${extra.length ? '-all' : ''}.jsonl`);
    const r = runCli(['mine', '--from', from, '--export', format, '--out', out, '--quiet', ...extra]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8')).export.format, format);
    return JSON.parse(runPython(PY_READ, [format, out])) as Array<[string, string, number, ...string[]]>;
  };
  for (const format of ['sentence-transformers', 'sentence-transformers-lists', 'flagembedding', 'ms-swift']) {
    const got = new Set(read(format).map(([q, d, l]) => key(q, d, l)));
    assert.deepEqual([...got].sort(), [...all].sort(), format);
  }
  assert.deepEqual(new Set(read('llama-factory', ['--all-pairs']).map(([q, d, l]) => key(q, d, l))), all);
  // Balanced formats: per record 2x the positive, 1 hard and 1 easy negative, in record order.
  const lf = read('llama-factory');
  assert.equal(lf.length, 4 * records.length);
  const yn = read('yesno-examples');
  assert.equal(yn.length, 4 * records.length);
  records.forEach((r, i) => {
    for (const rows of [lf.slice(4 * i, 4 * i + 4), yn.slice(4 * i, 4 * i + 4)]) {
      assert.deepEqual(
        rows.map((x) => x[2]),
        [1, 1, 0, 0],
      );
      assert.ok(rows.every((x) => x[0] === r.query));
      assert.deepEqual([rows[0][1], rows[1][1]], [r.pos[0].text, r.pos[0].text]);
      assert.ok(
        r.hard_neg.some((h) => h.text === rows[2][1]),
        'third row is a hard negative',
      );
      assert.ok(
        r.easy_neg.some((e) => e.text === rows[3][1]),
        'fourth row is an easy negative',
      );
    }
    // the prompt is the Qwen3-Reranker template around the pair, ending where yes/no goes
    const [q, d, , qid, , prompt, instruction] = yn[4 * i];
    assert.equal(qid, r.query_id);
    assert.equal(
      prompt,
      '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n' +
        `<Instruct>: ${instruction}\n<Query>: ${q}\n<Document>: ${d}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`,
    );
  });
});

test('the published dataset shape (parquet with list<struct{id,text}> columns) is read and re-exported; bad rows are named', (t) => {
  const dir = tmp();
  const list = (name: string) => [
    { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    { name: 'text', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  ];
  const str = (name: string) => [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }];
  const cols = ['query_id', 'task', 'subtask', 'query', 'pos', 'hard_neg', 'easy_neg'];
  const write = (file: string, rows: Array<Record<string, unknown>>) =>
    writeFileSync(
      file,
      new Uint8Array(
        parquetWriteBuffer({
          columnData: cols.map((n) => ({ name: n, data: rows.map((r) => r[n] ?? null) as never })),
          schema: [
            { name: 'root', num_children: cols.length },
            ...cols.flatMap((c) => (['pos', 'hard_neg', 'easy_neg'].includes(c) ? list(c) : str(c))),
          ] as never,
        }),
      ),
    );
  const rows = [
    {
      query_id: 'q_t2c_1',
      task: 'T2C',
      subtask: 't2c_search_go',
      query: 'sum two numbers',
      pos: [{ id: 'c1', text: 'func add(a, b int) int { return a + b }' }],
      hard_neg: [{ id: 'c2', text: 'func add(a, b int) int { return a - b }' }],
      easy_neg: [{ id: 'c9', text: 'print("hi")' }],
    },
    {
      query_id: 'q_c2t_1',
      task: 'C2T',
      subtask: 'c2t_match',
      query: 'def f(x): return x*x',
      pos: [{ id: 't1', text: 'Square a number.' }],
      hard_neg: [],
      easy_neg: [
        { id: 't7', text: 'Sort a list.' },
        { id: 't8', text: 'Reverse a string.' },
      ],
    },
  ];
  write(join(dir, 'train-00000-of-00001.parquet'), rows);
  const out = join(dir, 'fe.jsonl');
  const r = runCli(['mine', '--from', join(dir, 'train-00000-of-00001.parquet'), '--export', 'flagembedding', '--out', out, '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const fe = jsonl(out);
  assert.deepEqual(fe[0], {
    query: 'sum two numbers',
    pos: ['func add(a, b int) int { return a + b }'],
    neg: ['func add(a, b int) int { return a - b }', 'print("hi")'],
    prompt: fe[0].prompt,
  });
  assert.match(fe[0].prompt as string, /programming task/);
  assert.match(fe[1].prompt as string, /problem statement/);
  const yn = join(dir, 'yn.jsonl');
  assert.equal(
    runCli([
      'mine',
      '--from',
      join(dir, 'train-00000-of-00001.parquet'),
      '--export',
      'yesno-examples',
      '--template',
      'qwen3-nothink',
      '--out',
      yn,
      '--quiet',
    ]).status,
    0,
  );
  const y = jsonl(yn);
  assert.deepEqual(
    y.map((x) => [x.query_id, x.doc_id, x.label]),
    [
      ['q_t2c_1', 'c1', 'yes'],
      ['q_t2c_1', 'c1', 'yes'],
      ['q_t2c_1', 'c2', 'no'],
      ['q_t2c_1', 'c9', 'no'],
      ['q_c2t_1', 't1', 'yes'],
      ['q_c2t_1', 't1', 'yes'],
      ['q_c2t_1', y[6].doc_id, 'no'],
      ['q_c2t_1', y[7].doc_id, 'no'],
    ],
  );
  assert.deepEqual(new Set([y[6].doc_id, y[7].doc_id]), new Set(['t7', 't8']), 'no hard negative: two easy ones');
  assert.ok((y[0].prompt as string).endsWith('<|im_start|>assistant\n'), 'qwen3-nothink has no thinking block');
  write(join(dir, 'bad.parquet'), [rows[0], { ...rows[1], pos: null }]);
  const bad = runCli(['mine', '--from', join(dir, 'bad.parquet'), '--export', 'ms-swift', '--out', join(dir, 'b.jsonl')]);
  assert.equal(bad.status, 4);
  assert.match(bad.stderr, /bad\.parquet row 1: field `pos`: a record needs at least one positive/);
  const unknownTask = join(dir, 'u.jsonl');
  writeFileSync(unknownTask, JSON.stringify({ ...rows[0], task: 'X2Y' }) + '\n');
  const u = runCli(['mine', '--from', unknownTask, '--export', 'yesno-examples', '--out', join(dir, 'u.out')]);
  assert.equal(u.status, 4);
  assert.match(u.stderr, /1 record\(s\) have a task \(`X2Y`; first: q_t2c_1\) that is not T2C, C2T or C2C/);
  t.diagnostic(`exported ${fe.length} flagembedding and ${y.length} yes/no rows`);
});
