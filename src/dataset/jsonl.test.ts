import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isCorebError } from '../core/errors.js';
import { findJsonlFile, loadJsonlRecords, parseJsonl, parseJsonLenient, readJsonl, writeJsonl } from './jsonl.js';
import { saveFileAtomic } from './atomic-write.js';
import { loadTextFile, splitLines } from './text-file.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'coreb-jsonl-'));

test('parseJsonl returns records with their line numbers and reports every bad line', () => {
  const text = '{"a": 1}\n{"a": \n\n[1, 2]\n{"a": 3}\n"str"\n';
  const r = parseJsonl(text, 'x.jsonl');
  assert.deepEqual(
    r.records.map((x) => [x.line, x.value.a]),
    [
      [1, 1],
      [5, 3],
    ],
  );
  assert.deepEqual(
    r.issues.map((i) => [i.kind, i.line, i.severity]),
    [
      ['malformed-json', 2, 'error'],
      ['blank-line', 3, 'warning'],
      ['not-an-object', 4, 'error'],
      ['not-an-object', 6, 'error'],
    ],
  );
  assert.ok(r.issues.every((i) => i.file === 'x.jsonl'));
});

test('CRLF line endings are read and reported once, at the first such line', () => {
  const r = parseJsonl('{"a": 1}\n{"a": 2}\r\n{"a": 3}\r\n', 'f');
  assert.deepEqual(
    r.records.map((x) => x.value.a),
    [1, 2, 3],
  );
  assert.deepEqual(
    r.issues.map((i) => [i.kind, i.line]),
    [['crlf', 2]],
  );
});

test('an empty or blank-only file is an error by default and a warning on request', () => {
  assert.deepEqual(
    parseJsonl('', 'f').issues.map((i) => [i.kind, i.severity]),
    [['empty-file', 'error']],
  );
  assert.deepEqual(
    parseJsonl('\n  \n', 'f', { emptyIsError: false }).issues.map((i) => i.kind),
    ['blank-line', 'blank-line', 'empty-file'],
  );
});

test('Python NaN / Infinity literals are read as numbers, but not inside strings', () => {
  const v = parseJsonLenient('{"x": NaN, "y": -Infinity, "s": "NaN, Infinity", "z": [Infinity]}') as Record<string, unknown>;
  assert.ok(Number.isNaN(v.x));
  assert.equal(v.y, -Infinity);
  assert.equal(v.s, 'NaN, Infinity');
  assert.deepEqual(v.z, [Infinity]);
  assert.throws(() => parseJsonLenient('{"x": Nope}'));
});

test('readJsonl reads gzip by content, reports a BOM, and leaves the file untouched', async () => {
  const dir = tmp();
  const plain = join(dir, 'a.jsonl');
  writeFileSync(plain, '\ufeff{"id": "é"}\n');
  const before = readFileSync(plain);
  const r = await readJsonl(plain);
  assert.equal(r.records[0].value.id, 'é');
  assert.deepEqual(
    r.issues.map((i) => i.kind),
    ['bom'],
  );
  assert.deepEqual(readFileSync(plain), before);
  const gz = join(dir, 'b.data');
  writeFileSync(gz, gzipSync('{"id": 1}\n{"id": 2}\n'));
  assert.deepEqual(
    (await readJsonl(gz)).records.map((x) => x.value.id),
    [1, 2],
  );
});

test('readJsonl: missing file is NOT_FOUND; invalid UTF-8 is one invalid-encoding issue', async () => {
  await assert.rejects(readJsonl(join(tmp(), 'none.jsonl')), (e) => isCorebError(e, 'NOT_FOUND'));
  const f = join(tmp(), 'bad.jsonl');
  writeFileSync(f, Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]));
  const r = await readJsonl(f);
  assert.deepEqual(
    r.issues.map((i) => [i.kind, i.severity]),
    [['invalid-encoding', 'error']],
  );
});

test('writeJsonl writes atomically, round-trips, gzips .gz, and rejects non-finite numbers', async () => {
  const dir = tmp();
  const rows = [
    { a: 1, b: [1, 'x'] },
    { a: null, c: { d: 'ü' } },
  ];
  await writeJsonl(join(dir, 'out.jsonl'), rows);
  assert.equal(readFileSync(join(dir, 'out.jsonl'), 'utf8'), '{"a":1,"b":[1,"x"]}\n{"a":null,"c":{"d":"ü"}}\n');
  await writeJsonl(join(dir, 'out.jsonl.gz'), rows);
  assert.deepEqual(
    (await readJsonl(join(dir, 'out.jsonl.gz'))).records.map((r) => r.value),
    rows,
  );
  await assert.rejects(writeJsonl(join(dir, 'nan.jsonl'), [{ x: NaN }]), (e) => isCorebError(e, 'VALIDATION'));
  await assert.rejects(
    writeJsonl(join(dir, 'nan.jsonl'), [{ x: 1 }, { x: Infinity }]),
    (e) => isCorebError(e, 'VALIDATION') && e.message.startsWith(`${join(dir, 'nan.jsonl')} row 1: non-finite number Infinity`),
  );
  assert.deepEqual(readdirSync(dir).sort(), ['out.jsonl', 'out.jsonl.gz']);
});

