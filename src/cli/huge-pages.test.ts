import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/shared.js';
import { HUGE_PAGES_TUNABLE, hugePagesEnv, restoreUserTunables } from './huge-pages.js';

const onGlibc235 = (() => {
  const v = /^(\d+)\.(\d+)/.exec((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime ?? '');
  return process.platform === 'linux' && v !== null && (Number(v[1]) > 2 || Number(v[2]) >= 35);
})();

test('huge pages: a heavy command re-runs once with the tunable, and its child never re-runs', { skip: !onGlibc235 && 'needs glibc 2.35+' }, () => {
  const child = hugePagesEnv({ PATH: '/usr/bin', COREB_HUGE_PAGES: '1' });
  assert.ok(child !== undefined);
  assert.equal(child.GLIBC_TUNABLES, HUGE_PAGES_TUNABLE);
  assert.equal(hugePagesEnv(child), undefined, 'the child carries the marker');
  // The user's own tunables are kept, and put back in the child before it spawns anything.
  const withUser = hugePagesEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2', COREB_HUGE_PAGES: '1' });
  assert.equal(withUser?.GLIBC_TUNABLES, `glibc.malloc.arena_max=2:${HUGE_PAGES_TUNABLE}`);
  restoreUserTunables(withUser);
  assert.equal(withUser?.GLIBC_TUNABLES, 'glibc.malloc.arena_max=2');
  assert.equal(withUser?.COREB_GLIBC_TUNABLES_BEFORE, undefined);
  restoreUserTunables(child);
  assert.equal(child.GLIBC_TUNABLES, undefined, 'unset before, unset after');
});

test('huge pages: off by default and with COREB_HUGE_PAGES=0, off when the user set the tunable, off outside Linux', () => {
  assert.equal(hugePagesEnv({}), undefined);
  assert.equal(hugePagesEnv({ COREB_HUGE_PAGES: '0' }), undefined);
  assert.equal(hugePagesEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0', COREB_HUGE_PAGES: '1' }), undefined);
  assert.equal(hugePagesEnv({ COREB_HUGE_PAGES: '1' }, 'darwin'), undefined);
  const plain = { PATH: '/usr/bin' };
  restoreUserTunables(plain);
  assert.deepEqual(plain, { PATH: '/usr/bin' }, 'a process coreb did not start is left alone');
});

test("huge pages: `coreb eval` runs as exactly one child with the tunable, whose environment is the user's again", {
  skip: !onGlibc235 && 'needs glibc 2.35+',
}, () => {
  // A preload script (passed on to the child through execArgv) reports each coreb process: its
  // tunables at start-up and at exit, after main.ts ran.
  const dir = mkdtempSync(join(tmpdir(), 'coreb-huge-pages-'));
  try {
    const probe = join(dir, 'probe.cjs');
    const report = join(dir, 'report.jsonl');
    writeFileSync(
      probe,
      `const start = process.env.GLIBC_TUNABLES ?? null;
process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(report)}, JSON.stringify({ pid: process.pid, ppid: process.ppid, start, end: process.env.GLIBC_TUNABLES ?? null }) + '\\n'));`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GLIBC_TUNABLES;
    delete env.COREB_HUGE_PAGES;
    const cli = join(projectRoot, 'dist', 'src', 'cli', 'main.js');
    const args = [
      '--require',
      probe,
      cli,
      'eval',
      '--data',
      join(projectRoot, 'data', 'coreb-mini', 'release'),
      '--retriever',
      'bm25',
      '--tasks',
      't2c',
      '--out',
      join(dir, 'out'),
      '--overwrite',
      '--quiet',
    ];
    const p = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...env, COREB_HUGE_PAGES: '1' } });
    assert.equal(p.status, 0, p.stderr);
    assert.match(p.stdout, /bm25/, 'the leaderboard is printed through the shared stdout');
    const rows = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pid: number; ppid: number; start: string | null; end: string | null });
    assert.equal(rows.length, 2, 'the command and one child');
    const child = rows.find((r) => r.start !== null);
    const parent = rows.find((r) => r.start === null);
    assert.ok(child !== undefined && parent !== undefined);
    assert.equal(child.ppid, parent.pid);
    assert.equal(child.start, HUGE_PAGES_TUNABLE);
    assert.equal(child.end, null, "the child's environment is the user's again (no tunable) once it runs");
    // Not asked for (the default): one process.
    rmSync(report);
    const off = spawnSync(process.execPath, args, { encoding: 'utf8', env });
    assert.equal(off.status, 0, off.stderr);
    assert.equal(readFileSync(report, 'utf8').trim().split('\n').length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
