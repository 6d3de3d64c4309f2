/**
 * Exact dense retrieval, the whole process, coreb against faiss. coreb's side is the command a user
 * types, run as the user runs it: `bin/coreb.js eval --data BEIR --retriever embeddings:DIR --out OUT`
 * (the `coreb` executable itself, the environment as the bench was given it, the user's cache), on a
 * BEIR directory whose corpus (one short text per document), queries and qrels match the vectors'
 * ids: the corpus and queries loaded and checked, the vectors read, the search at eval's default
 * depth (1,000), the measures, results.json and the gzip run file at the depth the measures read
 * (100). faiss's side is numpy `np.load` + `faiss.normalize_L2` + `IndexFlatIP` + `search` at the
 * same depth (1,000), the same files in and the top 100 of each query written as a TREC run. coreb
 * runs on its default threads (all cores), faiss on one (OMP, BLAS pools of one). CPU time is the
 * kernel's whole-process count (user + system of each child, see `bench/support/process-tree.ts`);
 * peak RSS from `/usr/bin/time` where it is installed. The bench prints the CPU, the BLAS faiss ran
 * (threadpoolctl) and how many top-100 sets agree.
 *
 *   node dist/bench/dense-vs-faiss.js [--shapes 100000x768,1000000x384] [--queries 1000] [--k 100]
 *     [--dtypes float32,float16] [--kernels default] [--repeat 3] [--dir /tmp/coreb-dense-vs-faiss]
 *     [--python python3] [--keep-openblas-pins]
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readBenchArgs } from './args.js';
import { writeRandomNpy } from './support/random-vectors.js';
import { cpuDescription, median, oneThreadEnv, referenceBlasEnv, runTimed } from './support/process-tree.js';

const args = readBenchArgs({
  script: 'dense-vs-faiss',
  about: `exact dense retrieval, whole process: coreb's command line as a user types it (bin/coreb.js eval
--data BEIR --retriever embeddings:DIR --out OUT, the corpus loaded, default threads) against faiss
IndexFlatIP (numpy load + normalize_L2 + search at the same depth, one thread), the same vectors in and a
TREC run out: median whole-process CPU seconds (user + system), wall, peak RSS, the ratios coreb / faiss,
and how many top-k sets agree. Prints the CPU model and the BLAS faiss ran.`,
  options: [
    { name: 'shapes', value: 'LIST', help: 'corpus shapes DOCSxDIM, comma-separated (default 100000x768,1000000x384)' },
    { name: 'queries', value: 'N', help: 'queries (default 1000)' },
    { name: 'k', value: 'N', help: 'documents per query in the compared runs (default 100: what coreb eval writes)' },
    { name: 'dtypes', value: 'LIST', help: "coreb's document storage, of float32,float16 (default float32,float16)" },
    { name: 'kernels', value: 'LIST', help: "coreb's kernels, of default,ort,wasm (default: default, no kernel= in the spec)" },
    { name: 'repeat', value: 'N', help: 'runs of each side; medians are reported (default 3)' },
    { name: 'dir', value: 'DIR', help: 'where the vectors and BEIR directories are written and kept (default /tmp/coreb-dense-vs-faiss)' },
    { name: 'python', value: 'BIN', help: 'python with numpy and faiss-cpu (default python3)' },
    {
      name: 'keep-openblas-pins',
      help: "run faiss with this machine's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (default: without them, and SkylakeX on an AVX-512 CPU)",
    },
  ],
});
const arg = (name: string, fallback: string): string => args.get(name) ?? fallback;
/** eval's default depth: both sides search this deep. */
const SEARCH_DEPTH = 1000;

/** Writes `rows x dim` seeded random unit vectors as float32 .npy, and `rows` ids beside it; returns the ids. */
function writeTable(dir: string, name: string, rows: number, dim: number, seed: number, prefix: string): string[] {
  const npy = join(dir, `${name}.npy`);
  const idsFile = join(dir, `${name}.ids`);
  if (existsSync(npy) && existsSync(idsFile)) return readFileSync(idsFile, 'utf8').split('\n').slice(0, rows);
  writeRandomNpy(npy, rows, dim, seed);
  // Ids in a shuffled order (not the sort order), so the tie ranks are real work.
  const ids = Array.from({ length: rows }, (_, i) => `${prefix}${((i * 2654435761) >>> 0).toString(36)}${i.toString(36)}`);
  writeLines(idsFile, ids);
  return ids;
}

