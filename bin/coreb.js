#!/usr/bin/env node
// The `coreb` command. It runs the compiled CLI bundled into one file (dist/cli.mjs, made by
// scripts/bundle-cli.mjs: ~60 ms less start-up than loading dist/src/'s ~120 modules one by one),
// (`coreb metrics` runs dist/cli-metrics.mjs, that command alone), or dist/src/cli/main.js when no
// bundle was made. In a source checkout (tsconfig.json beside
// this folder) it first compiles when dist/ is missing or older than a source under src/: the
// project's .npmrc sets `ignore-scripts`, so `npm ci` runs no install script (none of a dependency's,
// and not this package's `prepare` either), and the first `npx coreb` does the build instead. An
// installed package ships dist/ and no tsconfig.json, and goes straight to the CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newestFile } from './newest-file.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const modules = join(root, 'dist', 'src', 'cli', 'main.js');
const bundle = join(root, 'dist', 'cli.mjs');
/** `coreb metrics` alone (src/cli/metrics-main.ts): ~150 KB to parse instead of ~1.7 MB. */
const metricsBundle = join(root, 'dist', 'cli-metrics.mjs');
/** Written after a successful build; its mtime is the build's time (tsc leaves unchanged outputs alone). */
const stamp = join(root, 'dist', '.coreb-build-stamp');

function needsBuild() {
  if (!existsSync(join(root, 'tsconfig.json')) || !existsSync(join(root, 'src'))) return false;
  if (!existsSync(modules) || !existsSync(bundle) || !existsSync(metricsBundle) || !existsSync(stamp)) return true;
  return newestFile(join(root, 'src'), '.ts') > statSync(stamp).mtimeMs;
}

if (needsBuild()) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    process.stderr.write(
      existsSync(modules)
        ? 'coreb: sources under src/ are newer than dist/ and TypeScript is not installed (npm ci); running the old build\n'
        : 'coreb: dist/ is not built and TypeScript is not installed: run `npm ci` in the checkout first\n',
    );
    if (!existsSync(modules)) process.exit(2);
  } else {
    process.stderr.write('coreb: compiling the sources (first run after `npm ci`, or src/ changed) ...\n');
    const started = Date.now();
    const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      process.stderr.write(`coreb: the build failed (tsc exit ${r.status ?? r.signal}); nothing was run\n`);
      process.exit(2);
    }
    const b = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (b.status !== 0) {
      process.stderr.write(`coreb: bundling the CLI failed (exit ${b.status ?? b.signal}); nothing was run\n`);
      process.exit(2);
    }
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
    process.stderr.write(`coreb: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}

// `coreb metrics` is what scripts call once per run file, as they would trec_eval: its own bundle
// starts it ~60 ms of CPU sooner (0.61 -> 0.55 s on a 500-query run). Every other command: the CLI.
const entry = process.argv[2] === 'metrics' && existsSync(metricsBundle) ? metricsBundle : existsSync(bundle) ? bundle : modules;
await import(pathToFileURL(entry).href);
