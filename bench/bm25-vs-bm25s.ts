/**
 * BM25 query time against bm25s: the same documents and queries, the same terms (coreb's code
 * tokeniser's output is what bm25s indexes, so both score the same postings), the same k1 and b
 * and top-k, each side a child of this bench on one thread. Measured: the CPU seconds of the
 * queries alone (after the index is built; coreb `Bm25Index.search`, bm25s `BM25.retrieve` with
 * `n_threads=1`), and each child's whole-process CPU and peak RSS (`bench/support/process-tree.ts`).
 * The corpus is `bench/search-bm25-scale.ts`'s (derived from the CoREB release's code corpus,
 * written once under `--dir` with `--generate-only --keep`; it needs `../shared`).
 *
 *   node dist/bench/bm25-vs-bm25s.js [--sizes 100000,1000000] [--queries 1000] [--k 100] [--repeat 3]
 *     [--dir /tmp/coreb-bm25-scale] [--python python3]
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Doc, Query } from '../src/core/dataset.js';
import { BM25_DEFAULTS, createBm25Index, resolveBm25Options } from '../src/search/bm25.js';
import { createTokenizer } from '../src/search/tokenize.js';
import { readBenchArgs } from './args.js';
import { cpuDescription, median, oneThreadEnv, runSide } from './support/process-tree.js';

const args = readBenchArgs({
  script: 'bm25-vs-bm25s',
  about: `BM25 query time, coreb against bm25s, one thread each, on the same documents and queries with the
same terms (coreb's tokeniser output indexed by both), k1, b and top-k: CPU seconds of the queries alone
(median of --repeat runs), the ratio coreb / bm25s, whole-process CPU and peak RSS of each child, and
how many top-k lists agree as sets. The corpus is bench/search-bm25-scale.ts's (needs ../shared once).`,
  options: [
    { name: 'sizes', value: 'LIST', help: 'corpus sizes in documents, comma-separated (default 100000,1000000)' },
    { name: 'queries', value: 'N', help: 'queries (default 1000)' },
    { name: 'k', value: 'N', help: 'top-k (default 100)' },
    { name: 'repeat', value: 'N', help: 'runs of each side (default 3)' },
    { name: 'dir', value: 'DIR', help: 'the corpus directory of search-bm25-scale (default /tmp/coreb-bm25-scale)' },
    { name: 'python', value: 'BIN', help: 'python with bm25s (default python3)' },
    { name: 'child', value: 'N', help: "coreb's side for N documents", internal: true },
    { name: 'tokens', help: 'child: write the token files for bm25s, measure nothing', internal: true },
  ],
});
const arg = (name: string, fallback: string): string => args.get(name) ?? fallback;

/** The first `n` JSONL records of `file` (`{"id"|"_id", "text"}`). */
async function readRecords(file: string, n: number): Promise<Array<{ id: string; text: string }>> {
  const out: Array<{ id: string; text: string }> = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (out.length === n) break;
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as { id?: string; _id?: string; text: string };
    out.push({ id: String(r.id ?? r._id), text: r.text });
  }
  return out;
}

interface SideReport {
  queryCpuS: number;
  indexCpuS: number;
  maxRssMB: number;
}

async function child(): Promise<void> {
  const n = Number(arg('child', '0'));
  const dir = arg('dir', '/tmp/coreb-bm25-scale');
  const nq = Number(arg('queries', '1000'));
  const k = Number(arg('k', '100'));
  const docs: Doc[] = await readRecords(corpusFile(dir, n), n);
  const queries: Query[] = await readRecords(join(dir, `queries-${nq}.jsonl`), nq);
  if (args.has('tokens')) {
    // bm25s indexes exactly coreb's terms: one JSON array of strings per line.
    const tokenize = createTokenizer(resolveBm25Options(BM25_DEFAULTS));
    for (const [name, rows] of [
      [`tokens-docs-${n}.jsonl`, docs],
      [`tokens-queries-${nq}.jsonl`, queries],
    ] as const) {
      const out = createWriteStream(join(dir, name));
      for (const r of rows) if (!out.write(`${JSON.stringify(tokenize(r.text))}\n`)) await new Promise<void>((ok) => out.once('drain', () => ok()));
      await new Promise((ok) => out.end(ok));
    }
    await new Promise<void>((ok) => createWriteStream(join(dir, `ids-docs-${n}.txt`)).end(`${docs.map((d) => d.id).join('\n')}\n`, ok));
    console.log('{}');
    return;
  }
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const i0 = cpu();
  // Query terms counted as bm25s counts them (each occurrence), so both rank by the same sums.
  const index = createBm25Index(docs, { queryTf: 'raw' });
  const i1 = cpu();
  const lists = await index.search(queries, k);
  const q1 = cpu();
  const lines: string[] = [];
  for (const q of queries) lines.push(JSON.stringify(lists.get(q.id)?.docIds ?? []));
  await new Promise<void>((ok) => createWriteStream(join(dir, `coreb-${n}.lists`)).end(`${lines.join('\n')}\n`, ok));
  const report: SideReport = { queryCpuS: q1 - i1, indexCpuS: i1 - i0, maxRssMB: process.resourceUsage().maxRSS / 1024 };
  console.log(JSON.stringify(report));
}

