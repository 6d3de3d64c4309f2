/**
 * Interrupting an evaluation (Ctrl-C aborts the CLI's signal) leaves no half-written file: finished
 * run files are complete, the one in progress and results.json are never created.
 */
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEval } from '../../src/eval/index.js';
import { CorebError, isCorebError } from '../../src/core/errors.js';
import type { Progress } from '../../src/core/progress.js';
import { cliPath } from '../support/cli.js';
import { writeSyntheticRelease, writeTinyRelease } from './eval-fixture.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-eval-abort-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

test('aborting mid-evaluation rejects with INTERRUPTED and leaves only complete files', async () => {
  const release = join(root, 'release_tiny');
  writeTinyRelease(release);
  for (const stopAt of [1, 2, 3, 4, 5]) {
    const out = join(root, `out-${stopAt}`);
    const controller = new AbortController();
    let starts = 0;
    // Abort as the `stopAt`-th long step begins (index/search steps of the three tasks).
    const progress: Progress = {
      start() {
        if (++starts === stopAt) controller.abort(new CorebError('INTERRUPTED', 'interrupted by test'));
      },
      tick() {},
      done() {},
    };
    await assert.rejects(
      runEval({ data: release, retrievers: ['bm25'], outDir: out, corebVersion: 'test', signal: controller.signal, progress }),
      (e) => isCorebError(e, 'INTERRUPTED'),
    );
    assert.equal(existsSync(join(out, 'results.json')), false, 'no results.json after an interrupt');
    const runs = existsSync(join(out, 'runs')) ? readdirSync(join(out, 'runs')) : [];
    assert.deepEqual(
      runs.filter((f) => !f.endsWith('.trec')),
      [],
      'no temporary files',
    );
    for (const f of runs) {
      const lines = readFileSync(join(out, 'runs', f), 'utf8').split('\n');
      assert.equal(lines.pop(), '', `${f} ends with a newline`);
      assert.ok(
        lines.every((l) => l.split(' ').length === 6),
        `${f} has only whole lines`,
      );
    }
  }
});

test('Ctrl-C on the CLI exits 130 and leaves neither results.json nor temporary files', async () => {
  const release = join(root, 'release_synthetic');
  writeSyntheticRelease(release, 800);
  const out = join(root, 'out-sigint');
  const child = spawn(process.execPath, [cliPath, 'eval', '--data', release, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let sent = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    // Non-interactive progress prints "<step>: N to do" when a step starts: interrupt at the first search.
    if (!sent && /search: \d+ to do/.test(stderr)) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  assert.ok(sent, `never saw a search step start: ${stderr}`);
  assert.equal(status, 130, stderr);
  assert.match(stderr, /SIGINT received, stopping cleanly/);
  assert.equal(existsSync(join(out, 'results.json')), false);
  const leftovers = existsSync(out)
    ? readdirSync(out, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.tmp'))
    : [];
  assert.deepEqual(leftovers, []);
});
