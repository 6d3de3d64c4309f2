import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../support/shared.js';

function check(files: Record<string, string>): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-layers-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const r = spawnSync(process.execPath, [join(projectRoot, 'scripts', 'check-layers.mjs'), dir], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

test('layer check passes imports that point down', () => {
  const r = check({
    'core/a.ts': 'export const a = 1;\n',
    'metrics/m.ts': "import { a } from '../core/a.js';\n",
    'cli/c.ts': "import { a } from '../core/a.js';\nimport '../metrics/m.js';\nprocess.env.X;\n",
  });
  assert.equal(r.status, 0, r.out);
});

test('layer check fails on upward and sibling imports and on env reads outside cli', () => {
  const r = check({
    'core/a.ts': "import '../metrics/m.js';\n",
    'metrics/m.ts': "import { s } from '../search/s.js';\n",
    'search/s.ts': 'export const s = process.env.HOME;\n',
  });
  assert.equal(r.status, 1);
  assert.match(r.out, /core\/a\.ts:1: `core` imports a higher layer `metrics`/);
  assert.match(r.out, /metrics\/m\.ts:1: `metrics` imports a sibling layer `search`/);
  assert.match(r.out, /search\/s\.ts:1: `search` reads process\.argv\/env/);
});

test('layer check lets tests, and only tests, import helpers from outside src/', () => {
  const ok = check({
    'providers/p.ts': 'export const p = 1;\n',
    'providers/p.test.ts': "import { serve } from '../../test/support/server.js';\nimport { p } from './p.js';\n",
  });
  assert.equal(ok.status, 0, ok.out);
  const bad = check({
    'providers/p.ts': "import { serve } from '../../test/support/server.js';\n",
  });
  assert.equal(bad.status, 1);
  assert.match(bad.out, /providers\/p\.ts:1: `providers` imports \.\.\/\.\.\/test\/support\/server\.js, outside src\/; only tests may/);
});

test('layer check: across areas an import names the file, not the area barrel (src/index.ts alone composes barrels)', () => {
  const files = {
    'core/a.ts': 'export const a = 1;\n',
    'core/index.ts': "export { a } from './a.js';\n",
    'index.ts': "export { a } from './core/index.js';\n",
  };
  const ok = check({ ...files, 'metrics/m.ts': "import { a } from '../core/a.js';\n" });
  assert.equal(ok.status, 0, ok.out);
  const bad = check({ ...files, 'metrics/m.ts': "import { a } from '../core/index.js';\n" });
  assert.equal(bad.status, 1);
  assert.match(bad.out, /metrics\/m\.ts:1: `metrics` imports the barrel of `core` \(\.\.\/core\/index\.js\); across areas import the file/);
  assert.match(bad.out, /violation\(s\) of the rules in DESIGN\.md/);
});

test('layer check fails on an import cycle, a type-only one included, and names one circle', () => {
  const ok = check({
    'search/types.ts': 'export interface Data { n: number }\n',
    'search/index-a.ts': "import type { Data } from './types.js';\nimport { save } from './store.js';\nexport const d: Data = { n: save() };\n",
    'search/store.ts': "import type { Data } from './types.js';\nexport const save = (x?: Data) => x?.n ?? 1;\n",
  });
  assert.equal(ok.status, 0, ok.out);
  const bad = check({
    'search/index-a.ts': "import { save } from './store.js';\nexport interface Data { n: number }\nexport const d = save();\n",
    'search/store.ts': "import type { Data } from './index-a.js';\nexport const save = (x?: Data) => x?.n ?? 1;\n",
  });
  assert.equal(bad.status, 1);
  assert.match(bad.out, /import cycle \(2 modules\): search\/index-a\.ts -> search\/store\.ts -> search\/index-a\.ts/);
  // Across folders and three modules long.
  const three = check({
    'sandbox/a.ts': "import './b/b.js';\n",
    'sandbox/b/b.ts': "import './c.js';\n",
    'sandbox/b/c.ts': "import type { X } from '../a.js';\nexport type Y = X;\n",
  });
  assert.equal(three.status, 1);
  assert.match(three.out, /import cycle \(3 modules\): sandbox\/a\.ts -> sandbox\/b\/b\.ts -> sandbox\/b\/c\.ts -> sandbox\/a\.ts/);
});

test('layer check: core and metrics are pure, no node: import outside the listed files', () => {
  const bad = check({
    'core/a.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n",
    'metrics/m.ts': "import { createHash } from 'node:crypto';\nexport const m = createHash;\n",
    'dataset/d.ts': "import { readFileSync } from 'node:fs';\nexport const d = readFileSync;\n",
  });
  assert.equal(bad.status, 1);
  assert.match(bad.out, /core\/a\.ts:1: `core` is pure .* imports node:fs/);
  assert.match(bad.out, /metrics\/m\.ts:1: `metrics` is pure .* imports node:crypto/);
  assert.doesNotMatch(bad.out, /dataset\/d\.ts/, 'adapters may do I/O');
  const listed = check({ 'core/version.ts': "import { readFileSync } from 'node:fs';\nexport const v = readFileSync;\n" });
  assert.equal(listed.status, 0, listed.out);
});
