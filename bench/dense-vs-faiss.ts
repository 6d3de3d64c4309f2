/**
 * Exact dense retrieval, the whole process, coreb against faiss: each side is a child of this
 * bench that reads an `embeddings:DIR` directory (docs.npy + docs.ids, queries.npy + queries.ids),
 * ranks every query against every document by inner product of the L2-normalised rows (top-k,
 * exact), and writes a TREC run. coreb's side is the path `coreb eval --retriever embeddings:DIR`
 * takes (`createRetriever` on the spec, `index`, `search`), with the documents' ids as the corpus;
 * faiss's is numpy `np.load` + `faiss.normalize_L2` + `IndexFlatIP` + `search`, the same files in and
 * the same run out. Both on one thread. CPU time is the kernel's whole-process count (see
 * `bench/support/process-tree.ts`); the bench prints the CPU, the kernel coreb ran, the BLAS faiss ran
 * (threadpoolctl), coreb's phases (start-up, vectors, ids, index, search, writing) and how many
 * top-k sets agree.
 *
 *   node dist/bench/dense-vs-faiss.js [--shapes 100000x768,1000000x384] [--queries 1000] [--k 100]
 *     [--dtypes float32,float16] [--kernels default] [--repeat 3] [--dir /tmp/coreb-dense-vs-faiss]
 *     [--python python3] [--keep-openblas-pins]
 */
import { existsSync, mkdirSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readIdLines } from '../src/dataset/npy.js';
import { createRetriever } from '../src/eval/create-retriever.js';
import { parseRetrieverSpec } from '../src/eval/retriever-spec.js';
import { hugePagesEnv } from '../src/cli/huge-pages.js';
import { readBenchArgs } from './args.js';
import { writeRandomNpy } from './support/random-vectors.js';
import { cpuDescription, median, oneThreadEnv, referenceBlasEnv, runSide } from './support/process-tree.js';

const args = readBenchArgs({
  script: 'dense-vs-faiss',
  about: `exact dense retrieval, whole process, coreb (the embeddings:DIR path of coreb eval) against faiss
IndexFlatIP (numpy load + normalize_L2 + search), one thread each, the same .npy and ids files in and a
TREC run out: median whole-process CPU seconds (user + system, from exec to exit), the ratio coreb / faiss,
peak RSS, coreb's phases, and how many top-k sets agree. Prints the CPU model, the kernel coreb ran and
the BLAS faiss ran.`,
  options: [
    { name: 'shapes', value: 'LIST', help: 'corpus shapes DOCSxDIM, comma-separated (default 100000x768,1000000x384)' },
    { name: 'queries', value: 'N', help: 'queries (default 1000)' },
    { name: 'k', value: 'N', help: 'top-k depth (default 100)' },
    { name: 'dtypes', value: 'LIST', help: "coreb's document storage, of float32,float16 (default float32,float16)" },
    { name: 'kernels', value: 'LIST', help: "coreb's kernels, of default,ort,wasm (default: default)" },
    { name: 'repeat', value: 'N', help: 'runs of each side; medians are reported (default 3)' },
    { name: 'dir', value: 'DIR', help: 'where the embeddings directories are written and kept (default /tmp/coreb-dense-vs-faiss)' },
    { name: 'python', value: 'BIN', help: 'python with numpy and faiss-cpu (default python3)' },
    {
      name: 'keep-openblas-pins',
      help: "run faiss with this machine's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (default: without them, and SkylakeX on an AVX-512 CPU)",
    },
    { name: 'child', help: 'run the coreb side in this process', internal: true },
    { name: 'data', value: 'DIR', help: 'child: the embeddings directory', internal: true },
    { name: 'dtype', value: 'TYPE', help: 'child: float32 or float16', internal: true },
    { name: 'kernel', value: 'NAME', help: 'child: default, ort or wasm', internal: true },
    { name: 'out', value: 'FILE', help: 'child: the run file written', internal: true },
  ],
});
const arg = (name: string, fallback: string): string => args.get(name) ?? fallback;

