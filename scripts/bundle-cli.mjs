#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/main.js and every module it reaches) into one file,
// dist/cli.mjs, which bin/coreb.js runs. Node's module loader costs ~0.5 ms a module on these
// machines, and a command reaches ~120 of coreb's modules: one file starts each command ~60 ms
// sooner (`coreb eval --help`: 0.21 -> 0.15 s of CPU), which is most of a short command's time.
// Dependencies stay separate (`packages: 'external'`), and dynamic imports stay lazy: a command's
// module is evaluated only when the command runs. Worker and child-process scripts are started from
// dist/src/ (src/core/package-files.ts), so both layouts ship.
//   node scripts/bundle-cli.mjs          (after tsc; `npm run build` runs both)
//   node scripts/bundle-cli.mjs --if-stale   only when a compiled module is newer than the bundle
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestFile } from '../bin/newest-file.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'dist', 'src', 'cli', 'main.js');
const out = join(root, 'dist', 'cli.mjs');
/** `coreb metrics` alone (src/cli/metrics-main.ts), which bin/coreb.js runs for that command. */
const metricsEntry = join(root, 'dist', 'src', 'cli', 'metrics-main.js');
const metricsOut = join(root, 'dist', 'cli-metrics.mjs');

if (!existsSync(entry)) {
  process.stderr.write(`bundle-cli: ${entry} is missing: compile first (npx tsc -p tsconfig.json)\n`);
  process.exit(2);
}
if (process.argv.includes('--if-stale')) {
  const newest = newestFile(join(root, 'dist', 'src'), '.js');
  if ([out, metricsOut].every((f) => existsSync(f) && statSync(f).mtimeMs >= newest)) process.exit(0);
}

const { build } = await import('esbuild');
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  legalComments: 'none',
};
await build({
  ...common,
  entryPoints: [entry],
  outfile: out,
  banner: { js: '// coreb CLI: dist/src/ bundled into one file by scripts/bundle-cli.mjs (the separate modules are in dist/src/).' },
});
await build({
  ...common,
  entryPoints: [metricsEntry],
  outfile: metricsOut,
  banner: { js: '// coreb metrics alone: bundled by scripts/bundle-cli.mjs; bin/coreb.js runs it for `coreb metrics`.' },
});
