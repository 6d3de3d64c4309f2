/**
 * The seam between the judge and one judged language. A language module (python.ts, cpp.ts, …)
 * owns every fact of its language: tools, limits, file names, the source changes the judge makes,
 * how a test program's end is marked, the functional driver, compile and run commands and the
 * caches kept per judge (C++'s precompiled header, Go's build cache, Java's warm compilers). The
 * judge owns sandboxes, limits enforcement and scheduling, and asks the module. Adding a language
 * is one new module and one row in the table of index.ts.
 */
import type { TestKind } from '../../core/execution.js';
import type { FunctionalSource } from '../functional.js';
import type { PreparedSource } from '../normalise.js';
import type { Mount, SandboxConfig } from '../sandbox.js';
import { requireTool, type RunLimits, type ToolRef } from './tools.js';

/** Where a build happens and what it may use; filled in by the judge per build. */
export interface BuildContext {
  /** The program directory as the compiler sees it (`/box` in the sandbox, the host dir without). */
  box: string;
  /** Source file name inside `box`. */
  fileName: string;
  /** Other source files beside it (a functional driver's), names inside `box`. */
  extraFiles?: string[];
  /** True when the compiler runs in bubblewrap (paths of mounts are then sandbox paths). */
  sandbox: boolean;
  /** Environment of the compiler; a language may add variables. */
  env: Record<string, string>;
  /** Extra mounts of the compile sandbox; a language may add some. */
  mounts: Mount[];
  /** C++: g++ flags replacing the judge's (then no precompiled header is used). */
  cxxFlags?: readonly string[];
  /** The language's per-judge state ({@link JudgeLanguage.createState}); undefined when it keeps none. */
  state?: LanguageState;
}

/** What the judge gives a language to set up its per-judge state. */
export interface LanguageStateContext {
  /** The judge's cache directory (host path; traversable by the sandbox user). */
  cacheDir: string;
  /** The judge's work root (host path), for work dirs a language creates. */
  workRoot: string;
  /** How the judge starts processes (for servers a language keeps running, e.g. warm compilers). */
  sandboxConfig: SandboxConfig;
  /** Makes `dir` owned by the sandbox user when the judge drops privileges (a no-op otherwise). */
  giveToSandboxUser(dir: string): void;
  /** Runs one host process of the language's setup inside a judge slot (so it counts like a compile). */
  runInSlot<T>(fn: () => Promise<T> | T): Promise<T>;
  /** The judge's options a language reads (cache caps, warm compilers). */
  options: {
    /** Go: size of the shared build cache, MiB, past which it is emptied; default 512. */
    goCacheMaxMb?: number;
    /** Java: compile in warm compiler JVMs; default true. */
    warmJavac?: boolean;
    /** Slots the judge runs at once. */
    jobs: number;
  };
}

/** The outcome of a compile a language did itself (a warm compiler), instead of a process the judge ran. */
export interface DirectCompile {
  /** Wall-clock time, milliseconds. */
  wallMs: number;
  /** Exit status of the compiler (0: compiled). */
  exitCode: number;
  /** True when the compile passed its time limit. */
  timedOut: boolean;
  /** Compiler output (diagnostics). */
  output: string;
}

/** Per-judge state of a language: caches built once, compilers kept warm; closed with the judge. */
export interface LanguageState {
  /**
   * Compiles the sources in the host dir `dir` without a sandboxed compiler process (a warm
   * compiler), or undefined to let the judge run {@link JudgeLanguage.compileArgv}.
   */
  compile?(dir: string, sources: readonly string[], timeoutMs: number): Promise<DirectCompile | undefined>;
  /** Counters for the judge's stats (e.g. `warmCompiles`). */
  stats?(): Record<string, number>;
  /** Frees what the state holds (servers, processes). */
  close?(): void;
}

/** What {@link JudgeLanguage.prepare} returns: the source after the language's own changes. */
export interface LanguageSource {
  text: string;
  /** File name, when the source decides it (Java: its public class). */
  fileName?: string;
  /** Java: the class to run. */
  mainClass?: string;
  /** Changes made, in words. */
  notes: string[];
}

