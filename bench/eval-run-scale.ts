/**
 * `coreb eval --retriever run:FILE` on a big run: generates (seeded) a BEIR-format dataset of
 * `--queries` queries over `--docs` documents and a TREC run holding a `--depth`-deep ranking for
 * each of them plus `--extra` queries that are not in the dataset (spread through the file, as a
 * run made for a larger query set), plain and gzipped. Times the CLI with `/usr/bin/time` (CPU
 * seconds, peak RSS) and prints them against the file size and, with `--old DIR` (an older coreb
 * checkout, built), against that build on the same files, checking both give the same metrics. A
 * run of the dataset's queries only (what eval keeps of the big one) is the reference for memory.
 * Run it under the heavy-run lock on a shared machine.
 *
 * Usage: node dist/bench/eval-run-scale.js [--queries 5000] [--depth 1000] [--extra 40000]
 *   [--docs 200000] [--formats plain,gzip] [--old DIR] [--old-formats plain] [--dir DIR (kept, files reused)]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUniform } from '../src/core/random.js';
import { readBenchArgs } from './args.js';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'eval-run-scale',
  about: `\`coreb eval --retriever run:FILE\` on a big generated run (plain and gzipped): CPU seconds and
peak RSS of the CLI (/usr/bin/time) against the file size and, with --old, against an older coreb
build on the same files (same metrics checked). Reference for memory: a run of the dataset's
queries only. Heavy: run it under the heavy-run lock on a shared machine.`,
  options: [
    { name: 'queries', value: 'N', help: 'queries in the generated dataset (default 5000)' },
    { name: 'depth', value: 'N', help: 'documents ranked per query in the run (default 1000)' },
    { name: 'extra', value: 'N', help: 'run queries not in the dataset, spread through the file (default 40000)' },
    { name: 'docs', value: 'N', help: 'documents in the generated corpus (default 200000)' },
    { name: 'formats', value: 'LIST', help: 'run files to time, of plain,gzip (default plain,gzip)' },
    { name: 'old', value: 'DIR', help: 'an older, built coreb checkout to compare against (default: none)' },
    { name: 'old-formats', value: 'LIST', help: 'formats timed with --old (default: those of --formats)' },
    { name: 'dir', value: 'DIR', help: 'keep the generated files in DIR and reuse them (default: a temp dir, removed)' },
  ],
});
const option = (name: string): string | undefined => args.get(name);

const QUERIES = Number(option('queries') ?? 5000);
const DEPTH = Number(option('depth') ?? 1000);
const EXTRA = Number(option('extra') ?? 40000);
const DOCS = Number(option('docs') ?? 200_000);
const FORMATS = (option('formats') ?? 'plain,gzip').split(',');
const OLD = option('old');
const OLD_FORMATS = (option('old-formats') ?? FORMATS.join(',')).split(',');
const cli = corebCli;

/** A BEIR directory: `DOCS` one-line documents, `QUERIES` queries, two relevant docs each. */
function writeDataset(dir: string): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const rand = createUniform(1);
  const corpus: string[] = [];
  for (let d = 0; d < DOCS; d++) corpus.push(JSON.stringify({ _id: `doc${d}`, title: '', text: `document ${d}` }));
  writeFileSync(join(dir, 'corpus.jsonl'), corpus.join('\n') + '\n');
  const queries: string[] = [];
  const qrels = ['query-id\tcorpus-id\tscore'];
  for (let q = 0; q < QUERIES; q++) {
    queries.push(JSON.stringify({ _id: `q${q}`, text: `query ${q}` }));
    qrels.push(`q${q}\tdoc${Math.floor(rand() * DOCS)}\t1`);
    qrels.push(`q${q}\tdoc${(q * 7919) % DOCS}\t1`);
  }
  writeFileSync(join(dir, 'queries.jsonl'), queries.join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), qrels.join('\n') + '\n');
}

/** The run: every dataset query and `extra` others (`x<i>`), interleaved, `DEPTH` docs each, scores descending with ties. */
async function writeRun(file: string, extra: number): Promise<void> {
  const rand = createUniform(2);
  const w = createWriteStream(file);
  const total = QUERIES + extra;
  let nextDataset = 0;
  for (let i = 0; i < total; i++) {
    // Dataset queries evenly spread among the extra ones.
    const isDataset = nextDataset < QUERIES && Math.floor((i * QUERIES) / total) >= nextDataset;
    const qid = isDataset ? `q${nextDataset++}` : `x${i}`;
    const base = Math.floor(rand() * DOCS);
    // A stride coprime with DOCS: DEPTH distinct documents.
    let step = 1 + Math.floor(rand() * 9973);
    while (gcd(step, DOCS) !== 1) step++;
    let chunk = '';
    for (let r = 0; r < DEPTH; r++) {
      const d = (base + r * step) % DOCS;
      chunk += `${qid} Q0 doc${d} ${r + 1} ${(30 - Math.floor(r / 3) * 0.01).toFixed(4)} bench-run\n`;
    }
    if (!w.write(chunk)) await new Promise<void>((r) => w.once('drain', () => r()));
  }
  await new Promise<void>((r) => w.end(() => r()));
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

interface Measured {
  status: number | null;
  wall: number;
  cpu: number;
  rssMb: number;
  metrics: string;
  stderr: string;
}

/** Runs `node CLI eval ...` under /usr/bin/time. */
function measure(cliFile: string, data: string, run: string): Measured {
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%e %U %S %M',
      process.execPath,
      cliFile,
      'eval',
      '--data',
      data,
      '--retriever',
      `run:${run}`,
      '--format',
      'json',
      '--no-per-query',
      '--quiet',
    ],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const lines = r.stderr.trim().split('\n');
  const [wall, user, sys, kb] = lines[lines.length - 1].split(' ').map(Number);
  let metrics = '';
  if (r.status === 0) {
    const res = JSON.parse(r.stdout) as {
      retrievers: Array<{ overall: unknown; tasks: unknown; description: { queries: number; documents: number } }>;
    };
    // The metrics and the file's counts (its path and sha256 differ between plain and gzip).
    const { queries, documents } = res.retrievers[0].description;
    metrics = JSON.stringify({ overall: res.retrievers[0].overall, tasks: res.retrievers[0].tasks, queries, documents });
  }
  return { status: r.status, wall, cpu: user + sys, rssMb: kb / 1024, metrics, stderr: lines.slice(-4, -1).join(' | ') };
}

