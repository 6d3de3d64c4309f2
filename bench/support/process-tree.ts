/**
 * Whole-process measurement for the engine comparisons (`bench/dense-vs-faiss.ts`,
 * `bench/bm25-vs-bm25s.ts`, `bench/metrics-vs-trec-eval.ts`): each side runs as a child of the
 * bench, one after the other, and its CPU time is what the kernel charged it from exec to exit
 * (user + system of the child and everything it waited for: interpreter start-up, imports, loading,
 * the work and writing the output), read from the bench's own `/proc/self/stat` children fields
 * before and after. Peak RSS comes from the child's own `getrusage`, printed on its last line.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/**
 * Runs `command args` as a child, waits for it, and returns its whole-process CPU seconds (from
 * the kernel's children accounting), wall seconds, and the JSON object on its last stdout line.
 * @throws Error naming the command and its stderr when it fails or prints no JSON.
 */
export function runSide<T>(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): SideRun<T> {
  const c0 = childrenCpuSeconds();
  const w0 = performance.now();
  const p = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 1 << 28 });
  const wallS = (performance.now() - w0) / 1000;
  const cpuS = childrenCpuSeconds() - c0;
  if (p.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${p.status ?? p.signal}: ${p.stderr || p.error}`);
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
