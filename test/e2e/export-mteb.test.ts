import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';

test('coreb export mteb refuses results of the coreb preset and says which preset to use', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-export-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ev = runCli(['eval', '--out', join(dir, 'eval'), '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const r = runCli(['export', 'mteb', join(dir, 'eval', 'results.json'), '--out', join(dir, 'mteb'), '--model-name', 'coreb/bm25', '--revision', 'v1']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /computed with the `coreb` preset; MTEB's numbers need the `mteb` preset: re-run `coreb eval --protocol mteb`/);
  const missing = runCli(['export', 'mteb', join(dir, 'eval', 'results.json'), '--out', join(dir, 'mteb')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /needs --model-name/);
  const other = runCli(['export', 'csv', 'x.json']);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /one format, `mteb`/);
  const help = runCli(['export', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /CorebT2CRetrieval\.json/);
});