/** Writes `rows x dim` seeded random unit vectors as float32 .npy, and `rows` ids (MS MARCO-like decimal strings) beside it. */
function writeTable(dir: string, name: string, rows: number, dim: number, seed: number): void {
  const npy = join(dir, `${name}.npy`);
  if (existsSync(npy) && existsSync(join(dir, `${name}.ids`))) return;
  writeRandomNpy(npy, rows, dim, seed);
  // Ids in a shuffled order (not the sort order), so the tie ranks are real work.
  const ids = Array.from({ length: rows }, (_, i) => String(((i * 2654435761) >>> 0) % 100_000_000).padStart(1, '0'));
  const seen = new Set<string>();
  const fdIds = openSync(join(dir, `${name}.ids`), 'w');
  try {
    const lines: string[] = [];
    for (let i = 0; i < rows; i++) {
      let id = ids[i];
      while (seen.has(id)) id = `${id}x`;
      seen.add(id);
      lines.push(id);
    }
    writeSync(fdIds, `${lines.join('\n')}\n`);
  } finally {
    closeSync(fdIds);
  }
}

interface CorebReport {
  kernel: string;
  phases: Record<string, number>;
  maxRssMB: number;
}

/** The coreb side: the `embeddings:DIR` retriever of `coreb eval`, the documents' ids as the corpus. */
async function child(): Promise<void> {
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const phases: Record<string, number> = { startup: cpu() };
  let last = phases.startup;
  const mark = (name: string): void => {
    const now = cpu();
    phases[name] = now - last;
    last = now;
  };
  const dir = arg('data', '');
  const k = Number(arg('k', '100'));
  const kernel = arg('kernel', 'default');
  const params = [`threads=1`, `dtype=${arg('dtype', 'float32')}`, ...(kernel === 'default' ? [] : [`kernel=${kernel}`])];
  const retriever = await createRetriever(parseRetrieverSpec(`embeddings:${dir}?${params.join('&')}`), { baseDir: process.cwd(), env: {} });
  mark('vectors');
  // The corpus as a loader gives it: the ids (their uniqueness is checked by index()).
  const docs = (await readIdLines(join(dir, 'docs.ids'))).map((id) => ({ id, text: '' }));
  const queries = (await readIdLines(join(dir, 'queries.ids'))).map((id) => ({ id, text: '' }));
  mark('ids');
  const index = await retriever.index(docs);
  mark('index');
  const lists = await index.search(queries, k);
  mark('search');
  const fd = openSync(arg('out', ''), 'w');
  try {
    const lines: string[] = [];
    for (const [qid, list] of lists) {
      for (let i = 0; i < list.docIds.length; i++) lines.push(`${qid} Q0 ${list.docIds[i]} ${i + 1} ${list.scores[i]} coreb\n`);
      if (lines.length > 65536) writeSync(fd, lines.splice(0).join(''));
    }
    writeSync(fd, lines.join(''));
  } finally {
    closeSync(fd);
  }
  mark('write');
  const described = retriever.describe() as { kernel?: string };
  const report: CorebReport = { kernel: described.kernel ?? '?', phases, maxRssMB: process.resourceUsage().maxRSS / 1024 };
  console.log(JSON.stringify(report));
}

