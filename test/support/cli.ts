/**
 * Runs the built CLI as a user does (a child process), for end-to-end tests.
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './shared.js';

/** Result of one CLI run. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Path of the CLI as bin/coreb.js runs it: the compiled modules bundled into one file (scripts/bundle-cli.mjs). */
export const cliPath: string = join(projectRoot, 'dist', 'cli.mjs');

/** Runs `coreb ...args` synchronously and captures its output. */
export function runCli(args: string[], options: SpawnSyncOptions = {}): CliResult {
  shareDatasetStats(options.env, 'in');
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  shareDatasetStats(options.env, 'out');
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/**
 * Runs `coreb ...args` as a child process without blocking the event loop (for tests whose
 * loopback servers live in the test process).
 */
export function runCliAsync(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  shareDatasetStats(options.env, 'in');
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
    child.on('close', (status) => {
      shareDatasetStats(options.env, 'out');
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * A release's descriptive statistics (`<cache>/datasets/<digest>.tokens.json`: cl100k token lengths,
 * about 0.2 s of CPU for the bundled sample) are a pure function of the release's bytes. A test that
 * gives its CLI runs a cache of their own (to count a server's requests, or to start cold) would
 * otherwise pay for them in every such cache: they are copied from the run's cache (COREB_CACHE_DIR,
 * set by scripts/run-tests.mjs) before a run (`in`) and back after it (`out`), never overwriting a
 * file, each copy renamed into place whole. Nothing else of a cache is shared.
 */
function shareDatasetStats(env: NodeJS.ProcessEnv | undefined, way: 'in' | 'out'): void {
  const own = env?.COREB_CACHE_DIR;
  const run = process.env.COREB_CACHE_DIR;
  if (own === undefined || run === undefined || own === run) return;
  const [from, to] = way === 'in' ? [join(run, 'datasets'), join(own, 'datasets')] : [join(own, 'datasets'), join(run, 'datasets')];
  let names: string[];
  try {
    names = readdirSync(from).filter((n) => n.endsWith('.tokens.json'));
  } catch {
    return;
  }
  for (const name of names) {
    if (existsSync(join(to, name))) continue;
    try {
      mkdirSync(to, { recursive: true });
      const part = join(to, `.${name}.${process.pid}.part`);
      copyFileSync(join(from, name), part);
      renameSync(part, join(to, name));
    } catch {
      // A cache: a copy that fails costs the next run the computation, nothing else.
    }
  }
}
