import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isCorebError } from '../core/errors.js';
import { loadEmbeddingsFile, packVectors } from './embeddings-file.js';

const dir = mkdtempSync(join(tmpdir(), 'coreb-emb-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

test('reads query and doc vectors (plain with BOM/CRLF/blank lines, and gzip)', async () => {
  const text = '\uFEFF{"id":"q1","kind":"query","vector":[1,2]}\r\n\r\n{"id":"d1","kind":"document","vector":[0.5,-1]}\r\n';
  for (const f of [write('v.jsonl', text), write('v.jsonl.gz', gzipSync(Buffer.from(text)))]) {
    const e = await loadEmbeddingsFile(f);
    assert.equal(e.dim, 2);
    assert.deepEqual([...e.queries.get('q1')!], [1, 2]);
    assert.deepEqual([...e.docs.get('d1')!], [0.5, -1]);
  }
});

test('malformed input is reported with file:line and field', async () => {
  const cases: Array<[string, string, RegExp, string]> = [
    ['bad.jsonl', '{"id":"q1","kind":"query","vector":[1]}\n{oops\n', /bad\.jsonl:2: malformed JSON/, 'PARSE'],
    ['kind.jsonl', '{"id":"q1","kind":"passage","vector":[1]}\n', /kind\.jsonl:1: field `kind`/, 'PARSE'],
    [
      'dim.jsonl',
      '{"id":"q1","kind":"query","vector":[1,2]}\n{"id":"d1","kind":"doc","vector":[1]}\n',
      /dim\.jsonl:2: field `vector`: vector of d1 has 1 values; earlier vectors have 2/,
      'VALIDATION',
    ],
    ['nan.jsonl', '{"id":"q1","kind":"query","vector":[1,null]}\n', /nan\.jsonl:1: field `vector`: value 1 of q1/, 'VALIDATION'],
    [
      'dup.jsonl',
      '{"id":"q1","kind":"query","vector":[1]}\n{"id":"q1","kind":"query","vector":[2]}\n',
      /dup\.jsonl:2: field `id`: duplicate query id q1/,
      'VALIDATION',
    ],
    ['empty.jsonl', '\n', /holds no vectors/, 'VALIDATION'],
  ];
  for (const [name, text, re, code] of cases) {
    await assert.rejects(loadEmbeddingsFile(write(name, text)), (e) => isCorebError(e) && e.code === code && re.test(e.message), name);
  }
  await assert.rejects(loadEmbeddingsFile(join(dir, 'missing.jsonl')), (e) => isCorebError(e, 'IO'));
});

test('packVectors lays rows out in the requested id order and names missing ids', () => {
  const m = new Map([
    ['a', Float32Array.of(1, 2)],
    ['b', Float32Array.of(3, 4)],
  ]);
  assert.deepEqual([...packVectors('f', 'doc', m, ['b', 'a'], 2)], [3, 4, 1, 2]);
  assert.throws(
    () => packVectors('f', 'doc', m, ['a', 'x', 'y'], 2),
    (e) => isCorebError(e, 'VALIDATION') && /2 of 3 doc ids have no vector in f \(first: x, y\)/.test(e.message),
  );
});
