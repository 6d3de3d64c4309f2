#!/usr/bin/env node
// Runs the compiled tests with node's test runner.
//   node scripts/run-tests.mjs            unit + e2e tests (*.test.js), no ../shared needed
//   node scripts/run-tests.mjs --shared   suites that read ../shared (*.shared.test.js)
//   node scripts/run-tests.mjs [--shared] PATH_FILTER...   only files whose path contains a filter
// The tests' temporary files go to one fresh folder (TMPDIR for the test processes), removed when the
// run ends, pass or fail; COREB_KEEP_TEST_TMP=1 keeps it and prints where it is.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const shared = args.includes('--shared');
const filters = args.filter((a) => !a.startsWith('--'));

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const files = walk(join(root, 'dist'), [])
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => f.endsWith('.shared.test.js') === shared)
  .filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)))
  .sort();

if (files.length === 0) {
  console.error(`run-tests: no ${shared ? 'shared ' : ''}test files found under dist/ (did the build run?)`);
  process.exit(1);
}
const testTmp = mkdtempSync(join(tmpdir(), 'coreb-tests-'));
// The same mode as /tmp (world-writable, sticky): the sandbox user must reach the judge's folders in it.
chmodSync(testTmp, 0o1777);
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  cwd: root,
  // A cache of the run's own (tests that count requests give each build one of its own), never the user's ~/.cache/coreb.
  env: { ...process.env, COREB_PROJECT_ROOT: root, TMPDIR: testTmp, COREB_CACHE_DIR: join(testTmp, 'coreb-cache') },
});
if (process.env.COREB_KEEP_TEST_TMP === '1') console.error(`run-tests: temporary files kept in ${testTmp}`);
else rmSync(testTmp, { recursive: true, force: true, maxRetries: 3 });
process.exit(r.status ?? 1);
