#!/usr/bin/env node
// Runs the compiled tests with node's test runner.
//   node scripts/run-tests.mjs            unit + e2e tests (*.test.js), no ../shared needed
//   node scripts/run-tests.mjs --shared   suites that read ../shared (*.shared.test.js)
//   node scripts/run-tests.mjs [--shared] PATH_FILTER...   only files whose path contains a filter
// The tests' temporary files go to one fresh folder (TMPDIR for the test processes), removed when the
// run ends, pass or fail; COREB_KEEP_TEST_TMP=1 keeps it and prints where it is.
// A compiled test whose source is gone (a test deleted or renamed since the last build) is refused:
// `npm run clean` removes dist/. The CLI bundle (dist/cli.mjs) is rebuilt first when a compiled
// module is newer than it. At the end: the run's wall and CPU time (all its processes: test
// files, the CLIs, compilers and sandboxes they start) against the budget, and the slowest files
// (ten; COREB_TEST_SLOWEST=N lists N).
// COREB_TEST_CPU_BUDGET_S sets the budget (default 420 s for the unit + e2e suites, 1,200 s for the
// shared ones: 360 s and 900 s until the total counted sandboxed processes, the compilers and
// programs the judges run, ~1 minute and ~10 minutes of CPU it used to miss); with
// COREB_ENFORCE_TEST_BUDGET=1 a run over it fails (.ci/run prints the figures, it does not enforce them).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { procCpuSeconds } from './proc-cpu.mjs';

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

// dist/src/a/b.test.js is built from src/a/b.test.ts: without it, the test is stale.
const stale = files.filter((f) => !existsSync(join(root, relative(join(root, 'dist'), f).replace(/\.js$/, '.ts'))));
if (stale.length > 0) {
  console.error(`run-tests: ${stale.length} compiled test(s) under dist/ have no source any more (deleted or renamed since the last build):`);
  for (const f of stale) console.error(`  ${relative(root, f)}`);
  console.error('run-tests: run `npm run clean` (removes dist/), then the tests again');
  process.exit(1);
}

if (files.length === 0) {
  console.error(`run-tests: no ${shared ? 'shared ' : ''}test files found under dist/ (did the build run?)`);
  process.exit(1);
}
// The e2e tests run the CLI as bin/coreb.js does, bundled (dist/cli.mjs): rebundled here when a
// compiled module is newer, so a bare `tsc` before a run cannot leave the tests running old code.
const bundled = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs'), '--if-stale'], { stdio: 'inherit' });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);
const testTmp = mkdtempSync(join(tmpdir(), 'coreb-tests-'));
// The same mode as /tmp (world-writable, sticky): the sandbox user must reach the judge's folders in it.
chmodSync(testTmp, 0o1777);
const probeDir = join(testTmp, '.probe');
mkdirSync(probeDir);
const probe = `--import=${pathToFileURL(join(root, 'scripts', 'test-probe.mjs')).href}`;
// Test files at once (COREB_TEST_CONCURRENCY): the unit + e2e suites two at a time (node 20's
// default, one fewer than the cores, is one on these 2-core machines: 6m54s -> 4m36s wall, the same
// CPU); the shared suites one at a time (their judges fill both cores already: 14m32s serially,
// 13m56s two at a time, each judge's runs then twice as slow).
const concurrency = Number(process.env.COREB_TEST_CONCURRENCY ?? (shared ? 1 : 2));
const { pooled, groupsDir, groupFiles, labels: pooledLabels } = poolUnitTests(files);
const started = Date.now();
// The pooled groups first (each holds many files), then every file that runs alone.
const runList = [...groupFiles, ...files.filter((f) => !pooled.has(f))];
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...runList], {
  stdio: 'inherit',
  cwd: root,
  env: {
    ...process.env,
    COREB_PROJECT_ROOT: root,
    TMPDIR: testTmp,
    // A cache of the run's own (tests that count requests give each build one of its own), never the user's ~/.cache/coreb.
    COREB_CACHE_DIR: join(testTmp, 'coreb-cache'),
    // One judge cache for the run (the tests' own judges and the CLIs they start): the precompiled
    // header, the run helper and the Go build cache are built once, not once per kind of caller.
    COREB_JUDGE_CACHE: join(testTmp, 'coreb-judge'),
    COREB_TEST_PROBE_DIR: probeDir,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, probe].filter(Boolean).join(' '),
  },
});
const wallS = (Date.now() - started) / 1000;
const overBudget = report(wallS);
if (process.env.COREB_KEEP_TEST_TMP === '1') console.error(`run-tests: temporary files kept in ${testTmp}`);
else rmSync(testTmp, { recursive: true, force: true, maxRetries: 3 });
if (groupsDir !== undefined) rmSync(groupsDir, { recursive: true, force: true });
process.exit(r.status !== 0 ? (r.status ?? 1) : overBudget && process.env.COREB_ENFORCE_TEST_BUDGET === '1' ? 1 : 0);

