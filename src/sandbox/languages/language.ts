/**
 * The seam between the judge and one judged language. A language module (python.ts, cpp.ts, …)
 * owns every fact of its language: tools, limits, file names, the source changes the judge makes,
 * how a test program's end is marked, the functional driver, compile and run commands and the
 * caches kept per judge (C++'s precompiled header, Go's build cache, Java's warm compilers). The
 * judge owns sandboxes, limits enforcement and scheduling, and asks the module. Adding a language
 * is one new module and one row in the table of index.ts.
 */
import type { TestKind } from '../../core/execution.js';
import type { Mount, SandboxConfig } from '../sandbox.js';
import type { SealedProgram, TestProof } from './sealing.js';
import { requireTool, type RunLimits, type ToolRef } from './tools.js';

/** Where a build happens and what it may use; filled in by the judge per build. */
export interface BuildContext {
  /** The program directory as the compiler sees it (`/box` in the sandbox, the host dir without). */
  box: string;
  /** Source file name inside `box`. */
  fileName: string;
  /** The main source's text (a language may choose flags from it: C++ links the libraries its headers name). */
  source: string;
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

/** What build prompts say of a language (`JudgeLanguage.prompt`). */
export interface LanguagePrompt {
  name: string;
  fence: string;
  /** The solve prompt's rule for a functional problem (a method the tests call), in words. */
  functionalRule: string;
}

/** A language's names on the remote judges coreb speaks to (sandbox/remote/). */
export interface RemoteLanguageNames {
  /** Piston's language names and aliases, any of which a runtime may carry (`c++`, `cpp`, `g++`). */
  piston?: readonly string[];
  /** Judge0: the pattern of its language names (`C++ (GCC 9.2.0)`); the newest version matching is used. */
  judge0?: RegExp;
  /**
   * SandboxFusion: the `language` of a submission, what the service runs it with, and whether its
   * toolchain starts under the address-space limit SandboxFusion makes of `memory_limit_MB` (false:
   * no memory limit is sent; the JVM, `go build` and Ruby cannot start under a few hundred MiB).
   */
  sandboxFusion?: {
    language: string;
    runtime: string;
    addressSpace?: boolean;
    /** What cannot start under that limit, in words (`the JVM`); default the language's label. */
    startUp?: string;
  };
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
   * `program` tests: the whole program, the candidate's `code` joined with the `test` program and
   * sealed (sealing.ts): the test's end prints the token that `proof` gives, where the candidate cannot
   * read it first, and the test's checks and exits use names the candidate cannot redefine.
   * `checked` is false when the test program has no end to mark (its exit status alone decides).
   */
  sealProgram(code: string, test: string, proof: TestProof): SealedProgram;
  /**
   * What the candidate's code does that a program written to forge a `program` test would do
   * (reading its environment or `/proc/self`, redefining a check), in words; recorded on the verdict.
   */
  suspicions?(code: string): string[];
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
  /** True when the language is built before it runs (a compile step); default false. Remote judges count its compiles. */
  readonly compiled?: boolean;
  /**
   * Its names on remote judges; a judge it has no name for has no runtime for it (the program is
   * refused, naming the language). Default: none.
   */
  readonly remote?: RemoteLanguageNames;
  /**
   * Out-of-memory messages of its runtime on stderr (`MemoryError`, `std::bad_alloc`): with a
   * non-zero exit the verdict is `memory_limit`. glibc's and the Go runtime's wording (`out of
   * memory`, `Cannot allocate memory`) counts for every language. Default: those alone.
   */
  readonly outOfMemory?: RegExp;
  /**
   * What build prompts say of it: its name (`C++17`), the code-fence tag (`cpp`), and how a solution
   * to a functional (LeetCode-style) problem is written in it. Default: its label, its id, and a
   * rule asking for the starter code's method with the same name and parameters.
   */
  readonly prompt?: LanguagePrompt;
  /**
   * A candidate program made buildable before it is judged anywhere, locally or remotely (C++: a
   * top-level `main();` statement, which does not compile, removed). Default: unchanged.
   */
  prepareCandidate?(code: string): string;
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

/**
 * A program test for a language with no sealing of its own: the test program after the candidate's
 * code and `end` (a statement printing the proof token) after its last line. A candidate that exits
 * early with status 0 is caught; one that redefines what the test calls is not.
 */
export function appendTestProgram(code: string, test: string, end: string): SealedProgram {
  return {
    text: `${code.replace(/\s+$/, '')}\n\n${test.replace(/\s+$/, '')}\n\n${end}\n`,
    checked: true,
    notes: ['test program appended; its last line prints the proof token'],
  };
}

/** `s` with the characters that mean something in a regular expression escaped. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `code` with C-style comments (block and line) blanked, for languages whose declarations are looked up by pattern. */
export function stripCComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}

/** A program with its functional driver: the main file, extra files beside it, and notes. */
export interface FunctionalSource {
  /** Main source file name; undefined keeps the language's default. */
  fileName?: string;
  /** Main source text. */
  text: string;
  /** Other files of the program (written beside the main file; Go builds them all). */
  extraFiles: Array<{ name: string; text: string }>;
  /** Java: the class to run. */
  mainClass?: string;
  /** What was added, for the result's `normalisations`. */
  note: string;
}

/** A source file ready to build. */
export interface PreparedSource {
  /** File name inside the work dir (e.g. `main.cpp`, `Main.java`). */
  fileName: string;
  /** File contents. */
  text: string;
  /** Java: the class to run. */
  mainClass?: string;
  /** Changes made, in words, for the result's `normalisations`. */
  normalisations: string[];
  /** Other files written beside `fileName` (functional drivers in Go and Ruby); Go builds them all. */
  extraFiles?: Array<{ name: string; text: string }>;
  /** C++: the g++ flags to build with instead of the judge's (the official harness's); no precompiled header then. */
  cxxFlags?: readonly string[];
  /**
   * `program` tests sealed with a descriptor proof: the descriptor the test's end reads the run's
   * proof file on (the local judge gives it there, sandbox.ts `ProcessSpec.secret`) and where in the
   * file the token is (languages/sealing.ts `createProofFile`).
   */
  proofFd?: { fd: number; offset: number };
  /** `program` tests sealed with a literal proof: the token the test's end prints. */
  proofToken?: string;
  /** What the candidate's code does that a forged pass would do (the language's `suspicions`), in words. */
  suspicions?: string[];
}
