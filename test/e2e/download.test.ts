/**
 * `coreb download` as a user runs it, against a loopback server speaking the Hub's API, then
 * `coreb validate` on what it wrote; and the offline error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliPath, runCli, type CliResult } from '../support/cli.js';
import { startHubServer } from '../support/hub-server.js';
import { tempDir, writeParquetRelease } from './validate-fixture.js';

function runCliAsync(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('coreb download fetches a split from the Hub API into a directory coreb validate accepts', async () => {
  const repo = writeParquetRelease(tempDir('coreb-hub-e2e-'), { split: 'release_v9999' });
  const hub = await startHubServer({ dataset: 'hq-bench/coreb', root: repo });
  try {
    const out = join(tempDir('coreb-dl-e2e-'), 'coreb');
    const r = await runCliAsync(['download', '--split', 'release_v9999', '--out', out], { ...process.env, HF_ENDPOINT: hub.endpoint });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /hq-bench\/coreb@main: 8 file\(s\) downloaded/);
    assert.match(r.stdout, /next: coreb eval --data .* --split release_v9999/);
    const v = runCli(['validate', out]);
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /CoREB release release_v9999/);
  } finally {
    await hub.close();
  }
});

test('coreb download offline: exit 6 with the hf and git lfs alternatives, no stack trace', () => {
  const r = runCli(['download', '--out', join(tempDir('coreb-dl-off-'), 'x')], { env: { ...process.env, HF_ENDPOINT: 'http://127.0.0.1:9' } });
  assert.equal(r.status, 6, r.stderr);
  assert.match(r.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
  assert.match(r.stderr, /hf download hq-bench\/coreb --repo-type dataset/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
