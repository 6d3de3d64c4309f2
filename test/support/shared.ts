/**
 * Locates `../shared` (the workplace's data and fixtures) for the suites that read it. Those suites
 * are named `*.shared.test.ts` and run only via `npm run test:shared`, so `npm test` never needs it.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (the folder with package.json). */
export const projectRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Absolute path to the shared folder: `$COREB_SHARED_DIR` or `<root>/../shared`. */
export function sharedDir(): string {
  const dir = process.env.COREB_SHARED_DIR ?? join(projectRoot, '..', 'shared');
  if (!existsSync(dir)) {
    throw new Error(`shared data not found at ${dir}; set COREB_SHARED_DIR or place shared/ beside the checkout`);
  }
  return dir;
}

/** A path inside the shared folder. */
export function sharedPath(...parts: string[]): string {
  return join(sharedDir(), ...parts);
}
