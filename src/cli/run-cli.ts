/**
 * What every `coreb` entry point does around a command: picks it from a table, builds its context
 * (argv, env, signal, logger), stops cleanly on SIGINT/SIGTERM, and maps every error to one line and
 * an exit status in one top-level catch. main.ts runs it with every command; metrics-main.ts with
 * `metrics` alone (a bundle of its own that starts sooner: see scripts/bundle-cli.mjs).
 */
import { CorebError, EXIT_CODES, exitStatusHelp, isCorebError } from '../core/errors.js';
import type { Command, CommandContext } from './command.js';
import { nameList } from '../core/table.js';
import { didYouMean } from '../core/suggest.js';
import { corebVersion } from '../core/version.js';
import { HEAVY_COMMANDS, hugePagesEnv, reexecWithHugePages, restoreUserTunables } from './huge-pages.js';
import { applyTierUpBudget } from './v8-tier-up.js';

/**
 * Milliseconds a command has to stop after SIGINT/SIGTERM before it exits anyway: 1.5 s. Every
 * command's own stop (tests/e2e/*interrupt*) takes well under that.
 */
export const STOP_GRACE_MS = 1500;

/**
 * Ends the process at once, as `sig`'s default action does (the shell sees 130 for SIGINT, 143 for
 * SIGTERM). Not `process.exit`: its clean-up joins libuv's thread pool, and a thread blocked opening
 * or reading a FIFO no program writes would hold it forever.
 */
