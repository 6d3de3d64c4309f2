/**
 * Runs one untrusted process inside bubblewrap: unprivileged uid with no groups, every namespace
 * unshared (no network), read-only root and /dev, a size-limited tmpfs work dir, rlimits set by
 * `coreb-run`, a wall-clock timer that kills the whole sandbox, capped stdout/stderr.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import type { ExecutionResult } from '../core/execution.js';
import type { TreeAccounting, TreeGroup, TreeLimits } from './process-tree.js';

/** Resource limits of one sandboxed process. */
export interface ProcessLimits {
  /** Wall-clock limit, milliseconds; the whole sandbox is killed when it passes. */
  wallMs: number;
  /** CPU-time limit (RLIMIT_CPU), seconds; 0 = none. */
  cpuS: number;
  /** Address-space limit (RLIMIT_AS), MiB; 0 = none. */
  addressSpaceMb: number;
  /** Process/thread limit (RLIMIT_NPROC, per sandbox user namespace); 0 = none. */
  processes: number;
  /** Largest file the process may write (RLIMIT_FSIZE), MiB; 0 = none. */
  fileSizeMb: number;
  /** Open file descriptors (RLIMIT_NOFILE); 0 = none. */
  openFiles: number;
  /** Stack size (RLIMIT_STACK), MiB; 0 = inherit. */
  stackMb: number;
  /** Size of the tmpfs work dir `/box` (run sandboxes), MiB. */
  workDirMb: number;
  /** Bytes of stdout kept; more kills the process and sets `stdoutTruncated`. */
  stdoutBytes: number;
  /** Bytes of stderr kept (the rest is read and dropped). */
  stderrBytes: number;
}

/** A host path made visible inside the sandbox. */
export interface Mount {
  /** Host path. */
  src: string;
  /** Path inside the sandbox. */
  dest: string;
  /** Read-write bind (default read-only). */
  writable?: boolean;
}

/** How sandboxes are run on this machine (resolved once by the judge). */
export interface SandboxConfig {
  /** False runs the process directly on the host (`--no-sandbox`: dangerous, for debugging only). */
  enabled: boolean;
  /** Path of the built `coreb-run` helper. */
  helperPath: string;
  /** Path of `bwrap` (Debian package bubblewrap). */
  bwrapPath: string;
  /**
   * Start bwrap as `uid`/`gid` with no supplementary groups (required when the judge runs as root:
   * bwrap run as root maps the sandbox to real root). Done by the spawn itself, like
   * `setpriv --reuid --regid --clear-groups` without its extra exec.
   */
  dropPrivileges: boolean;
  /** Unprivileged uid/gid of sandboxed code; default 65534 (nobody). */
  uid: number;
}

/** One process to run. */
export interface ProcessSpec {
  /** Command and arguments (paths as seen inside the sandbox, or host paths when not sandboxed). */
  argv: string[];
  /** Environment of the process (nothing is inherited). */
  env: Record<string, string>;
  /** Text written to stdin ('' closes stdin at once). */
  stdin: string;
  limits: ProcessLimits;
  /** Extra mounts (sandbox only). */
  mounts: Mount[];
  /**
   * The work dir `/box`: a fresh size-limited tmpfs (`undefined`), or a host directory bound
   * read-write. Without the sandbox it is the process's cwd and must be given.
   */
  workDir?: string;
  /** Aborting kills the process. */
  signal?: AbortSignal;
  /** Limits over the whole process tree (see process-tree.ts); the group is closed by the caller. */
  tree?: TreeRun;
  /**
   * A secret the program may read on descriptor `fd` (3 < fd < the open-files limit) and nowhere else:
   * a `program` test's proof token. It is written to a file in `dir` (host path) that is unlinked
   * before the sandbox starts, so it is in no environment, argument, mount or path.
   */
  secret?: { text: string; fd: number; dir: string };
}

