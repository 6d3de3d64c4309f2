import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { gunzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { loadTrecRunColumns } from './trec.js';
import { mountFullDisk } from '../../test/support/full-disk.js';
import { removeStaleTemps, saveAtomic, saveChunksAtomic, saveLinesAtomic } from './atomic-write.js';

test('saveAtomic creates missing directories and replaces the file whole', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const f = join(dir, 'a', 'b', 'results.json');
  await saveAtomic(f, 'one');
  await saveAtomic(f, 'two');
  assert.equal(await readFile(f, 'utf8'), 'two');
  assert.deepEqual(await readdir(join(dir, 'a', 'b')), ['results.json']);
});

test('a failed write is an IO error naming the file once, with no temporary file left', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const f = join(dir, 'taken');
  await mkdir(f);
  await writeFile(join(f, 'inside'), 'x');
  for (const write of [() => saveAtomic(f, 'x'), () => saveLinesAtomic(f, ['x'])]) {
    await assert.rejects(write(), (e) => isCorebError(e, 'IO') && e.message.split(f).length === 2);
  }
  assert.deepEqual((await readdir(dir)).sort(), ['taken']);
  const lines = join(dir, 'runs', 'r.trec');
  await saveLinesAtomic(lines, ['q1 Q0 d1 1 2 t', 'q1 Q0 d2 2 1 t']);
  assert.equal(await readFile(lines, 'utf8'), 'q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n');
  assert.deepEqual(await readdir(join(dir, 'runs')), ['r.trec']);
});

test('a directory that cannot be created is an IO error naming it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'plain'), 'x');
  const f = join(dir, 'plain', 'sub', 'out.txt');
  for (const write of [() => saveAtomic(f, 'x'), () => saveLinesAtomic(f, ['x'])]) {
    await assert.rejects(write(), (e) => isCorebError(e, 'IO') && e.message.startsWith(`${join(dir, 'plain', 'sub')}: cannot create directory`));
  }
});

test('saveChunksAtomic writes chunks as they are produced; an abort mid-way leaves neither the file nor a temporary one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const f = join(dir, 'out', 'metrics.txt');
  await saveChunksAtomic(f, [Buffer.from('a\n'), 'b\n', new Uint8Array([99, 10])]);
  assert.equal(await readFile(f, 'utf8'), 'a\nb\nc\n');
  const g = join(dir, 'out', 'stopped.txt');
  const controller = new AbortController();
  function* pieces(): Generator<Buffer> {
    for (let i = 0; i < 10; i++) {
      if (i === 3) controller.abort(new Error('stop'));
      yield Buffer.alloc(1 << 16, 65);
    }
  }
  await assert.rejects(saveChunksAtomic(g, pieces(), controller.signal), /stop/);
  assert.deepEqual(await readdir(join(dir, 'out')), ['metrics.txt']);
});

test('saveLinesAtomic on a full disk fails at once naming the file, with no temporary file left (plain and gzip)', async (t) => {
  const disk = mountFullDisk();
  if (typeof disk === 'string') return t.skip(disk);
  t.after(() => disk.release());
  // Large enough that the stream must wait for 'drain': the wait used to hang forever after ENOSPC.
  const lines = Array.from({ length: 20_000 }, (_, i) => `q${i} Q0 doc_${i} 1 ${i}.5 bm25`);
  for (const name of ['run.trec', 'run.trec.gz']) {
    const f = join(disk.dir, 'runs', name);
    await assert.rejects(
      saveLinesAtomic(f, lines),
      (e) => isCorebError(e, 'IO') && e.message.startsWith(f) && /no space left on the device, ENOSPC/.test(e.message),
    );
    assert.deepEqual(await readdir(join(disk.dir, 'runs')), [], 'no temporary file left');
  }
});

test('saveLinesAtomic gzips a .gz target', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const f = join(dir, 'r.trec.gz');
  const lines = Array.from({ length: 5000 }, (_, i) => `q${i} Q0 d${i} 1 1 t`);
  await saveLinesAtomic(f, lines);
  assert.equal(gunzipSync(await readFile(f)).toString('utf8'), lines.join('\n') + '\n');
  assert.deepEqual(await readdir(dir), ['r.trec.gz']);
});

test('saveChunksAtomic writes a large .gz as several gzip members that gunzip, zcat, Python and the run loader read as one text', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const f = join(dir, 'run.trec.gz');
  // ~2.6 MB of lines (several 256 KiB members), strings and byte chunks mixed, a multi-byte id.
  const lines = Array.from({ length: 60_000 }, (_, i) => `q${i % 997} Q0 doc_é${i} ${1 + Math.floor(i / 997)} ${(1000 - i / 60).toFixed(4)} bm25`);
  const text = `${lines.join('\n')}\n`;
  const chunks: Array<string | Uint8Array> = [];
  for (let i = 0; i < lines.length; i += 500) {
    const piece = `${lines.slice(i, i + 500).join('\n')}\n`;
    chunks.push(i % 1000 === 0 ? piece : Buffer.from(piece, 'utf8'));
  }
  await saveChunksAtomic(f, chunks);
  const bytes = await readFile(f);
  let members = 0;
  for (let i = 0; i + 3 < bytes.length; i++) if (bytes[i] === 0x1f && bytes[i + 1] === 0x8b && bytes[i + 2] === 8 && bytes[i + 3] === 0) members++;
  assert.ok(members >= 5, `expected several gzip members, found ${members} header(s)`);
  assert.equal(gunzipSync(bytes).toString('utf8'), text);
  for (const [cmd, args] of [
    ['zcat', [f]],
    ['python3', ['-c', 'import gzip,sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())', f]],
  ] as const) {
    const r = spawnSync(cmd, args, { maxBuffer: 64 << 20 });
    if (r.error !== undefined) continue; // not on this machine
    assert.equal(r.status, 0, `${cmd}: ${r.stderr}`);
    assert.equal(r.stdout.toString('utf8'), text, `${cmd} reads every member`);
  }
  const run = await loadTrecRunColumns(f);
  assert.equal(run.docIds.length, lines.length);
  // An empty .gz file is still one valid (empty) gzip member.
  const empty = join(dir, 'empty.trec.gz');
  await saveChunksAtomic(empty, []);
  assert.equal(gunzipSync(await readFile(empty)).length, 0);
});

test('removeStaleTemps removes the temporary files of dead writers only', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'coreb-atomic-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // pid 2^22 + 1 is above Linux's largest pid_max: never a live process.
  const dead = `.results.json.${(1 << 22) + 1}.0badc0de.tmp`;
  const live = `.results.json.${process.ppid}.0badc0de.tmp`;
  for (const n of [dead, live, 'results.json', '.hidden']) await writeFile(join(dir, n), 'x');
  assert.deepEqual(await removeStaleTemps(dir), [dead]);
  assert.deepEqual((await readdir(dir)).sort(), ['.hidden', live, 'results.json'].sort());
  assert.deepEqual(await removeStaleTemps(join(dir, 'absent')), []);
});
