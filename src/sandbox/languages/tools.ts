/**
 * Toolchain binaries and their Debian packages, and the shape of a run's limits: the facts every
 * judged language module (one file per language beside this one) draws on.
 */
import { existsSync, readdirSync } from 'node:fs';
import { CorebError } from '../../core/errors.js';

/** Limits of one test run (defaults per language in {@link DEFAULT_LIMITS}). */
export interface RunLimits {
  /** CPU time per test, milliseconds (the wall-clock limit is a multiple of it; see the judge). */
  timeLimitMs: number;
  /** Memory per test, MiB: peak resident memory above this is `memory_limit`; Java's `-Xmx`. */
  memoryLimitMb: number;
  /** Address-space limit (RLIMIT_AS), MiB; larger than `memoryLimitMb` for Go and Java runtimes. */
  addressSpaceMb: number;
  /** Processes and threads. */
  processes: number;
  /** Size of the tmpfs work dir, MiB (also the largest file). */
  workDirMb: number;
  /** stdout bytes before `output_limit`. */
  outputLimitBytes: number;
}

/** What a judge's options change in a language's run limits (see {@link resolveRunLimits}). */
export interface RunLimitOptions {
  /** CPU-time limit per test for every language, ms. */
  timeLimitMs?: number;
  /** Memory limit per test for every language, MiB; the address space moves by the same amount. */
  memoryLimitMb?: number;
  /** Per-language overrides. */
  limits?: Partial<Record<string, Partial<RunLimits>>>;
}

/**
 * A language's run limits under a judge's options: its defaults, its per-language overrides, then
 * the time limit and the memory limit for every language. A memory limit moves the address space by
 * the same amount (keeping the runtime's headroom), and never below memory + 64 MiB. The local
 * judge and the remote judges resolve limits here alike.
 */
export function resolveRunLimits(defaults: Readonly<RunLimits>, language: string, options: RunLimitOptions): RunLimits {
  const l = { ...defaults, ...options.limits?.[language] };
  if (options.timeLimitMs !== undefined) l.timeLimitMs = options.timeLimitMs;
  if (options.memoryLimitMb !== undefined) {
    l.addressSpaceMb = Math.max(options.memoryLimitMb + 64, l.addressSpaceMb + options.memoryLimitMb - l.memoryLimitMb);
    l.memoryLimitMb = options.memoryLimitMb;
  }
  return l;
}

/**
 * The judge's base limits: 6 s of CPU time per test (LiveCodeBench's per-test timeout), 512 MiB of
 * memory, a 1 GiB address space, 64 processes, a 64 MiB work dir, 32 MiB of stdout. A language
 * module starts from these and changes what its runtime needs.
 */
export const BASE_LIMITS: Readonly<RunLimits> = {
  timeLimitMs: 6000,
  memoryLimitMb: 512,
  addressSpaceMb: 1024,
  processes: 64,
  workDirMb: 64,
  outputLimitBytes: 32 * 1024 * 1024,
};

/** A toolchain binary and the Debian package that provides it. */
export interface Tool {
  /** Candidate absolute paths, first existing wins (all under /usr so the sandbox sees them). */
  paths: string[];
  /** Debian package to install when missing. */
  package: string;
  /** Arguments that make it print its version (a build records the first line). Default `['--version']`. */
  version?: readonly string[];
}

/** Installed Java 17 JDK folders under /usr/lib/jvm; read on first use, not at import. */
let jvm17Dirs: string[] | undefined;

function java17(bin: string): string[] {
  if (jvm17Dirs === undefined) {
    try {
      jvm17Dirs = readdirSync('/usr/lib/jvm').filter((d) => /^java-17-openjdk/.test(d));
    } catch {
      jvm17Dirs = []; // no JVMs installed
    }
  }
  return [...jvm17Dirs.map((d) => `/usr/lib/jvm/${d}/bin/${bin}`), `/usr/bin/${bin}`];
}

/** Toolchain binaries by name (the JDK paths are looked up on first use, not at import). */
export const TOOLS = {
  python3: { paths: ['/usr/bin/python3', '/usr/local/bin/python3'], package: 'python3' },
  gxx: { paths: ['/usr/bin/g++', '/usr/local/bin/g++'], package: 'g++' },
  javac: {
    get paths() {
      return java17('javac');
    },
    package: 'default-jdk-headless',
    version: ['-version'],
  },
  java: {
    get paths() {
      return java17('java');
    },
    package: 'default-jdk-headless',
    version: ['-version'],
  },
  go: { paths: ['/usr/bin/go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go'], package: 'golang-go', version: ['version'] },
  ruby: { paths: ['/usr/bin/ruby', '/usr/local/bin/ruby'], package: 'ruby' },
  bwrap: { paths: ['/usr/bin/bwrap', '/usr/local/bin/bwrap'], package: 'bubblewrap' },
} as const satisfies Record<string, Tool>;

/** A toolchain name. */
export type ToolName = keyof typeof TOOLS;

/** A tool by name (the built-in {@link TOOLS}) or as a {@link Tool} a language module declares itself. */
export type ToolRef = ToolName | Tool;

/** The {@link Tool} behind a reference. */
export function toolOf(tool: ToolRef): Tool {
  return typeof tool === 'string' ? TOOLS[tool] : tool;
}

/** The path of `tool`, or undefined when none of its candidate paths exists. */
export function findTool(tool: ToolRef): string | undefined {
  return toolOf(tool).paths.find((p) => existsSync(p));
}

/** The path of `tool`; a TOOLCHAIN error naming the Debian package when it is missing. */
export function requireTool(tool: ToolRef, forWhat: string): string {
  const p = findTool(tool);
  if (p === undefined) {
    const t = toolOf(tool);
    throw new CorebError(
      'TOOLCHAIN',
      `${forWhat} needs \`${t.paths[0]}\`, which is not installed; install the Debian package ` + `${t.package} (apt-get install -y ${t.package})`,
      { details: { tool: typeof tool === 'string' ? tool : t.paths[0], package: t.package } },
    );
  }
  return p;
}