function forceStop(sig: NodeJS.Signals): never {
  process.removeAllListeners(sig);
  process.kill(process.pid, sig);
  // The default action ends the process before this line is reached; SIGKILL if a handler remained.
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

/** Command name -> lazy module loader (see commands.ts). */
export type CommandTable = Readonly<Record<string, () => Promise<{ default: Command }>>>;

async function help(commands: CommandTable, out: NodeJS.WritableStream): Promise<void> {
  const lines = ['coreb — CoREB code retrieval benchmark toolkit', '', 'Usage: coreb <command> [options]', '', 'Commands:'];
  const entries: Array<[string, string]> = [];
  for (const [name, load] of Object.entries(commands)) entries.push([name, (await load()).default.summary]);
  lines.push(...nameList(entries));
  lines.push('', "Run `coreb <command> --help` for a command's options.", '', exitStatusHelp());
  out.write(lines.join('\n') + '\n');
}

async function main(commands: CommandTable, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest.length > 0 && !rest[0].startsWith('-')) return main(commands, [rest[0], '--help']);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    await help(commands, process.stdout);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(corebVersion() + '\n');
    return 0;
  }
  const load = commands[name];
  if (load === undefined) {
    throw new CorebError(
      'USAGE',
      `unknown command \`${name}\`${didYouMean(name, Object.keys(commands))} (valid commands: ${Object.keys(commands).join(', ')})`,
    );
  }
  const cmd = (await load()).default;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${cmd.usage.trimEnd()}\n\n${exitStatusHelp()}\n`);
    return 0;
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts > 1) forceStop(sig);
    process.stderr.write(`\ncoreb: ${sig} received, stopping cleanly (again to force)\n`);
    controller.abort(new CorebError('INTERRUPTED', `interrupted by ${sig}`));
    // Work that cannot see the abort (a read blocked on a pipe or FIFO whose writer is silent: the
    // open or read waits in a thread of libuv's pool) would keep the command running; it stops anyway,
    // STOP_GRACE_MS after the signal. Files are written to temporary names and renamed when complete,
    // so what is cut short leaves no partial output (the next run removes the temporary file).
    setTimeout(() => {
      process.stderr.write(`coreb: still running ${STOP_GRACE_MS / 1000} s after ${sig} (waiting on input that does not come?); exiting\n`);
      forceStop(sig);
    }, STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const verbose = rest.includes('--verbose');
  // --quiet silences progress (in the commands that have it) and informational lines; warnings stay.
  const quiet = rest.includes('--quiet');
  const ctx: CommandContext = {
    argv: rest.filter((a) => a !== '--verbose'),
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: Boolean(process.stderr.isTTY),
    logger: {
      info: (m) => {
        if (!quiet) process.stderr.write(m + '\n');
      },
      warn: (m) => process.stderr.write(`warning: ${m}\n`),
      debug: (m) => {
        if (verbose) process.stderr.write(`debug: ${m}\n`);
      },
    },
    signal: controller.signal,
  };
  return cmd.run(ctx);
}

/** Plain-words reasons for the file-system errors a user can fix. */
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device; free space or write elsewhere',
  EDQUOT: 'disk quota exceeded; free space or write elsewhere',
  EISDIR: 'is a directory, expected a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
  ENOENT: 'no such file or directory',
};

function isSystemError(e: unknown): e is NodeJS.ErrnoException & { code: string; syscall: string } {
  const x = e as NodeJS.ErrnoException;
  return e instanceof Error && typeof x.code === 'string' && typeof x.syscall === 'string' && x.code in SYSTEM_ERRORS;
}

/** A heavy command re-runs itself with huge pages (see huge-pages.ts); everything else runs here. */
function start(commands: CommandTable, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const heavy = name !== undefined && HEAVY_COMMANDS.has(name) && !rest.includes('--help') && !rest.includes('-h');
  // Decided before the user's tunables are put back: the child carries the marker and never re-runs.
  const env = heavy ? hugePagesEnv(process.env) : undefined;
  restoreUserTunables();
  return env !== undefined ? reexecWithHugePages(env) : main(commands, argv);
}

/**
 * Runs the command `process.argv` names from `commands` and sets the exit status: the one entry of
 * every `coreb` executable. Installs the process-wide handlers (a closed stdout, a command that
 * never settles) first.
 */
export function runCli(commands: CommandTable): void {
  // A command whose work stalled on a promise nothing will settle (a stream that failed without a
  // callback) would end with status 0 and no output: that is an internal error, never a success.
  let settled = false;

  // A closed stdout (`coreb validate DIR | head`) ends the command quietly, as a Unix filter does;
  // stdout that cannot be written (a full disk, a file system gone read-only) ends it with one line
  // saying so and the I/O exit status, never a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    settled = true;
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    const reason = e.code !== undefined && e.code in SYSTEM_ERRORS ? `${SYSTEM_ERRORS[e.code]} (${e.code})` : e.message;
    try {
      process.stderr.write(`coreb: cannot write to standard output: ${reason}\n`);
    } finally {
      process.exit(EXIT_CODES.IO);
    }
  });

  process.on('exit', (code) => {
    if (settled || code !== 0) return;
    process.stderr.write('coreb: internal error: the command stopped before finishing (a pending operation was never completed)\n');
    process.exitCode = EXIT_CODES.INTERNAL;
  });

  applyTierUpBudget();
  start(commands, process.argv.slice(2)).then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    (err: unknown) => {
      settled = true;
      if (isCorebError(err)) {
        // A message that already names the command (`coreb eval: …`) is not prefixed twice.
        process.stderr.write(/^coreb\b/.test(err.message) ? `${err.message}\n` : `coreb: ${err.message}\n`);
        process.exitCode = EXIT_CODES[err.code];
      } else if (isSystemError(err)) {
        // A failed read or write the command did not wrap (full disk, a directory where a file was
        // expected, no permission): the file and the reason, not a stack trace.
        const where = err.path === undefined ? '' : `${err.path}: `;
        process.stderr.write(`coreb: ${where}${err.syscall} failed: ${SYSTEM_ERRORS[err.code] ?? err.message} (${err.code})\n`);
        process.exitCode = EXIT_CODES.IO;
      } else {
        process.stderr.write(`coreb: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exitCode = EXIT_CODES.INTERNAL;
      }
    },
  );
}
