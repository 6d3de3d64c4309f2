import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { BM25_INDEX_LAYOUT, openIndexFileStore } from './index-file-store.js';

test('index file store: missing key, atomic save of chunks, load of the same bytes, no temporary files left', async () => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-index-store-'));
  try {
    const store = openIndexFileStore(root);
    assert.equal(store.dir, join(root, BM25_INDEX_LAYOUT));
    const key = 'a'.repeat(64);
    assert.equal(await store.load(key), undefined);
    const where = await store.save(key, [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array([4])]);
    assert.equal(where, join(store.dir, `${key}.bin`));
    const got = await store.load(key);
    assert.deepEqual(Array.from(got?.bytes ?? []), [1, 2, 3, 4]);
    assert.equal(got?.where, where);
    await store.save(key, [new Uint8Array([9])]);
    assert.deepEqual(Array.from((await store.load(key))?.bytes ?? []), [9], 'a save replaces the file');
    assert.deepEqual(readdirSync(store.dir), [`${key}.bin`]);
    await assert.rejects(store.load('../etc/passwd'), (e: unknown) => isCorebError(e, 'USAGE'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('index file store: a save stopped by the signal between two slices leaves no file; a load stopped by it returns nothing', async () => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-index-store-'));
  try {
    const store = openIndexFileStore(root);
    const key = 'c'.repeat(64);
    const controller = new AbortController();
    // The second chunk is read after the first was written: the signal aborts there.
    const chunks: Uint8Array[] = [new Uint8Array([1, 2])];
    Object.defineProperty(chunks, 1, {
      enumerable: true,
      get() {
        controller.abort(new Error('interrupted by SIGINT'));
        return new Uint8Array([3]);
      },
    });
    await assert.rejects(
      store.save(key, chunks, { signal: controller.signal }),
      (e: unknown) => isCorebError(e, 'INTERRUPTED') && /writing the index stopped: interrupted by SIGINT/.test(e.message),
    );
    assert.deepEqual(readdirSync(store.dir), [], 'neither the index nor its temporary file');
    await store.save(key, [new Uint8Array([5])]);
    await assert.rejects(store.load(key, { signal: controller.signal }), (e: unknown) => isCorebError(e, 'INTERRUPTED'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('index file store: a save removes the temporary files of killed writers, not those of running ones', async () => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-index-store-'));
  try {
    const store = openIndexFileStore(root);
    mkdirSync(store.dir);
    const key = 'd'.repeat(64);
    const dead = `.${key}.999999999.0badf00d.tmp`;
    const live = `.${key}.${process.ppid}.0000beef.tmp`;
    writeFileSync(join(store.dir, dead), 'half an index');
    writeFileSync(join(store.dir, live), 'being written');
    writeFileSync(join(store.dir, 'notes.txt'), 'kept');
    await store.save('e'.repeat(64), [new Uint8Array([1])]);
    assert.deepEqual(readdirSync(store.dir).sort(), [live, `${'e'.repeat(64)}.bin`, 'notes.txt'].sort());
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('index file store: a failed write is an IO error naming the file and leaves nothing behind', { skip: process.getuid?.() === 0 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-index-store-'));
  try {
    const store = openIndexFileStore(root);
    mkdirSync(store.dir);
    chmodSync(store.dir, 0o500);
    await assert.rejects(
      store.save('b'.repeat(64), [new Uint8Array([1])]),
      (e: unknown) => isCorebError(e, 'IO') && e.message.includes(join(store.dir, `${'b'.repeat(64)}.bin`)),
    );
    chmodSync(store.dir, 0o700);
    assert.deepEqual(readdirSync(store.dir), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