/** The tree accounting of one run and the limits the poller enforces. */
export interface TreeRun {
  group: TreeGroup;
  /** CPU time of the whole tree, ms, past which the run is killed (`treeLimit: 'time'`). */
  cpuLimitMs: number;
  /** Resident memory of the whole tree, KiB, past which the run is killed (`treeLimit: 'memory'`). */
  memoryLimitKb: number;
  /** Sampling period, ms; default 50. */
  pollMs?: number;
}

/** Milliseconds the host-side helper has to stop and reap a sandbox the judge stops before its process group is killed. */
const REAP_GRACE_MS = 250;

/** Where the helper is mounted inside sandboxes. */
const HELPER_IN_BOX = '/.coreb-run';
const MIB = 1024 * 1024;

/** Read-only system paths bound into every sandbox when they exist on the host. */
const SYSTEM_RO = ['/usr', '/etc/alternatives', '/etc/ld.so.cache', '/etc/java-17-openjdk'] as const;
/** Root-level symlinks of a merged-/usr system, recreated in the sandbox. */
const USR_LINKS = [
  ['usr/bin', '/bin'],
  ['usr/sbin', '/sbin'],
  ['usr/lib', '/lib'],
  ['usr/lib64', '/lib64'],
  ['usr/lib32', '/lib32'],
] as const;

/** The bubblewrap arguments for `spec` (exported for tests and the benchmark). */
export function createBwrapArgs(config: SandboxConfig, spec: ProcessSpec): string[] {
  const a: string[] = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--uid',
    String(config.uid),
    '--gid',
    String(config.uid),
    '--hostname',
    'coreb',
  ];
  for (const p of SYSTEM_RO) if (existsSync(p)) a.push('--ro-bind', p, p);
  for (const [target, link] of USR_LINKS) if (existsSync(link)) a.push('--symlink', target, link);
  a.push('--proc', '/proc', '--dev', '/dev');
  a.push('--size', String(16 * MIB), '--tmpfs', '/dev/shm');
  if (spec.workDir === undefined) a.push('--size', String(spec.limits.workDirMb * MIB), '--tmpfs', '/box');
  else a.push('--bind', spec.workDir, '/box');
  a.push('--symlink', '/box', '/tmp');
  for (const m of spec.mounts) a.push(m.writable ? '--bind' : '--ro-bind', m.src, m.dest);
  a.push('--ro-bind', config.helperPath, HELPER_IN_BOX);
  a.push('--remount-ro', '/dev', '--remount-ro', '/');
  a.push('--chdir', '/box', '--clearenv');
  for (const [k, v] of Object.entries(spec.env)) a.push('--setenv', k, v);
  return a;
}

function helperArgs(helper: string, l: ProcessLimits, argv: string[], secretFd: number): string[] {
  return [
    helper,
    String(l.cpuS),
    String(l.addressSpaceMb * MIB),
    String(l.processes),
    String(l.fileSizeMb * MIB),
    String(l.openFiles),
    String(l.stackMb * MIB),
    '3',
    String(secretFd),
    '--',
    ...argv,
  ];
}

/**
 * The full host command line for `spec`: `[file, ...args]`. With cgroups to join, the host-side
 * `coreb-run --enter` comes first: it joins them as root, drops privileges, then starts the rest.
 */
export function createCommandLine(config: SandboxConfig, spec: ProcessSpec): string[] {
  const secretFd = spec.secret?.fd ?? -1;
  const inner = config.enabled
    ? [config.bwrapPath, ...createBwrapArgs(config, spec), '--', ...helperArgs(HELPER_IN_BOX, spec.limits, spec.argv, secretFd)]
    : helperArgs(config.helperPath, spec.limits, spec.argv, secretFd);
  const join = spec.tree?.group.joinFiles ?? [];
  // The helper on the host reaps the sandbox's processes, so the CPU they use is charged to coreb (run-helper.ts).
  if (join.length === 0) return config.enabled ? [config.helperPath, '--reap', '--', ...inner] : inner;
  const uid = config.enabled && config.dropPrivileges ? config.uid : -1;
  return [config.helperPath, '--enter', String(uid), String(join.length), ...join, '--', ...inner];
}

