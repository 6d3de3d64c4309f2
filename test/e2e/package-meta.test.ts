/**
 * What the package tells a new user about itself: a LICENSE matching package.json, and a
 * `repository` field only with a real URL; while there is none the README says so (no guessed URL).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/shared.js';

test('package.json: license backed by LICENSE; repository either a real URL or explained in the README', () => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { license?: string; repository?: unknown; files?: string[] };
  assert.equal(pkg.license, 'MIT');
  assert.match(readFileSync(join(projectRoot, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.ok(pkg.files?.includes('LICENSE') && pkg.files.includes('README.md'));
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  if (pkg.repository === undefined) {
    assert.match(readme, /no public source repository yet, so `package\.json` has\s+no `repository` field on purpose/);
  } else {
    const url = typeof pkg.repository === 'string' ? pkg.repository : (pkg.repository as { url?: string }).url;
    assert.match(url ?? '', /^(git\+)?https:\/\/\S+$/, 'a repository field names a real https URL');
    assert.ok(!/example|TODO|your-org/i.test(url ?? ''), 'not a placeholder');
  }
  assert.ok(existsSync(join(projectRoot, 'docs', 'eval.md')));
});
