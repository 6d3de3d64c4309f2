/**
 * Toolchain gating for judge tests: a suite that needs bubblewrap and compilers skips with a message
 * naming the Debian packages when they are missing, unless COREB_REQUIRE_TOOLCHAINS=1 (CI), where a
 * missing toolchain fails the suite instead.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecLanguage } from '../../src/core/execution.js';
import type { JudgeBackend } from '../../src/sandbox/backend.js';
import { missingPackages } from '../../src/sandbox/languages/index.js';
import { createLocalJudge, type LocalJudgeOptions } from '../../src/sandbox/local-judge.js';

/** True when missing toolchains must fail rather than skip (CI sets COREB_REQUIRE_TOOLCHAINS=1). */
export const requireToolchains: boolean = process.env.COREB_REQUIRE_TOOLCHAINS === '1';

/** A cache dir shared by the test files of one run (helper, PCH, Go cache are built once). */
export const testCacheDir: string = process.env.COREB_JUDGE_CACHE ?? join(tmpdir(), 'coreb-judge-test');

/**
 * Why the judge cannot run `languages` here (a message naming the packages), or undefined when it can.
 * Throws instead when toolchains are required.
 */
export function toolchainSkipReason(languages: readonly ExecLanguage[], sandbox = true): string | undefined {
  const missing = missingPackages(languages, sandbox);
  if (missing.length === 0) return undefined;
  const msg = `needs Debian packages ${missing.join(' ')} (apt-get install -y ${missing.join(' ')})`;
  if (requireToolchains) throw new Error(`COREB_REQUIRE_TOOLCHAINS=1 but the judge ${msg}`);
  return msg;
}

/** Creates a local judge for tests, or returns a skip reason when the sandbox does not work here. */
export async function createTestJudge(options: LocalJudgeOptions = {}): Promise<JudgeBackend | string> {
  try {
    return await createLocalJudge({ cacheDir: testCacheDir, ...options });
  } catch (e) {
    if (requireToolchains) throw e;
    return `sandbox unavailable: ${(e as Error).message}`;
  }
}

/** A fresh temporary directory for one test. */
export function tempDir(prefix = 'coreb-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
