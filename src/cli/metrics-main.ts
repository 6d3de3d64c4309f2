/**
 * `coreb metrics` alone: bundled by scripts/bundle-cli.mjs into dist/cli-metrics.mjs (~130 KB
 * instead of the whole CLI's ~1.7 MB), which bin/coreb.js runs for `coreb metrics`. The command a
 * script calls once per run file, as it would trec_eval, starts ~60 ms of CPU sooner.
 */
import { runCli } from './run-cli.js';

// Its own table (not commands.ts's): the bundle must not reach the other commands' modules.
runCli({ metrics: () => import('./commands/metrics.js') });
