/**
 * Work dirs a killed judge leaves behind (`p-<pid>-…` builds, `r-<pid>-…` runs) are removed by the
 * next judge; those of a judge still running beside it are kept.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeStaleWorkDirs } from './local-judge.js';

test('the dirs of dead judges go, of live ones stay; old-style dirs only when old', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'coreb-work-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  // A pid that is certainly dead: a process that has exited.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  t.after(() => live.kill());
  const names = [`p-${dead}-aaaaaa`, `r-${dead}-bbbbbb`, `p-${live.pid}-cccccc`, `p-${process.pid}-dddddd`, 'p-eeeeee', 'p-ffffff'];
  for (const n of names) mkdirSync(join(root, n, 'sub'), { recursive: true });
  const old = (Date.now() - 7 * 3600 * 1000) / 1000;
  utimesSync(join(root, 'p-ffffff'), old, old);
  assert.equal(removeStaleWorkDirs(root), 3);
  assert.deepEqual(readdirSync(root).sort(), [`p-${live.pid}-cccccc`, `p-${process.pid}-dddddd`, 'p-eeeeee'].sort());
  assert.ok(existsSync(join(root, `p-${live.pid}-cccccc`, 'sub')));
});