const PY = String.raw`
import sys, json, time, resource
d, n, nq, k, k1, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
import bm25s
docs = [json.loads(l) for l in open('%s/tokens-docs-%d.jsonl' % (d, n), encoding='utf-8')]
queries = [json.loads(l) for l in open('%s/tokens-queries-%d.jsonl' % (d, nq), encoding='utf-8')]
ids = open('%s/ids-docs-%d.txt' % (d, n), encoding='utf-8').read().split('\n')[:n]
c0 = time.process_time()
r = bm25s.BM25(k1=k1, b=b, method='lucene')
r.index(docs, show_progress=False)
c1 = time.process_time()
# Query terms the corpus never saw are dropped, as coreb drops them (bm25s refuses unknown tokens).
vocab = r.vocab_dict
queries = [[t for t in q if t in vocab] or [next(iter(vocab))] for q in queries]
c2 = time.process_time()
docs_idx, scores = r.retrieve(queries, k=k, show_progress=False, n_threads=1)
c3 = time.process_time()
with open('%s/bm25s-%d.lists' % (d, n), 'w') as f:
    for row in docs_idx:
        f.write(json.dumps([ids[int(i)] for i in row]) + '\n')
print(json.dumps({'queryCpuS': c3 - c2, 'indexCpuS': c1 - c0, 'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'bm25s': bm25s.__version__}))
`;

/** The smallest corpus file of at least `n` documents under `dir`. */
function corpusFile(dir: string, n: number): string {
  const f = [10_000, 100_000, 1_000_000]
    .filter((m) => m >= n)
    .map((m) => join(dir, `corpus-${m}.jsonl`))
    .find(existsSync);
  if (f === undefined) throw new Error(`no corpus in ${dir}: run node dist/bench/search-bm25-scale.js --generate-only --keep --dir ${dir}`);
  return f;
}

async function main(): Promise<void> {
  if (args.has('child')) return child();
  const sizes = arg('sizes', '100000,1000000').split(',').map(Number);
  const nq = Number(arg('queries', '1000'));
  const k = Number(arg('k', '100'));
  const repeat = Number(arg('repeat', '3'));
  const dir = arg('dir', '/tmp/coreb-bm25-scale');
  const python = arg('python', 'python3');
  const self = fileURLToPath(import.meta.url);
  const largest = Math.max(...sizes);
  const present = [1_000_000, 100_000, 10_000].filter((m) => m >= largest && existsSync(join(dir, `corpus-${m}.jsonl`)));
  if (present.length === 0 || !existsSync(join(dir, `queries-${nq}.jsonl`))) {
    const g = spawnSync(
      process.execPath,
      [
        join(self, '..', 'search-bm25-scale.js'),
        '--generate-only',
        '--keep',
        '--dir',
        dir,
        '--sizes',
        String(Math.max(...sizes)),
        '--queries',
        String(nq),
      ],
      {
        stdio: 'inherit',
      },
    );
    if (g.status !== 0) throw new Error('could not write the corpus (search-bm25-scale.js --generate-only)');
  }
  const { k1, b } = resolveBm25Options(BM25_DEFAULTS);
  console.log(
    `CPU: ${cpuDescription()}; node ${process.version}; ${nq} queries, top-${k}, k1 ${k1}, b ${b}, one thread each, ${repeat} runs (medians)`,
  );
  const rows = [
    '| documents | side | query CPU s (median) | whole process CPU s | peak RSS MB | coreb / bm25s query CPU | same top-k sets |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const n of sizes) {
    const base = ['--dir', dir, '--queries', String(nq), '--k', String(k)];
    if (!existsSync(join(dir, `tokens-docs-${n}.jsonl`))) runSide(process.execPath, [self, '--child', String(n), '--tokens', ...base]);
    const env = oneThreadEnv();
    const bm = Array.from({ length: repeat }, () =>
      runSide<SideReport & { bm25s: string }>(python, ['-c', PY, dir, String(n), String(nq), String(k), String(k1), String(b)], env),
    );
    const co = Array.from({ length: repeat }, () => runSide<SideReport>(process.execPath, [self, '--child', String(n), ...base], env));
    const bq = median(bm.map((r) => r.report.queryCpuS));
    const cq = median(co.map((r) => r.report.queryCpuS));
    const a = readFileSync(join(dir, `coreb-${n}.lists`), 'utf8')
      .trim()
      .split('\n');
    const z = readFileSync(join(dir, `bm25s-${n}.lists`), 'utf8')
      .trim()
      .split('\n');
    let same = 0;
    a.forEach((l, i) => {
      const s = new Set(JSON.parse(l) as string[]);
      const t = JSON.parse(z[i] ?? '[]') as string[];
      if (t.length === s.size && t.every((d) => s.has(d))) same++;
    });
    const N = n.toLocaleString('en-US');
    console.log(
      `${N}: bm25s ${bm[0].report.bm25s} index ${bm[0].report.indexCpuS.toFixed(1)} CPU s; coreb index ${co[0].report.indexCpuS.toFixed(1)} CPU s`,
    );
    rows.push(
      `| ${N} | bm25s | ${bq.toFixed(2)} | ${median(bm.map((r) => r.cpuS)).toFixed(1)} | ${Math.round(bm[0].report.maxRssMB)} | | |`,
      `| ${N} | coreb | ${cq.toFixed(2)} | ${median(co.map((r) => r.cpuS)).toFixed(1)} | ${Math.round(co[0].report.maxRssMB)} | ${(cq / bq).toFixed(2)}x | ${same} / ${a.length} |`,
    );
  }
  console.log(rows.join('\n'));
}

await main();
