#!/usr/bin/env node
// Checks what `npm pack` would publish: the package ships what runs and nothing else.
//   node scripts/check-pack.mjs           the file list of `npm pack --dry-run` (needs a build: npm run build)
//   node scripts/check-pack.mjs --smoke   also packs for real, installs the tarball into a temporary
//                                         project and runs `coreb eval` and `import('coreb')` there
// Fails (exit 1, one line per problem) on: a test file or test helper; a source map whose sources are
// not shipped, or a `sourceMappingURL` naming a map that is not; a file outside the shipped layout
// (authoring sources of coreb-mini, scripts, benchmarks...); compiled output without its source or a
// source without its compiled output (a stale or missing build); a missing entry point, release table,
// LICENSE or doc that the code or README points to; a tarball over the size budget.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestFile } from '../bin/newest-file.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const smoke = process.argv.includes('--smoke');

/**
 * Size budget of the tarball (gzip, bytes) and of its unpacked files. Measured: 703 kB packed, 3.9 MB
 * unpacked when the check was added; 1,053 kB packed, 5.4 MB unpacked (814 files) an hour later, after
 * the rerank, report, build and train areas landed (0.4 MB of it the TypeScript sources and maps,
 * 0.2 MB the coreb-mini release tables). The budget leaves room for the areas still to come; what it
 * is for is catching a model, a dataset or a build directory that slipped into `files`. On 2026-12-05
 * the code alone had grown to 2,128 kB packed, 9.6 MB unpacked (1,373 files: 2.1 MB compiled code,
 * 2.5 MB sources, 2.0 MB maps, 0.8 MB declarations, 1.9 MB the sample), so the budget moved to 3 MiB
 * packed and 14 MiB unpacked; a model or a release directory is still far over it.
 */
const PACKED_BUDGET = 3 * 1024 * 1024;
const UNPACKED_BUDGET = 14 * 1024 * 1024;

/** Where shipped files may live: compiled code, its sources, the sample release, examples, docs. */
const LAYOUT = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^bin\/(coreb|newest-file)\.js$/,
  /^dist\/cli(-metrics)?\.mjs$/,
  /^dist\/src\/.+\.(js|d\.ts|js\.map)$/,
  /^src\/.+\.ts$/,
  /^data\/coreb-mini\/README\.md$/,
  /^data\/coreb-mini\/release\/[^/]+\.(jsonl|json)$/,
  /^data\/examples\/[^/]+$/,
  /^docs\/[^/]+\.md$/,
  /^prompts\/(build|expansion)\/[^/]+\.md$/,
];
/** Test files and test helpers, wherever they are. */
const TEST_FILE = /(^|\/)(test|tests|testing|__tests__|fixtures)\/|\.(test|spec)\.[^/]*$/;
/** The release tables `coreb eval` reads from the bundled sample. */
const SAMPLE_TABLES = [
  'manifest.json',
  'code_corpus.jsonl',
  'text_corpus.jsonl',
  'text2code_queries.jsonl',
  'text2code_qrels.jsonl',
  'code2code_queries.jsonl',
  'code2code_qrels.jsonl',
  'code2text_queries.jsonl',
  'code2text_qrels.jsonl',
];

