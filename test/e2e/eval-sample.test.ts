/**
 * The README's main job: `coreb eval` with no options evaluates BM25 on the bundled coreb-mini
 * sample, found relative to the package (not the cwd), and prints the leaderboard within 10 s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const sample = join(projectRoot, 'data', 'coreb-mini', 'release');

test('coreb eval with no options prints the BM25 leaderboard on coreb-mini in under 10 s', () => {
  // The sample ships with the repository and the package: a missing one is a failure, never a skip.
  for (const table of ['manifest.json', 'code_corpus.jsonl', 'text_corpus.jsonl']) {
    assert.ok(existsSync(join(sample, table)), `the bundled sample is missing ${join(sample, table)}`);
  }
  const cwd = mkdtempSync(join(tmpdir(), 'coreb-eval-sample-'));
  try {
    const t0 = performance.now();
    const r = runCli(['eval'], { cwd });
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(r.status, 0, r.stderr);
    assert.ok(seconds < 10, `took ${seconds.toFixed(1)} s`);
    const board = r.stdout.split('\n');
    const header = board.findIndex((l) => l.startsWith('#  retriever'));
    assert.ok(header >= 0, r.stdout);
    assert.match(board[header + 2], /^1\s+bm25\s+0\.\d{4}/, 'one ranked row for bm25 with 4-decimal values');
    for (const task of ['text2code', 'code2text', 'code2code'])
      assert.match(r.stdout, new RegExp(`^${task}\\s+[1-9]\\d*\\s`, 'm'), `${task} has queries`);
    assert.match(r.stdout, /protocol coreb: relevance level 2, nDCG strict, c2c anchors excluded/);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
