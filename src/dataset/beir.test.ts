import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorebError, isCorebError } from '../core/errors.js';
import type { ValidationIssue } from '../core/issues.js';
import { isBeirDir, listBeirSplits, loadBeir } from './beir.js';

interface Files {
  corpus?: string;
  queries?: string;
  qrels?: Record<string, string>;
}

const CORPUS =
  '{"_id": "d1", "title": "T1", "text": "alpha"}\n{"_id": "d2", "title": "", "text": "beta", "lang": "go"}\n{"_id": "d3", "text": "gamma"}\n';
const QUERIES = '{"_id": "q1", "text": "find alpha"}\n{"_id": "q2", "text": "find beta"}\n{"_id": "q3", "text": "unjudged"}\n';
const QRELS = 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq2\td3\t0\n';

function beirDir(f: Files = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-beir-'));
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(join(dir, 'corpus.jsonl'), f.corpus ?? CORPUS);
  writeFileSync(join(dir, 'queries.jsonl'), f.queries ?? QUERIES);
  for (const [split, text] of Object.entries(f.qrels ?? { test: QRELS })) writeFileSync(join(dir, 'qrels', `${split}.tsv`), text);
  return dir;
}

function has(issues: ValidationIssue[], kind: string, file: string, line?: number, field?: string): void {
  assert.ok(
    issues.some(
      (i) =>
        i.kind === kind && (i.file ?? '').endsWith(file) && (line === undefined || i.line === line) && (field === undefined || i.field === field),
    ),
    `expected ${kind} at ${file}:${line} among\n${issues.map((i) => JSON.stringify(i)).join('\n')}`,
  );
}

test('a BEIR directory loads into a RetrievalTask with judged queries only', async () => {
  const dir = beirDir();
  assert.equal(await isBeirDir(dir), true);
  const { task, split, issues } = await loadBeir(dir);
  assert.deepEqual(issues, []);
  assert.equal(split, 'test');
  assert.deepEqual(
    task.corpus.map((d) => [d.id, d.title, d.text]),
    [
      ['d1', 'T1', 'alpha'],
      ['d2', '', 'beta'],
      ['d3', undefined, 'gamma'],
    ],
  );
  assert.deepEqual(task.corpus[1].meta, { lang: 'go' });
  assert.deepEqual(
    task.queries.map((q) => q.id),
    ['q1', 'q2'],
  );
  assert.equal(task.qrels.get('q2')?.get('d2'), 2);
  assert.equal(task.qrels.get('q2')?.get('d3'), 0);
});

test('splits: listed, the only one used when there is no test, several need a choice', async () => {
  const dir = beirDir({ qrels: { dev: QRELS, train: QRELS } });
  assert.deepEqual(await listBeirSplits(dir), ['dev', 'train']);
  await assert.rejects(loadBeir(dir), (e) => isCorebError(e, 'USAGE') && /dev, train/.test(e.message));
  assert.equal((await loadBeir(dir, { split: 'dev' })).split, 'dev');
  await assert.rejects(loadBeir(dir, { split: 'test' }), (e) => isCorebError(e, 'NOT_FOUND') && /available splits: dev, train/.test(e.message));
  const one = beirDir({ qrels: { dev: QRELS } });
  assert.equal((await loadBeir(one)).split, 'dev');
});

