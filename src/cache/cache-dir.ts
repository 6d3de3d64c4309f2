/**
 * Where the cache lives: `COREB_CACHE_DIR`, else `$XDG_CACHE_HOME/coreb`, else
 * `~/.cache/coreb`. The CLI passes the environment in (library code never reads it).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Resolves the cache root from an environment map (the CLI passes the process environment). */
export function resolveCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.COREB_CACHE_DIR) return env.COREB_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'coreb');
  return join(env.HOME || homedir(), '.cache', 'coreb');
}
