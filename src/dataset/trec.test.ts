import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { isCorebError } from '../core/errors.js';
import { loadAnchorsTsv, parseAnchorsTsv } from './anchors-tsv.js';
import { IdTable } from './id-table.js';
import { parseStrtod } from './strtod.js';
import { lineChunks } from './text-file.js';
import { saveTrecQrels, saveTrecRun } from './trec-render.js';
import { RunScanner } from './trec-scan.js';
import { loadTrecQrelsColumns, loadTrecQrelsMap, loadTrecRunColumns, loadTrecRunMap, parseTrecQrels, parseTrecRun, trecRunToMap } from './trec.js';

test('a run is grouped by query in first-seen order, file order within a query, last tag kept', () => {
  const run = parseTrecRun('q2 Q0 a 1 0.5 tagA\nq1 Q0 b 1 2 tagA\n\nq2 Q0 c 2 0.25 tagB\n');
  assert.deepEqual(run.queryIds, ['q2', 'q1']);
  assert.deepEqual(
    [...trecRunToMap(run)].map(([q, m]) => [q, [...m]]),
    [
      [
        'q2',
        [
          ['a', 0.5],
          ['c', 0.25],
        ],
      ],
      ['q1', [['b', 2]]],
    ],
  );
  assert.equal(run.runTag, 'tagB');
});

test('scores are read like C atof: trailing garbage, exponents, hex, inf', () => {
  const run = parseTrecRun(
    [
      'q Q0 a 1 0.5abc t',
      'q Q0 b 1 1e-46 t',
      'q Q0 c 1 0x1p-2 t',
      'q Q0 d 1 -inf t',
      'q Q0 e 1 x t',
      'q Q0 f 1 .25 t',
      'q Q0 g 1 123456789012345678 t',
      'q Q0 h 1 1.5E+3 t',
    ].join('\n'),
  );
  assert.deepEqual([...run.scores], [0.5, 1e-46, 0.25, -Infinity, 0, 0.25, Number('123456789012345678'), 1500]);
  assert.equal(parseStrtod('  7.0e1xyz'), 70);
  assert.equal(parseStrtod('0x1.8p1'), 3);
  assert.equal(parseStrtod('1.'), 1);
  assert.ok(Number.isNaN(parseStrtod('nan')));
});

test('decimal scores convert exactly like Number() (strtod correctly rounded)', () => {
  const samples = [
    '0.1',
    '0.30000001',
    '0.30000002',
    '16777217',
    '9007199254740993',
    '1e22',
    '1e23',
    '2.2250738585072014e-308',
    '0.000123456789012345678',
    '-3.14159',
  ];
  const run = parseTrecRun(samples.map((s, i) => `q Q0 d${i} 1 ${s} t`).join('\n'));
  assert.deepEqual([...run.scores], samples.map(Number));
});

test('qrels labels are read like atol and negative labels are kept', () => {
  const q = parseTrecQrels('q 0 a 2.7\nq 0 b x\nq 0 c -1\r\n');
  assert.deepEqual([...q.labels], [2, 0, -1]);
});

test('BOM, CRLF, tabs and extra run columns are accepted', () => {
  const run = parseTrecRun('\uFEFFq\tQ0\ta\t1\t0.5\ttag\textra\r\nq Q0 b 2 0.4 tag\r\n');
  assert.deepEqual(run.queryIds, ['q']);
  assert.equal(run.runTag, 'tag');
  assert.deepEqual([...run.scores], [0.5, 0.4]);
});