/**
 * The unit test files that share a process: those of the rooms below whose source changes nothing
 * of the process (no environment, working directory, exit, signal handlers, global hooks, timer or
 * method mocks, registrations) and does not ask for a process of its own (`test-isolation:
 * own-process`); sandbox/ is left out (its judges pick how to start sandboxes by the size of the
 * process they are in). Each
 * test file in a process of its own costs a Node start and a fresh load and compile of the modules
 * it imports; shared, the ~100 pure unit files take about half the CPU (74 -> 39 s, the same 603
 * tests). They are split round-robin into one process per concurrency slot (group files importing
 * them in order, in a temporary folder of their own); COREB_TEST_POOL=0 runs every file alone.
 */
function poolUnitTests(all) {
  const rooms = ['core', 'metrics', 'search', 'dataset', 'tensors', 'cache', 'report', 'construct', 'train', 'eval', 'providers', 'cli'];
  const ownProcess =
    /process\.env\.\w+\s*=(?!=)|delete process\.env|process\.chdir|process\.exit|process\.on\(|beforeEach|afterEach|mock\.timers|mock\.method|register[A-Z]\w*\(|globalThis\.\w+\s*=(?!=)|test-isolation: own-process/;
  const pooled = new Set();
  if (process.env.COREB_TEST_POOL !== '0') {
    for (const f of all) {
      const rel = relative(join(root, 'dist'), f);
      const room = rel.split('/')[1];
      if (!rel.startsWith('src/') || !rooms.includes(room)) continue;
      const source = readFileSync(join(root, rel.replace(/\.js$/, '.ts')), 'utf8');
      if (!ownProcess.test(source)) pooled.add(f);
    }
  }
  // Group file -> its label in the slowest-files table.
  const labels = new Map();
  if (pooled.size < 2) return { pooled: new Set(), groupsDir: undefined, groupFiles: [], labels };
  const groupsDir = mkdtempSync(join(tmpdir(), 'coreb-test-pools-'));
  // One process per concurrency slot, none with fewer than 4 files (a group of one saves nothing).
  const slots = Math.max(1, Math.min(concurrency, Math.floor(pooled.size / 4)));
  const groups = Array.from({ length: slots }, () => []);
  [...pooled].forEach((f, i) => groups[i % slots].push(f));
  const groupFiles = groups.map((g, i) => {
    const file = join(groupsDir, `pooled-unit-tests-${i + 1}-of-${slots}.test.mjs`);
    writeFileSync(file, g.map((f) => `import ${JSON.stringify(pathToFileURL(f).href)};`).join('\n') + '\n');
    labels.set(file, `pooled unit tests ${i + 1}/${slots} (${g.length} files in one process)`);
    return file;
  });
  return { pooled, groupsDir, groupFiles, labels };
}

/** Prints the run's times and the slowest files; true when the CPU time is over the budget. */
function report(wall) {
  // The runner's waited children: the test runner and everything under it, sandboxed compilers and
  // programs included (the judge's host-side helper reaps bubblewrap's namespace, run-helper.ts)
  // (NaN off Linux: the total stays unknown, the per-file figures below still print).
  const cpu = procCpuSeconds({ children: true });
  const records = [];
  for (const name of readdirSync(probeDir)) {
    try {
      records.push(JSON.parse(readFileSync(join(probeDir, name), 'utf8')));
    } catch {
      // A probe cut off mid-write: that file is left out of the table.
    }
  }
  const budget = Number(process.env.COREB_TEST_CPU_BUDGET_S ?? (shared ? 1200 : 420));
  const slow = records.sort((a, b) => b.cpuS - a.cpuS).slice(0, Number(process.env.COREB_TEST_SLOWEST ?? 10));
  const min = (s) => `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  console.log(`\nrun-tests: slowest files (CPU incl. the processes they start; wall)`);
  for (const x of slow)
    console.log(
      `  ${x.cpuS.toFixed(1).padStart(6)} s CPU  ${x.wallS.toFixed(1).padStart(6)} s wall  ${pooledLabels.get(x.file) ?? relative(root, x.file)}`,
    );
  const over = Number.isFinite(cpu) && cpu > budget;
  console.log(
    `run-tests: ${files.length} files (${pooled.size} of them pooled) in ${min(wall)} wall, ${Number.isFinite(cpu) ? min(cpu) : '?'} CPU (budget ${min(budget)} CPU${over ? ': OVER' : ''})`,
  );
  return over;
}