/** One judged language. */
export interface JudgeLanguage {
  /** The language's id in programs and releases (`python`, `cpp`, …). */
  readonly id: string;
  /** Its name in messages (`C++`). */
  readonly label: string;
  /** Toolchain binaries it needs (checked before judging; named with their Debian package when missing). */
  readonly tools: readonly ToolRef[];
  /** Default limits of one test run. */
  readonly limits: RunLimits;
  /**
   * Memory the runtime needs beyond the program's own limit, MiB, allowed to the process tree
   * (the JVM's metaspace and code cache live outside -Xmx).
   */
  readonly treeAllowanceMb: number;
  /**
   * True when a peak resident memory above the limit is `memory_limit`; false when the runtime
   * enforces the limit itself (Java's `-Xmx`: a JVM maps more than its heap).
   */
  readonly residentMemoryIsLimit: boolean;
  /** The main source file's name (`main.py`). */
  readonly fileName: string;
  /** Comments to strip before looking for declarations: `hash` (`#`, Ruby's `=begin`) or `c` (line and block comments as in C). */
  readonly comments: 'hash' | 'c';
  /**
   * The language's own source changes (coreb normalisation), after the test program or driver was
   * added: C++ gets `<bits/stdc++.h>` when it has no `#include`, Go `package main`, Java's file is
   * named after its public class. Default: none.
   * @param official true under the official harness's normalisation (official-harness.ts).
   */
  prepare?(text: string, kind: TestKind, official: boolean): LanguageSource;
  /**
   * The test program with the completion token printed at its end; `token` is the expression to
   * print (a quoted literal) or undefined to read it from the environment variable `env`.
   * `checked` is false when there is no end to mark (nothing is added).
   */
  endTests(test: string, token: string | undefined, env: string): { text: string; checked: boolean };
  /**
   * Functional tests: the pattern of a declaration of the method `name` (already regex-escaped),
   * up to its body; undefined when the language leaves the check to its runtime (Python).
   */
  declaration?(name: string): RegExp;
  /** Functional tests: what must declare the method, in words (`method of class Solution`). */
  readonly declarationPlace?: string;
  /** Functional tests: an extra check of the program (Java: a class Solution); a reason when it fails. */
  functionalCheck?(code: string, funcName: string): string | undefined;
  /** The program with its functional driver calling `funcName` on JSON arguments read from stdin. */
  functional(code: string, funcName: string): FunctionalSource;
  /** Creates the per-judge state (caches, warm compilers); called once per judge, on first use. */
  createState?(ctx: LanguageStateContext): LanguageState;
  /**
   * The compiler command line, or `undefined` when the language runs from source (the interpreter
   * is checked to exist). May add mounts and environment to `ctx`.
   * @throws CorebError `TOOLCHAIN` naming the Debian package when a tool is missing.
   */
  compileArgv(ctx: BuildContext): Promise<string[] | undefined>;
  /** The command line starting the built program, whose directory the process sees at `prog`. */
  runArgv(prog: string, prepared: PreparedSource, limits: RunLimits): string[];
}

/**
 * Compile and run commands of a language run from source by `tool`: no compile step (the
 * interpreter is checked to exist), `tool FILE` to run.
 */
export function interpretedCommands(tool: ToolRef, label: string): Pick<JudgeLanguage, 'compileArgv' | 'runArgv'> {
  return {
    async compileArgv(): Promise<undefined> {
      requireTool(tool, label);
      return undefined;
    },
    runArgv: (prog, prepared) => [requireTool(tool, label), `${prog}/${prepared.fileName}`],
  };
}

/** The test program with `line` appended after its last line (interpreted languages). */
export function appendLine(test: string, line: string): { text: string; checked: boolean } {
  return { text: `${test.replace(/\s+$/, '')}\n\n${line}`, checked: true };
}
/**
 * The index of the `}` closing the body that opens at `open` (the index of its `{`), counting
 * braces outside comments, string, character and Go raw-string literals; -1 when unbalanced.
 */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const e = text.indexOf('\n', i);
      i = e < 0 ? text.length : e;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? text.length : e + 1;
    } else if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\' && c !== '`') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The test program with `statement` as the last statement of the body `main` opens (the first match
 * of `main`, which ends at the body's `{`), and `prefix` before it all; `checked` false (nothing
 * changed) when there is no such body. A `return` before the end skips the statement, as an early
 * exit does.
 */
export function beforeEndOfMain(test: string, main: RegExp, statement: string, prefix = ''): { text: string; checked: boolean } {
  const m = main.exec(test);
  const open = m === null ? -1 : m.index + m[0].length - 1;
  const close = open < 0 ? -1 : closingBrace(test, open);
  if (close < 0) return { text: test, checked: false };
  return { text: `${prefix}${test.slice(0, close)}\n${statement}\n${test.slice(close)}`, checked: true };
}

/** `s` with the characters that mean something in a regular expression escaped. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `code` with C-style comments (block and line) blanked, for languages whose declarations are looked up by pattern. */
export function stripCComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}
