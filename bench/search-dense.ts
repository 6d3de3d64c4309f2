/**
 * Exact dense top-k throughput: coreb's `denseTopK` (WebAssembly SIMD and scalar JS kernels) against numpy (BLAS matmul + argpartition
 * top-k, then a sort of the k survivors) on the same normalised float32 data written to disk.
 *
 * Usage: node dist/bench/search-dense.js [--docs 20000] [--queries 1000] [--dim 768] [--k 100]
 *        [--repeat 5] [--threads N]   (N = OpenBLAS threads for numpy; default: all cores)
 * Prints the median wall and CPU time of each side (scoring + top-k; loading and normalising
 * excluded), queries per second, the ratios (CPU time is the fairer figure on a busy machine), and how many top-k lists agree (ties may differ in numpy, whose
 * argpartition has no docid tie-break; float32 vs double accumulation can swap near-equal scores).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DenseKernel } from '../src/search/dense.js';
import { normalizeMatrix } from '../src/core/embedding.js';
import { defaultDenseKernel, denseTopK } from '../src/search/dense.js';
import { createTieRanks } from '../src/search/top-k.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'search-dense',
  about: `exact dense top-k throughput: coreb's denseTopK (WebAssembly SIMD and scalar JS kernels) against
numpy (BLAS matmul + argpartition top-k) on the same normalised float32 data: median wall and CPU
time per side (scoring + top-k), queries per second, the ratios, and how many top-k lists agree.`,
  options: [
    { name: 'docs', value: 'N', help: 'documents (default 20000)' },
    { name: 'queries', value: 'N', help: 'queries (default 1000)' },
    { name: 'dim', value: 'N', help: 'vector dimension (default 768)' },
    { name: 'k', value: 'N', help: 'top-k depth (default 100)' },
    { name: 'repeat', value: 'N', help: 'timed runs; the median is printed (default 5)' },
    { name: 'threads', value: 'N', help: 'OpenBLAS threads for numpy (default 0: all cores)' },
  ],
});
const flag = (name: string, fallback: number): number => {
  const v = args.get(name);
  return v !== undefined ? Number(v) : fallback;
};

const nd = flag('docs', 20000);
const nq = flag('queries', 1000);
const dim = flag('dim', 768);
const k = flag('k', 100);
const repeat = flag('repeat', 5);
const threads = flag('threads', 0);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function randomMatrix(rows: number, seed: number): Float32Array {
  let a = seed >>> 0;
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    out[i] = a / 4294967296 - 0.5;
  }
  return out;
}

const PY = String.raw`
import sys, time, numpy as np
d, q, dim, k, rep, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
D = np.fromfile(d, dtype=np.float32).reshape(-1, dim)
Q = np.fromfile(q, dtype=np.float32).reshape(-1, dim)
times = []
cpus = []
for _ in range(rep):
    t0 = time.perf_counter()
    c0 = time.process_time()
    S = Q @ D.T
    part = np.argpartition(-S, k - 1, axis=1)[:, :k]
    ps = np.take_along_axis(S, part, axis=1)
    order = np.argsort(-ps, axis=1, kind='stable')
    top = np.take_along_axis(part, order, axis=1)
    times.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
top.astype(np.int32).tofile(out)
print(' '.join(f'{t * 1000:.3f}' for t in times))
print(' '.join(f'{t * 1000:.3f}' for t in cpus))
`;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-dense-bench-'));
  try {
    const docs = normalizeMatrix({ rows: nd, dim, data: randomMatrix(nd, 1) });
    const queries = normalizeMatrix({ rows: nq, dim, data: randomMatrix(nq, 2) });
    writeFileSync(join(dir, 'd.f32'), docs.data);
    writeFileSync(join(dir, 'q.f32'), queries.data);
    writeFileSync(join(dir, 'bench.py'), PY);
    const ids = Array.from({ length: nd }, (_, i) => `doc${i}`);
    const tieRanks = createTieRanks(ids);

    const measure = (kernel: DenseKernel) => {
      const wall: number[] = [];
      const cpu: number[] = [];
      let result = denseTopK(queries, docs, k, { tieRanks, kernel });
      for (let r = 0; r < repeat; r++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        result = denseTopK(queries, docs, k, { tieRanks, kernel });
        const c = process.cpuUsage(c0);
        wall.push(performance.now() - t0);
        cpu.push((c.user + c.system) / 1000);
      }
      return { wall: median(wall), cpu: median(cpu), result };
    };
    const kernels = (['wasm', 'js'] as const).filter((kk) => kk === 'js' || defaultDenseKernel() === 'wasm');
    const ours = kernels.map((kernel) => ({ kernel, ...measure(kernel) }));

    const env = { ...process.env };
    if (threads > 0) env.OPENBLAS_NUM_THREADS = String(threads);
    const py = spawnSync(
      'python3',
      [join(dir, 'bench.py'), join(dir, 'd.f32'), join(dir, 'q.f32'), String(dim), String(k), String(repeat), join(dir, 'top.i32')],
      { encoding: 'utf8', env },
    );
    if (py.status !== 0) throw new Error(`python3/numpy failed: ${py.stderr}`);
    const [pyWallLine, pyCpuLine] = py.stdout.trim().split('\n');
    const pyTimes = pyWallLine.trim().split(/\s+/).map(Number);
    const pyCpu = pyCpuLine.trim().split(/\s+/).map(Number);
    const pyTop = new Int32Array(readFileSync(join(dir, 'top.i32')).buffer.slice(0));
    const flops = 2 * nq * nd * dim;
    const line = (name: string, wall: number, cpu: number) =>
      `${name}: wall ${wall.toFixed(1)} ms (${((nq / wall) * 1000).toFixed(0)} queries/s, ${(flops / wall / 1e6).toFixed(2)} GFLOP/s), cpu ${cpu.toFixed(1)} ms`;
    const np = median(pyTimes);
    const npCpu = median(pyCpu);
    console.log(`dense exact top-${k}: ${nq} queries x ${nd} docs x dim ${dim} (float32), ${repeat} runs, medians`);
    console.log(line(`numpy matmul+argpartition (${threads > 0 ? threads : 'all'} BLAS threads)`, np, npCpu));
    for (const o of ours) {
      let same = 0;
      for (let q = 0; q < nq; q++) {
        let eq = true;
        for (let i = 0; i < k && eq; i++) eq = o.result.indices[q * o.result.k + i] === pyTop[q * k + i];
        if (eq) same++;
      }
      console.log(line(`coreb denseTopK ${o.kernel} (1 thread)`, o.wall, o.cpu));
      console.log(
        `  ratio coreb ${o.kernel}/numpy: wall ${(o.wall / np).toFixed(2)}x, cpu ${(o.cpu / npCpu).toFixed(2)}x; identical top-${k} lists: ${same}/${nq}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
