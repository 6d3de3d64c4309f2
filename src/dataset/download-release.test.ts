import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startHubServer } from '../../test/support/hub-server.js';
import { tempDir, writeParquetRelease } from '../../test/e2e/validate-fixture.js';
import { loadRelease } from './release.js';
import { COREB_HUB_DATASET, downloadRelease } from './download-release.js';

function hubRepo(): string {
  const root = tempDir('coreb-hub-repo-');
  writeParquetRelease(root, { split: 'release_v9998' });
  writeParquetRelease(root, { split: 'release_v9999' });
  writeFileSync(join(root, 'README.md'), '---\nlicense: apache-2.0\n---\n# CoREB\n');
  return root;
}

test('downloads a split through the tree and resolve APIs (paged listing, CDN redirect), checks it, and resumes', async () => {
  const hub = await startHubServer({ dataset: COREB_HUB_DATASET, root: hubRepo() });
  try {
    const outDir = tempDir('coreb-download-');
    const r = await downloadRelease({ outDir, split: 'release_v9999', endpoint: hub.endpoint });
    assert.deepEqual(r.splits, ['release_v9999']);
    assert.equal(r.files.filter((f) => f.path.endsWith('.parquet')).length, 8);
    assert.ok(hub.requests.filter((p) => p.includes('/tree/main')).length > 2, 'listing followed the Link pages');
    assert.deepEqual(readdirSync(outDir).sort(), ['README.md', 'release_v9999']);
    const loaded = await loadRelease(outDir, { format: 'parquet' });
    assert.equal(loaded.release.split, 'release_v9999');
    assert.deepEqual(
      loaded.issues.filter((i) => i.severity === 'error'),
      [],
    );
    const before = hub.requests.length;
    const again = await downloadRelease({ outDir, split: 'release_v9999', endpoint: hub.endpoint });
    assert.ok(again.files.every((f) => f.skipped));
    assert.equal(hub.requests.slice(before).filter((p) => p.includes('/resolve/')).length, 0, 'nothing downloaded twice');
  } finally {
    await hub.close();
  }
});

test('503s are retried; a gated dataset without HF_TOKEN says so; with the token it downloads', async () => {
  const hub = await startHubServer({ dataset: COREB_HUB_DATASET, root: hubRepo(), token: 'hf_secret', failFirst: 2 });
  try {
    await assert.rejects(
      downloadRelease({ outDir: tempDir('coreb-download-'), endpoint: hub.endpoint, backoffMs: 1 }),
      (e: Error & { code?: string }) => {
        assert.equal(e.code, 'HTTP');
        assert.match(e.message, /HTTP 401 .*gated or private.*HF_TOKEN/);
        return true;
      },
    );
    const r = await downloadRelease({ outDir: tempDir('coreb-download-'), endpoint: hub.endpoint, token: 'hf_secret', backoffMs: 1 });
    assert.deepEqual(r.splits, ['release_v9998', 'release_v9999']);
    assert.equal(r.files.length, 17);
  } finally {
    await hub.close();
  }
});

test('bytes that do not match the sha256 are refused and leave no file; an unknown split lists the real ones', async () => {
  const corrupt = 'release_v9999/code_corpus-release_v9999-00000-of-00001.parquet';
  const hub = await startHubServer({ dataset: COREB_HUB_DATASET, root: hubRepo(), corrupt: [corrupt] });
  try {
    const outDir = tempDir('coreb-download-');
    await assert.rejects(
      downloadRelease({ outDir, split: 'release_v9999', endpoint: hub.endpoint }),
      /code_corpus-release_v9999.*sha256 \w+ differs from the Hub's/,
    );
    assert.equal(existsSync(join(outDir, corrupt)), false);
    assert.deepEqual(
      readdirSync(join(outDir, 'release_v9999')).filter((n) => n.endsWith('.part')),
      [],
      'no partial file',
    );
    await assert.rejects(
      downloadRelease({ outDir, split: 'release_v2701', endpoint: hub.endpoint }),
      /no files of split `release_v2701`; splits: release_v9998, release_v9999/,
    );
  } finally {
    await hub.close();
  }
});

test('a mirror streaming past the listed size is stopped at the size; a stalled stream times out; neither leaves a file', async () => {
  const big = 'release_v9999/code_corpus-release_v9999-00000-of-00001.parquet';
  const slow = 'release_v9999/text_corpus-release_v9999-00000-of-00001.parquet';
  const hub = await startHubServer({ dataset: COREB_HUB_DATASET, root: hubRepo(), endless: [big] });
  try {
    const outDir = tempDir('coreb-download-endless-');
    const t0 = performance.now();
    await assert.rejects(
      downloadRelease({ outDir, split: 'release_v9999', endpoint: hub.endpoint }),
      /code_corpus-release_v9999.*sent more than the \d+ bytes the Hub lists/,
    );
    assert.ok(performance.now() - t0 < 10_000, 'stopped at once, not after the whole stream');
    assert.equal(existsSync(join(outDir, big)), false);
    assert.deepEqual(
      readdirSync(join(outDir, 'release_v9999')).filter((n) => n.endsWith('.part')),
      [],
    );
  } finally {
    await hub.close();
  }
  const stalled = await startHubServer({ dataset: COREB_HUB_DATASET, root: hubRepo(), stall: [slow] });
  try {
    const outDir = tempDir('coreb-download-stall-');
    await assert.rejects(
      downloadRelease({ outDir, split: 'release_v9999', endpoint: stalled.endpoint, idleTimeoutMs: 300 }),
      /text_corpus-release_v9999.*no data for 0\.3 s after \d+ of \d+ bytes; run coreb download again to resume/,
    );
    assert.equal(existsSync(join(outDir, slow)), false);
  } finally {
    await stalled.close();
  }
});

test('offline: a clear error naming the Hub and the hf / git lfs alternatives', async () => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  await assert.rejects(
    downloadRelease({ outDir: tempDir('coreb-download-'), endpoint: `http://127.0.0.1:${port}`, maxRetries: 1, backoffMs: 1 }),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, 'HTTP');
      assert.match(e.message, /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
      assert.match(e.message, /hf download hq-bench\/coreb --repo-type dataset/);
      assert.match(e.message, /git lfs install && git clone https:\/\/huggingface\.co\/datasets\/hq-bench\/coreb/);
      return true;
    },
  );
});