function writeLines(file: string, lines: readonly string[]): void {
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < lines.length; i += 65536) writeSync(fd, `${lines.slice(i, i + 65536).join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
}

/** A BEIR directory for the vectors' ids: a short text per document and query, one relevant document per query. */
function writeBeir(dir: string, docIds: readonly string[], queryIds: readonly string[]): void {
  if (existsSync(join(dir, 'qrels', 'test.tsv'))) return;
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeLines(
    join(dir, 'corpus.jsonl'),
    docIds.map((id) => JSON.stringify({ _id: id, title: '', text: `document ${id}` })),
  );
  writeLines(
    join(dir, 'queries.jsonl'),
    queryIds.map((id) => JSON.stringify({ _id: id, text: `query ${id}` })),
  );
  writeLines(join(dir, 'qrels', 'test.tsv'), [
    'query-id\tcorpus-id\tscore',
    ...queryIds.map((q, i) => `${q}\t${docIds[(i * 7919) % docIds.length]}\t1`),
  ]);
}

/** One run of a side: whole-process CPU and wall, and peak RSS (MB) when /usr/bin/time is there. */
function runMeasured(
  command: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  rssFile: string,
): { cpuS: number; wallS: number; rssMB: number; stdout: string } {
  const timed = existsSync('/usr/bin/time');
  const [cmd, list] = timed ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, command, ...argv]] : [command, [...argv]];
  const { cpuS, wallS, stdout } = runTimed(cmd, list, env);
  const rssMB = timed ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) / 1024 : Number.NaN;
  return { cpuS, wallS, rssMB, stdout };
}

const PY = String.raw`
import sys, json, resource
d, depth, k, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
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
S, I = index.search(Q, depth)
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

/** Per query, the set of its first `k` document ids in a run's text. */
function readSets(text: string, k: number): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [q, , d, rank] = line.split(' ');
    if (Number(rank) > k) continue;
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
  const coreb = fileURLToPath(new URL('../../bin/coreb.js', import.meta.url));
  const pyEnv = oneThreadEnv(referenceBlasEnv(process.env, args.has('keep-openblas-pins')));
  console.log(
    `CPU: ${cpuDescription()}; node ${process.version}; ${nq} queries, both sides searched ${SEARCH_DEPTH} deep, top-${k} compared; coreb on its default threads, faiss on one; ${repeat} runs (medians)`,
  );
  const rows: string[] = [
    '| corpus | side | CPU s (median) | wall s (median) | peak RSS MB | coreb / faiss CPU | coreb / faiss wall | same top-k sets as faiss |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [nd, dim] of shapes) {
    const dir = join(root, `${nd}x${dim}`);
    const emb = join(dir, 'emb');
    mkdirSync(emb, { recursive: true });
    const docIds = writeTable(emb, 'docs', nd, dim, 12345, 'd');
    const queryIds = writeTable(emb, 'queries', nq, dim, 777, 'q');
    writeBeir(join(dir, 'beir'), docIds, queryIds);
    const shape = `${nd.toLocaleString('en-US')} x ${dim}`;
    const faissRun = join(dir, 'faiss.run');
    const faissRuns = Array.from({ length: repeat }, () =>
      runMeasured(python, ['-c', PY, emb, String(SEARCH_DEPTH), String(k), faissRun], pyEnv, join(dir, 'faiss.rss')),
    );
    const faissCpu = median(faissRuns.map((r) => r.cpuS));
    const faissWall = median(faissRuns.map((r) => r.wallS));
    const faissSets = readSets(readFileSync(faissRun, 'utf8'), k);
    const report = JSON.parse(faissRuns[0].stdout.trim().split('\n').at(-1) ?? '{}') as { blas?: string; faiss?: string };
    console.log(`${shape}: faiss ${report.faiss}, BLAS: ${report.blas}`);
    rows.push(
      `| ${shape} | faiss IndexFlatIP float32 | ${faissCpu.toFixed(2)} | ${faissWall.toFixed(2)} | ${Math.round(median(faissRuns.map((r) => r.rssMB)))} | | | |`,
    );
    for (const kernel of kernels) {
      for (const dtype of dtypes) {
        const params = [...(dtype === 'float32' ? [] : [`dtype=${dtype}`]), ...(kernel === 'default' ? [] : [`kernel=${kernel}`])];
        const spec = `embeddings:${emb}${params.length > 0 ? `?${params.join('&')}` : ''}`;
        const out = join(dir, `coreb-${kernel}-${dtype}`);
        const argv = ['eval', '--data', join(dir, 'beir'), '--retriever', spec, '--out', out, '--quiet'];
        console.log(`${shape}: coreb ${argv.join(' ')}`);
        const runs = Array.from({ length: repeat }, () => {
          rmSync(out, { recursive: true, force: true });
          return runMeasured(coreb, argv, process.env, join(dir, 'coreb.rss'));
        });
        const cpu = median(runs.map((r) => r.cpuS));
        const wall = median(runs.map((r) => r.wallS));
        const runFile = readdirSync(join(out, 'runs')).find((f) => f.endsWith('.trec.gz'));
        const sets =
          runFile === undefined ? new Map<string, Set<string>>() : readSets(gunzipSync(readFileSync(join(out, 'runs', runFile))).toString('utf8'), k);
        const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Array<{ description?: { kernel?: string } }> };
        console.log(`${shape}: coreb ${dtype} ran kernel ${results.retrievers[0]?.description?.kernel ?? '?'}`);
        rows.push(
          `| ${shape} | coreb ${dtype}${kernel === 'default' ? '' : ` kernel=${kernel}`} | ${cpu.toFixed(2)} | ${wall.toFixed(2)} | ${Math.round(median(runs.map((r) => r.rssMB)))} | ${(cpu / faissCpu).toFixed(2)}x | ${(wall / faissWall).toFixed(2)}x | ${sameSets(sets, faissSets)} / ${nq} |`,
        );
      }
    }
  }
  console.log(rows.join('\n'));
}

main();
