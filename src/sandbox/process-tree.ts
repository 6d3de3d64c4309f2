/**
 * Limits and accounting over the whole process tree of a run, so that forked, double-forked and
 * orphaned children cannot escape the CPU-time and memory limits of the program that made them.
 * One mechanism is chosen per machine, best first: a cgroup v2 per run (memory.max, pids.max,
 * cpu.max; cpu.stat, memory.peak), a cgroup v1 per run (memory.limit_in_bytes, pids.max,
 * cpu.cfs_quota_us where the cpu controller is writable; cpuacct.usage, memory.max_usage_in_bytes),
 * else polling /proc for every descendant of the run.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../core/process-alive.js';

/** The tree-accounting mechanism in use. */
export const TREE_MECHANISMS = ['cgroup2', 'cgroup1', 'proc'] as const;
/** One of {@link TREE_MECHANISMS}. */
export type TreeMechanism = (typeof TREE_MECHANISMS)[number];

/** Limits of one run's process tree. */
export interface TreeLimits {
  /** Resident memory of the whole tree (page cache of its files and tmpfs included), MiB. */
  memoryMb: number;
  /** Processes and threads of the whole tree. */
  pids: number;
  /** CPU time of the whole tree, milliseconds; the run is killed once past it. */
  cpuMs: number;
}

/** Totals of one run's tree so far. */
export interface TreeUsage {
  /** CPU time (user + system) of every process the run ever had, milliseconds. */
  cpuMs: number;
  /** Peak resident memory of the tree, KiB. */
  peakKb: number;
  /** True when the memory limit was hit (the kernel killed a process, or the poller saw it). */
  memoryExceeded: boolean;
}

/** The accounting of one run. */
export interface TreeGroup {
  /** Files the run's first process writes its pid to before anything starts (cgroup.procs); empty for /proc polling. */
  readonly joinFiles: readonly string[];
  /** Reads the totals; `rootPid` is the run's host pid (needed by /proc polling). */
  sample(rootPid: number | undefined): TreeUsage;
  /** Kills whatever is left in the group and removes it. */
  close(): void;
}

/** The chosen mechanism of this machine. */
export interface TreeAccounting {
  mechanism: TreeMechanism;
  /**
   * How a run is held to one core: cgroup v2 `cpu.max`, cgroup v1 `cpu.cfs_quota_us` (when the cpu
   * controller is writable), or `none` (its threads may use every core; their CPU time still counts).
   */
  cpuHold: 'cpu.max' | 'cpu.cfs_quota_us' | 'none';
  /** What is enforced and where, in one paragraph (for `coreb exec --explain-limits`). */
  explanation: string;
  /** Creates the accounting of one run. */
  createGroup(limits: TreeLimits): TreeGroup;
  /** Removes the judge's parent cgroups (when empty). */
  close(): void;
}

const MIB = 1024 * 1024;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readNumber(path: string): number {
  const t = readText(path);
  return t === undefined ? 0 : Number(t.trim()) || 0;
}

/** `key value` lines (cpu.stat, memory.events, memory.oom_control) -> the value of `key`, or 0. */
function statValue(text: string | undefined, key: string): number {
  if (text === undefined) return 0;
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m === null ? 0 : Number(m[1]);
}

