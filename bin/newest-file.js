// Newest modification time under a folder, shared by bin/coreb.js (are the sources newer than the
// build?) and scripts/bundle-cli.mjs (are the compiled modules newer than the bundle?).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Newest modification time (ms) of the files under `dir` whose name ends with `ext` and not with
 * `.test` + `ext` (tests are neither built into the CLI nor bundled); 0 when there is none.
 */
export function newestFile(dir, ext) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestFile(path, ext));
    else if (entry.name.endsWith(ext) && !entry.name.endsWith(`.test${ext}`)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}
