/**
 * `coreb eval --index-cache DIR`: the first run builds and stores the BM25 indexes, the second reads
 * them and prints the same leaderboard; a corrupt stored index is rebuilt with a warning.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';

/** The leaderboard without its timing column. */
const board = (stdout: string): string => stdout.replace(/\s+[\d.]+s$/gm, '');

test('coreb eval --index-cache stores BM25 indexes, reuses them, and rebuilds a corrupt one with a warning', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'coreb-index-cache-'));
  try {
    const first = runCli(['eval', '--index-cache', 'idx'], { cwd });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /bm25: index of \d+ documents saved to .*bm25-index-v1/);
    const dir = join(cwd, 'idx', 'bm25-index-v1');
    const files = readdirSync(dir);
    assert.equal(files.length, 2, 'one index per corpus (code, text)');
    assert.ok(files.every((f) => /^[0-9a-f]{64}\.bin$/.test(f)));

    const second = runCli(['eval', '--index-cache', 'idx'], { cwd });
    assert.equal(second.status, 0, second.stderr);
    assert.equal((second.stderr.match(/bm25: index of \d+ documents read from/g) ?? []).length, 2, second.stderr);
    assert.doesNotMatch(second.stderr, /saved to/);
    assert.equal(board(second.stdout), board(first.stdout));

    const victim = join(dir, files[0]);
    const bytes = readFileSync(victim);
    writeFileSync(victim, bytes.subarray(0, bytes.length >> 1));
    const third = runCli(['eval', '--index-cache', 'idx'], { cwd });
    assert.equal(third.status, 0, third.stderr);
    assert.match(third.stderr, new RegExp(`warning: bm25: .*${files[0]}: stored BM25 index: .*truncated.*; rebuilding the index`));
    assert.equal(board(third.stdout), board(first.stdout));
    assert.equal(readFileSync(victim).length, bytes.length, 'the rebuilt index replaced the truncated file');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
