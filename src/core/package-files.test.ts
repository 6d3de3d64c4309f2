import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { distModulePath, packagePath, packageRoot } from './package-files.js';

test('packageRoot is the folder of coreb’s package.json, and the shipped files are found under it', () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string };
  assert.equal(pkg.name, 'coreb');
  assert.ok(existsSync(packagePath('prompts', 'build', 'rewrite.md')));
  assert.ok(existsSync(packagePath('data', 'coreb-mini', 'release', 'manifest.json')));
  // the scripts started as workers and child processes are separate modules in both layouts
  assert.ok(existsSync(distModulePath('search/dense-worker.js')));
  assert.ok(existsSync(distModulePath('sandbox/process-host-child.js')));
});
