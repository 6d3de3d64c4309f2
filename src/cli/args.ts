/**
 * Argument parsing for commands: a thin wrapper over `node:util` parseArgs that turns its errors
 * into USAGE errors naming the option and pointing at `--help`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What {@link parseCommandArgs} returns: option values and positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}
import { CorebError } from '../core/errors.js';
import { closestName, didYouMean } from '../core/suggest.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `argv` against `options`; unknown options and missing values are USAGE errors. */
export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O, allowPositionals = false): ParsedArgs {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true }) as ParsedArgs;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(e instanceof Error ? e.message : '');
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown !== null) {
      const given = unknown[1].replace(/^-+/, '');
      const guess = closestName(given, [...Object.keys(options), 'help']);
      const hint = guess === undefined ? '' : `; did you mean --${guess}?`;
      throw new CorebError('USAGE', `coreb ${command}: unknown option ${unknown[1]}${hint} (see \`coreb ${command} --help\`)`, { cause: e });
    }
    const msg = e instanceof Error ? e.message : String(e);
    throw new CorebError('USAGE', `coreb ${command}: ${msg}; see \`coreb ${command} --help\``, { cause: e });
  }
}

/** Parses an integer option value, with a USAGE error naming the option when it is not one. */
export function parseIntOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min) {
    throw new CorebError('USAGE', `--${name} must be an integer >= ${min}, got \`${value}\``);
  }
  return n;
}

/**
 * Checks that an option's value is one of `allowed`; returns `fallback` (may be `undefined`) when the
 * option was not given.
 * A USAGE error names the option, the valid values and what was given.
 */
export function parseChoiceOption<T extends string, F extends T | undefined = T>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: F,
): T | F {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new CorebError('USAGE', `--${name} must be one of ${allowed.join(', ')}, got \`${value}\`${didYouMean(value, allowed)}`);
  }
  return value as T;
}