const PY = String.raw`
import sys, json, resource
d, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
import numpy as np
import faiss
faiss.omp_set_num_threads(1)
D = np.load(d + '/docs.npy')
Q = np.load(d + '/queries.npy')
doc_ids = open(d + '/docs.ids', encoding='utf-8').read().split('\n')[:D.shape[0]]
qids = open(d + '/queries.ids', encoding='utf-8').read().split('\n')[:Q.shape[0]]
faiss.normalize_L2(D)
faiss.normalize_L2(Q)
index = faiss.IndexFlatIP(D.shape[1])
index.add(D)
del D
S, I = index.search(Q, k)
with open(out, 'w', encoding='utf-8') as f:
    for q in range(Q.shape[0]):
        qid = qids[q]
        f.write(''.join('%s Q0 %s %d %r faiss\n' % (qid, doc_ids[I[q, i]], i + 1, float(S[q, i])) for i in range(k) if I[q, i] >= 0))
blas = '?'
try:
    from threadpoolctl import threadpool_info
    blas = '; '.join('%s %s %s (%s threads)' % (p.get('internal_api'), p.get('version'), p.get('architecture', ''), p.get('num_threads')) for p in threadpool_info())
except Exception as e:
    blas = 'threadpoolctl not installed'
print(json.dumps({'blas': blas, 'faiss': faiss.__version__, 'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

/** Per query, the set of its top-k document ids in a run file. */
function readSets(file: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const [q, , d] = line.split(' ');
    let s = out.get(q);
    if (s === undefined) out.set(q, (s = new Set()));
    s.add(d);
  }
  return out;
}

function sameSets(a: Map<string, Set<string>>, b: Map<string, Set<string>>): number {
  let same = 0;
  for (const [q, s] of a) {
    const t = b.get(q);
    if (t !== undefined && t.size === s.size && [...s].every((d) => t.has(d))) same++;
  }
  return same;
}

function main(): void {
  if (args.has('child')) {
    void child();
    return;
  }
  const shapes = arg('shapes', '100000x768,1000000x384')
    .split(',')
    .map((s) => s.split('x').map(Number) as [number, number]);
  const nq = Number(arg('queries', '1000'));
  const k = Number(arg('k', '100'));
  const dtypes = arg('dtypes', 'float32,float16').split(',');
  const kernels = arg('kernels', 'default').split(',');
  const repeat = Number(arg('repeat', '3'));
  const root = arg('dir', '/tmp/coreb-dense-vs-faiss');
  const python = arg('python', 'python3');
  const self = fileURLToPath(import.meta.url);
  const pyEnv = oneThreadEnv(referenceBlasEnv(process.env, args.has('keep-openblas-pins')));
  // The coreb side starts as the `coreb` CLI starts its heavy commands with COREB_HUGE_PAGES=1
  // (src/cli/huge-pages.ts).
  const corebEnv = hugePagesEnv({ ...process.env, COREB_HUGE_PAGES: '1' }) ?? process.env;
  console.log(
    `CPU: ${cpuDescription()}; node ${process.version}; ${nq} queries, top-${k}, one thread each, ${repeat} runs (medians); coreb GLIBC_TUNABLES=${corebEnv.GLIBC_TUNABLES ?? '(unset)'}`,
  );
  const rows: string[] = [
    '| corpus | side | CPU s (median) | wall s | peak RSS MB | coreb / faiss CPU | same top-k sets as faiss |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [nd, dim] of shapes) {
    const dir = join(root, `${nd}x${dim}`);
    mkdirSync(dir, { recursive: true });
    writeTable(dir, 'docs', nd, dim, 12345);
    writeTable(dir, 'queries', nq, dim, 777);
    const shape = `${nd.toLocaleString('en-US')} x ${dim}`;
    const faissRuns = Array.from({ length: repeat }, () =>
      runSide<{ blas: string; faiss: string; maxRssMB: number }>(python, ['-c', PY, dir, String(k), join(dir, 'faiss.run')], pyEnv),
    );
    const faissCpu = median(faissRuns.map((r) => r.cpuS));
    const faissSets = readSets(join(dir, 'faiss.run'));
    console.log(`${shape}: faiss ${faissRuns[0].report.faiss}, BLAS: ${faissRuns[0].report.blas}`);
    rows.push(
      `| ${shape} | faiss IndexFlatIP float32 | ${faissCpu.toFixed(2)} | ${median(faissRuns.map((r) => r.wallS)).toFixed(2)} | ${Math.round(faissRuns[0].report.maxRssMB)} | | |`,
    );
    for (const kernel of kernels) {
      for (const dtype of dtypes) {
        const out = join(dir, `coreb-${kernel}-${dtype}.run`);
        const runs = Array.from({ length: repeat }, () =>
          runSide<CorebReport>(
            process.execPath,
            [self, '--child', '--data', dir, '--k', String(k), '--dtype', dtype, '--kernel', kernel, '--out', out],
            corebEnv,
          ),
        );
        const cpu = median(runs.map((r) => r.cpuS));
        const phases = Object.entries(runs[0].report.phases)
          .map(([p, s]) => `${p} ${s.toFixed(2)}`)
          .join(', ');
        console.log(`${shape}: coreb ${dtype} kernel ${kernel} ran ${runs[0].report.kernel}; phases (CPU s, first run): ${phases}`);
        if (runs[0].stderr.trim() !== '') console.log(`  stderr: ${runs[0].stderr.trim()}`);
        rows.push(
          `| ${shape} | coreb ${dtype}${kernel === 'default' ? '' : ` kernel=${kernel}`} | ${cpu.toFixed(2)} | ${median(runs.map((r) => r.wallS)).toFixed(2)} | ${Math.round(runs[0].report.maxRssMB)} | ${(cpu / faissCpu).toFixed(2)}x | ${sameSets(readSets(out), faissSets)} / ${nq} |`,
        );
      }
    }
  }
  console.log(rows.join('\n'));
}

main();
