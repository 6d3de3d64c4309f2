/**
 * The contract between the CLI entry point and each command module. Commands receive argv and
 * env from here (the only place they are read) and return an exit status.
 */
import type { Logger } from '../core/progress.js';

/** What the entry point hands a command. */
export interface CommandContext {
  /** Arguments after the command name. */
  argv: string[];
  /** The process environment (read only here, in the CLI layer). */
  env: NodeJS.ProcessEnv;
  /** Working directory. */
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** True when stderr is a terminal (progress bars redraw in place). */
  interactive: boolean;
  logger: Logger;
  /** Aborted on SIGINT/SIGTERM; long work should stop cleanly and leave no half-written files. */
  signal: AbortSignal;
}

/** A CLI command module. */
export interface Command {
  /** One-line summary for `coreb --help`. */
  summary: string;
  /** Full usage text for `coreb <name> --help`. */
  usage: string;
  run(ctx: CommandContext): Promise<number>;
}
