/**
 * C++: g++ -O2 -std=c++17 against a precompiled `<bits/stdc++.h>` built once per compiler version
 * (~0.2 s instead of ~0.9 s per compile), mounted read-only at `/pch` in the sandbox.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { requireTool } from '../languages.js';
import type { LanguageRunner } from './runner.js';

/**
 * g++ flags: C++17 at -O2 as the issue specifies, with `ONLINE_JUDGE` defined as Codeforces and
 * AtCoder do (programs guard `freopen("a.inp")` debugging code with it).
 */
export const CXX_FLAGS = ['-O2', '-std=c++17', '-DONLINE_JUDGE'] as const;

/** The C++ runner. */
export const cppRunner: LanguageRunner = {
  async compileArgv(ctx) {
    const gxx = requireTool('gxx', 'C++');
    if (ctx.cxxFlags !== undefined) return [gxx, ...ctx.cxxFlags, '-o', `${ctx.box}/prog`, `${ctx.box}/${ctx.fileName}`];
    const pch = await ctx.pch();
    if (ctx.sandbox) ctx.mounts.push({ src: pch, dest: '/pch' });
    return [gxx, ...CXX_FLAGS, `-I${ctx.sandbox ? '/pch' : pch}`, '-o', `${ctx.box}/prog`, `${ctx.box}/${ctx.fileName}`];
  },
  runArgv: (prog) => [`${prog}/prog`],
};

/**
 * Builds the precompiled `<bits/stdc++.h>` (with {@link CXX_FLAGS}) into `cacheDir/pch-<hash>/bits/` once
 * and returns that directory; programs compiled with `-I<dir>` then pick it up for
 * `#include <bits/stdc++.h>` (~0.2 s instead of ~0.9 s per compile).
 */
export function buildPch(cacheDir: string, gxx: string): string {
  const version = spawnSync(gxx, ['-dumpfullversion'], { encoding: 'utf8' }).stdout.trim();
  const key = createHash('sha256')
    .update(`${gxx} ${version} ${CXX_FLAGS.join(' ')}`)
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheDir, `pch-${key}`);
  if (existsSync(join(dir, 'bits', 'stdc++.h.gch'))) return dir;
  const tmp = mkdtempSync(join(cacheDir, 'pch-tmp-'));
  mkdirSync(join(tmp, 'bits'), { recursive: true });
  const header = join(tmp, 'bits', 'stdc++.h');
  writeFileSync(header, '#include_next <bits/stdc++.h>\n');
  const r = spawnSync(gxx, [...CXX_FLAGS, '-w', '-x', 'c++-header', header, '-o', header + '.gch'], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new CorebError('TOOLCHAIN', `cannot build the C++ precompiled header with ${gxx}: ${r.stderr || r.error?.message}`);
  }
  chmodSync(tmp, 0o755);
  chmodSync(join(tmp, 'bits'), 0o755);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}
