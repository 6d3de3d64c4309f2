/**
 * The seam between the judge and one language: how a program is compiled (if at all) and how the
 * built program is started. The judge owns sandboxes, limits and scheduling; a runner only says
 * which commands to run.
 */
import type { ToolName } from '../languages.js';
import { requireTool, type RunLimits } from '../languages.js';
import type { PreparedSource } from '../normalise.js';
import type { Mount } from '../sandbox.js';

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
  /** Environment of the compiler; a runner may add variables. */
  env: Record<string, string>;
  /** Extra mounts of the compile sandbox; a runner may add some. */
  mounts: Mount[];
  /** C++: g++ flags replacing the judge's (then no precompiled header is used). */
  cxxFlags?: readonly string[];
  /** The host directory of the precompiled C++ header (built once per judge). */
  pch(): Promise<string>;
  /** The host Go build cache directory (created once per judge). */
  goCache(): string;
}

/** One language's commands. */
export interface LanguageRunner {
  /**
   * The compiler command line, or `undefined` when the language runs from source (the interpreter
   * is checked to exist). May add mounts and environment to `ctx`.
   * @throws CorebError `TOOLCHAIN` naming the Debian package when a tool is missing.
   */
  compileArgv(ctx: BuildContext): Promise<string[] | undefined>;
  /** The command line starting the built program, whose directory the process sees at `prog`. */
  runArgv(prog: string, prepared: PreparedSource, limits: RunLimits): string[];
}

/** A runner for a language run from source by `tool` (`compileLabel`/`runLabel` name it in errors). */
export function createInterpretedRunner(tool: ToolName, compileLabel: string, runLabel: string): LanguageRunner {
  return {
    async compileArgv(): Promise<undefined> {
      requireTool(tool, compileLabel);
      return undefined;
    },
    runArgv: (prog, prepared) => [requireTool(tool, runLabel), `${prog}/${prepared.fileName}`],
  };
}