/** SIGKILLs every process of a cgroup and removes it (retrying while the kernel reaps them). */
function killAndRemove(dir: string): void {
  for (let attempt = 0; attempt < 50; attempt++) {
    const procs = (readText(join(dir, 'cgroup.procs')) ?? '').split('\n').filter((x) => x !== '');
    for (const p of procs) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') return;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}

/** Removes the `coreb-judge-<pid>` cgroups (and their runs) of judges whose process is gone. */
function removeStale(hierarchy: string): void {
  let names: string[];
  try {
    names = readdirSync(hierarchy);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^coreb-judge-(\d+)$/.exec(name);
    if (m === null || processAlive(Number(m[1]))) continue;
    const base = join(hierarchy, name);
    try {
      for (const run of readdirSync(base)) if (run.startsWith('run-') || run === 'probe') killAndRemove(join(base, run));
      rmdirSync(base);
    } catch {
      // another judge cleans it up, or it is still busy
    }
  }
}

/**
 * Tree accountings of this process alive at once: they share the `coreb-judge-<pid>` cgroups, which
 * only the last one's `close()` removes (two judges in one process must not pull the directory from
 * under each other's runs).
 */
let openAccountings = 0;

let runCounter = 0;
const runName = (): string => `run-${process.pid}-${++runCounter}`;

/** cgroup v2: one `coreb-judge-<pid>` cgroup under the mount root with a child per run. */
function tryCgroup2(root: string): TreeAccounting | undefined {
  const controllers = readText(join(root, 'cgroup.controllers'));
  if (controllers === undefined) return undefined;
  const have = new Set(controllers.trim().split(/\s+/));
  if (!have.has('memory') || !have.has('pids') || !have.has('cpu')) return undefined;
  const base = join(root, `coreb-judge-${process.pid}`);
  removeStale(root);
  try {
    writeFileSync(join(root, 'cgroup.subtree_control'), '+memory +pids +cpu');
    mkdirSync(base, { recursive: true });
    writeFileSync(join(base, 'cgroup.subtree_control'), '+memory +pids +cpu');
    const probe = join(base, 'probe');
    mkdirSync(probe);
    writeFileSync(join(probe, 'memory.max'), String(64 * MIB));
    rmdirSync(probe);
  } catch {
    try {
      rmdirSync(base);
    } catch {
      // not created
    }
    return undefined;
  }
  openAccountings++;
  return {
    mechanism: 'cgroup2',
    cpuHold: 'cpu.max',
    explanation:
      `cgroup v2 per run under ${base}: memory.max (the tree's resident memory; swap 0) and pids.max are ` +
      'enforced by the kernel, cpu.max holds the tree to one core, and the CPU time of every process ' +
      '(cpu.stat usage_usec) is polled and the run killed once past its limit; peak memory from memory.peak.',
    createGroup(limits) {
      const dir = join(base, runName());
      mkdirSync(dir);
      writeFileSync(join(dir, 'memory.max'), String(limits.memoryMb * MIB));
      try {
        writeFileSync(join(dir, 'memory.swap.max'), '0');
      } catch {
        // no swap accounting
      }
      writeFileSync(join(dir, 'pids.max'), String(limits.pids));
      writeFileSync(join(dir, 'cpu.max'), '100000 100000');
      let peak = 0;
      return {
        joinFiles: [join(dir, 'cgroup.procs')],
        sample() {
          const cpuMs = statValue(readText(join(dir, 'cpu.stat')), 'usage_usec') / 1000;
          const p = readText(join(dir, 'memory.peak'));
          peak = Math.max(peak, p === undefined ? readNumber(join(dir, 'memory.current')) : Number(p.trim()) || 0);
          const events = readText(join(dir, 'memory.events'));
          return { cpuMs, peakKb: Math.round(peak / 1024), memoryExceeded: statValue(events, 'oom_kill') > 0 };
        },
        close: () => killAndRemove(dir),
      };
    },
    close() {
      if (--openAccountings > 0) return;
      try {
        rmdirSync(base);
      } catch {
        // runs still present or already gone
      }
    },
  };
}

/** CFS period of the one-core hold, microseconds (quota = period: one core's worth per period). */
const CFS_PERIOD_US = 100000;

/**
 * cgroup v1: a `coreb-judge-<pid>` cgroup in each of the memory, pids and cpuacct hierarchies, and in
 * the cpu hierarchy when its CFS quota is writable (then each run is held to one core with
 * cpu.cfs_quota_us = cpu.cfs_period_us, as cgroup v2's cpu.max does).
 */
function tryCgroup1(root: string): TreeAccounting | undefined {
  const cpuacct = ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu'].map((d) => join(root, d)).find((d) => readText(join(d, 'cpuacct.usage')) !== undefined);
  const cpuCtl = ['cpu', 'cpu,cpuacct', 'cpuacct,cpu'].map((d) => join(root, d)).find((d) => readText(join(d, 'cpu.cfs_quota_us')) !== undefined);
  const memory = join(root, 'memory');
  const pids = join(root, 'pids');
  if (cpuacct === undefined || readText(join(memory, 'memory.limit_in_bytes')) === undefined || readText(join(pids, 'cgroup.procs')) === undefined) {
    return undefined;
  }
  const hierarchies = [memory, pids, cpuacct];
  for (const h of hierarchies) removeStale(h);
  const bases = hierarchies.map((h) => join(h, `coreb-judge-${process.pid}`));
  try {
    for (const b of bases) mkdirSync(b, { recursive: true });
    const probe = join(bases[0], 'probe');
    mkdirSync(probe);
    writeFileSync(join(probe, 'memory.limit_in_bytes'), String(64 * MIB));
    rmdirSync(probe);
  } catch {
    for (const b of bases) {
      try {
        rmdirSync(b);
      } catch {
        // not created
      }
    }
    return undefined;
  }
  const [memBase, pidsBase, cpuBase] = bases;
  const holdBase = cpuCtl === undefined ? undefined : cpuCtl === cpuacct ? cpuBase : probeCpuHold(cpuCtl);
  const hold =
    holdBase === undefined
      ? 'the cpu controller is not writable here, so a multithreaded run may use every core (its CPU time still counts in full)'
      : `cpu.cfs_quota_us = cpu.cfs_period_us = ${CFS_PERIOD_US} holds the tree to one core (${holdBase})`;
  openAccountings++;
  return {
    mechanism: 'cgroup1',
    cpuHold: holdBase === undefined ? 'none' : 'cpu.cfs_quota_us',
    explanation:
      `cgroup v1 per run (${memBase}, ${pidsBase}, ${cpuBase}): memory.limit_in_bytes (the tree's resident memory, ` +
      'swap included where memory.memsw exists) and pids.max are enforced by the kernel; the CPU time of ' +
      'every process (cpuacct.usage) is polled and the run killed once past its limit; peak memory from ' +
      `memory.max_usage_in_bytes; ${hold}.`,
    createGroup(limits) {
      const name = runName();
      const dirs = [memBase, pidsBase, cpuBase].map((b) => join(b, name));
      for (const d of dirs) mkdirSync(d);
      const [mem, pid, cpu] = dirs;
      let holdDir: string | undefined;
      if (holdBase !== undefined) {
        holdDir = holdBase === cpuBase ? cpu : join(holdBase, name);
        if (holdDir !== cpu) {
          mkdirSync(holdDir);
          dirs.push(holdDir);
        }
        writeFileSync(join(holdDir, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
        writeFileSync(join(holdDir, 'cpu.cfs_quota_us'), String(CFS_PERIOD_US));
      }
      writeFileSync(join(mem, 'memory.limit_in_bytes'), String(limits.memoryMb * MIB));
      try {
        writeFileSync(join(mem, 'memory.memsw.limit_in_bytes'), String(limits.memoryMb * MIB));
      } catch {
        // no swap accounting on this kernel
      }
      writeFileSync(join(pid, 'pids.max'), String(limits.pids));
      return {
        joinFiles: dirs.map((d) => join(d, 'cgroup.procs')),
        sample() {
          const oom = readText(join(mem, 'memory.oom_control'));
          return {
            cpuMs: readNumber(join(cpu, 'cpuacct.usage')) / 1e6,
            peakKb: Math.round(readNumber(join(mem, 'memory.max_usage_in_bytes')) / 1024),
            // oom_kill counts the kernel's kills in this cgroup (failcnt also counts page-cache reclaim).
            memoryExceeded: statValue(oom, 'oom_kill') > 0,
          };
        },
        close() {
          for (const d of dirs) killAndRemove(d);
        },
      };
    },
    close() {
      if (--openAccountings > 0) return;
      for (const b of holdBase !== undefined && !bases.includes(holdBase) ? [...bases, holdBase] : bases) {
        try {
          rmdirSync(b);
        } catch {
          // runs still present or already gone
        }
      }
    },
  };
}

/**
 * Creates the judge's cgroup in a separate cpu hierarchy and checks that a run's CFS quota can be
 * set there; its path, or undefined when the cpu controller is not writable.
 */
function probeCpuHold(hierarchy: string): string | undefined {
  removeStale(hierarchy);
  const base = join(hierarchy, `coreb-judge-${process.pid}`);
  try {
    mkdirSync(base, { recursive: true });
    const probe = join(base, 'probe');
    mkdirSync(probe);
    try {
      writeFileSync(join(probe, 'cpu.cfs_quota_us'), String(CFS_PERIOD_US));
    } finally {
      rmdirSync(probe);
    }
    return base;
  } catch {
    try {
      rmdirSync(base);
    } catch {
      // not created
    }
    return undefined;
  }
}

const CLOCK_TICKS_PER_S = 100;
const PAGE_KB = 4;

/** Parses `/proc/<pid>/stat`: ppid, CPU ticks of the process and its waited-for children, RSS pages. */
function procStat(pid: string): { ppid: number; ticks: number; rssPages: number } | undefined {
  const t = readText(`/proc/${pid}/stat`);
  if (t === undefined) return undefined;
  const f = t.slice(t.lastIndexOf(')') + 2).split(' ');
  // Fields after the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14) ... rss(21).
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]), rssPages: Number(f[21]) };
}

/**
 * The fallback: every sample walks /proc, finds the run's descendants by parent pid and sums their
 * CPU time (their own and their reaped children's) and resident memory; the caller kills the run
 * when a sum passes its limit. Processes that die between two samples keep counting through the
 * parent that reaped them (bubblewrap's pid 1 reaps orphans).
 */
function procAccounting(): TreeAccounting {
  return {
    mechanism: 'proc',
    cpuHold: 'none',
    explanation:
      'no usable cgroup (not root, or no memory/pids/cpu controllers): /proc is polled every 50 ms for every ' +
      'process descending from the run; their CPU time (own and reaped children) and resident memory are summed ' +
      'and the run is killed once a sum passes its limit. Per-process rlimits (RLIMIT_AS at 4x the memory limit, ' +
      'RLIMIT_NPROC) stay as a backstop between samples.',
    createGroup() {
      let cpuMs = 0;
      let peakKb = 0;
      return {
        joinFiles: [],
        sample(rootPid) {
          if (rootPid === undefined) return { cpuMs, peakKb, memoryExceeded: false };
          const children = new Map<number, number[]>();
          const stats = new Map<number, { ticks: number; rssPages: number }>();
          for (const d of readdirSync('/proc')) {
            if (d.charCodeAt(0) > 57) continue;
            const s = procStat(d);
            if (s === undefined) continue;
            const pid = Number(d);
            stats.set(pid, s);
            const list = children.get(s.ppid);
            if (list === undefined) children.set(s.ppid, [pid]);
            else list.push(pid);
          }
          if (!stats.has(rootPid)) return { cpuMs, peakKb, memoryExceeded: false };
          let ticks = 0;
          let rss = 0;
          const stack = [rootPid];
          while (stack.length > 0) {
            const p = stack.pop() as number;
            const s = stats.get(p);
            if (s !== undefined) {
              ticks += s.ticks;
              rss += s.rssPages;
            }
            for (const c of children.get(p) ?? []) stack.push(c);
          }
          cpuMs = Math.max(cpuMs, (ticks * 1000) / CLOCK_TICKS_PER_S);
          peakKb = Math.max(peakKb, rss * PAGE_KB);
          return { cpuMs, peakKb, memoryExceeded: false };
        },
        close() {},
      };
    },
    close() {},
  };
}

/** Options of {@link detectTreeAccounting}. */
export interface TreeAccountingOptions {
  /** Force a mechanism (`proc` always works; a cgroup one fails when unavailable). Default: the best available. */
  mechanism?: TreeMechanism;
  /** The cgroup file-system root; default `/sys/fs/cgroup`. */
  cgroupRoot?: string;
}

/**
 * Picks the tree-accounting mechanism of this machine by trying each: cgroup v2 (needs the memory,
 * pids and cpu controllers in the v2 hierarchy and the right to create cgroups), cgroup v1 (memory,
 * pids and cpuacct hierarchies, the right to create cgroups), else /proc polling.
 * @returns the mechanism, or undefined when a forced one is unavailable.
 */
export function detectTreeAccounting(options: TreeAccountingOptions = {}): TreeAccounting | undefined {
  const root = options.cgroupRoot ?? '/sys/fs/cgroup';
  const want = options.mechanism;
  if (want === 'proc') return procAccounting();
  if (want === undefined || want === 'cgroup2') {
    const v2 = tryCgroup2(root);
    if (v2 !== undefined || want === 'cgroup2') return v2;
  }
  if (want === undefined || want === 'cgroup1') {
    const v1 = tryCgroup1(root);
    if (v1 !== undefined || want === 'cgroup1') return v1;
  }
  return procAccounting();
}
