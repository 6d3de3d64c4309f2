/**
 * Files shipped with coreb (its package.json, prompts, the bundled sample, worker scripts), found
 * from the package root rather than from one module's own place: the same code runs as separate
 * modules under dist/src/ and bundled into one file (dist/cli.mjs), at different depths.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CorebError } from './errors.js';

let root: string | undefined;

/**
 * The package's root folder: the nearest folder above this module holding a package.json (the
 * repository in a checkout, `node_modules/coreb` when installed). Found once per process.
 * @throws CorebError `INTERNAL` when no folder above has one (coreb's files moved away from it).
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir)
      throw new CorebError(
        'INTERNAL',
        `no package.json in any folder above ${fileURLToPath(import.meta.url)}: coreb's files are not where it was installed`,
      );
    dir = up;
  }
  root = dir;
  return root;
}

/** A path under the package root (`packagePath('prompts', 'build')`). */
export function packagePath(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}

/**
 * A compiled module of coreb's own to start as a worker or child process, by its path under
 * `src/` with the `.js` extension (`'search/dense-worker.js'`): always the separate module in
 * dist/src/, which both layouts ship.
 */
export function distModulePath(srcRelative: string): string {
  return packagePath('dist', 'src', srcRelative);
}
