/** Java: `javac` with a small serial-GC compiler JVM; the program runs with the heap flags of its memory limit. */
import { javaRunFlags, requireTool } from '../languages.js';
import type { LanguageRunner } from './runner.js';

/** The Java runner: classes go to `out/`; the main class is the one normalisation found (default `Main`). */
export const javaRunner: LanguageRunner = {
  async compileArgv(ctx) {
    const javac = requireTool('javac', 'Java');
    requireTool('java', 'Java');
    return [
      javac,
      '-J-Xmx512m',
      '-J-XX:+UseSerialGC',
      '-J-XX:TieredStopAtLevel=1',
      '-J-XX:ActiveProcessorCount=1',
      '-encoding',
      'UTF-8',
      '-nowarn',
      '-d',
      `${ctx.box}/out`,
      `${ctx.box}/${ctx.fileName}`,
    ];
  },
  runArgv: (prog, prepared, limits) => [
    requireTool('java', 'Java'),
    ...javaRunFlags(limits.memoryLimitMb),
    '-cp',
    `${prog}/out`,
    prepared.mainClass ?? 'Main',
  ],
};