async function main(): Promise<void> {
  const keep = option('dir');
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'coreb-eval-run-scale-'));
  mkdirSync(dir, { recursive: true });
  console.log(`eval run: scale on ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), load average at start ${loadavg()[0].toFixed(2)}`);
  console.log(`dataset ${QUERIES} queries x ${DOCS} docs (BEIR); run ${QUERIES} + ${EXTRA} extra queries x ${DEPTH} docs`);
  try {
    const data = join(dir, 'beir');
    if (!existsSync(join(data, 'corpus.jsonl'))) writeDataset(data);
    const plain = join(dir, 'run.trec');
    if (!existsSync(plain)) await writeRun(plain, EXTRA);
    // The reference for memory: a run of the dataset's queries only (what eval keeps of the big one).
    const needed = join(dir, 'run-dataset-only.trec');
    if (!existsSync(needed)) await writeRun(needed, 0);
    const gz = join(dir, 'run.trec.gz');
    if (FORMATS.includes('gzip') && !existsSync(gz)) {
      const r = spawnSync('sh', ['-c', `gzip -c -1 '${plain}' > '${gz}'`]);
      if (r.status !== 0) throw new Error(`gzip failed: ${r.stderr}`);
    }
    const gb = (f: string): number => statSync(f).size / 1e9;
    console.log(
      `\n| build | run file | file GB | lines (M) | CPU s | wall s | peak RSS MB | RSS / file size | CPU s per GB (uncompressed) |\n|---|---|---|---|---|---|---|---|---|`,
    );
    const results = new Map<string, Measured>();
    const builds = [['new', cli], ...(OLD !== undefined ? [['old', join(OLD, 'dist/src/cli/main.js')]] : [])] as const;
    for (const [build, file] of builds) {
      for (const format of ['dataset-only', ...(build === 'old' ? OLD_FORMATS : FORMATS)]) {
        const run = format === 'gzip' ? gz : format === 'plain' ? plain : needed;
        const lines = ((QUERIES + (format === 'dataset-only' ? 0 : EXTRA)) * DEPTH) / 1e6;
        const m = measure(file, data, run);
        results.set(`${build} ${format}`, m);
        const status = m.status === 0 ? '' : ` (exit ${m.status}: ${m.stderr})`;
        const rawGb = format === 'gzip' ? gb(plain) : gb(run);
        console.log(
          `| ${build} | ${format} | ${gb(run).toFixed(2)} | ${lines.toFixed(1)} | ${m.cpu.toFixed(1)} | ${m.wall.toFixed(1)} | ${m.rssMb.toFixed(0)}${status} | ${(m.rssMb / 1e3 / gb(run)).toFixed(3)} | ${(m.cpu / rawGb).toFixed(1)} |`,
        );
      }
    }
    const ref = results.get(`new ${FORMATS[0]}`);
    for (const [k, m] of results) {
      if (m.status === 0 && ref !== undefined && !k.endsWith('dataset-only') && m.metrics !== ref.metrics)
        console.log(`MISMATCH: ${k} differs from new ${FORMATS[0]}`);
    }
    const small = results.get('new dataset-only');
    if (small !== undefined && ref !== undefined) {
      console.log(
        `new: the ${gb(plain).toFixed(2)} GB run vs the ${gb(needed).toFixed(2)} GB run of the dataset's queries only: peak RSS ${(ref.rssMb / small.rssMb).toFixed(2)}x, CPU ${(ref.cpu / small.cpu).toFixed(2)}x`,
      );
    }
    for (const format of ['dataset-only', ...OLD_FORMATS]) {
      const a = results.get(`new ${format}`);
      const b = results.get(`old ${format}`);
      if (a === undefined || b === undefined || b.status !== 0) continue;
      console.log(
        `${format}: new/old CPU ${(a.cpu / b.cpu).toFixed(2)}x, peak RSS ${(a.rssMb / b.rssMb).toFixed(2)}x; metrics ${a.metrics === b.metrics ? 'identical' : 'DIFFER'}`,
      );
    }
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
