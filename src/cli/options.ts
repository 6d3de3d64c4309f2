/**
 * Typed command options: each command declares its options once as a table of {@link Option}s
 * (what node's parseArgs reads, and how the text becomes a value), and {@link parseOptions} gives
 * back an object typed from that table, so command files need no casts. Values are checked here:
 * an integer below its minimum, a number out of range or a value not among the choices is a USAGE
 * error naming the option, the valid values and, for a near miss, the closest one.
 */
import { CorebError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { parseChoiceOption, parseCommandArgs, parseIntOption } from './args.js';

/** One option: how parseArgs reads it, and how its raw value becomes a `T`. */
export interface Option<T> {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** A one-letter alias (`-m`), as trec_eval has them. */
  readonly short?: string;
  /** The value from the raw one (`undefined` when the option was not given); `command` names the command in errors. */
  parse(raw: string | boolean | Array<string | boolean> | undefined, name: string, command: string): T;
}

/** The value type of an option table. */
export type OptionValues<S extends Record<string, Option<unknown>>> = { [K in keyof S]: S[K] extends Option<infer T> ? T : never };

const text = (raw: unknown): string | undefined => (typeof raw === 'string' ? raw : undefined);

/** Option constructors. */
export const opt = {
  /** `option` with the one-letter alias `-letter` too. */
  short<T>(letter: string, option: Option<T>): Option<T> {
    return { ...option, short: letter };
  },
  /** A string, `undefined` when not given. */
  string(): Option<string | undefined> {
    return { type: 'string', parse: (raw) => text(raw) };
  },
  /** A string that must be given; `what` names its value in the error (`coreb report needs --out DIR`). */
  required(what: string, hint = ''): Option<string> {
    return {
      type: 'string',
      parse(raw, name, command) {
        const v = text(raw);
        if (v === undefined || v === '') throw new CorebError('USAGE', `coreb ${command} needs --${name} ${what}${hint}`);
        return v;
      },
    };
  },
  /** A repeatable string option (`--data A --data B`), in the order given; `[]` when not given. */
  strings(): Option<string[]> {
    return { type: 'string', multiple: true, parse: (raw) => (Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []) };
  },
  /** A flag: true when given. */
  flag(): Option<boolean> {
    return { type: 'boolean', parse: (raw) => raw === true };
  },
  /** An integer >= `min` (default 0), `fallback` when not given. */
  int(fallback: number, min = 0): Option<number> {
    return { type: 'string', parse: (raw, name) => parseIntOption(name, text(raw), fallback, min) };
  },
  /** An integer >= `min` (default 0), `undefined` when not given. */
  optionalInt(min = 0): Option<number | undefined> {
    return {
      type: 'string',
      parse(raw, name) {
        const v = text(raw);
        return v === undefined ? undefined : parseIntOption(name, v, 0, min);
      },
    };
  },
  /**
   * A number that `valid` accepts (`expected` says which, e.g. `a number in (0, 1]`), `fallback`
   * when not given.
   */
  number<F extends number | undefined>(fallback: F, valid: (x: number) => boolean, expected: string): Option<number | F> {
    return {
      type: 'string',
      parse(raw, name) {
        const v = text(raw);
        if (v === undefined) return fallback;
        const x = Number(v);
        if (v.trim() === '' || !valid(x)) throw new CorebError('USAGE', `--${name} must be ${expected}, got \`${v}\``);
        return x;
      },
    };
  },
  /**
   * A comma-separated list of some of `values` (`--languages python,cpp`), in the order given;
   * `undefined` when not given. An unknown entry is refused naming the valid ones.
   */
  list<T extends string>(values: readonly T[], unknown?: (value: string) => string): Option<T[] | undefined> {
    return {
      type: 'string',
      parse(raw, name) {
        const v = text(raw);
        if (v === undefined) return undefined;
        const out: T[] = [];
        for (const part of v.split(',').map((s) => s.trim())) {
          if (part === '') continue;
          const found = values.find((x) => x === part);
          if (found === undefined) {
            if (unknown !== undefined) throw new CorebError('USAGE', unknown(part));
            throw new CorebError('USAGE', `--${name}: \`${part}\` is not one of ${values.join(', ')}${didYouMean(part, values)}`);
          }
          out.push(found);
        }
        return out;
      },
    };
  },
  /**
   * One of `values`, `fallback` when not given (a near miss is suggested); `unknown` words the
   * error for a value that is not one of them, when the command has its own wording.
   */
  /**
   * `--format`: one of `values`, the same names in every command (`table`, `markdown`, `latex`,
   * `json`, ...); `text` is taken for `table` (aligned text), as `coreb validate` once named it.
   */
  format<T extends string>(values: readonly T[], fallback: T): Option<T> {
    return {
      type: 'string',
      parse(raw, name) {
        const v = text(raw);
        return parseChoiceOption(name, v === 'text' && values.includes('table' as T) ? 'table' : v, values, fallback);
      },
    };
  },
  choice<T extends string, F extends T | undefined>(values: readonly T[], fallback: F, unknown?: (value: string) => string): Option<T | F> {
    return {
      type: 'string',
      parse(raw, name) {
        const v = text(raw);
        if (v !== undefined && unknown !== undefined && !values.some((x) => x === v)) throw new CorebError('USAGE', unknown(v));
        return parseChoiceOption(name, v, values, fallback);
      },
    };
  },
};

/**
 * Parses `argv` against the option table `spec` into typed values; unknown options are USAGE
 * errors with a did-you-mean, as are values the table refuses.
 * @param positionals whether bare arguments are allowed (default false).
 */
export function parseOptions<S extends Record<string, Option<unknown>>>(
  command: string,
  argv: string[],
  spec: S,
  positionals = false,
): { values: OptionValues<S>; positionals: string[] } {
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, o] of Object.entries(spec)) {
    config[name] = { type: o.type, ...(o.multiple === true ? { multiple: true } : {}), ...(o.short !== undefined ? { short: o.short } : {}) };
  }
  const parsed = parseCommandArgs(command, argv, config, positionals);
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(spec)) values[name] = o.parse(parsed.values[name], name, command);
  return { values: values as OptionValues<S>, positionals: parsed.positionals };
}
