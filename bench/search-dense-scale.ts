/**
 * Exact dense top-k at scale: coreb's `denseTopKParallel` (WebAssembly SIMD kernel on all cores, a
 * `.npy` matrix read into one shared store, float32 or float16 storage) against faiss (IndexFlatIP;
 * for float16 IndexScalarQuantizer QT_fp16, the same float16-stored, float32-accumulated scan) and
 * numpy (BLAS matmul per block of documents + argpartition), on the same seeded random unit vectors
 * written as `.npy` files, at several corpus sizes to show the slope.
 *
 * Usage (heavy: run under the shared lock, e.g.
 *   flock /tmp/coreb-heavy.lock nice -n 5 node dist/bench/search-dense-scale.js --sizes 100000,1000000):
 *   node dist/bench/search-dense-scale.js [--sizes 100000,1000000] [--queries 1000] [--dim 384] [--k 100]
 *     [--dtypes float32,float16] [--threads N] [--dir /tmp/coreb-dense-scale] [--keep]
 *     [--python /usr/bin/python3] [--skip faiss,numpy] [--ref-threads N] [--kernels wasm,ort]
 * `--kernels wasm,ort` adds a coreb side per kernel (`ort`: onnxruntime's SGEMM through the optional
 * onnxruntime-node, `coreb float32 ort`), each compared with faiss, and ort's lists with wasm's.
 * `--ref-threads N` sets OMP_NUM_THREADS / OPENBLAS_NUM_THREADS of faiss and numpy (default: theirs,
 * all cores). On a loaded machine their spinning BLAS threads inflate CPU time; N = 1 gives their
 * best CPU time per query (compare with coreb's `--threads 1`).
 * Each side runs in its own process (peak RSS = that process's maximum resident set). Times are for
 * the search only (the vectors already loaded); CPU time counts every thread. Ratios are coreb /
 * reference from the same run. Exactness: how many of the top-k lists equal faiss's (floating
 * summation order differs, so near-equal scores may swap), and float16 against float32 (lists
 * changed, ranks moved, largest score difference).
 *
 * `--memory SIZE` (e.g. 256MB) adds coreb streamed sides: the documents are not loaded but read
 * from the `.npy` file in chunks (`openNpyChunks` + `denseTopKStreamed`, the path `embeddings:DIR`
 * takes for a matrix over its memory budget) with that budget, once right after the file's pages
 * were evicted from the page cache (fsync + posix_fadvise DONTNEED through python3: a cold read)
 * and once warm, each checked against the in-memory coreb lists (same documents and float32
 * scores, bit for bit). With `--memory` the coreb float16 sides read a float16 `.npy` file
 * (written once from the float32 one; the same values as rounding on load).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeStore } from '../src/core/vector-store.js';
import { float64ToF16 } from '../src/core/float-format.js';
import { streamChunkBytes } from '../src/dataset/embeddings-file.js';
import { loadNpyStore, npyHeader, openNpyChunks, readNpyHeader } from '../src/dataset/npy.js';
import { parseByteSize } from '../src/eval/retriever-spec.js';
import { denseTopKParallel, denseTopKStreamed } from '../src/search/dense.js';
import { readBenchArgs } from './args.js';
import { writeRandomNpy } from './support/random-vectors.js';

const args = readBenchArgs({
  script: 'search-dense-scale',
  about: `exact dense top-k at scale: coreb's denseTopKParallel (float32 or float16 storage) against faiss
(IndexFlatIP; IndexScalarQuantizer QT_fp16 for float16) and numpy (BLAS matmul + argpartition) on
the same seeded unit vectors, each side in its own process, at several corpus sizes: search wall
and CPU time, peak RSS, ratios coreb / reference, exactness against faiss. With --memory, coreb's
streamed search (cold and warm) against its in-memory lists. Heavy: run under
flock /tmp/coreb-heavy.lock nice -n 5.`,
  options: [
    { name: 'sizes', value: 'LIST', help: 'corpus sizes in documents, comma-separated (default 100000,1000000)' },
    { name: 'queries', value: 'N', help: 'queries (default 1000; in a child: the queries .npy file)' },
    { name: 'dim', value: 'N', help: 'vector dimension (default 384)' },
    { name: 'k', value: 'N', help: 'top-k depth (default 100)' },
    { name: 'dtypes', value: 'LIST', help: 'coreb storage types, of float32,float16 (default float32,float16)' },
    { name: 'threads', value: 'N', help: "coreb's worker threads (default 0: all cores)" },
    { name: 'dir', value: 'DIR', help: 'where the .npy files are written (default /tmp/coreb-dense-scale)' },
    { name: 'keep', help: 'keep DIR at the end (removed otherwise)' },
    { name: 'python', value: 'BIN', help: 'python with faiss and numpy (default /usr/bin/python3)' },
    { name: 'skip', value: 'LIST', help: 'references to skip, of faiss,numpy (default: none)' },
    { name: 'ref-threads', value: 'N', help: 'OMP/OpenBLAS threads of faiss and numpy (default: theirs, all cores)' },
    { name: 'memory', value: 'SIZE', help: "add coreb's streamed sides with this budget, e.g. 256MB (default: none)" },
    {
      name: 'kernels',
      value: 'LIST',
      help: "coreb's dot-product kernels, of wasm,ort (ort: onnxruntime SGEMM, optional onnxruntime-node; default wasm); the first is the one the ratio columns and streamed sides use",
    },
    { name: 'child', help: 'run one coreb side in this process', internal: true },
    { name: 'docs', value: 'FILE', help: 'child: the documents .npy file', internal: true },
    { name: 'dtype', value: 'TYPE', help: 'child: float32 or float16 (default float32)', internal: true },
    { name: 'kernel', value: 'NAME', help: 'child: wasm or ort (default wasm)', internal: true },
    { name: 'out', value: 'PREFIX', help: 'child: where the indices and scores are written', internal: true },
    { name: 'abort-after', value: 'MS', help: 'child: abort the streamed search after MS milliseconds (default 0: never)', internal: true },
  ],
});
const arg = (name: string, fallback: string): string => args.get(name) ?? fallback;

/** Writes a float16 copy of a float32 `.npy` file (rounded to nearest even), 8,192 rows at a time. */
function writeF16Copy(from: string, to: string): void {
  const h = readNpyHeader(from);
  const src = openSync(from, 'r');
  const fd = openSync(to, 'w');
  try {
    writeSync(fd, npyHeader(h.rows, h.dim, 'float16'));
    const step = 8192;
    const inBuf = Buffer.alloc(step * h.dim * 4);
    const outBuf = new Uint16Array(step * h.dim);
    for (let r = 0; r < h.rows; r += step) {
      const n = Math.min(step, h.rows - r);
      readSync(src, inBuf, 0, n * h.dim * 4, h.dataOffset + r * h.dim * 4);
      const f = new Float32Array(inBuf.buffer, inBuf.byteOffset, n * h.dim);
      for (let i = 0; i < f.length; i++) outBuf[i] = float64ToF16(f[i]);
      writeSync(fd, new Uint8Array(outBuf.buffer, 0, n * h.dim * 2));
    }
  } finally {
    closeSync(fd);
    closeSync(src);
  }
}

