/**
 * python3 + numpy as an independent reader in tests (file formats parsed from their documented
 * layout, conversions checked against numpy's). A suite skips when they are missing, naming the
 * Debian package, unless COREB_REQUIRE_TOOLCHAINS=1, where it fails instead.
 */
import { spawnSync } from 'node:child_process';

let reason: string | undefined | null = null;

/** Why python3 with numpy cannot run here, or undefined when it can (throws under COREB_REQUIRE_TOOLCHAINS=1). */
export function numpySkipReason(): string | undefined {
  if (reason === null) {
    const r = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
    reason = r.status === 0 ? undefined : 'needs python3 with numpy (apt-get install -y python3-numpy)';
  }
  if (reason !== undefined && process.env.COREB_REQUIRE_TOOLCHAINS === '1') throw new Error(`COREB_REQUIRE_TOOLCHAINS=1 but the test ${reason}`);
  return reason;
}

/** Runs a python3 script (`-c`) with `args`, optional stdin; returns stdout, throws with stderr on failure. */
export function runPython(script: string, args: string[] = [], input?: string): string {
  const r = spawnSync('python3', ['-c', script, ...args], { encoding: 'utf8', input, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