test('malformed input fails with file and line', () => {
  const cases: Array<[() => unknown, string, string]> = [
    [() => parseTrecRun('q Q0 a 1 0.5 t\nq Q0 a 2 0.4 t\n', { file: 'r.txt' }), 'VALIDATION', 'r.txt:2:'],
    [() => parseTrecRun('q Q0 a 1 nan t\n', { file: 'r.txt' }), 'VALIDATION', 'r.txt:1:'],
    [() => parseTrecRun('\uFEFFa Q0 x 1 1 t\nb Q0 y 1 1 t\n\n  \na Q0 x 1 1 t\n', { file: 'r.txt' }), 'VALIDATION', 'r.txt:5:'],
    [() => parseTrecRun('q Q0 a 1 0.5 t\nq Q0 b\n', { file: 'r.txt' }), 'PARSE', 'r.txt:2:'],
    [() => parseTrecRun('q Q0 a 1 0.5\n', { file: 'r.txt' }), 'PARSE', 'r.txt:1:'],
    [() => parseTrecQrels('q 0 a 1\n\nq 0 a 0\n', { file: 'q.txt' }), 'VALIDATION', 'q.txt:3:'],
    [() => parseTrecQrels('q 0 a\n', { file: 'q.txt' }), 'PARSE', 'q.txt:1:'],
    [() => parseTrecRun(Buffer.from([0x1f, 0x8b, 1, 2, 3]), { file: 'r.gz' }), 'PARSE', 'r.gz:'],
  ];
  for (const [fn, code, prefix] of cases) {
    assert.throws(fn, (e) => isCorebError(e, code as 'PARSE') && e.message.startsWith(prefix), prefix);
  }
});

test('qrels and run share one doc id table', () => {
  const docs = new IdTable();
  const q = parseTrecQrels('q 0 b 1\n', { docs });
  const r = parseTrecRun('q Q0 a 1 1 t\nq Q0 b 2 0.5 t\n', { docs });
  assert.equal(q.docIds, r.docIds);
  assert.equal(r.docs[1], q.docs[0]);
  assert.equal(docs.get('b'), 0);
  assert.equal(docs.get('a'), 1);
  assert.equal(docs.get('zzz'), -1);
});

test('the id table survives many ids (rehashing) and multi-byte ids', () => {
  const t = new IdTable();
  const ids = Array.from({ length: 20000 }, (_, i) => `doc-${i}-\u00e9\u{1F600}`);
  for (const s of ids) t.intern(s);
  for (let i = 0; i < ids.length; i += 997) assert.equal(t.intern(ids[i]), i);
  assert.equal(t.size, ids.length);
  assert.equal(t.strings[19999], ids[19999]);
});

