/** coreb's own version, read once from the package's package.json. */
import { readFileSync } from 'node:fs';
import { packagePath } from './package-files.js';

let cached: string | undefined;

/** The `version` field of coreb's package.json. */
export function corebVersion(): string {
  cached ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return cached;
}