interface SideResult {
  loadMs: number;
  /** CPU time of the load (coreb sides). */
  loadCpuMs?: number;
  wallMs: number;
  cpuMs: number;
  maxRssMB: number;
}

/** The coreb side, in its own process: prints a SideResult, writes indices and scores. */
async function child(): Promise<void> {
  const dtype = arg('dtype', 'float32') as 'float32' | 'float16';
  const k = Number(arg('k', '100'));
  const threads = Number(arg('threads', '0'));
  const memory = arg('memory', '');
  const kernel = arg('kernel', 'wasm') as 'wasm' | 'ort';
  const t0 = performance.now();
  const l0 = process.cpuUsage();
  const q = loadNpyStore(arg('queries', ''), { dtype: 'float32' });
  const queries = { rows: q.rows, dim: q.dim, data: q.chunks[0] as Float32Array };
  // In memory: read and normalised (as embeddings:DIR does) before the search. Streamed: only the
  // header is read here; the chunks are read and normalised during the search (and counted in it).
  const docs =
    memory === ''
      ? loadNpyStore(arg('docs', ''), { dtype })
      : openNpyChunks(arg('docs', ''), { dtype, chunkBytes: streamChunkBytes(parseByteSize(memory) ?? 0) });
  if ('chunks' in docs) normalizeStore(docs, 'documents');
  const loadMs = performance.now() - t0;
  const l = process.cpuUsage(l0);
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  const abortAfter = Number(arg('abort-after', '0'));
  if (abortAfter > 0 && 'readChunk' in docs) {
    // Ctrl-C stand-in: abort after abortAfter ms, report how long the search took to stop.
    const ac = new AbortController();
    let at = 0;
    setTimeout(() => {
      at = performance.now();
      ac.abort(new Error('SIGINT'));
    }, abortAfter);
    const stopped = await denseTopKStreamed(queries, docs, k, { kernel, ...(threads > 0 ? { threads } : {}), signal: ac.signal }).then(
      () => 'finished',
      (e: Error) => e.message,
    );
    console.log(JSON.stringify({ stopMs: performance.now() - at, stopped }));
    return;
  }
  const opts = { kernel, ...(threads > 0 ? { threads } : {}) };
  const r = 'readChunk' in docs ? await denseTopKStreamed(queries, docs, k, opts) : await denseTopKParallel(queries, docs, k, opts);
  const c = process.cpuUsage(c0);
  const wallMs = performance.now() - w0;
  const out = arg('out', '');
  writeFileSync(`${out}.i32`, r.indices);
  writeFileSync(`${out}.f32`, r.scores);
  const res: SideResult = {
    loadMs,
    loadCpuMs: (l.user + l.system) / 1000,
    wallMs,
    cpuMs: (c.user + c.system) / 1000,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(res));
}

