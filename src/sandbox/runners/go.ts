/** Go: `go build` in GOPATH mode (no modules, no cgo, the local toolchain) with a shared build cache. */
import { requireTool } from '../languages.js';
import type { LanguageRunner } from './runner.js';

/** The Go runner: the build cache is mounted writable at `/gocache` in the sandbox. */
export const goRunner: LanguageRunner = {
  async compileArgv(ctx) {
    const go = requireTool('go', 'Go');
    const cache = ctx.goCache();
    if (ctx.sandbox) ctx.mounts.push({ src: cache, dest: '/gocache', writable: true });
    Object.assign(ctx.env, {
      GO111MODULE: 'off',
      CGO_ENABLED: '0',
      GOFLAGS: '-buildvcs=false',
      GOCACHE: ctx.sandbox ? '/gocache' : cache,
      GOPATH: `${ctx.box}/.gopath`,
      GOTOOLCHAIN: 'local',
    });
    return [
      go,
      'build',
      // no symbol table or DWARF: ~25% less link time; panics still print their stack
      '-ldflags=-s -w',
      '-o',
      `${ctx.box}/prog`,
      `${ctx.box}/${ctx.fileName}`,
      ...(ctx.extraFiles ?? []).filter((f) => f.endsWith('.go')).map((f) => `${ctx.box}/${f}`),
    ];
  },
  runArgv: (prog) => [`${prog}/prog`],
};
