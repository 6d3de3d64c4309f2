/** Java: `javac` with a small serial-GC compiler JVM; the program runs with the heap flags of its memory limit. */
import { javaRunFlags, requireTool } from '../languages.js';
import { JAVAC_JVM_FLAGS, JAVAC_OPTIONS } from './javac-server.js';
import type { LanguageRunner } from './runner.js';

/** The Java runner: classes go to `out/`; the main class is the one normalisation found (default `Main`). */
export const javaRunner: LanguageRunner = {
  async compileArgv(ctx) {
    const javac = requireTool('javac', 'Java');
    requireTool('java', 'Java');
    return [javac, ...JAVAC_JVM_FLAGS.map((f) => `-J${f}`), ...JAVAC_OPTIONS, '-d', `${ctx.box}/out`, `${ctx.box}/${ctx.fileName}`];
  },
  runArgv: (prog, prepared, limits) => [
    requireTool('java', 'Java'),
    ...javaRunFlags(limits.memoryLimitMb),
    '-cp',
    `${prog}/out`,
    prepared.mainClass ?? 'Main',
  ],
};
