/**
 * `coreb metrics` on big runs (plain and gzip), against trec_eval measured in the same run: for each
 * size (default 5,000 / 50,000 / 100,000 queries x 1,000 docs; the largest passes 2 GB), generates a
 * seeded run and qrels in a temp dir, times the CLI and trec_eval with `/usr/bin/time` (CPU seconds
 * and peak RSS), checks the outputs are identical and prints the ratios and the slope of CPU time
 * per million lines between sizes.
 *
 * The reference is trec_eval 9.0.8 built from source here with `make` (the Makefile's own flags):
 * its source tree (`--trec-eval-src DIR`, built in a copy; the VERSIONID it built is printed), or
 * the v9.0.8 tarball fetched from GitHub when neither that nor a binary (`--trec-eval BIN`) is
 * given; offline, the fetch fails with a clear message (`--coreb-only` times coreb alone).
 * `--check-fixtures` first runs that binary on the te9.0.8 outputs in `../shared/fixtures/trec`
 * (every case with `-q -m all_trec`, `-l 2`, `-c`, `-c -l 2`, and trec_eval's own test outputs)
 * and refuses to compare against a binary that differs on any file unless `--force`.
 * Each size is measured plain and gzipped (`--formats plain,gzip`). trec_eval cannot read gzip (it
 * mmaps the file), so for a gzip row its command is `gzip -dc run.gz > tmp && trec_eval qrels tmp`
 * timed as one: its CPU includes the decompression, as coreb's does. The slopes (CPU seconds and
 * peak MB per 1,000 queries and per GB between consecutive sizes) are printed.
 * Run it on an idle machine (the script prints the load average it started at) and, on a shared
 * one, under the heavy-run lock.
 *
 * Usage: node dist/bench/metrics-scale.js [--sizes 5000,50000,100000] [--depth 1000] [--repeat 1]
 *   [--formats plain,gzip] [--trec-eval BIN | --trec-eval-src DIR | --coreb-only]
 *   [--check-fixtures [--force]] [--measures all_trec] [--dir DIR (kept, files reused)]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUniform } from '../src/core/random.js';
import { readBenchArgs } from './args.js';
import { checkTrecEvalFixtures, type Timing, timed, trecEvalBinary } from './support/trec-eval.js';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'metrics-scale',
  about: `\`coreb metrics\` on big seeded runs (plain and gzip) against trec_eval 9.0.8 measured in the
same run: CPU seconds and peak RSS (/usr/bin/time) per size, identical outputs checked, ratios and
slopes per 1,000 queries and per GB. trec_eval is a given binary, built from a given source tree,
or built from the v9.0.8 tarball fetched from GitHub. Heavy (the largest run passes 2 GB): run it
under the heavy-run lock on a shared machine.`,
  options: [
    { name: 'sizes', value: 'LIST', help: 'queries per run, comma-separated (default 5000,50000,100000)' },
    { name: 'depth', value: 'N', help: 'documents per query (default 1000)' },
    { name: 'repeat', value: 'N|LIST', help: 'runs per size, one for all or one per size (default 1)' },
    { name: 'formats', value: 'LIST', help: 'plain,gzip or one of them (default plain,gzip)' },
    { name: 'gzip', help: 'same as --formats gzip (when --formats is not given)' },
    { name: 'trec-eval', value: 'BIN', help: 'the trec_eval binary to compare against' },
    { name: 'trec-eval-src', value: 'DIR', help: 'trec_eval source tree, built in a copy with make' },
    { name: 'coreb-only', help: 'time coreb alone, no trec_eval' },
    { name: 'check-fixtures', help: 'first check the binary against ../shared/fixtures/trec (te9.0.8 outputs)' },
    { name: 'force', help: 'with --check-fixtures: compare even against a binary that differs' },
    { name: 'measures', value: 'LIST', help: 'measures passed to both (-m; default all_trec)' },
    { name: 'dir', value: 'DIR', help: 'keep the generated files in DIR and reuse them (default: a temp dir, removed)' },
  ],
});
const option = (name: string): string | undefined => args.get(name);

const SIZES = (option('sizes') ?? '5000,50000,100000').split(',').map(Number);
const DEPTH = Number(option('depth') ?? 1000);
/** Runs per size: one number for all sizes, or one per size (`--repeat 3,1,1`). */
const REPEATS = (option('repeat') ?? '1').split(',').map(Number);
const repeatFor = (i: number): number => REPEATS[Math.min(i, REPEATS.length - 1)];
const FORMATS = (option('formats') ?? (args.has('gzip') ? 'gzip' : 'plain,gzip')).split(',');
const MEASURES = option('measures') ?? 'all_trec';
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

