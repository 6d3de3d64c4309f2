import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { projectRoot } from '../support/shared.js';

function check(files: Record<string, string>, design?: string): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-layers-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const args = [join(projectRoot, 'scripts', 'check-layers.mjs'), dir];
  if (design !== undefined) {
    writeFileSync(join(dir, '..', `${basename(dir)}.DESIGN.md`), design);
    args.push('--design', join(dir, '..', `${basename(dir)}.DESIGN.md`));
  }
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
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

test("the layer map is DESIGN.md's: the page's rooms and layers decide, and a page without a map is refused", () => {
  const files = { 'search/s.ts': 'export const s = 1;\n', 'metrics/m.ts': "import { s } from '../search/s.js';\n" };
  // The project's DESIGN.md: metrics and search are siblings.
  assert.match(check(files).out, /`metrics` imports a sibling layer `search`/);
  // A page that draws metrics a layer above search lets the same import through.
  const above = check(files, '# d\n\n```\nlayer 0  core/\nlayer 1  search/\nlayer 2  metrics/   measures, over search\n```\n');
  assert.equal(above.status, 0, above.out);
  // A room the page does not draw is not a known layer.
  const missing = check(files, '```\nlayer 0  core/\nlayer 1  search/\n```\n');
  assert.equal(missing.status, 1);
  assert.match(missing.out, /folder `metrics` is not a known layer \(core, search\)/);
  const none = check(files, '# a design page without a map\n');
  assert.equal(none.status, 1);
  assert.match(none.out, /has no layer map/);
});

test('layer check: a function in eval/ longer than 150 lines fails with its name and length', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const x${i} = ${i};`).join('\n');
  const ok = check({ 'eval/run.ts': `export function run(): void {\n${body(148)}\n}\n` });
  assert.equal(ok.status, 0, ok.out);
  const bad = check({
    'eval/run.ts': `export async function runEval(): Promise<void> {\n${body(149)}\n}\nexport const step = async (a: number): Promise<void> => {\n${body(151)}\n};\n`,
    'search/long.ts': `export function long(): void {\n${body(400)}\n}\n`,
  });
  assert.equal(bad.status, 1);
  assert.match(bad.out, /eval\/run\.ts:1: `runEval` is 151 lines; functions in `eval` stay within 150/);
  assert.match(bad.out, /eval\/run\.ts:152: `step` is 153 lines/);
  assert.doesNotMatch(bad.out, /search\/long\.ts/, "the limit is eval's");
});
