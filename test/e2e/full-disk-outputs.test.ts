/**
 * Every output a command writes, on a disk that fills up: `eval --out` and `--results`, `leaderboard
 * --site`, `report --out` and `repo build --out` first write good outputs, the disk is then filled,
 * and the same command run again (replacing them) must end with one line naming what it could not
 * write, exit 3, no stack trace, and leave the earlier good files exactly as they were (nothing
 * half-written in their place). Needs root to mount a tmpfs; skips otherwise.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { commit, initRepo } from '../support/git-repo.js';

/** Every file under `dir` with its content (the state a failed rewrite must leave alone). */
function snapshot(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, snapshot(p, `${prefix}${e.name}/`));
    else out[`${prefix}${e.name}`] = readFileSync(p).toString('base64');
  }
  return out;
}

test('a full disk: each command says what it could not write (exit 3, one line) and leaves the earlier outputs whole', (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to mount a small tmpfs');
  // A small repository of the test's own (this project's history would cost seconds of chunking
  // for nothing the assertions need): a bug fixed in the window, so the build has a query to write.
  const source = mkdtempSync(join(tmpdir(), 'coreb-full-outputs-repo-'));
  const repoDir = join(source, 'calc');
  initRepo(repoDir);
  commit(repoDir, '2024-01-01T10:00:00Z', 'Initial calculator', { 'calc.py': 'def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n' });
  commit(
    repoDir,
    '2024-02-02T10:00:00Z',
    'Fix addition',
    { 'calc.py': 'def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n' },
    undefined,
    'add subtracted. Fixes #1.',
  );
  t.after(() => rmSync(source, { recursive: true, force: true }));
  const disk = mkdtempSync(join(tmpdir(), 'coreb-full-outputs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', disk], { stdio: 'pipe' });
  } catch (e) {
    rmSync(disk, { recursive: true, force: true });
    return t.skip(`cannot mount a tmpfs: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    const evalOut = join(disk, 'eval');
    const store = join(disk, 'store');
    const site = join(disk, 'site');
    const report = join(disk, 'report');
    const repo = join(disk, 'repo');
    const runs: Array<[string, string[]]> = [
      ['eval --out', ['eval', '--quiet', '--tasks', 't2c', '--out', evalOut, '--overwrite']],
      ['eval --results', ['eval', '--quiet', '--tasks', 't2c', '--results', store, '--retriever', 'bm25']],
      ['leaderboard --site', ['leaderboard', evalOut, '--site', site]],
      ['report --out', ['report', evalOut, '--out', report]],
      ['repo build --out', ['repo', 'build', '--repo', repoDir, '--since', '2024-02-01', '--out', repo, '--overwrite']],
    ];
    // the good outputs, while there is room
    for (const [name, args] of runs) {
      const r = runCli(args);
      assert.equal(r.status, 0, `${name}: ${r.stderr}`);
    }
    const before = Object.fromEntries([evalOut, store, site, report, repo].map((d) => [d, snapshot(d)]));
    // fill the disk
    try {
      writeFileSync(join(disk, 'filler'), Buffer.alloc(64 << 20));
    } catch {
      // ENOSPC: full now
    }
    assert.ok(statSync(join(disk, 'filler')).size > 0);
    // the store gets a new entry (another retriever); the others rewrite their outputs
    const again: Array<[string, string[]]> = runs.map(([name, args]) =>
      name === 'eval --results'
        ? [name, ['eval', '--quiet', '--tasks', 't2c', '--results', store, '--retriever', 'bm25?k1=0.9&b=0.4']]
        : [name, args],
    );
    for (const [name, args] of again) {
      const r = runCli(args);
      assert.equal(r.status, 3, `${name}: exit ${r.status}: ${r.stderr}`);
      const lines = r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('coreb'));
      assert.ok(
        lines.some((l) => /no space left on the device|ENOSPC/.test(l)),
        `${name}: ${r.stderr}`,
      );
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`);
    }
    for (const [d, files] of Object.entries(before)) {
      const now = snapshot(d);
      for (const [f, content] of Object.entries(files)) assert.equal(now[f], content, `${d}/${f} was changed`);
      const extra = Object.keys(now).filter((f) => !(f in files));
      assert.deepEqual(extra, [], `${d}: half-written files left`);
    }
  } finally {
    execFileSync('umount', [disk], { stdio: 'pipe' });
    rmSync(disk, { recursive: true, force: true });
  }
});
