/**
 * Transparent huge pages for the heavy commands. A document matrix, a BM25 index or a million-line
 * run is gigabytes of fresh memory, and the kernel faults it in one 4 KiB page at a time: about
 * 0.3 s per GiB on a bare-metal Linux, and 4-6 s per GiB in a microVM (Firecracker, where each
 * fault exits to the hypervisor). glibc 2.35+ can ask for 2 MiB pages for its large allocations
 * (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`: `madvise(MADV_HUGEPAGE)` on every mmap-ed chunk, which
 * is where Node's ArrayBuffers and SharedArrayBuffers live), 512 times fewer faults; numpy does the
 * same for its arrays. A tunable is read once when the process starts, so a heavy command re-runs
 * coreb as a child with it set (about 0.1 s of start-up), the parent waiting and passing on its
 * exit status and signals. The child puts the user's own `GLIBC_TUNABLES` back before it spawns
 * anything (compilers, judged programs, servers see the environment the user gave).
 *
 * Opt-in with `COREB_HUGE_PAGES=1`: the child outlives a `kill -9` of its parent by up to 100 ms
 * (it notices the parent gone at its next check), long enough for a resumable build to send a call
 * twice, so the default stays one process. Non-Linux, non-glibc (musl) and glibc older than 2.35
 * never re-run.
 */
import { spawn } from 'node:child_process';

/**
 * The commands that hold gigabytes (document matrices, indexes, corpora, many runs) and re-run with
 * huge pages. The others (metrics, validate, leaderboard, ...) start in a few tens of
 * milliseconds and would pay more for the second start than they save.
 */
export const HEAVY_COMMANDS: ReadonlySet<string> = new Set([
  'audit',
  'bridge',
  'build',
  'contamination',
  'drift',
  'eval',
  'export',
  'mine',
  'providers',
  'repo',
  'rerank',
]);

/** The tunable that asks glibc's malloc for transparent huge pages (glibc 2.35+). */
export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';

/** Set in the child: the value of `GLIBC_TUNABLES` the user had (empty when it was unset: `-`). */
const BEFORE = 'COREB_GLIBC_TUNABLES_BEFORE';

/** glibc's version as `[major, minor]` when this process runs on glibc, else undefined (musl, other OS). */
function glibcVersion(): [number, number] | undefined {
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  const m = /^(\d+)\.(\d+)/.exec(header?.glibcVersionRuntime ?? '');
  return m === null ? undefined : [Number(m[1]), Number(m[2])];
}

/**
 * The environment to re-run coreb in with huge pages, or undefined when this process should do
 * the work itself: not asked for (`COREB_HUGE_PAGES=1`), already set (a child, or the user set the
 * tunable), not Linux, or not glibc 2.35+.
 */
export function hugePagesEnv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv | undefined {
  if (env.COREB_HUGE_PAGES !== '1' || platform !== 'linux') return undefined;
  const tunables = env.GLIBC_TUNABLES ?? '';
  if (tunables.includes('glibc.malloc.hugetlb') || env[BEFORE] !== undefined) return undefined;
  const v = glibcVersion();
  if (v === undefined || v[0] < 2 || (v[0] === 2 && v[1] < 35)) return undefined;
  return {
    ...env,
    GLIBC_TUNABLES: tunables === '' ? HUGE_PAGES_TUNABLE : `${tunables}:${HUGE_PAGES_TUNABLE}`,
    [BEFORE]: tunables === '' ? '-' : tunables,
  };
}

/**
 * In a child started by {@link reexecWithHugePages}: puts back the user's `GLIBC_TUNABLES` (the
 * tunable has done its work: glibc read it at start-up), so what coreb spawns sees the user's
 * environment. A no-op in any other process.
 */
export function restoreUserTunables(env: NodeJS.ProcessEnv = process.env): void {
  const before = env[BEFORE];
  if (before === undefined) return;
  // The parent only waits: when it is gone (kill -9), the work stops with it, as a command run
  // directly would. Checked every 100 ms; the event loop gets turns at least every 50 ms of work.
  if (env === process.env) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
    }, 100).unref();
  }
  if (before === '-') delete env.GLIBC_TUNABLES;
  else env.GLIBC_TUNABLES = before;
  delete env[BEFORE];
}

/**
 * Runs this same coreb command line as a child in `env` (from {@link hugePagesEnv}), with the
 * standard streams shared, and resolves to the exit status to end with. The child has a process
 * group of its own, so a Ctrl-C at the terminal reaches the parent alone, which passes SIGINT,
 * SIGTERM and SIGHUP on exactly once (the child stops cleanly on the first and is forced by the
 * second, as a command run directly is). A child ended by a signal ends the parent by the same
 * signal. (No heavy command reads a terminal: `serve --mcp`, which reads standard input, is not
 * one of them.)
 */
export function reexecWithHugePages(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, stdio: 'inherit', detached: true });
    const pass = (sig: NodeJS.Signals) => (): void => {
      child.kill(sig);
    };
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, pass(sig)] as const);
    for (const [sig, h] of handlers) process.on(sig, h);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      if (signal !== null) {
        process.kill(process.pid, signal);
        // Ignored or handled elsewhere: end with the shell's status for a signal.
        resolve(128 + (signalNumber(signal) ?? 1));
      } else resolve(code ?? 1);
    });
  });
}

function signalNumber(sig: NodeJS.Signals): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Partial<Record<NodeJS.Signals, number>>)[sig];
}
