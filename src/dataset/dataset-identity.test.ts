import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashDatasetDir, hashFile } from './dataset-identity.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

test('hashDatasetDir hashes data files in path order, skipping dot-files and other suffixes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-ident-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'q\td\t1\n');
  writeFileSync(join(dir, 'corpus.jsonl'), '{"_id":"d"}\n');
  writeFileSync(join(dir, '.hidden.jsonl'), 'x');
  writeFileSync(join(dir, 'notes.md'), 'not data');
  const { files, sha256 } = await hashDatasetDir(dir);
  assert.deepEqual(files, [
    { path: 'corpus.jsonl', bytes: 12, sha256: sha('{"_id":"d"}\n') },
    { path: 'qrels/test.tsv', bytes: 6, sha256: sha('q\td\t1\n') },
  ]);
  assert.equal(sha256, sha(files.map((f) => `${f.path}\t${f.bytes}\t${f.sha256}\n`).join('')));
  assert.equal(await hashFile(join(dir, 'notes.md')), sha('not data'));
  writeFileSync(join(dir, 'corpus.jsonl'), '{"_id":"e"}\n');
  assert.notEqual((await hashDatasetDir(dir)).sha256, sha256, 'a changed byte changes the combined hash');
});

test('hashDatasetDir stops with the reason of its aborted signal', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-ident-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'corpus.jsonl'), '{"_id":"d"}\n'.repeat(200_000));
  const controller = new AbortController();
  const stop = new Error('interrupted by test');
  controller.abort(stop);
  await assert.rejects(hashDatasetDir(dir, controller.signal), (e) => e === stop);
  await assert.rejects(hashFile(join(dir, 'corpus.jsonl'), controller.signal), (e) => e === stop);
  assert.equal((await hashDatasetDir(dir, new AbortController().signal)).files.length, 1);
});
