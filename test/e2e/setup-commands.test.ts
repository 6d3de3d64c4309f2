/**
 * The README's two set-up commands are the ones CI runs: `.ci/run` installs the checkout with `npm ci`
 * and runs `npm test`; `scripts/check-install.sh` runs `npm ci` then `npx coreb eval` from clean clones
 * on npm 10 and npm 11, with a CUDA 13 `nvcc` and without one. And nothing in the repository sets the
 * variable the README once asked users to export.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const read = (p: string) => readFileSync(join(root, p), 'utf8');

test("the README's set-up commands are what .ci/run and scripts/check-install.sh run, with no variable to set", () => {
  const readme = read('README.md');
  assert.match(readme, /```sh\nnpm ci && npx coreb eval\n```/);
  assert.match(readme, /```sh\nnpm ci && npm test\n```/);
  const install = read('scripts/check-install.sh');
  assert.match(install, /bash -c 'npm ci --no-audit --no-fund'/);
  assert.match(install, /bash -c 'npx coreb eval'/);
  assert.match(install, /leg npm10-nvcc13 /);
  assert.match(install, /leg npm11-no-nvcc /);
  assert.match(install, /release 13\.0/);
  const ci = read('.ci/run');
  assert.match(ci, /\nbash scripts\/check-install\.sh\n/);
  assert.match(ci, /\nnpm ci --no-audit --no-fund\n/);
  assert.match(ci, /\nnpm test\n/);
  assert.doesNotMatch(ci, /export ONNXRUNTIME_NODE_INSTALL/);
  assert.match(read('.npmrc'), /^ignore-scripts=true$/m);
  assert.equal((JSON.parse(read('package.json')) as { bin: Record<string, string> }).bin.coreb, 'bin/coreb.js');
});
