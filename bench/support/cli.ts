/**
 * The coreb command as a user runs it, for the benches that time it whole: bin/coreb.js, which runs
 * the CLI bundle (dist/cli.mjs; `coreb metrics` its own, dist/cli-metrics.mjs). In a source checkout
 * bin/coreb.js first compiles when src/ is newer than the build: done once here, when a bench loads
 * this module, so that no timed run pays for it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** bin/coreb.js: the `coreb` executable (run as `node bin/coreb.js ...`). */
export const corebCli: string = fileURLToPath(new URL('../../../bin/coreb.js', import.meta.url));

const ready = spawnSync(process.execPath, [corebCli, '--version'], { encoding: 'utf8' });
if (ready.status !== 0) throw new Error(`${corebCli} --version failed (exit ${ready.status}): ${ready.stderr}`);
