/**
 * Sandboxed processes started from a small helper process instead of the judge's own. Starting a
 * process forks the parent, and a fork copies the parent's page tables: from a Node process holding
 * a release, its indexes and its runs (hundreds of MiB) each start costs 10-17 ms of system time and
 * blocks the event loop meanwhile (measured: 0.8 ms at 58 MiB resident, 15 ms at 470 MiB), which
 * over the exec reranker's ~15,000 runs was minutes. {@link runHosted} sends the run to one helper
 * (a Node process that holds nothing else, started on first use and kept while runs are pending),
 * which runs it with {@link runProcess} and its own tree accounting, and sends back the result.
 * The judge uses it once its process is past {@link HOST_ABOVE_RSS_BYTES}; smaller processes start
 * their runs themselves (a helper costs ~50 ms and 40 MiB to start).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { distModulePath } from '../core/package-files.js';
import type { ExecutionResult } from '../core/execution.js';
import type { TreeLimits, TreeMechanism } from './process-tree.js';
import { notStarted, type ProcessSpec, type SandboxConfig } from './sandbox.js';

/** Resident size of the judge's process past which its runs are started by the helper, bytes (128 MiB). */
export const HOST_ABOVE_RSS_BYTES = 128 * 1024 * 1024;

/** A run sent to the helper: the process spec without its signal and tree group, and the tree's limits. */
export interface HostedRun {
  config: SandboxConfig;
  spec: Omit<ProcessSpec, 'signal' | 'tree'>;
  /** Tree accounting of the run: the mechanism the judge chose and the run's limits. */
  tree?: { mechanism: TreeMechanism; limits: TreeLimits };
}

/** Messages to the helper. */
export type HostRequest = { type: 'run'; id: number; run: HostedRun } | { type: 'abort'; id: number };
/** Messages from the helper. */
export type HostReply = { id: number; result: ExecutionResult };

interface Host {
  child: ChildProcess;
  pending: Map<number, (r: ExecutionResult) => void>;
}

let host: Host | undefined;
let nextId = 1;

function startHost(): Host {
  const child = fork(distModulePath('sandbox/process-host-child.js'), [], {
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    // none of the parent's command-line flags (a test runner's, an inspector's)
    execArgv: [],
  });
  const h: Host = { child, pending: new Map() };
  child.on('message', (m: HostReply) => {
    const done = h.pending.get(m.id);
    if (done === undefined) return;
    h.pending.delete(m.id);
    done(m.result);
    if (h.pending.size === 0) idle(h);
  });
  const gone = (why: string): void => {
    if (host === h) host = undefined;
    for (const done of h.pending.values()) done(notStarted(`coreb: the process helper stopped (${why}); the run did not finish\n`));
    h.pending.clear();
  };
  child.on('exit', (code, sig) => gone(sig ?? `exit ${code}`));
  child.on('error', (e) => gone(e.message));
  return h;
}

/** Without pending runs the helper does not keep the judge's process alive. */
function idle(h: Host): void {
  h.child.unref();
  (h.child.channel as { unref?: () => void } | undefined)?.unref?.();
}

function busy(h: Host): void {
  h.child.ref();
  (h.child.channel as { ref?: () => void } | undefined)?.ref?.();
}

/**
 * Runs `run` in the helper process (started on first use). Aborting `signal` kills the run, as
 * {@link runProcess} does. If the helper dies, its pending runs end as not started (`exitCode` null).
 */
export function runHosted(run: HostedRun, signal?: AbortSignal): Promise<ExecutionResult> {
  if (signal?.aborted) return Promise.resolve(notStarted('coreb: not started: the judge was interrupted\n'));
  host ??= startHost();
  const h = host;
  const id = nextId++;
  busy(h);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      h.child.send({ type: 'abort', id } satisfies HostRequest);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    h.pending.set(id, (r) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    });
    h.child.send({ type: 'run', id, run } satisfies HostRequest, (err) => {
      if (err === null || err === undefined) return;
      const done = h.pending.get(id);
      h.pending.delete(id);
      done?.(notStarted(`coreb: cannot reach the process helper: ${err.message}\n`));
    });
  });
}

/** True when the judge's process is big enough that its runs should go through the helper. */
export function shouldHostRuns(): boolean {
  return process.memoryUsage.rss() > HOST_ABOVE_RSS_BYTES;
}

/**
 * Lets an idle helper end and waits for it (at most `waitMs`, default 2,000 ms), so this process
 * reaps it and the CPU time of every run it started is charged here (a helper left to exit with
 * this process is reaped by init, and that time by nobody). A helper with runs pending is left
 * alone; the next hosted run starts a new one.
 */
export async function releaseProcessHost(waitMs = 2000): Promise<void> {
  const h = host;
  if (h === undefined || h.pending.size > 0) return;
  host = undefined;
  const exited = new Promise<void>((resolve) => {
    if (h.child.exitCode !== null || h.child.signalCode !== null) resolve();
    else h.child.once('exit', () => resolve());
  });
  // held (an idle helper is unref'd) until it has exited or the wait is over
  h.child.ref();
  if (h.child.connected) h.child.disconnect();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
}

/** Stops the helper (its pending runs end as not started); the next hosted run starts a new one. */
export function stopProcessHost(): void {
  const h = host;
  host = undefined;
  h?.child.kill();
}