const BAD: Array<{ name: string; files: Files; kind: string; file: string; line?: number; field?: string }> = [
  { name: 'qrels without a header', files: { qrels: { test: 'q1\td1\t1\n' } }, kind: 'missing-header', file: 'test.tsv', line: 1 },
  { name: 'a qrels row with 2 fields', files: { qrels: { test: QRELS + 'q1 d2 1\n' } }, kind: 'wrong-column-count', file: 'test.tsv', line: 5 },
  { name: 'a fractional score', files: { qrels: { test: QRELS + 'q1\td2\t0.5\n' } }, kind: 'not-integer', file: 'test.tsv', line: 5, field: 'score' },
  { name: 'a NaN score', files: { qrels: { test: QRELS + 'q1\td2\tnan\n' } }, kind: 'non-finite-number', file: 'test.tsv', line: 5, field: 'score' },
  { name: 'a word for a score', files: { qrels: { test: QRELS + 'q1\td2\thigh\n' } }, kind: 'wrong-type', file: 'test.tsv', line: 5, field: 'score' },
  {
    name: 'qrels naming an unknown query',
    files: { qrels: { test: QRELS + 'q9\td1\t1\n' } },
    kind: 'dangling-query',
    file: 'test.tsv',
    line: 5,
    field: 'query-id',
  },
  {
    name: 'qrels naming an unknown document',
    files: { qrels: { test: QRELS + 'q1\td9\t1\n' } },
    kind: 'dangling-doc',
    file: 'test.tsv',
    line: 5,
    field: 'corpus-id',
  },
  { name: 'a pair judged twice', files: { qrels: { test: QRELS + 'q1\td1\t0\n' } }, kind: 'duplicate-qrel', file: 'test.tsv', line: 5 },
  { name: 'header-only qrels', files: { qrels: { test: 'query-id\tcorpus-id\tscore\n' } }, kind: 'empty-file', file: 'test.tsv' },
  {
    name: 'duplicate corpus id',
    files: { corpus: CORPUS + '{"_id": "d1", "text": "again"}\n' },
    kind: 'duplicate-id',
    file: 'corpus.jsonl',
    line: 4,
    field: '_id',
  },
  {
    name: 'corpus row without _id',
    files: { corpus: CORPUS + '{"text": "orphan"}\n' },
    kind: 'missing-field',
    file: 'corpus.jsonl',
    line: 4,
    field: '_id',
  },
  {
    name: 'query text that is not a string',
    files: { queries: QUERIES + '{"_id": "q4", "text": ["x"]}\n' },
    kind: 'wrong-type',
    file: 'queries.jsonl',
    line: 4,
    field: 'text',
  },
  {
    name: 'malformed corpus line',
    files: { corpus: '{"_id": "d1", "text": "alpha"\n' + CORPUS },
    kind: 'malformed-json',
    file: 'corpus.jsonl',
    line: 1,
  },
  { name: 'empty queries file', files: { queries: '' }, kind: 'empty-file', file: 'queries.jsonl' },
  { name: 'CRLF qrels (warning)', files: { qrels: { test: QRELS.replace(/\n/g, '\r\n') } }, kind: 'crlf', file: 'test.tsv', line: 1 },
  { name: 'BOM in qrels (warning)', files: { qrels: { test: '\ufeff' + QRELS } }, kind: 'bom', file: 'test.tsv', line: 1 },
];

for (const c of BAD) {
  test(`BEIR malformed input: ${c.name}`, async () => {
    const { issues } = await loadBeir(beirDir(c.files));
    has(issues, c.kind, c.file, c.line, c.field);
  });
}

test('numeric _id values are read as strings with one warning per file', async () => {
  const { task, issues } = await loadBeir(
    beirDir({ corpus: '{"_id": 1, "text": "a"}\n{"_id": 2, "text": "b"}\n', qrels: { test: 'query-id\tcorpus-id\tscore\nq1\t2\t1\n' } }),
  );
  assert.deepEqual(
    task.corpus.map((d) => d.id),
    ['1', '2'],
  );
  assert.equal(task.qrels.get('q1')?.get('2'), 1);
  assert.deepEqual(
    issues.map((i) => [i.kind, i.line]),
    [['coerced-type', 1]],
  );
});

test('BEIR with CRLF and BOM still reads every row', async () => {
  const { task, issues } = await loadBeir(beirDir({ qrels: { test: '\ufeff' + QRELS.replace(/\n/g, '\r\n') } }));
  assert.equal(task.qrels.get('q2')?.size, 2);
  assert.ok(issues.every((i) => i.severity === 'warning'));
});

test('a missing queries.jsonl is an error issue, a missing directory NOT_FOUND', async () => {
  const dir = beirDir();
  rmSync(join(dir, 'queries.jsonl'));
  const { issues } = await loadBeir(dir);
  has(issues, 'missing-file', 'queries.jsonl');
  await assert.rejects(loadBeir(join(dir, 'nope')), (e) => isCorebError(e, 'NOT_FOUND'));
});

