/**
 * The five judge languages as a table: toolchain binaries and their Debian packages, how to compile
 * and run a program, and default limits. Paths in commands are as seen inside the sandbox.
 */
import { existsSync, readdirSync } from 'node:fs';
import { CorebError } from '../core/errors.js';
import type { ExecLanguage } from '../core/execution.js';

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

const BASE: RunLimits = {
  timeLimitMs: 6000,
  memoryLimitMb: 512,
  addressSpaceMb: 1024,
  processes: 64,
  workDirMb: 64,
  outputLimitBytes: 32 * 1024 * 1024,
};

/**
 * Default run limits per language: 6 s of CPU time (LiveCodeBench's per-test timeout), 512 MiB of memory;
 * the address space is 1 GiB, except Go (2 GiB: its runtime reserves ~700 MB) and Java (4 GiB with
 * the judge's JVM flags); Go and Java get 256 threads.
 */
export const DEFAULT_LIMITS: Readonly<Record<ExecLanguage, RunLimits>> = {
  python: BASE,
  cpp: BASE,
  ruby: BASE,
  go: { ...BASE, addressSpaceMb: 2048, processes: 256 },
  java: { ...BASE, addressSpaceMb: 4096, processes: 256 },
};

/** A toolchain binary and the Debian package that provides it. */
export interface Tool {
  /** Candidate absolute paths, first existing wins (all under /usr so the sandbox sees them). */
  paths: string[];
  /** Debian package to install when missing. */
  package: string;
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
  },
  java: {
    get paths() {
      return java17('java');
    },
    package: 'default-jdk-headless',
  },
  go: { paths: ['/usr/bin/go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go'], package: 'golang-go' },
  ruby: { paths: ['/usr/bin/ruby', '/usr/local/bin/ruby'], package: 'ruby' },
  bwrap: { paths: ['/usr/bin/bwrap', '/usr/local/bin/bwrap'], package: 'bubblewrap' },
} as const satisfies Record<string, Tool>;

/** A toolchain name. */
export type ToolName = keyof typeof TOOLS;

/** Tools each language needs. */
export const LANGUAGE_TOOLS: Readonly<Record<ExecLanguage, readonly ToolName[]>> = {
  python: ['python3'],
  cpp: ['gxx'],
  java: ['javac', 'java'],
  go: ['go'],
  ruby: ['ruby'],
};

/** The path of `tool`, or undefined when none of its candidate paths exists. */
export function findTool(tool: ToolName): string | undefined {
  return TOOLS[tool].paths.find((p) => existsSync(p));
}

/** The path of `tool`; a TOOLCHAIN error naming the Debian package when it is missing. */
export function requireTool(tool: ToolName, forWhat: string): string {
  const p = findTool(tool);
  if (p === undefined) {
    const t = TOOLS[tool];
    throw new CorebError(
      'TOOLCHAIN',
      `${forWhat} needs \`${t.paths[0]}\`, which is not installed; install the Debian package ` + `${t.package} (apt-get install -y ${t.package})`,
      { details: { tool, package: t.package } },
    );
  }
  return p;
}

/** Debian packages missing for `languages` (plus the sandbox's bubblewrap when `sandbox`). */
export function missingPackages(languages: readonly ExecLanguage[], sandbox: boolean): string[] {
  const need = new Set<ToolName>(sandbox ? ['bwrap'] : []);
  for (const l of languages) for (const t of LANGUAGE_TOOLS[l]) need.add(t);
  const pk = new Set<string>();
  for (const t of need) if (findTool(t) === undefined) pk.add(TOOLS[t].package);
  return [...pk];
}

/** JVM flags for runs (keep the address space a JVM needs near 3 GB; platform-notes.md). */
export function javaRunFlags(memoryLimitMb: number): string[] {
  return [
    `-Xmx${memoryLimitMb}m`,
    '-Xss64m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:ReservedCodeCacheSize=64m',
    '-XX:CompressedClassSpaceSize=64m',
    '-XX:MaxMetaspaceSize=128m',
    '-XX:ActiveProcessorCount=1',
    '-Xshare:auto',
  ];
}
