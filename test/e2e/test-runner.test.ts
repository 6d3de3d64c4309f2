/**
 * The test runner (scripts/run-tests.mjs) as a contributor uses it: pure unit test files share a
 * process, a file that changes its process (here one that adds an exit handler) keeps one of
 * its own, COREB_TEST_POOL=0 runs every file alone, and the end of the run names the pooled group
 * in the slowest-files table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../support/shared.js';

const runner = join(projectRoot, 'scripts', 'run-tests.mjs');
// Two pure unit files and one that adds a process exit handler (src/dataset/embeddings-file.test.ts).
const FILES = ['src/core/errors.test', 'src/core/suggest.test', 'src/dataset/embeddings-file.test'];

function run(env: NodeJS.ProcessEnv): { status: number | null; out: string } {
  // Without NODE_TEST_CONTEXT: node's test runner refuses to start inside a test file's process.
  const { NODE_TEST_CONTEXT: _, ...outer } = process.env;
  const r = spawnSync(process.execPath, [runner, ...FILES], { cwd: projectRoot, encoding: 'utf8', env: { ...outer, ...env } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('run-tests pools the pure unit files into one process and keeps a file that adds an exit handler alone', () => {
  const pooled = run({});
  assert.equal(pooled.status, 0, pooled.out);
  assert.match(pooled.out, /3 files \(2 of them pooled\)/);
  assert.match(pooled.out, /pooled unit tests 1\/1 \(2 files in one process\)/);
  assert.match(pooled.out, /dist\/src\/dataset\/embeddings-file\.test\.js/);
  const alone = run({ COREB_TEST_POOL: '0' });
  assert.equal(alone.status, 0, alone.out);
  assert.match(alone.out, /3 files \(0 of them pooled\)/);
  // the same tests pass either way
  const count = (s: string) => /ℹ pass (\d+)/.exec(s)?.[1];
  assert.equal(count(pooled.out), count(alone.out));
});
