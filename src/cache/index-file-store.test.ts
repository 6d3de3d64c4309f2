import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { BM25_INDEX_LAYOUT, openIndexFileStore } from './index-file-store.js';

test('index file store: missing key, atomic save of chunks, load of the same bytes, no temporary files left', () => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-index-store-'));
  try {
    const store = openIndexFileStore(root);
    assert.equal(store.dir, join(root, BM25_INDEX_LAYOUT));
    const key = 'a'.repeat(64);
    assert.equal(store.load(key), undefined);
    const where = store.save(key, [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array([4])]);
    assert.equal(where, join(store.dir, `${key}.bin`));
    const got = store.load(key);
    assert.deepEqual(Array.from(got?.bytes ?? []), [1, 2, 3, 4]);
    assert.equal(got?.where, where);
    store.save(key, [new Uint8Array([9])]);
    assert.deepEqual(Array.from(store.load(key)?.bytes ?? []), [9], 'a save replaces the file');
    assert.deepEqual(readdirSync(store.dir), [`${key}.bin`]);
    assert.throws(
      () => store.load('../etc/passwd'),
      (e: unknown) => isCorebError(e, 'USAGE'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('index file store: a failed write is an IO error naming the file and leaves nothing behind', { skip: process.getuid?.() === 0 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-index-store-'));
  try {
    const store = openIndexFileStore(root);
    mkdirSync(store.dir);
    chmodSync(store.dir, 0o500);
    assert.throws(
      () => store.save('b'.repeat(64), [new Uint8Array([1])]),
      (e: unknown) => isCorebError(e, 'IO') && e.message.includes(join(store.dir, `${'b'.repeat(64)}.bin`)),
    );
    chmodSync(store.dir, 0o700);
    assert.deepEqual(readdirSync(store.dir), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
