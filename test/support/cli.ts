/**
 * Runs the built CLI as a user does (a child process), for end-to-end tests.
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from './shared.js';

/** Result of one CLI run. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Path of the built CLI entry point. */
export const cliPath: string = join(projectRoot, 'dist', 'src', 'cli', 'main.js');

/** Runs `coreb ...args` synchronously and captures its output. */
export function runCli(args: string[], options: SpawnSyncOptions = {}): CliResult {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/**
 * Runs `coreb ...args` as a child process without blocking the event loop (for tests whose
 * loopback servers live in the test process).
 */
export function runCliAsync(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