/** Whether coreb's output equals trec_eval's byte for byte (relstring lines included); compared as streams, not in memory. */
function sameOutput(coreb: string, te: string): boolean {
  return spawnSync('cmp', ['-s', te, coreb]).status === 0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const keep = option('dir');
const dir = keep ?? mkdtempSync(join(tmpdir(), 'coreb-metrics-scale-'));
if (keep !== undefined) mkdirSync(keep, { recursive: true });
try {
  const cli = corebCli;
  const te = await trecEvalBinary(
    { bin: option('trec-eval'), src: option('trec-eval-src'), none: args.has('coreb-only'), script: 'metrics-scale' },
    dir,
  );
  if (te !== undefined && args.has('check-fixtures') && !checkTrecEvalFixtures(te)) {
    if (!args.has('force')) {
      process.stderr.write(
        'metrics-scale: this trec_eval is not the te9.0.8 reference (outputs differ above); not comparing against it (--force to do so anyway)\n',
      );
      process.exit(3);
    }
    process.stdout.write('--force: comparing against a trec_eval that differs from the te9.0.8 fixtures\n');
  }
  process.stdout.write(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at start\n`,
  );
  process.stdout.write(`reference: ${te ?? 'none (--coreb-only)'}; measures: -q -m ${MEASURES}\n`);
  if (te !== undefined && FORMATS.includes('gzip'))
    process.stdout.write('gzip rows: trec_eval is timed on `gzip -dc run.gz > tmp && trec_eval qrels tmp` (it cannot read gzip)\n');
  interface Row {
    queries: number;
    format: string;
    gb: number;
    cpu: number;
    rss: number;
    teCpu?: number;
    teRss?: number;
  }
  const rows: Row[] = [];
  for (const [sizeIndex, queries] of SIZES.entries()) {
    const run = join(dir, `run-${queries}.txt`);
    const qrels = join(dir, `qrels-${queries}.txt`);
    if (!existsSync(run) || !existsSync(qrels)) await generate(run, qrels, queries);
    for (const format of FORMATS) {
      let target = run;
      if (format === 'gzip') {
        target = `${run}.gz`;
        if (!existsSync(target)) spawnSync('sh', ['-c', `gzip -1 -c "${run}" > "${target}"`]);
      }
      const bytes = statSync(target).size;
      const ours: Timing[] = [];
      const theirs: Timing[] = [];
      for (let i = 0; i < repeatFor(sizeIndex); i++) {
        ours.push(
          timed(
            `"${process.execPath}" "${cli}" metrics -q -m ${MEASURES} --qrels "${qrels}" --run "${target}" -o "${join(dir, 'coreb.out')}"`,
            join(dir, 'coreb.out'),
            dir,
            true,
          ),
        );
        if (te !== undefined) {
          // trec_eval mmaps its input, so it cannot read gzip or a pipe: it is timed decompressing to
          // a temp file and reading that, the decompression counted in its CPU as in coreb's.
          const plain = join(dir, 'te-input.txt');
          const cmd =
            format === 'gzip'
              ? `gzip -dc "${target}" > "${plain}" && "${te}" -q -m ${MEASURES} "${qrels}" "${plain}"`
              : `"${te}" -q -m ${MEASURES} "${qrels}" "${target}"`;
          theirs.push(timed(cmd, join(dir, 'te.out'), dir));
          rmSync(plain, { force: true });
        }
      }
      const c = median(ours.map((t) => t.cpu));
      const rss = Math.max(...ours.map((t) => t.rssMb));
      const n = ours.length > 1 ? ` (median of ${ours.length})` : '';
      const row: Row = { queries, format, gb: bytes / 1e9, cpu: c, rss };
      let line = `${queries} queries x ${DEPTH} ${format} (${(bytes / 1e9).toFixed(2)} GB, ${(statSync(run).size / 1e9).toFixed(2)} GB plain): coreb ${c.toFixed(1)} s CPU${n}, ${median(ours.map((t) => t.wall)).toFixed(1)} s wall, peak ${rss.toFixed(0)} MB`;
      if (te !== undefined) {
        const tc = median(theirs.map((t) => t.cpu));
        const trss = Math.max(...theirs.map((t) => t.rssMb));
        row.teCpu = tc;
        row.teRss = trss;
        line += `; trec_eval ${tc.toFixed(1)} s CPU, peak ${trss.toFixed(0)} MB; CPU ratio ${(c / tc).toFixed(2)} (goal <= 0.5), RSS ratio ${(rss / trss).toFixed(2)} (goal <= 1); output identical: ${sameOutput(join(dir, 'coreb.out'), join(dir, 'te.out'))}`;
      }
      rows.push(row);
      process.stdout.write(`${line}\n`);
    }
  }
  for (const format of FORMATS) {
    const fr = rows.filter((r) => r.format === format);
    for (let i = 1; i < fr.length; i++) {
      const a = fr[i - 1];
      const b = fr[i];
      const kq = (b.queries - a.queries) / 1000;
      const gb = b.gb - a.gb;
      let line = `slope ${format} ${a.queries} -> ${b.queries} queries: coreb ${((b.cpu - a.cpu) / kq).toFixed(3)} s CPU and ${((b.rss - a.rss) / kq).toFixed(1)} MB peak per 1,000 queries, ${((b.cpu - a.cpu) / gb).toFixed(2)} s CPU per GB`;
      if (a.teCpu !== undefined && b.teCpu !== undefined && a.teRss !== undefined && b.teRss !== undefined) {
        line += `; trec_eval ${((b.teCpu - a.teCpu) / kq).toFixed(3)} s CPU and ${((b.teRss - a.teRss) / kq).toFixed(1)} MB per 1,000 queries, ${((b.teCpu - a.teCpu) / gb).toFixed(2)} s CPU per GB`;
      }
      process.stdout.write(`${line}\n`);
    }
  }
  process.stdout.write(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
} finally {
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
