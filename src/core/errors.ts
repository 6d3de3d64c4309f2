/**
 * The one error class of coreb. Every failure a user can cause carries a stable `code`
 * so the CLI can map it to an exit status and callers can branch without parsing messages.
 */

/** Stable error codes. Add new ones here; never reuse a code for a different meaning. */
export const ERROR_CODES = [
  'USAGE', // bad command-line arguments or API options
  'CONFIG', // bad configuration file or value
  'IO', // a file could not be read or written
  'NOT_FOUND', // a named file, directory, id, model or provider does not exist
  'PARSE', // input text could not be parsed (JSON, TSV, TREC, parquet)
  'VALIDATION', // input parsed but is inconsistent (dangling ids, duplicates, NaN)
  'MEASURE', // unknown or malformed measure name
  'TOOLCHAIN', // a compiler/interpreter/sandbox tool is missing
  'SANDBOX', // the sandbox itself failed (not the program under test)
  'PROVIDER', // a model provider answered badly or not at all
  'HTTP', // transport-level HTTP failure after all retries
  'CACHE', // cache store unreadable or inconsistent
  'INTERRUPTED', // the user interrupted the work (SIGINT); resumable
  'UNSUPPORTED', // a feature not available in this build or environment
  'INTERNAL', // a bug in coreb
] as const;

/** A stable machine-readable error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Process exit status per error code (used by the CLI's single top-level catch). */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  USAGE: 2,
  CONFIG: 2,
  IO: 3,
  NOT_FOUND: 3,
  PARSE: 4,
  VALIDATION: 4,
  MEASURE: 2,
  TOOLCHAIN: 5,
  SANDBOX: 5,
  PROVIDER: 6,
  HTTP: 6,
  CACHE: 7,
  INTERRUPTED: 130,
  UNSUPPORTED: 8,
  INTERNAL: 70,
};

/**
 * Exit status of a command whose own check failed: `coreb drift --strict` with a figure flagged,
 * `coreb soup --check` out of tolerance. Not an error (the command did its work and printed why).
 */
export const CHECK_FAILED_EXIT = 1;

/** Every exit status a coreb command can end with and what it means (the help texts and README print it). */
export const EXIT_STATUS_MEANINGS: ReadonlyArray<readonly [number, string]> = [
  [0, 'done'],
  [CHECK_FAILED_EXIT, 'a check the command was asked to make failed (drift --strict, soup --check)'],
  [EXIT_CODES.USAGE, 'usage, configuration or an unknown measure'],
  [EXIT_CODES.IO, 'a file or folder not found, unreadable or not writable (a full disk too)'],
  [EXIT_CODES.PARSE, 'malformed or invalid input, named by file, line or row, and field'],
  [EXIT_CODES.TOOLCHAIN, 'a compiler, the sandbox or a remote judge unusable'],
  [EXIT_CODES.PROVIDER, 'a model provider or an HTTP service failed after its retries'],
  [EXIT_CODES.CACHE, 'a cache unusable'],
  [EXIT_CODES.UNSUPPORTED, 'an optional package or a feature this machine lacks'],
  [EXIT_CODES.INTERNAL, 'an internal error (a bug: please report it with the command)'],
  [EXIT_CODES.INTERRUPTED, 'interrupted (Ctrl-C, SIGTERM); what was done is kept for a resume'],
];

/** The exit statuses as lines of a help text. */
export function exitStatusHelp(): string {
  return ['Exit status (every command):', ...EXIT_STATUS_MEANINGS.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`)].join('\n');
}

/** Where in a user's input a problem was found. All fields optional; fill what is known. */
export interface SourceLocation {
  /** File path as the user gave it. */
  file?: string;
  /** 1-based line number (text formats). */
  line?: number;
  /** 0-based row index (parquet and other row formats). */
  row?: number;
  /** Field or column name. */
  field?: string;
}

/** Options for {@link CorebError}. */
export interface CorebErrorOptions extends SourceLocation {
  /** The underlying error, kept for debugging. */
  cause?: unknown;
  /** Extra structured details (must be secret-free). */
  details?: Record<string, unknown>;
}

/**
 * The single error class thrown by coreb library code.
 *
 * The message says what failed, the offending value, what is valid and what to do next.
 * When a location is given it is prefixed to the message (`file:line: field `x`: ...`).
 */
export class CorebError extends Error {
  readonly code: ErrorCode;
  readonly location: SourceLocation;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: CorebErrorOptions = {}) {
    const { cause, details, ...location } = options;
    super(formatLocation(location) + message, cause === undefined ? undefined : { cause });
    this.name = 'CorebError';
    this.code = code;
    this.location = location;
    this.details = details;
  }
}

/** Formats a location as a message prefix: `file:12: field \`x\`: `; empty when nothing is known. */
export function formatLocation(loc: SourceLocation): string {
  let s = '';
  if (loc.file !== undefined) s += loc.file;
  if (loc.line !== undefined) s += (s ? ':' : 'line ') + loc.line;
  else if (loc.row !== undefined) s += (s ? ' ' : '') + `row ${loc.row}`;
  if (loc.field !== undefined) s += (s ? ': ' : '') + `field \`${loc.field}\``;
  return s ? s + ': ' : '';
}

/** True when `e` is a {@link CorebError} (optionally with the given code). */
export function isCorebError(e: unknown, code?: ErrorCode): e is CorebError {
  return e instanceof CorebError && (code === undefined || e.code === code);
}