test('files: gzip detected by magic bytes, save/load round trip, anchors TSV', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-trec-'));
  try {
    const run = new Map([
      [
        'q1',
        new Map([
          ['d1', 0.5],
          ['d2', 0.75],
        ]),
      ],
    ]);
    await saveTrecRun(join(dir, 'run.txt.gz'), run, 'mine');
    const cols = await loadTrecRunColumns(join(dir, 'run.txt.gz'));
    assert.equal(cols.runTag, 'mine');
    assert.deepEqual(
      [...((await loadTrecRunMap(join(dir, 'run.txt.gz'))).get('q1') ?? [])],
      [
        ['d2', 0.75],
        ['d1', 0.5],
      ],
    );
    const qrels = new Map([['q1', new Map([['d1', 2]])]]);
    await saveTrecQrels(join(dir, 'qrels.txt'), qrels);
    assert.deepEqual(await loadTrecQrelsMap(join(dir, 'qrels.txt')), qrels);
    writeFileSync(join(dir, 'a.tsv.gz'), gzipSync('qid\tanchor\nq1\td1\r\n'));
    assert.deepEqual(await loadAnchorsTsv(join(dir, 'a.tsv.gz')), new Map([['q1', 'd1']]));
    await assert.rejects(loadTrecRunMap(join(dir, 'nope.txt')), (e) => isCorebError(e, 'NOT_FOUND'));
    writeFileSync(join(dir, 'b.tsv'), '\uFEFFquery_id\tanchor\r\nq2\td2\r\n\r\nq3\td3');
    assert.deepEqual(
      await loadAnchorsTsv(join(dir, 'b.tsv')),
      new Map([
        ['q2', 'd2'],
        ['q3', 'd3'],
      ]),
    );
    await assert.rejects(loadAnchorsTsv(join(dir, 'nope.tsv')), (e) => isCorebError(e, 'NOT_FOUND'));
    await assert.rejects(loadTrecQrelsMap(join(dir, 'nope.txt')), (e) => isCorebError(e, 'NOT_FOUND') && e.message.split('nope.txt').length === 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(
    () => parseAnchorsTsv('q1\td1\nq1\td2\n', 'a.tsv'),
    (e) => isCorebError(e, 'VALIDATION') && e.message.startsWith('a.tsv:2:'),
  );
  assert.throws(
    () => parseAnchorsTsv('q1 d1\n', 'a.tsv'),
    (e) => isCorebError(e, 'PARSE'),
  );
});

test('known-docs-only runs: ids only for judged (or anchor) docs of the same query, byte-compared ties', () => {
  const docs = new IdTable();
  const qrels = parseTrecQrels('q1 0 j1 1\nq2 0 j2 2\n', { docs });
  docs.intern('anc');
  const run = parseTrecRun('q1 Q0 j1 1 1 t\nq1 Q0 j2 2 1 t\nq1 Q0 anc 3 1 t\nq1 Q0 zz 4 1 t\nq2 Q0 j2 1 1 t\n', {
    docs,
    knownDocsOnly: true,
    judged: qrels,
    anchors: new Map([['q1', 'anc']]),
  });
  // j2 is judged only for q2, so in q1 it has no id; the anchor of q1 has one.
  assert.deepEqual([...run.docs], [docs.get('j1'), -1, docs.get('anc'), -1, docs.get('j2')]);
  const cmp = run.compareEntries;
  assert.ok(cmp);
  assert.ok(cmp(0, 1) < 0); // j1 < j2
  assert.ok(cmp(3, 0) > 0); // zz > j1
  assert.equal(cmp(1, 4), 0); // same docid in two queries
  assert.deepEqual([...(trecRunToMap(run).get('q1')?.keys() ?? [])], ['j1', 'j2', 'anc', 'zz']);
  const loose = parseTrecRun('q1 Q0 j2 1 1 t\nq1 Q0 new 2 1 t\n', { docs, knownDocsOnly: true });
  assert.deepEqual([...loose.docs], [docs.get('j2'), -1]); // without `judged`, any known id counts
});

test('known-docs-only runs still reject duplicates with the right lines', () => {
  const contiguous = () => parseTrecRun('q Q0 a 1 1 t\nq Q0 b 1 1 t\nq Q0 a 1 1 t\n', { file: 'r.txt', knownDocsOnly: true });
  assert.throws(contiguous, (e) => isCorebError(e, 'VALIDATION') && e.message.startsWith('r.txt:3:') && /first on line 1/.test(e.message));
  const interleaved = () => parseTrecRun('q Q0 a 1 1 t\np Q0 a 1 1 t\n\nq Q0 a 1 1 t\n', { file: 'r.txt', knownDocsOnly: true });
  assert.throws(interleaved, (e) => isCorebError(e, 'VALIDATION') && e.message.startsWith('r.txt:4:'));
});

test('known-docs-only lookup finds every judged doc of a large query (id table growth)', () => {
  const docs = new IdTable();
  const n = 20000;
  const qrels = parseTrecQrels(Array.from({ length: n }, (_, i) => `q 0 d${i} 1`).join('\n'), { docs });
  const run = parseTrecRun(Array.from({ length: n }, (_, i) => `q Q0 d${n - 1 - i} ${i + 1} ${i} t`).join('\n'), {
    docs,
    knownDocsOnly: true,
    judged: qrels,
  });
  for (let p = 0; p < n; p++) assert.equal(run.docs[p], docs.get(`d${n - 1 - p}`), `entry ${p}`);
});

test('runs without a final newline, empty runs and whitespace-only lines', () => {
  assert.deepEqual([...parseTrecRun('q Q0 a 1 0.5 t').scores], [0.5]);
  assert.deepEqual([...parseTrecRun('q Q0 a 1 0.5 t', { knownDocsOnly: true }).scores], [0.5]);
  assert.equal(parseTrecRun('').queryIds.length, 0);
  assert.equal(parseTrecRun(' \t\r\n\n').queryIds.length, 0);
  assert.throws(
    () => parseTrecRun('q Q0 a 1 0.5', { file: 'r.txt' }),
    (e) => isCorebError(e, 'PARSE') && e.message.startsWith('r.txt:1:'),
  );
  assert.throws(
    () => parseTrecRun('q Q0 a 1 -', { file: 'r.txt' }),
    (e) => isCorebError(e, 'PARSE'),
  );
  assert.deepEqual([...parseTrecRun('q Q0 a 1 - t\nq Q0 b 1 -.5e1 t\n').scores], [0, -5]);
});

test('streamed in chunks split anywhere, a run parses exactly as in one piece; errors keep their line', async () => {
  const text =
    Array.from({ length: 40 }, (_, i) => `q${i % 3} Q0 d${i} ${i} ${(i * 0.37).toFixed(3)} tag${i}${i % 7 === 0 ? '\n' : ''}`).join('\n') + '\n';
  const whole = parseTrecRun(text, { knownDocsOnly: true });
  const bytes = Buffer.from(text);
  for (const cut of [1, 7, 64]) {
    const pieces = function* (): Generator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += cut) yield bytes.subarray(i, i + cut);
    };
    const scanner = new RunScanner('r', new IdTable(), true, undefined, 4);
    for await (const chunk of lineChunks(pieces(), 10)) scanner.scan(chunk);
    const raw = scanner.result();
    assert.equal(raw.count, 40);
    assert.deepEqual([...raw.nums.subarray(0, raw.count)].sort(), [...whole.scores].sort());
    assert.equal(raw.lastTag, 'tag39');
  }
  const bad = text + 'q1 Q0 x 1\n';
  const lines = bad.split('\n').length - 1;
  const scanner = new RunScanner('r.txt', new IdTable(), false, undefined, 4);
  await assert.rejects(
    (async () => {
      for await (const chunk of lineChunks([Buffer.from(bad)], 16)) scanner.scan(chunk);
    })(),
    (e) => isCorebError(e, 'PARSE') && e.message.startsWith(`r.txt:${lines}:`),
  );
});

test('files stream (plain and gzip): same columns, duplicate lines named, abort stops the read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-trec-stream-'));
  try {
    const text = Array.from(
      { length: 3000 },
      (_, i) => `q${Math.floor(i / 100)} Q0 doc${i % 997}-${Math.floor(i / 100)} ${i % 100} ${1 / (1 + (i % 100))} run`,
    ).join('\n');
    writeFileSync(join(dir, 'r.txt'), text);
    writeFileSync(join(dir, 'r.gz'), gzipSync(text));
    const expect = [...trecRunToMap(parseTrecRun(text))].map(([q, m]) => [q, [...m]]);
    for (const f of ['r.txt', 'r.gz']) {
      const run = await loadTrecRunColumns(join(dir, f), { knownDocsOnly: true });
      assert.deepEqual(
        [...trecRunToMap(run)].map(([q, m]) => [q, [...m]]),
        expect,
        f,
      );
      assert.equal(run.runTag, 'run');
    }
    writeFileSync(join(dir, 'dup.gz'), gzipSync(`${text}\n\nq0 Q0 doc5-0 9 0.5 run\n`));
    await assert.rejects(
      loadTrecRunColumns(join(dir, 'dup.gz'), { knownDocsOnly: true }),
      (e) =>
        isCorebError(e, 'VALIDATION') && e.message.includes('dup.gz:3002: duplicate run line for query `q0` and document `doc5-0` (first on line 6)'),
    );
    const qtext = text.replace(/ Q0 /g, ' 0 ').replace(/ \d+ [^ ]+ run$/gm, ' 1');
    writeFileSync(join(dir, 'q.gz'), gzipSync(qtext));
    const qrels = await loadTrecQrelsColumns(join(dir, 'q.gz'));
    assert.deepEqual(qrels, parseTrecQrels(qtext));
    assert.equal(qrels.labels.length, 3000);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await assert.rejects(loadTrecRunColumns(join(dir, 'r.txt'), { signal: controller.signal }), /stop/);
    writeFileSync(join(dir, 'bad.gz'), gzipSync(text).subarray(0, 200));
    await assert.rejects(loadTrecRunColumns(join(dir, 'bad.gz')), (e) => isCorebError(e, 'PARSE') && e.message.includes('bad.gz'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
