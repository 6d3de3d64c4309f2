/**
 * Logging and progress callbacks. Library code never writes to the console; it reports through
 * these interfaces, and the CLI supplies implementations (a stderr progress bar, a logger).
 */

/** A progress reporter for one long step. All methods are optional to call and cheap. */
export interface Progress {
  /** Begins a step of `total` units (items, tests, queries); `total` 0 means unknown. */
  start(label: string, total: number): void;
  /** Advances by `n` units (default 1). */
  tick(n?: number): void;
  /** Ends the step (prints a final line when interactive). */
  done(): void;
}

/** A leveled logger. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** A progress reporter that does nothing (library default). */
export const silentProgress: Progress = { start() {}, tick() {}, done() {} };

/** A logger that does nothing (library default). */
export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };
