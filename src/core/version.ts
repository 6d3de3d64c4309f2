/** coreb's own version, read once from the package's package.json (three levels above dist/src/core). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The `version` field of coreb's package.json. */
export function corebVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