const PY = String.raw`
import sys, time, json, resource
side, dtype, dfile, qfile, k, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
import numpy as np
t0 = time.perf_counter()
D = np.load(dfile, mmap_mode=None)
Q = np.load(qfile)
if side == 'faiss':
    import faiss
    d = D.shape[1]
    if dtype == 'float16':
        index = faiss.IndexScalarQuantizer(d, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    else:
        index = faiss.IndexFlatIP(d)
    index.add(D)
    del D
    load = time.perf_counter() - t0
    w0 = time.perf_counter(); c0 = time.process_time()
    S, I = index.search(Q, k)
    wall = time.perf_counter() - w0; cpu = time.process_time() - c0
else:
    if dtype == 'float16':
        D = D.astype(np.float16)
    load = time.perf_counter() - t0
    w0 = time.perf_counter(); c0 = time.process_time()
    block = 65536
    bestS = np.full((Q.shape[0], 0), -np.inf, dtype=np.float32)
    bestI = np.zeros((Q.shape[0], 0), dtype=np.int64)
    for b in range(0, D.shape[0], block):
        Db = D[b:b + block]
        if Db.dtype != np.float32:
            Db = Db.astype(np.float32)
        Sb = Q @ Db.T
        kk = min(k, Sb.shape[1])
        part = np.argpartition(-Sb, kk - 1, axis=1)[:, :kk]
        cS = np.concatenate([bestS, np.take_along_axis(Sb, part, axis=1)], axis=1)
        cI = np.concatenate([bestI, part + b], axis=1)
        kk = min(k, cS.shape[1])
        keep = np.argpartition(-cS, kk - 1, axis=1)[:, :kk]
        bestS = np.take_along_axis(cS, keep, axis=1); bestI = np.take_along_axis(cI, keep, axis=1)
    order = np.argsort(-bestS, axis=1, kind='stable')
    S = np.take_along_axis(bestS, order, axis=1); I = np.take_along_axis(bestI, order, axis=1)
    wall = time.perf_counter() - w0; cpu = time.process_time() - c0
I.astype(np.int32).tofile(out + '.i32')
S.astype(np.float32).tofile(out + '.f32')
print(json.dumps({'loadMs': load * 1000, 'wallMs': wall * 1000, 'cpuMs': cpu * 1000, 'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

function readI32(f: string): Int32Array {
  const b = readFileSync(f);
  return new Int32Array(b.buffer, b.byteOffset, b.length / 4);
}
function readF32(f: string): Float32Array {
  const b = readFileSync(f);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

/** Lists (of `k`) with the same order, the same set, and rank positions that differ. */
function compareLists(a: Int32Array, b: Int32Array, nq: number, k: number): { sameOrder: number; sameSet: number; movedRanks: number } {
  let sameOrder = 0;
  let sameSet = 0;
  let movedRanks = 0;
  for (let q = 0; q < nq; q++) {
    let eq = true;
    const sa = new Set<number>();
    for (let i = 0; i < k; i++) {
      if (a[q * k + i] !== b[q * k + i]) {
        eq = false;
        movedRanks++;
      }
      sa.add(a[q * k + i]);
    }
    if (eq) sameOrder++;
    let set = true;
    for (let i = 0; i < k && set; i++) set = sa.has(b[q * k + i]);
    if (set) sameSet++;
  }
  return { sameOrder, sameSet, movedRanks };
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Drops `file`'s pages from the page cache (fsync, then posix_fadvise DONTNEED, through python3). */
function evict(python: string, file: string): void {
  const p = spawnSync(
    python,
    ['-c', 'import os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\nos.fsync(fd)\nos.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)', file],
    { encoding: 'utf8' },
  );
  if (p.status !== 0) console.log(`NOTE: could not evict ${file} from the page cache: ${p.stderr || p.error}`);
}

/** MB of `file` resident in the page cache (util-linux fincore), or undefined without fincore. */
function residentMB(file: string): number | undefined {
  const p = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' });
  const n = Number(p.stdout?.trim());
  return p.status === 0 && Number.isFinite(n) ? n / 2 ** 20 : undefined;
}

function main(): void {
  if (args.has('child')) {
    void child();
    return;
  }
  const sizes = arg('sizes', '100000,1000000').split(',').map(Number);
  const nq = Number(arg('queries', '1000'));
  const dim = Number(arg('dim', '384'));
  const k = Number(arg('k', '100'));
  const dtypes = arg('dtypes', 'float32,float16').split(',') as Array<'float32' | 'float16'>;
  const threads = arg('threads', '0');
  const dir = arg('dir', '/tmp/coreb-dense-scale');
  const python = arg('python', '/usr/bin/python3');
  const skip = new Set(arg('skip', '').split(','));
  const keep = args.has('keep');
  const refThreads = arg('ref-threads', '');
  const memory = arg('memory', '');
  const kernels = arg('kernels', 'wasm').split(',');
  for (const kn of kernels) if (kn !== 'wasm' && kn !== 'ort') throw new Error(`--kernels: ${kn} is not one of wasm, ort`);
  /** A coreb side's name: `coreb float32`, `coreb float32 ort`. */
  const sideName = (dtype: string, kn: string) => (kn === 'wasm' ? `coreb ${dtype}` : `coreb ${dtype} ${kn}`);
  if (memory !== '' && parseByteSize(memory) === undefined) throw new Error(`--memory ${memory}: expected a size such as 256MB`);
  const pyEnv = {
    ...process.env,
    ...(refThreads !== '' ? { OMP_NUM_THREADS: refThreads, OPENBLAS_NUM_THREADS: refThreads, MKL_NUM_THREADS: refThreads } : {}),
  };
  const sides: Array<'faiss' | 'numpy'> = [];
  for (const [side, mod] of [
    ['faiss', 'faiss'],
    ['numpy', 'numpy'],
  ] as const) {
    if (skip.has(side)) continue;
    const probe = spawnSync(python, ['-c', `import ${mod}`], { encoding: 'utf8' });
    if (probe.status !== 0) {
      console.log(
        `NOTE: ${side} is missing for ${python} (${(probe.stderr || String(probe.error ?? '')).trim().split('\n').pop()}); ` +
          `install Debian python3-${side === 'faiss' ? 'faiss' : 'numpy'} (or pass --python). Comparing without it.`,
      );
      continue;
    }
    sides.push(side);
  }
  mkdirSync(dir, { recursive: true });
  const self = fileURLToPath(import.meta.url);
  const pyFile = join(dir, 'side.py');
  writeFileSync(pyFile, PY);
  const qFile = join(dir, `queries_${nq}x${dim}.npy`);
  try {
    if (!existsSync(qFile)) writeRandomNpy(qFile, nq, dim, 2);
    console.log(
      `exact dense top-${k}: ${nq} queries x dim ${dim}, seeded random unit vectors; coreb threads: ${threads === '0' ? 'all' : threads}, faiss/numpy threads: ${refThreads === '' ? 'all' : refThreads}`,
    );
    console.log(
      'side                      docs      load s   wall s    cpu s  GFLOP/s/cpu  peak RSS MB  cpu ratio  wall ratio  same lists (order/set)',
    );
    const summary: string[] = [];
    /** Runs one coreb side in its own process (`--child`) and returns its exit and last stdout line. */
    const corebChild = (docs: string, dtype: string, kernel: string, extra: string[]) => {
      const args = [
        self,
        '--child',
        '--docs',
        docs,
        '--queries',
        qFile,
        '--dtype',
        dtype,
        '--k',
        String(k),
        '--threads',
        threads,
        '--kernel',
        kernel,
        ...extra,
      ];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
      return { status: r.status, stderr: r.stderr, last: r.stdout.trim().split('\n').pop() ?? '' };
    };
    const cpuBySide: Record<string, Array<[number, number, number]>> = {};
    for (const nd of sizes) {
      const dFile = join(dir, `docs_${nd}x${dim}.npy`);
      if (!existsSync(dFile)) writeRandomNpy(dFile, nd, dim, 1);
      const f16File = join(dir, `docs_${nd}x${dim}_f16.npy`);
      if (memory !== '' && dtypes.includes('float16') && !existsSync(f16File)) writeF16Copy(dFile, f16File);
      const coreFile = (dtype: string) => (memory !== '' && dtype === 'float16' ? f16File : dFile);
      const flop = 2 * nq * nd * dim;
      const results: Record<string, SideResult & { out: string }> = {};
      for (const dtype of dtypes) {
        for (const kn of kernels) {
          const out = join(dir, `coreb_${nd}_${dtype}${kn === 'wasm' ? '' : `_${kn}`}`);
          const r = corebChild(coreFile(dtype), dtype, kn, ['--out', out]);
          if (r.status !== 0) throw new Error(`coreb side failed: ${r.stderr}`);
          results[sideName(dtype, kn)] = { ...(JSON.parse(r.last) as SideResult), out };
        }
        for (const side of sides) {
          const pout = join(dir, `${side}_${nd}_${dtype}`);
          const p = spawnSync(python, [pyFile, side, dtype, dFile, qFile, String(k), pout], { encoding: 'utf8', maxBuffer: 1 << 24, env: pyEnv });
          if (p.status !== 0) throw new Error(`${side} side failed: ${p.stderr}`);
          results[`${side} ${dtype}`] = { ...(JSON.parse(p.stdout.trim().split('\n').pop() as string) as SideResult), out: pout };
        }
        const ours = results[sideName(dtype, kernels[0])];
        for (const name of [...kernels.map((kn) => sideName(dtype, kn)), ...sides.map((s) => `${s} ${dtype}`)]) {
          const x = results[name];
          (cpuBySide[name] ??= []).push([nd, x.cpuMs, x.maxRssMB]);
          const ref = name.startsWith('coreb') ? undefined : x;
          const same = ref !== undefined ? compareLists(readI32(`${ours.out}.i32`), readI32(`${ref.out}.i32`), nq, k) : undefined;
          console.log(
            `${name.padEnd(22)} ${String(nd).padStart(8)} ${(x.loadMs / 1000).toFixed(2).padStart(8)} ${(x.wallMs / 1000).toFixed(2).padStart(8)} ${(x.cpuMs / 1000).toFixed(2).padStart(8)} ${(flop / x.cpuMs / 1e6).toFixed(1).padStart(12)} ${x.maxRssMB.toFixed(0).padStart(12)}` +
              (ref !== undefined
                ? ` ${(ours.cpuMs / ref.cpuMs).toFixed(2).padStart(9)}x ${(ours.wallMs / ref.wallMs).toFixed(2).padStart(10)}x  ${same?.sameOrder}/${nq} / ${same?.sameSet}/${nq}`
                : ''),
          );
          if (ref !== undefined) {
            for (const kn of kernels) {
              const x = results[sideName(dtype, kn)];
              const s = compareLists(readI32(`${x.out}.i32`), readI32(`${ref.out}.i32`), nq, k);
              summary.push(
                `${nd} docs ${dtype}: ${kn === 'wasm' ? 'coreb' : `coreb ${kn}`}/${name.split(' ')[0]} cpu ${(x.cpuMs / ref.cpuMs).toFixed(2)}x wall ${(x.wallMs / ref.wallMs).toFixed(2)}x, peak RSS ${x.maxRssMB.toFixed(0)} vs ${ref.maxRssMB.toFixed(0)} MB, same lists ${s.sameOrder}/${nq} (sets ${s.sameSet}/${nq})`,
              );
            }
          }
        }
        if (kernels.length > 1) {
          const a = results[sideName(dtype, kernels[0])];
          for (const kn of kernels.slice(1)) {
            const b = results[sideName(dtype, kn)];
            const c = compareLists(readI32(`${b.out}.i32`), readI32(`${a.out}.i32`), nq, k);
            console.log(
              `  ${kn} vs ${kernels[0]} (coreb ${dtype}, ${nd} docs): identical lists ${c.sameOrder}/${nq}, same sets ${c.sameSet}/${nq}, rank positions that differ ${c.movedRanks}/${nq * k}, max |score diff| at equal ranks ${maxDiff(readF32(`${b.out}.f32`), readF32(`${a.out}.f32`)).toExponential(2)}`,
            );
          }
        }
        if (memory !== '') {
          const sFile = coreFile(dtype);
          for (const phase of ['cold', 'warm']) {
            if (phase === 'cold') evict(python, sFile);
            const resident = residentMB(sFile);
            const sout = join(dir, `coreb_${nd}_${dtype}_streamed`);
            const r = corebChild(sFile, dtype, kernels[0], ['--memory', memory, '--out', sout]);
            if (r.status !== 0) throw new Error(`coreb streamed side failed: ${r.stderr}`);
            const x = JSON.parse(r.last) as SideResult;
            const name = `coreb ${dtype} streamed ${phase}`;
            (cpuBySide[name] ??= []).push([nd, x.cpuMs, x.maxRssMB]);
            const same = compareLists(readI32(`${sout}.i32`), readI32(`${ours.out}.i32`), nq, k);
            const bitForBit = readFileSync(`${sout}.f32`).equals(readFileSync(`${ours.out}.f32`)) && same.sameOrder === nq;
            console.log(
              `${name.padEnd(22)} ${String(nd).padStart(8)} ${(x.loadMs / 1000).toFixed(2).padStart(8)} ${(x.wallMs / 1000).toFixed(2).padStart(8)} ${(x.cpuMs / 1000).toFixed(2).padStart(8)} ${(flop / x.cpuMs / 1e6).toFixed(1).padStart(12)} ${x.maxRssMB.toFixed(0).padStart(12)}` +
                ` ${(x.cpuMs / ours.cpuMs).toFixed(2).padStart(9)}x ${(x.wallMs / ours.wallMs).toFixed(2).padStart(10)}x  ${same.sameOrder}/${nq} vs in-memory, scores ${bitForBit ? 'bit for bit' : 'DIFFER'}` +
                (resident !== undefined ? `; ${resident.toFixed(0)} MB of the file in page cache before` : ''),
            );
            if (phase === 'warm') {
              const a = corebChild(sFile, dtype, kernels[0], ['--memory', memory, '--abort-after', '3000']);
              const stop = JSON.parse(a.last === '' ? '{}' : a.last) as { stopMs?: number; stopped?: string };
              console.log(
                stop.stopped === 'finished'
                  ? `  ${name}: finished before an abort 3 s in`
                  : `  ${name}: aborted 3 s in, the search stopped ${stop.stopMs?.toFixed(0)} ms later (${stop.stopped})`,
              );
            }
            summary.push(
              `${nd} docs ${dtype} streamed (${memory}, ${phase}): cpu ${(x.cpuMs / ours.cpuMs).toFixed(2)}x wall ${(x.wallMs / ours.wallMs).toFixed(2)}x in-memory coreb (in-memory load ${(ours.loadMs / 1000).toFixed(2)} s wall, ${((ours.loadCpuMs ?? 0) / 1000).toFixed(2)} s CPU not counted), peak RSS ${x.maxRssMB.toFixed(0)} vs ${ours.maxRssMB.toFixed(0)} MB, identical ${bitForBit ? 'yes' : 'NO'}`,
            );
          }
        }
      }
      if (results['coreb float16'] !== undefined && results['coreb float32'] !== undefined) {
        const a = results['coreb float32'].out;
        const b = results['coreb float16'].out;
        const c = compareLists(readI32(`${a}.i32`), readI32(`${b}.i32`), nq, k);
        console.log(
          `  float16 vs float32 (coreb, ${nd} docs): identical lists ${c.sameOrder}/${nq}, same sets ${c.sameSet}/${nq}, rank positions that differ ${c.movedRanks}/${nq * k}, max |score diff| at equal ranks ${maxDiff(readF32(`${a}.f32`), readF32(`${b}.f32`)).toExponential(2)}`,
        );
      }
    }
    if (sizes.length > 1) {
      console.log('slope from the smallest to the largest size (CPU seconds and peak RSS MB per million documents):');
      for (const [name, pts] of Object.entries(cpuBySide)) {
        const [a, b] = [pts[0], pts[pts.length - 1]];
        const per = 1e6 / (b[0] - a[0]);
        console.log(
          `  ${name.padEnd(22)} cpu ${(((b[1] - a[1]) / 1000) * per).toFixed(1)} s/M docs, RSS ${((b[2] - a[2]) * per).toFixed(0)} MB/M docs`,
        );
      }
    }
    for (const s of summary) console.log(`  ${s}`);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

main();