test('loadBeir stops with the reason of its aborted signal: before it reads, and when a timer aborts it mid-load', async () => {
  const n = 20000;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ _id: `d${i}`, text: `def f${i}(x):\n    return x + ${i}` }));
  const dir = beirDir({ corpus: lines.join('\n') + '\n' });
  const stop = new CorebError('INTERRUPTED', 'interrupted by test');
  const before = new AbortController();
  before.abort(stop);
  await assert.rejects(loadBeir(dir, { signal: before.signal }), (e) => e === stop);
  // The timer runs at the load's first turn of the event loop; the load must then stop, not finish.
  const during = new AbortController();
  setTimeout(() => during.abort(stop), 0);
  await assert.rejects(loadBeir(dir, { signal: during.signal }), (e) => isCorebError(e, 'INTERRUPTED'));
  const { task } = await loadBeir(dir, { signal: new AbortController().signal });
  assert.equal(task.corpus.length, n, 'a signal that does not abort changes nothing');
});

test('texts left in corpus.jsonl: the same task and problems as in memory, each text read back when asked for', async () => {
  const corpus = `${CORPUS}{"_id": 7, "text": "numeric id", "title": "N"}\n{"_id": "d8", "text": 42}\n{"_id": "d9", "text": "caf\u00e9 \u{1d11e}\\n\\"quoted\\""}\r\n`;
  const dir = beirDir({ corpus });
  const mem = await loadBeir(dir, { texts: 'memory' });
  const file = await loadBeir(dir, { texts: 'file' });
  assert.deepEqual(
    file.issues.map((i) => [i.kind, i.line, i.field]),
    mem.issues.map((i) => [i.kind, i.line, i.field]),
  );
  assert.equal(JSON.stringify(file.task.corpus), JSON.stringify(mem.task.corpus));
  assert.deepEqual(
    file.task.corpus.map((d) => ({ ...d })),
    mem.task.corpus.map((d) => ({ ...d })),
  );
  // Read in another order, and twice.
  for (const d of [...file.task.corpus].reverse()) assert.equal(d.text, mem.task.corpus.find((m) => m.id === d.id)?.text);
  assert.equal(file.task.corpus.find((d) => d.id === 'd9')?.text, 'café 𝄞\n"quoted"');
  // The malformed cases report the same problems either way.
  for (const c of BAD.filter((b) => b.file === 'corpus.jsonl')) {
    const { issues } = await loadBeir(beirDir(c.files), { texts: 'file' });
    has(issues, c.kind, c.file, c.line, c.field);
  }
});

test('texts left in corpus.jsonl: a corpus file changed after loading is refused when a text is read, naming the file and line', async () => {
  const dir = beirDir();
  const { task } = await loadBeir(dir, { texts: 'file' });
  const corpusFile = join(dir, 'corpus.jsonl');
  // Same size, other content: the modification time tells.
  writeFileSync(corpusFile, CORPUS.replace('alpha', 'ALPHA'));
  const { utimesSync } = await import('node:fs');
  utimesSync(corpusFile, new Date(), new Date(Date.now() + 5000));
  assert.throws(
    () => task.corpus[0].text,
    (e: unknown) => isCorebError(e, 'IO') && e.location.file === corpusFile && /changed since it was loaded/.test((e as Error).message),
  );
  // Read once before the change, then edited in place: the line no longer holds the document.
  const dir2 = beirDir();
  const loaded = await loadBeir(dir2, { texts: 'file' });
  assert.equal(loaded.task.corpus[1].text, 'beta');
  const f2 = join(dir2, 'corpus.jsonl');
  writeFileSync(f2, CORPUS.replace('"d3"', '"d4"'));
  assert.throws(
    () => loaded.task.corpus[2].text,
    (e: unknown) =>
      isCorebError(e, 'IO') && e.location.file === f2 && e.location.line === 3 && /no longer holds document `d3`/.test((e as Error).message),
  );
  // A gzip corpus is read into memory whatever is asked.
  const dir3 = beirDir();
  const { gzipSync } = await import('node:zlib');
  rmSync(join(dir3, 'corpus.jsonl'));
  writeFileSync(join(dir3, 'corpus.jsonl.gz'), gzipSync(CORPUS));
  const gz = await loadBeir(dir3, { texts: 'file' });
  assert.equal(gz.task.corpus[0].text, 'alpha');
  assert.deepEqual(Object.getOwnPropertyDescriptor(gz.task.corpus[0], 'text')?.value, 'alpha');
});
