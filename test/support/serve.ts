/** Starting `coreb serve` over HTTP in tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath } from './cli.js';

/**
 * Starts `coreb serve --port 0 ARGS` and resolves once it listens: its URL, port, process and the
 * stderr written so far (rejects with that stderr when it exits first).
 */
export async function startServe(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ url: string; port: number; child: ChildProcess; err: () => string }> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let err = '';
  const url = await new Promise<string>((ok, fail) => {
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/[^\s]+:\d+)/.exec(err);
      if (m !== null) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
  return { url, port: Number(/:(\d+)$/.exec(url)?.[1]), child, err: () => err };
}
