/**
 * Whole-process measurement for the engine comparisons (`bench/dense-vs-faiss.ts`,
 * `bench/bm25-vs-bm25s.ts`, `bench/metrics-vs-trec-eval.ts`): each side runs as a child of the
 * bench, one after the other, and its CPU time is what the kernel charged it from exec to exit
 * (user + system of the child and everything it waited for: interpreter start-up, imports, loading,
 * the work and writing the output), read from the bench's own `/proc/self/stat` children fields
 * before and after. Peak RSS comes from the child's own `getrusage`, printed on its last line.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** User + system seconds of this process's waited-for children so far (`cutime + cstime`). */
export function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cutime = Number(rest[16 - 3]);
  const cstime = Number(rest[17 - 3]);
  return (cutime + cstime) / USER_HZ;
}

/** The CPU model as /proc/cpuinfo names it, with the core count and AVX-512 presence. */
export function cpuDescription(): string {
  const info = readFileSync('/proc/cpuinfo', 'utf8');
  const flags = /^flags\s*:\s*(.*)$/m.exec(info)?.[1]?.split(' ') ?? [];
  const isa = flags.includes('avx512f') ? 'AVX-512' : flags.includes('avx2') ? 'AVX2' : 'no AVX2';
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${isa}`;
}

/** One side's run: the child's whole-process CPU and wall time, and its last stdout line parsed. */
export interface SideRun<T> {
  cpuS: number;
  wallS: number;
  report: T;
  stderr: string;
}

/** A finished child: its whole-process CPU and wall seconds and its output. */
export interface TimedRun {
  cpuS: number;
  wallS: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args` as a child and waits for it: its whole-process CPU seconds (from the kernel's
 * children accounting), wall seconds and output.
 * @throws Error naming the command and its stderr when it fails.
 */
export function runTimed(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): TimedRun {
  const c0 = childrenCpuSeconds();
  const w0 = performance.now();
  const p = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 1 << 28 });
  const wallS = (performance.now() - w0) / 1000;
  const cpuS = childrenCpuSeconds() - c0;
  if (p.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${p.status ?? p.signal}: ${p.stderr || p.error}`);
  return { cpuS, wallS, stdout: p.stdout, stderr: p.stderr };
}

/**
 * {@link runTimed}, and the JSON object on the child's last stdout line.
 * @throws Error naming the command and its stderr when it fails or prints no JSON.
 */
export function runSide<T>(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): SideRun<T> {
  const p = runTimed(command, args, env);
  const { cpuS, wallS } = p;
  const last = p.stdout.trim().split('\n').at(-1) ?? '';
  let report: T;
  try {
    report = JSON.parse(last) as T;
  } catch {
    throw new Error(`${command} ${args.join(' ')} printed no JSON report; stdout ended with ${JSON.stringify(last)}; stderr: ${p.stderr}`);
  }
  return { cpuS, wallS, report, stderr: p.stderr };
}

/** The median of `xs` (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** An environment for a single-threaded reference: OpenMP and BLAS pools of one thread. */
export function oneThreadEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1', NUMBA_NUM_THREADS: '1' };
}

/**
 * The environment a BLAS reference is measured in: without this workplace's OpenBLAS pins
 * (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, set here for old OpenBLAS builds), and on an AVX-512 CPU
 * with OPENBLAS_CORETYPE=SkylakeX, because an OpenBLAS older than the CPU (faiss-cpu's wheel ships
 * 0.3.15) does not recognise a recent AMD core and falls back to its SSE3 `Barcelona` kernels,
 * 3-4x slower than the AVX-512 SGEMM the CPU runs. Each reference prints the kernel that ran.
 * `keepPins` leaves the environment as it is.
 */
export function referenceBlasEnv(env: NodeJS.ProcessEnv, keepPins = false): NodeJS.ProcessEnv {
  if (keepPins) return env;
  const { OPENBLAS_CORETYPE: _c, OPENBLAS_L2_SIZE: _l, ...rest } = env;
  return /^flags\s*:.*\bavx512f\b/m.test(readFileSync('/proc/cpuinfo', 'utf8')) ? { ...rest, OPENBLAS_CORETYPE: 'SkylakeX' } : rest;
}

/**
 * CPU of a process tree, however its processes were reaped: BSD process accounting (`accton`,
 * Debian package `acct`, root) writes a record with user and system time, pid and parent pid for
 * every process that exits, in the initial pid namespace, so the programs a judge runs in
 * bubblewrap's pid namespaces (reaped there, missed by the bench's own children counters) are
 * charged to the tree too. {@link TreeCpuMeter.measure} turns accounting on into a fresh file, runs
 * `f`, turns it off, and sums the records of this process's descendants plus this process's own
 * CPU over `f`. Processes of other users of the machine are not counted. A process whose parent
 * exits first (bubblewrap's inner process when the outer one ends first: most of a judge's
 * sandboxed runs) is handed to the nearest subreaper: run the bench as one ({@link reexecAsSubreaper})
 * or those records are handed to init and left out. The machine's CPU over the same time is given
 * beside it, as a check.
 */
export interface TreeCpuMeter {
  /** `process accounting (acct v3)`, or why the machine's CPU is used instead. */
  readonly source: string;
  /**
   * Runs `f`; `cpu` is the seconds its process tree used (or the machine's, without accounting),
   * `machineCpu` the whole machine's over the same time (on an idle machine, the gap is what the
   * tree missed: a record whose parent chain breaks, such as a thread of a JVM whose process was
   * handed to init, is left out).
   */
  measure<T>(f: () => Promise<T>): Promise<{ value: T; cpu: number; machineCpu: number; wall: number }>;
}

/**
 * This process's pid in the machine's (initial) pid namespace, as process accounting records it:
 * the first of /proc/self/status's NSpid (a bench re-run under `unshare --pid` is pid 1 inside).
 */
export function globalPid(): number {
  const m = /^NSpid:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return m === null ? process.pid : Number(m[1]);
}

/** The live processes under this one (from each /proc/PID/stat's parent pid), accton's own aside. */
function liveDescendants(): Set<number> {
  const self = globalPid();
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = new Set<number>();
  for (const pid of parentOf.keys()) {
    for (let p = parentOf.get(pid), hops = 0; p !== undefined && hops < 64; p = parentOf.get(p), hops++) {
      if (p === self) {
        out.add(pid);
        break;
      }
    }
  }
  return out;
}

/** User + nice + system seconds of the whole machine so far (/proc/stat). */
function machineCpuSeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2]) / USER_HZ;
}

/** A {@link TreeCpuMeter}: process accounting when `accton` and `dump-acct` work here, else the machine's CPU (said in `source`). */
export function openTreeCpuMeter(dir: string): TreeCpuMeter {
  const file = `${dir}/pacct`;
  const on = (): boolean => {
    writeFileSync(file, '');
    return spawnSync('accton', [file], { encoding: 'utf8' }).status === 0;
  };
  const off = (): void => {
    spawnSync('accton', ['off'], { encoding: 'utf8' });
  };
  const usable = on() && spawnSync('dump-acct', [file], { encoding: 'utf8' }).status === 0;
  off();
  if (!usable) {
    return {
      source: 'the machine (/proc/stat; process accounting needs root and the Debian package acct): run on an idle machine',
      async measure(f) {
        const c0 = machineCpuSeconds();
        const t0 = performance.now();
        const value = await f();
        const machineCpu = machineCpuSeconds() - c0;
        return { value, cpu: machineCpu, machineCpu, wall: (performance.now() - t0) / 1000 };
      },
    };
  }
  return {
    source: "the bench's process tree (process accounting, acct v3: sandboxed programs included)",
    async measure(f) {
      const own0 = process.cpuUsage();
      const t0 = performance.now();
      const m0 = machineCpuSeconds();
      on();
      let value: Awaited<ReturnType<typeof f>>;
      let alive: Set<number>;
      try {
        value = await f();
      } finally {
        // Processes `f` left closing (a judge's warm compilers, its process helper) get a moment to
        // exit and be recorded; those still alive then are remembered, so their children's records
        // still trace back here.
        // (a helper process that serves every judge of this process stays: the set stops shrinking).
        alive = liveDescendants();
        for (let waited = 0; alive.size > 0 && waited < 2000; waited += 100) {
          await new Promise((r) => setTimeout(r, 100));
          const now = liveDescendants();
          const shrank = now.size < alive.size;
          alive = now;
          if (!shrank) break;
        }
        off();
      }
      const machineCpu = machineCpuSeconds() - m0;
      const wall = (performance.now() - t0) / 1000;
      const own = process.cpuUsage(own0);
      const records = spawnSync('dump-acct', [file], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout.split('\n');
      // command | version | user | system | elapsed | uid | gid | memory | io | pid | ppid | ...,
      // one line per exited process, in the order they exited. Pids wrap (pid_max is often 32768),
      // so a record's parent is the next record (in exit order) with its parent's pid: a pid is not
      // given again while its process lives, and a parent outlives its children here (or the child's
      // record names the process it was handed to). No later record: the parent was still alive
      // when accounting stopped (this bench, for its direct children).
      const rows = records.map((l) => l.split('|')).filter((f) => f.length >= 11);
      const self = globalPid();
      const inTree = new Array<boolean>(rows.length);
      const nextByPid = new Map<number, number>();
      let tree = (own.user + own.system) / 1e6;
      for (let i = rows.length - 1; i >= 0; i--) {
        const ppid = Number(rows[i][10]);
        const parentAt = nextByPid.get(ppid);
        inTree[i] = parentAt === undefined ? ppid === self || alive.has(ppid) : inTree[parentAt];
        if (inTree[i]) tree += (Number(rows[i][2]) + Number(rows[i][3])) / USER_HZ;
        nextByPid.set(Number(rows[i][9]), i);
      }
      return { value, cpu: tree, machineCpu, wall };
    },
  };
}

/**
 * Re-runs this script as a child subreaper (a 5-line C wrapper, built with `cc` into `dir`, sets
 * `PR_SET_CHILD_SUBREAPER` and execs node, which keeps it): a process of the tree whose parent exits
 * first is then handed to this process instead of init, so process accounting still charges it to
 * the tree. Returns undefined when this is the re-run already, or when no C compiler or no Linux is
 * there (the caller goes on as it is); otherwise the re-run's exit status, for the caller to exit
 * with once it has removed `dir`.
 * Processes handed over this way stay zombies until the bench ends (node waits only for its own).
 */
export function reexecAsSubreaper(dir: string): number | undefined {
  if (process.env.COREB_BENCH_SUBREAPER === '1' || process.platform !== 'linux') return undefined;
  const source = `${dir}/subreaper.c`;
  const bin = `${dir}/subreaper`;
  writeFileSync(
    source,
    '#include <sys/prctl.h>\n#include <unistd.h>\nint main(int c, char **v) { (void)c; prctl(PR_SET_CHILD_SUBREAPER, 1); execvp(v[1], v + 1); return 127; }\n',
  );
  if (spawnSync('cc', ['-O2', '-o', bin, source], { encoding: 'utf8' }).status !== 0) return undefined;
  const r = spawnSync(bin, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, COREB_BENCH_SUBREAPER: '1' },
  });
  if (r.error !== undefined) return undefined;
  return r.status ?? 1;
}
