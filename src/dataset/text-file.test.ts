import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCorebError } from '../core/errors.js';
import { forEachLine, forEachLineAt, lineChunks } from './text-file.js';

test('lineChunks stops a stalled read as soon as the signal aborts', async () => {
  const controller = new AbortController();
  const stalled: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Uint8Array>>(() => undefined) }),
  };
  setTimeout(() => controller.abort(new Error('stop')), 20);
  await assert.rejects(
    (async () => {
      for await (const _ of lineChunks(stalled, 16, controller.signal)) void _;
    })(),
    /stop/,
  );
});

test('lineChunks: any piece sizes give back every byte, in order, as chunks of whole lines (big pieces passed on without a copy of their body)', async () => {
  let seed = 3;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (const target of [1, 16, 64, 1000]) {
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push('x'.repeat(rand(40)) + String(i));
    const text = `${lines.join('\n')}${rand(2) === 0 ? '\n' : ''}`;
    const bytes = Buffer.from(text);
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + rand(rand(3) === 0 ? 400 : 30);
      pieces.push(bytes.subarray(at, at + n));
      at += n;
    }
    const chunks: Buffer[] = [];
    for await (const c of lineChunks(pieces, target)) chunks.push(Buffer.from(c));
    const joined = Buffer.concat(chunks).toString();
    assert.equal(joined, text.endsWith('\n') ? text : `${text}\n`, `target ${target}`);
    for (const c of chunks) assert.equal(c[c.length - 1], 10, 'each chunk ends a line');
  }
});

test('forEachLineAt gives the lines forEachLine gives, and each span reads its line back from the file', async () => {
  const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'coreb-lines-'));
  let seed = 11;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const pieces = ['a', 'é', '𝄞', '漢', ' ', '{"x":1}', '\r'];
  const cases: string[] = [
    '',
    '\n',
    '\n\n\n',
    'one',
    'one\n',
    '\ufeffbom first\r\nsecond\r\n',
    'a\r\n\r\nb',
    // A line longer than the 4 MiB read buffer, between short ones.
    `short\n${'é'.repeat(3 << 20)}\nafter\n`,
  ];
  for (let c = 0; c < 20; c++) {
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(Array.from({ length: rand(30) }, () => pieces[rand(pieces.length)]).join(''));
    cases.push(lines.join(rand(2) === 0 ? '\n' : '\r\n') + (rand(2) === 0 ? '\n' : ''));
  }
  for (const [i, text] of cases.entries()) {
    const file = join(dir, `f${i}.txt`);
    writeFileSync(file, text);
    const bytes = readFileSync(file);
    const want: string[] = [];
    const a = await forEachLine(file, (t) => want.push(t));
    const got: string[] = [];
    const b = await forEachLineAt(file, (t, line, span) => {
      assert.equal(line, got.length + 1);
      assert.equal(bytes.toString('utf8', span.at, span.at + span.bytes), t, `case ${i} line ${line}`);
      got.push(t);
    });
    assert.deepEqual(got, want, `case ${i}`);
    assert.deepEqual(b, a, `case ${i}`);
  }
});

test('forEachLineAt: invalid UTF-8 is a PARSE error naming its line after the lines before it; gzip is refused', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { gzipSync } = await import('node:zlib');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'coreb-lines-'));
  const file = join(dir, 'bad.txt');
  writeFileSync(file, Buffer.concat([Buffer.from('ok 1\nok 2\nbad '), Buffer.from([0xc3, 0x28]), Buffer.from('\nok 4\n')]));
  const seen: string[] = [];
  await assert.rejects(
    forEachLineAt(file, (t) => seen.push(t)),
    (e: unknown) => isCorebError(e, 'PARSE') && e.location.line === 3 && e.location.file === file,
  );
  assert.deepEqual(seen, ['ok 1', 'ok 2']);
  const gz = join(dir, 'x.jsonl');
  writeFileSync(gz, gzipSync('{"a":1}\n'));
  await assert.rejects(
    forEachLineAt(gz, () => undefined),
    (e: unknown) => isCorebError(e, 'USAGE') && /gzip/.test((e as Error).message),
  );
});
