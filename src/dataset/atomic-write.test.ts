import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { saveAtomic, saveLinesAtomic } from './atomic-write.js';

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
