// Loaded into every test file's process by scripts/run-tests.mjs (NODE_OPTIONS=--import): when the
// process ends, writes its test file, wall time and CPU time (its own and its waited children's: the
// CLI runs, compilers and sandboxes an e2e test starts) to COREB_TEST_PROBE_DIR, for the runner's
// "slowest files" table (a pooled group of unit test files, `*.test.mjs`, is one record). Any other
// node process (a CLI a test spawns) writes nothing. A test file's process also gets the CLI's V8
// tier-up budget (dist/src/cli/v8-tier-up.js: test files, like most commands, run for seconds and
// would otherwise spend a good part of their CPU compiling in V8's background threads).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { procCpuSeconds } from './proc-cpu.mjs';

const dir = process.env.COREB_TEST_PROBE_DIR;
const file = process.argv[1];
if (dir !== undefined && /\.test\.m?js$/.test(file ?? '')) {
  const tierUp = new URL('../dist/src/cli/v8-tier-up.js', import.meta.url);
  if (existsSync(tierUp)) (await import(tierUp.href)).applyTierUpBudget();
  const started = performance.timeOrigin;
  process.on('exit', () => {
    let cpu = procCpuSeconds({ own: true, children: true });
    if (Number.isNaN(cpu)) {
      const u = process.cpuUsage();
      cpu = (u.user + u.system) / 1e6;
    }
    const record = { file, wallS: (Date.now() - started) / 1000, cpuS: cpu };
    try {
      writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(record));
    } catch {
      // The runner reads what it finds; a probe that cannot write changes no test's outcome.
    }
  });
}
