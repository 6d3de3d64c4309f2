/**
 * `coreb eval --out` never loses or silently replaces results: a full disk is an error naming the
 * file (exit 3) with no temporary file left, temporary files of a killed run are cleaned on the
 * next run, and a second run into a non-empty directory is refused unless --overwrite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runCli, type CliResult } from '../support/cli.js';
import { mountFullDisk } from '../support/full-disk.js';
import { tempDir } from '../support/judge.js';

const noStack = (r: CliResult): void => {
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(r.stderr, /internal error/);
};

/** Every file under `dir`, relative, sorted. */
function walk(dir: string, root = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n), root) : [relative(root, join(dir, n))]))
    .sort();
}

test('eval --out on a full disk: exit 3 naming the file, no temporary file left', (t) => {
  const disk = mountFullDisk();
  if (typeof disk === 'string') return t.skip(disk);
  try {
    const out = join(disk.dir, 'res');
    const r = runCli(['eval', '--runs', 'plain', '--out', out, '--quiet']);
    assert.equal(r.status, 3, `status ${r.status}; stderr: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${join(out, 'runs')}/bm25\\.\\w+\\.trec: cannot write file \\(no space left on the device, ENOSPC\\)`));
    noStack(r);
    assert.deepEqual(walk(out), [], 'nothing half-written, no temporary file');
  } finally {
    disk.release();
  }
});

test('eval --out removes the temporary files a killed run left, then writes its results', () => {
  const out = join(tempDir('coreb-e2e-eval-out-'), 'res');
  mkdirSync(join(out, 'runs'), { recursive: true });
  // Names as atomic writes make them; pid 2^22 + 1 is above Linux's pid_max: the writer is dead.
  const stale = ['.results.json.4194305.0badc0de.tmp', 'runs/.bm25.text2code.trec.4194305.0badc0de.tmp'];
  for (const f of stale) writeFileSync(join(out, f), 'half a file');
  const r = runCli(['eval', '--runs', 'plain', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /removed 2 temporary file\(s\) left by an interrupted run/);
  const files = walk(out);
  assert.ok(files.includes('results.json') && files.includes('leaderboard.md'), files.join(', '));
  assert.deepEqual(
    files.filter((f) => f.endsWith('.tmp')),
    [],
  );
});

test('a second eval --out into the same directory is refused; --overwrite replaces the results and their run files', () => {
  const out = join(tempDir('coreb-e2e-eval-out-'), 'res');
  const first = runCli(['eval', '--runs', 'plain', '--out', out, '--quiet']);
  assert.equal(first.status, 0, first.stderr);
  const before = readFileSync(join(out, 'results.json'), 'utf8');
  const again = runCli(['eval', '--runs', 'plain', '--retriever', 'bm25?k1=1.2&b=0.75', '--out', out, '--quiet']);
  assert.equal(again.status, 2, again.stderr);
  assert.match(again.stderr, /already holds \d+ file\(s\) .*pass --overwrite/);
  noStack(again);
  assert.equal(readFileSync(join(out, 'results.json'), 'utf8'), before, 'the first results are untouched');
  // A file that is not coreb's also makes the directory non-empty.
  const other = join(tempDir('coreb-e2e-eval-out-'), 'mine');
  mkdirSync(other);
  writeFileSync(join(other, 'notes.txt'), 'x');
  assert.equal(runCli(['eval', '--runs', 'plain', '--out', other, '--quiet']).status, 2);

  const over = runCli(['eval', '--runs', 'plain', '--retriever', 'bm25?k1=1.2&b=0.75', '--out', out, '--overwrite', '--quiet']);
  assert.equal(over.status, 0, over.stderr);
  const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Array<{ name: string }> };
  assert.deepEqual(
    res.retrievers.map((x) => x.name),
    ['bm25?k1=1.2&b=0.75'],
  );
  const runs = walk(join(out, 'runs'));
  assert.ok(runs.length === 3 && runs.every((f) => f.startsWith('bm25_k1=1.2_b=0.75.')), `old bm25 runs removed: ${runs.join(', ')}`);
});