/** The outcome of a run that never started, with `stderr` saying why. */
/** The result of a process that never started (`exitCode` null), with `stderr` saying why. */
export function notStarted(stderr: string): ExecutionResult {
  return { exitCode: null, stdout: '', stderr, stdoutTruncated: false, timedOut: false, wallMs: 0, cpuMs: -1, memoryKb: -1 };
}

/**
 * A read-only descriptor of a fresh file in `dir` holding `text`, already unlinked: whoever holds
 * the descriptor can read it; nobody can find it by path.
 */
function openSecret(dir: string, text: string): number {
  const path = join(dir, `.proof-${process.pid}-${randomBytes(8).toString('hex')}`);
  const w = openSync(path, 'wx', 0o444);
  try {
    writeSync(w, text);
    return openSync(path, 'r');
  } finally {
    closeSync(w);
    unlinkSync(path);
  }
}

/**
 * Runs `spec` and resolves with its outcome; never rejects for anything the program does.
 * A spawn failure of the sandbox itself resolves with `exitCode: null` and the reason in `stderr`.
 */
export function runProcess(config: SandboxConfig, spec: ProcessSpec): Promise<ExecutionResult> {
  const [file, ...args] = createCommandLine(config, spec);
  const started = performance.now();
  if (spec.signal?.aborted) return Promise.resolve(notStarted('coreb: not started: the judge was interrupted\n'));
  return new Promise((resolve) => {
    // A process group of its own: killing the group also reaches a bwrap child still in its setup
    // phase (before --new-session), which a kill of the outer bwrap alone can orphan.
    // With cgroups to join, `coreb-run --enter` starts as root and drops privileges itself.
    const entering = (spec.tree?.group.joinFiles.length ?? 0) > 0;
    let secretFile: number | undefined;
    if (spec.secret !== undefined) {
      try {
        secretFile = openSecret(spec.secret.dir, spec.secret.text);
      } catch (e) {
        resolve(notStarted(`coreb: cannot write the run's proof token in ${spec.secret.dir}: ${(e as Error).message}\n`));
        return;
      }
    }
    const stdio: Array<'pipe' | number> = ['pipe', 'pipe', 'pipe', 'pipe'];
    if (secretFile !== undefined) stdio.push(secretFile);
    const child = spawn(file, args, {
      stdio: stdio as ['pipe', 'pipe', 'pipe', 'pipe'],
      env: config.enabled ? {} : spec.env,
      cwd: config.enabled ? undefined : spec.workDir,
      detached: true,
      ...(config.enabled && config.dropPrivileges && !entering ? { uid: config.uid, gid: config.uid } : {}),
    });
    if (secretFile !== undefined) closeSync(secretFile);
    const out: Buffer[] = [];
    let outBytes = 0;
    let truncated = false;
    const err: Buffer[] = [];
    let errBytes = 0;
    let status = '';
    let timedOut = false;
    let killed = false;
    let spawnError = '';
    let finished = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let grace: NodeJS.Timeout | undefined;
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
    };
    // Through the host-side helper (createCommandLine), SIGTERM asks it to stop the sandbox and reap
    // it, so the CPU the run used stays charged to this process; the group is killed if the helper
    // has not exited within REAP_GRACE_MS (a sandbox stuck starting, a helper that cannot act).
    const reaping = config.enabled;
    let forced: NodeJS.Timeout | undefined;
    const kill = (): void => {
      if (killed) return;
      killed = true;
      if (reaping && child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        forced = setTimeout(() => {
          killGroup();
          child.kill('SIGKILL');
        }, REAP_GRACE_MS);
        return;
      }
      killGroup();
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.limits.wallMs);
    const onAbort = (): void => kill();
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    // The whole tree's CPU time and memory, sampled while it runs; past a limit the run is killed.
    const tree = spec.tree;
    let treeLimit: 'time' | 'memory' | undefined;
    let usage = { cpuMs: 0, peakKb: 0, memoryExceeded: false };
    const sampleTree = (): void => {
      if (tree === undefined) return;
      usage = tree.group.sample(child.pid);
      if (treeLimit !== undefined) return;
      if (usage.memoryExceeded || usage.peakKb > tree.memoryLimitKb) treeLimit = 'memory';
      else if (usage.cpuMs > tree.cpuLimitMs) treeLimit = 'time';
      if (treeLimit !== undefined) kill();
    };
    const poller = tree === undefined ? undefined : setInterval(sampleTree, tree.pollMs ?? 50);
    const statusStream = child.stdio[3] as NodeJS.ReadableStream & { destroy(): void };
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(grace);
      clearTimeout(forced);
      clearInterval(poller);
      sampleTree();
      spec.signal?.removeEventListener('abort', onAbort);
      killGroup();
      for (const s of [child.stdout, child.stderr, statusStream]) s?.destroy();
      const wallMs = performance.now() - started;
      const m = /^(-?\d+) (\d+) (\d+)/.exec(status);
      let code: number | null = exitCode ?? (exitSignal ? 128 + constants.signals[exitSignal] : null);
      let cpuMs = -1;
      let memoryKb = -1;
      if (m) {
        code = Number(m[1]);
        cpuMs = Number(m[2]) / 1000;
        memoryKb = Number(m[3]);
      }
      let stderr = Buffer.concat(err).toString('utf8');
      if (spawnError) stderr = `coreb: cannot start the sandbox: ${spawnError}\n${stderr}`;
      if (tree !== undefined && (cpuMs >= 0 || treeLimit !== undefined)) {
        // The tree's totals include the program itself and every descendant, orphans too. A run
        // the tree limits stopped has no report from its harness: what the tree used is the figure.
        cpuMs = Math.max(cpuMs, usage.cpuMs);
        memoryKb = Math.max(memoryKb, usage.peakKb);
      }
      const result: ExecutionResult = {
        exitCode: spawnError ? null : code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr,
        stdoutTruncated: truncated,
        timedOut: timedOut && treeLimit === undefined,
        wallMs,
        cpuMs,
        memoryKb,
      };
      if (treeLimit !== undefined) result.treeLimit = treeLimit;
      resolve(result);
    };
    child.stdout.on('data', (b: Buffer) => {
      if (truncated) return;
      if (outBytes + b.length > spec.limits.stdoutBytes) {
        out.push(b.subarray(0, spec.limits.stdoutBytes - outBytes));
        outBytes = spec.limits.stdoutBytes;
        truncated = true;
        kill();
        return;
      }
      out.push(b);
      outBytes += b.length;
    });
    child.stderr.on('data', (b: Buffer) => {
      if (errBytes >= spec.limits.stderrBytes) return;
      const keep = b.subarray(0, spec.limits.stderrBytes - errBytes);
      err.push(keep);
      errBytes += keep.length;
    });
    statusStream?.on('data', (b: Buffer) => {
      status += b.toString('latin1');
    });
    statusStream?.on('error', () => {});
    child.stdin.on('error', () => {});
    child.on('error', (e) => {
      spawnError = e.message;
      finish();
    });
    child.stdin.end(spec.stdin);
    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      // Output still buffered in the pipes arrives before 'close'; never wait longer than a second
      // for a descendant that kept the pipes open.
      grace = setTimeout(finish, 1000);
    });
    child.on('close', finish);
  });
}

/**
 * Runs `spec` with its whole process tree held to `tree.limits` by `tree.accounting` (a group made
 * for the run and closed after it), or as {@link runProcess} alone without `tree`.
 */
export async function runProcessInTree(
  config: SandboxConfig,
  spec: Omit<ProcessSpec, 'tree'>,
  tree: { accounting: TreeAccounting; limits: TreeLimits } | undefined,
): Promise<ExecutionResult> {
  if (tree === undefined) return runProcess(config, spec);
  const { accounting, limits } = tree;
  const run: TreeRun = { group: accounting.createGroup(limits), cpuLimitMs: limits.cpuMs, memoryLimitKb: limits.memoryMb * 1024 };
  try {
    return await runProcess(config, { ...spec, tree: run });
  } finally {
    run.group.close();
  }
}