function npm(args, cwd = root) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) {
    console.error(`check-pack: npm ${args.join(' ')} failed (exit ${r.status})\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
}

const [pack] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts']));
const files = new Set(pack.files.map((f) => f.path));
const problems = [];
const fail = (msg) => problems.push(msg);
const read = (p) => readFileSync(join(root, p), 'utf8');

for (const f of files) {
  if (TEST_FILE.test(f)) fail(`${f}: a test file or test helper`);
  else if (!LAYOUT.some((re) => re.test(f))) fail(`${f}: outside the shipped layout (authoring source, script or stray file?)`);
}

// Compiled output and sources pair up one to one (a stale dist file or a missing build shows here).
for (const f of files) {
  let m = /^dist\/(src\/.+)\.(js|d\.ts|js\.map)$/.exec(f);
  if (m !== null && !files.has(`${m[1]}.ts`)) fail(`${f}: no shipped source ${m[1]}.ts (stale build output? rm -rf dist && npm run build)`);
  m = /^(src\/.+)\.ts$/.exec(f);
  if (m !== null && !files.has(`dist/${m[1]}.js`)) fail(`${f}: no compiled dist/${m[1]}.js (run npm run build)`);
}

// The CLI bundles bin/coreb.js runs, made from the compiled modules after them (a bare tsc leaves them old).
const newestModule = newestFile(join(root, 'dist', 'src'), '.js');
for (const bundle of ['dist/cli.mjs', 'dist/cli-metrics.mjs']) {
  if (!files.has(bundle)) fail(`${bundle} (a CLI bundle bin/coreb.js runs) is not shipped (run npm run build)`);
  else if (newestModule > statSync(join(root, bundle)).mtimeMs) fail(`${bundle} is older than a compiled module under dist/src (run npm run build)`);
}

// Source maps resolve inside the package, and the maps that compiled files name are shipped.
for (const f of files) {
  if (f.endsWith('.map')) {
    const map = JSON.parse(read(f));
    for (const s of map.sources ?? []) {
      const p = normalize(join(dirname(f), map.sourceRoot ?? '', s));
      if (!files.has(p)) fail(`${f}: maps to ${p}, which is not shipped`);
    }
  } else if (f.endsWith('.js')) {
    const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(read(f));
    if (m !== null && !m[1].startsWith('data:')) {
      const p = normalize(join(dirname(f), m[1]));
      if (!files.has(p)) fail(`${f}: names source map ${p}, which is not shipped`);
    }
  }
}

// Entry points, the sample release, the license, and every doc the code or README points to.
const pkg = JSON.parse(read('package.json'));
const entries = [
  pkg.main,
  pkg.types,
  ...Object.values(pkg.bin ?? {}),
  ...Object.values(pkg.exports ?? {}).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e))),
];
for (const e of entries) if (!files.has(normalize(e))) fail(`package.json names ${e}, which is not shipped`);
for (const t of SAMPLE_TABLES)
  if (!files.has(`data/coreb-mini/release/${t}`)) fail(`data/coreb-mini/release/${t}: the bundled sample table is not shipped`);
if (!files.has('LICENSE')) fail(`LICENSE is not shipped`);
for (const f of files) {
  if (!f.endsWith('.js') && !f.endsWith('.md')) continue;
  for (const [, doc] of read(f).matchAll(/(?<![\w./-])(docs\/[\w.-]+\.md)\b/g))
    if (!files.has(doc)) fail(`${f} points to ${doc}, which is not shipped`);
}

const kb = (n) => `${(n / 1000).toFixed(0)} kB`;
console.log(
  `check-pack: ${pack.filename}: ${kb(pack.size)} packed (budget ${kb(PACKED_BUDGET)}), ${kb(pack.unpackedSize)} unpacked (budget ${kb(UNPACKED_BUDGET)}), ${pack.entryCount} files`,
);
if (pack.size > PACKED_BUDGET) fail(`the tarball is ${pack.size} bytes, over the budget of ${PACKED_BUDGET}`);
if (pack.unpackedSize > UNPACKED_BUDGET) fail(`the unpacked package is ${pack.unpackedSize} bytes, over the budget of ${UNPACKED_BUDGET}`);

if (problems.length === 0 && smoke) smokeTest();

if (problems.length > 0) {
  for (const p of problems) console.error(`check-pack: ${p}`);
  console.error(`check-pack: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log('check-pack: ok');

/** Installs the real tarball into a temporary project and runs the CLI and the library from there. */
function smokeTest() {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-pack-'));
  try {
    const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir]));
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'coreb-pack-smoke', private: true, type: 'module' }));
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, packed.filename)], app);
    const bin = join(app, 'node_modules', '.bin', 'coreb');
    if (!existsSync(bin)) return fail(`smoke: the installed package has no coreb binary`);
    const ev = spawnSync(bin, ['eval', '--quiet'], { cwd: app, encoding: 'utf8' });
    if (ev.status !== 0 || !/^1\s+bm25\s/m.test(ev.stdout)) {
      return fail(`smoke: coreb eval from the installed package failed (exit ${ev.status})\n${ev.stderr}${ev.stdout}`);
    }
    // `coreb metrics` runs its own bundle (dist/cli-metrics.mjs): the shipped examples through it.
    const examples = join(app, 'node_modules', 'coreb', 'data', 'examples');
    const me = spawnSync(bin, ['metrics', '--qrels', join(examples, 'qrels.txt'), '--run', join(examples, 'run.txt')], {
      cwd: app,
      encoding: 'utf8',
    });
    if (me.status !== 0 || !/^map\s+all\s/m.test(me.stdout))
      return fail(`smoke: coreb metrics from the installed package failed (exit ${me.status})\n${me.stderr}${me.stdout}`);
    const lib = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import * as c from 'coreb'; for (const n of ['loadRelease', 'evaluate', 'runEval']) if (typeof c[n] !== 'function') throw new Error(n + ' is not exported');",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    if (lib.status !== 0) return fail(`smoke: import('coreb') from the installed package failed\n${lib.stderr}`);
    console.log(
      `check-pack: smoke: installed ${packed.filename}; coreb eval printed the leaderboard, coreb metrics its measures; import('coreb') works`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
