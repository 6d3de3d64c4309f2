/**
 * The command line of every bench script: `--help`/`-h` prints what the script measures, against
 * which reference, and its options with their defaults, then exits 0 before any work; an unknown
 * option, a missing value or a stray argument is refused in one line (exit 2), so a typo such as
 * `--size` for `--sizes` cannot silently start a long run with the defaults.
 */

/** One option a bench accepts, written `--name` on the command line. */
export interface BenchOption {
  /** The name without the leading `--`, e.g. `sizes`. */
  name: string;
  /**
   * Placeholder of the value it takes (`N`, `DIR`), or one per value for an option followed by
   * several (`['LATENCY', 'CAP']`); absent for a flag that takes none.
   */
  value?: string | readonly string[];
  /** One line: what it sets, its default and unit. */
  help: string;
  /** A mode of the script's own child processes: accepted and listed apart, not for users. */
  internal?: boolean;
}

/** What `--help` prints and what the parser accepts. */
export interface BenchUsage {
  /** The script's file name without extension, e.g. `search-bm25-scale`. */
  script: string;
  /** What it measures and against which reference (a few lines). */
  about: string;
  /** The options it accepts. */
  options: readonly BenchOption[];
  /** The one positional argument it accepts, e.g. `{ name: 'RELEASE_DIR', help: '...' }`; none when absent. */
  positional?: { name: string; help: string };
}

/** The parsed command line. Reading an option the usage does not declare throws (a bug in the script). */
export interface BenchArgs {
  /** The (first) value of a value option, or undefined when it is not given. */
  get(name: string): string | undefined;
  /** All the values of the first occurrence of an option taking several, or undefined. */
  values(name: string): string[] | undefined;
  /** Whether the option was given. */
  has(name: string): boolean;
  /** The positional argument, when the usage accepts one and it was given. */
  positional: string | undefined;
}

/** Raised by {@link parseBenchArgs}: `help` asked for, or a `usage` error with its one-line message. */
export class BenchArgsError extends Error {
  constructor(
    readonly kind: 'help' | 'usage',
    message: string,
  ) {
    super(message);
    this.name = 'BenchArgsError';
  }
}

const arity = (o: BenchOption): number => (o.value === undefined ? 0 : typeof o.value === 'string' ? 1 : o.value.length);

/** The `--help` text: about, usage line, options (with their defaults), internal modes. */
export function renderBenchUsage(usage: BenchUsage): string {
  const shown = (o: BenchOption): string => {
    const v = o.value === undefined ? [] : typeof o.value === 'string' ? [o.value] : [...o.value];
    return ['--' + o.name, ...v].join(' ');
  };
  const table = (opts: readonly BenchOption[]): string[] => {
    const width = Math.max(...opts.map((o) => shown(o).length));
    return opts.map((o) => `  ${shown(o).padEnd(width)}  ${o.help}`);
  };
  const pub = usage.options.filter((o) => !o.internal);
  const internal = usage.options.filter((o) => o.internal);
  const lines = [
    `${usage.script}: ${usage.about.trim()}`,
    '',
    `Usage: node dist/bench/${usage.script}.js${usage.positional ? ` [${usage.positional.name}]` : ''}${pub.length ? ' [options]' : ''}`,
  ];
  if (usage.positional) lines.push('', `  ${usage.positional.name}  ${usage.positional.help}`);
  lines.push('', 'Options:', ...table([...pub, { name: 'help', help: 'print this text and exit (also -h)' }]));
  if (internal.length) lines.push('', "Internal (the script's own child processes):", ...table(internal));
  return lines.join('\n') + '\n';
}

/**
 * Parses `argv` (the arguments after the script) against `usage`. A value option takes the next
 * argument(s), which must not start with `--`, or is written `--name=value`; the first occurrence
 * of an option wins (as the scripts' former `process.argv.indexOf` did).
 * @throws {BenchArgsError} `help` for `--help`/`-h`; `usage` naming the unknown option (and the
 *   known ones), the option missing its value, or the unexpected argument.
 */
export function parseBenchArgs(usage: BenchUsage, argv: readonly string[]): BenchArgs {
  const known = new Map(usage.options.map((o) => [o.name, o]));
  const seen = new Map<string, string[]>();
  const knownList = (): string => [...known.keys()].map((n) => '--' + n).join(', ');
  let positional: string | undefined;
  if (argv.includes('--help') || argv.includes('-h')) throw new BenchArgsError('help', renderBenchUsage(usage));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--') || /^-[A-Za-z]/.test(a)) {
      const eq = a.startsWith('--') ? a.indexOf('=') : -1;
      const flag = eq > 0 ? a.slice(0, eq) : a;
      const o = flag.startsWith('--') ? known.get(flag.slice(2)) : undefined;
      if (o === undefined) throw new BenchArgsError('usage', `unknown option ${flag}; known: ${knownList() || 'none'} (--help for usage)`);
      const n = arity(o);
      if (eq > 0) {
        if (n !== 1)
          throw new BenchArgsError(
            'usage',
            `option ${flag} ${n === 0 ? 'takes no value' : `takes ${n} values, not --name=value`} (--help for usage)`,
          );
        if (!seen.has(o.name)) seen.set(o.name, [a.slice(eq + 1)]);
        continue;
      }
      const vals = argv.slice(i + 1, i + 1 + n);
      if (vals.length < n || vals.some((v) => v.startsWith('--'))) {
        const what = typeof o.value === 'string' ? o.value : (o.value ?? []).join(' ');
        throw new BenchArgsError('usage', `option ${a} needs a value: ${a} ${what} (--help for usage)`);
      }
      if (!seen.has(o.name)) seen.set(o.name, vals);
      i += n;
    } else if (usage.positional && positional === undefined) {
      positional = a;
    } else {
      throw new BenchArgsError('usage', `unexpected argument ${JSON.stringify(a)}; options are ${knownList() || 'none'} (--help for usage)`);
    }
  }
  const declared = (name: string): BenchOption => {
    const o = known.get(name);
    if (o === undefined) throw new Error(`${usage.script}: option --${name} is read but not declared in its usage`);
    return o;
  };
  return {
    get: (name) => seen.get(declared(name).name)?.[0],
    values: (name) => seen.get(declared(name).name),
    has: (name) => seen.has(declared(name).name),
    positional,
  };
}

/**
 * {@link parseBenchArgs} on this process's arguments, as a script's first step: prints the usage
 * and exits 0 on `--help`, prints `SCRIPT: MESSAGE` to stderr and exits 2 on a usage error.
 */
export function readBenchArgs(usage: BenchUsage, argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  try {
    return parseBenchArgs(usage, argv);
  } catch (e) {
    if (!(e instanceof BenchArgsError)) throw e;
    if (e.kind === 'help') {
      process.stdout.write(e.message);
      process.exit(0);
    }
    process.stderr.write(`${usage.script}: ${e.message}\n`);
    process.exit(2);
  }
}
