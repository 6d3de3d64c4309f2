/**
 * `coreb metrics` on big runs (plain and gzip), against trec_eval measured in the same run: for each
 * size (default 5,000 / 50,000 / 100,000 queries x 1,000 docs; the largest passes 2 GB), generates a
 * seeded run and qrels in a temp dir, times the CLI and trec_eval with `/usr/bin/time` (CPU seconds
 * and peak RSS), checks the outputs are identical and prints the ratios and the slope of CPU time
 * per million lines between sizes.
 *
 * trec_eval is not fetched: give a binary (`--trec-eval BIN`) or its source tree (`--trec-eval-src
 * DIR`, built here with `make`); without either only coreb is timed and no ratio is printed.
 * Run it on an idle machine (the script prints the load average it started at).
 *
 * Usage: node dist/bench/metrics-scale.js [--sizes 5000,50000,100000] [--depth 1000] [--repeat 1]
 *   [--gzip] [--trec-eval BIN | --trec-eval-src DIR] [--dir DIR (kept, files reused)]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUniform } from '../src/core/random.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const SIZES = (option('sizes') ?? '5000,50000,100000').split(',').map(Number);
const DEPTH = Number(option('depth') ?? 1000);
const REPEAT = Number(option('repeat') ?? 1);
const GZIP = process.argv.includes('--gzip');
const CORPUS = 1_000_003;

/** Streams a seeded run (distinct docs per query, descending scores with ties) and graded qrels. */
async function generate(run: string, qrels: string, queries: number): Promise<void> {
  const rand = createUniform(queries);
  const w = createWriteStream(run);
  const qw = createWriteStream(qrels);
  for (let q = 0; q < queries; q++) {
    const qid = `q${q}`;
    const step = 1 + Math.floor(rand() * 997);
    const base = Math.floor(rand() * CORPUS);
    let chunk = '';
    let qchunk = '';
    for (let i = 0; i < DEPTH; i++) {
      const d = (base + i * step * 1009) % CORPUS;
      chunk += `${qid} Q0 doc${d} ${i + 1} ${(20 - Math.floor(i / 3) * 0.01).toFixed(4)} bench\n`;
      if (rand() < 0.02) qchunk += `${qid} 0 doc${d} ${rand() < 0.5 ? 1 : 2}\n`;
    }
    qchunk += `${qid} 0 unretrieved${q} 1\n`;
    if (!w.write(chunk)) await new Promise<void>((r) => w.once('drain', () => r()));
    qw.write(qchunk);
  }
  await Promise.all([new Promise<void>((r) => w.end(() => r())), new Promise<void>((r) => qw.end(() => r()))]);
}

interface Timing {
  cpu: number;
  wall: number;
  rssMb: number;
  out: string;
}

/** Runs `sh -c cmd` under /usr/bin/time; stdout to `out`. */
function timed(cmd: string, out: string, dir: string): Timing {
  const tf = join(dir, 'time.txt');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', '-o', tf, 'sh', '-c', `${cmd} > "${out}"`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`failed (${r.status}): ${cmd}\n${r.stderr}`);
  const [e, u, s, m] = readFileSync(tf, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
  return { cpu: u + s, wall: e, rssMb: m / 1024, out: readFileSync(out, 'utf8') };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function trecEvalBinary(dir: string): string | undefined {
  const bin = option('trec-eval');
  if (bin !== undefined) return bin;
  const src = option('trec-eval-src');
  if (src === undefined) return undefined;
  const build = join(dir, 'trec_eval-src');
  spawnSync('cp', ['-r', src, build]);
  const r = spawnSync('make', ['-C', build], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building trec_eval failed:\n${r.stderr}`);
  return join(build, 'trec_eval');
}

const keep = option('dir');
const dir = keep ?? mkdtempSync(join(tmpdir(), 'coreb-metrics-scale-'));
if (keep !== undefined) mkdirSync(keep, { recursive: true });
try {
  const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const te = trecEvalBinary(dir);
  process.stdout.write(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at start\n`,
  );
  process.stdout.write(`reference: ${te ?? 'none (give --trec-eval BIN or --trec-eval-src DIR)'}\n`);
  const rows: Array<{ lines: number; coreb: number }> = [];
  for (const queries of SIZES) {
    const run = join(dir, `run-${queries}.txt`);
    const qrels = join(dir, `qrels-${queries}.txt`);
    if (!existsSync(run) || !existsSync(qrels)) await generate(run, qrels, queries);
    let target = run;
    if (GZIP) {
      target = `${run}.gz`;
      if (!existsSync(target)) spawnSync('sh', ['-c', `gzip -1 -c "${run}" > "${target}"`]);
    }
    const bytes = statSync(target).size;
    const lines = queries * DEPTH;
    const ours: Timing[] = [];
    const theirs: Timing[] = [];
    for (let i = 0; i < REPEAT; i++) {
      ours.push(timed(`"${process.execPath}" "${cli}" metrics -q -m all_trec --qrels "${qrels}" --run "${target}"`, join(dir, 'coreb.out'), dir));
      if (te !== undefined) theirs.push(timed(`"${te}" -q -m all_trec "${qrels}" "${target}"`, join(dir, 'te.out'), dir));
    }
    const c = median(ours.map((t) => t.cpu));
    const rss = Math.max(...ours.map((t) => t.rssMb));
    rows.push({ lines, coreb: c });
    let line = `${queries} queries x ${DEPTH} (${(bytes / 1e9).toFixed(2)} GB${GZIP ? ' gzip' : ''}): coreb ${c.toFixed(1)} s CPU, ${median(ours.map((t) => t.wall)).toFixed(1)} s wall, peak ${rss.toFixed(0)} MB`;
    if (te !== undefined) {
      const tc = median(theirs.map((t) => t.cpu));
      const trss = Math.max(...theirs.map((t) => t.rssMb));
      line += `; trec_eval ${tc.toFixed(1)} s CPU, peak ${trss.toFixed(0)} MB; CPU ratio ${(c / tc).toFixed(2)} (goal <= 0.5), RSS ratio ${(rss / trss).toFixed(2)}; output identical: ${ours[0].out === theirs[0].out}`;
    }
    process.stdout.write(`${line}\n`);
  }
  for (let i = 1; i < rows.length; i++) {
    const slope = (rows[i].coreb - rows[i - 1].coreb) / ((rows[i].lines - rows[i - 1].lines) / 1e6);
    process.stdout.write(`slope ${rows[i - 1].lines / DEPTH} -> ${rows[i].lines / DEPTH} queries: ${slope.toFixed(2)} s CPU per million run lines\n`);
  }
  process.stdout.write(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
} finally {
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