test('saveFileAtomic replaces a file whole and a failed write leaves no temp file', async () => {
  const dir = tmp();
  const f = join(dir, 'x.txt');
  await saveFileAtomic(f, 'one');
  await saveFileAtomic(f, 'two');
  assert.equal(readFileSync(f, 'utf8'), 'two');
  await assert.rejects(saveFileAtomic(join(dir, 'no', 'such', 'dir.txt'), 'x'), (e) => isCorebError(e, 'IO'));
  assert.deepEqual(readdirSync(dir), ['x.txt']);
});

test('loadTextFile reports BOM, CRLF and gzip; splitLines drops CR and the final empty piece', async () => {
  const f = join(tmp(), 't.gz');
  writeFileSync(f, gzipSync('\ufeffa\r\nb\n'));
  const tf = await loadTextFile(f);
  assert.deepEqual([tf.bom, tf.crlf, tf.gzip, tf.text], [true, true, true, 'a\r\nb\n']);
  assert.deepEqual(splitLines(tf.text), ['a', 'b']);
  assert.deepEqual(splitLines('a\n\nb'), ['a', '', 'b']);
});

test('streaming read: multi-byte characters across chunk boundaries, gzip, and the line of bad bytes', async () => {
  const dir = tmp();
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, text: 'ü€😀'.repeat(i % 7) + 'x'.repeat(i % 13) }));
  const text = rows.map((r) => JSON.stringify(r)).join('\r\n') + '\r\n';
  writeFileSync(join(dir, 'big.jsonl'), text);
  writeFileSync(join(dir, 'big.jsonl.gz'), gzipSync(text));
  for (const name of ['big.jsonl', 'big.jsonl.gz']) {
    const r = await readJsonl(join(dir, name));
    assert.deepEqual(
      r.records.map((x) => x.value),
      rows,
      name,
    );
    assert.deepEqual(
      r.issues.map((i) => [i.kind, i.line]),
      [['crlf', 1]],
    );
  }
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, Buffer.concat([Buffer.from('{"a": 1}\n{"a": 2}\n{"a": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));
  const r = await readJsonl(bad);
  assert.deepEqual(
    r.records.map((x) => x.value.a),
    [1, 2],
  );
  assert.deepEqual(
    r.issues.map((i) => [i.kind, i.line]),
    [['invalid-encoding', 3]],
  );
});

test('findJsonlFile prefers <stem>.jsonl, falls back to .jsonl.gz, and ignores directories', async () => {
  const dir = tmp();
  assert.equal(await findJsonlFile(dir, 'corpus'), undefined);
  mkdirSync(join(dir, 'corpus.jsonl'));
  assert.equal(await findJsonlFile(dir, 'corpus'), undefined);
  writeFileSync(join(dir, 'queries.jsonl.gz'), gzipSync('{}\n'));
  assert.equal(await findJsonlFile(dir, 'queries'), join(dir, 'queries.jsonl.gz'));
  writeFileSync(join(dir, 'queries.jsonl'), '{}\n');
  assert.equal(await findJsonlFile(dir, 'queries'), join(dir, 'queries.jsonl'));
});

test('loadJsonlRecords returns the records or throws the first error with its file and line', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'ok.jsonl'), '{"a":1}\n\n{"a":2}\n');
  assert.deepEqual(
    (await loadJsonlRecords(join(dir, 'ok.jsonl'))).map((r) => [r.line, r.value.a]),
    [
      [1, 1],
      [3, 2],
    ],
  );
  writeFileSync(join(dir, 'bad.jsonl'), '{"a":1}\n{oops\n[1]\n');
  await assert.rejects(
    loadJsonlRecords(join(dir, 'bad.jsonl')),
    (e) => isCorebError(e, 'PARSE') && e.message.startsWith(`${join(dir, 'bad.jsonl')}:2: malformed JSON`),
  );
  writeFileSync(join(dir, 'empty.jsonl'), '');
  await assert.rejects(loadJsonlRecords(join(dir, 'empty.jsonl')), (e) => isCorebError(e, 'PARSE') && /no records/.test(e.message));
  await assert.rejects(loadJsonlRecords(join(dir, 'none.jsonl')), (e) => isCorebError(e, 'NOT_FOUND'));
});

test('readJsonl is linear in line length: a 48 MB line is read in seconds, not minutes', async () => {
  const dir = tmp();
  const file = join(dir, 'long.jsonl');
  const long = 'x'.repeat(48 * 1024 * 1024);
  writeFileSync(file, `{"_id": "a", "text": "${long}"}\n{"_id": "b", "text": "short"}\n`);
  const t0 = performance.now();
  const r = await readJsonl(file);
  const seconds = (performance.now() - t0) / 1000;
  assert.deepEqual(r.issues, []);
  assert.equal(r.records.length, 2);
  assert.equal((r.records[0].value.text as string).length, long.length);
  // Quadratic reading took ~26 s here; linear takes well under a second (10 s leaves room for load).
  assert.ok(seconds < 10, `reading took ${seconds.toFixed(1)} s`);
});
