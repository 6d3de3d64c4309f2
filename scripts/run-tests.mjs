#!/usr/bin/env node
// Runs the compiled tests with node's test runner.
//   node scripts/run-tests.mjs            unit + e2e tests (*.test.js), no ../shared needed
//   node scripts/run-tests.mjs --shared   suites that read ../shared (*.shared.test.js)
//   node scripts/run-tests.mjs [--shared] PATH_FILTER...   only files whose path contains a filter
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, COREB_PROJECT_ROOT: root },
});
process.exit(r.status ?? 1);
