/**
 * `coreb metrics` speed against trec_eval 9.0.8 measured in the same run, at several sizes (default
 * 500, 5,000 and 50,000 queries x 1,000 documents, seeded, graded qrels): per size, parse + evaluate
 * + trec-format output in-process (up to 5,000 queries), then the CLI and trec_eval under
 * `/usr/bin/time` with `-q` for `official` (trec_eval without `-m`) and `all_trec`: CPU medians, the
 * ratio, and whether the outputs are the same bytes. trec_eval is a given binary (`--trec-eval`),
 * built with `make` from a source tree (`--trec-eval-src`, e.g. a checkout of its v9.0.8 tag), or
 * built from the fetched v9.0.8 tarball; `--coreb-only` times coreb alone against the old constant.
 *
 * Usage: node dist/bench/metrics-speed.js [--queries 500,5000,50000] [--depth 1000] [--repeat 5]
 *   [--seed 42] [--trec-eval BIN | --trec-eval-src DIR | --coreb-only] [--check-fixtures]
 *   [--dir DIR]   keep the generated files in DIR and reuse them when present
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdTable, parseTrecQrels, parseTrecRun } from '../src/dataset/index.js';
import { evaluateColumns, parseMeasures, renderTrec } from '../src/metrics/index.js';
import { createUniform } from '../src/core/random.js';
import { readBenchArgs } from './args.js';
import { checkTrecEvalFixtures, timed, trecEvalBinary } from './support/trec-eval.js';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'metrics-speed',
  about: `\`coreb metrics\` speed against trec_eval 9.0.8 in the same run, at each size: parse +
evaluate + trec-format output of a seeded run with graded qrels, in-process (up to 5,000 queries)
and through the CLI, beside trec_eval on the same files (-q, official and all_trec): CPU medians,
ratios, identical outputs. trec_eval: a binary, a source tree built with make, or the fetched
v9.0.8 tarball; --coreb-only compares with the old constant (~3.8 s CPU at 5,000 queries).`,
  options: [
    { name: 'queries', value: 'LIST', help: 'queries per run, comma-separated (default 500,5000,50000)' },
    { name: 'depth', value: 'N', help: 'documents per query (default 1000)' },
    { name: 'repeat', value: 'N', help: 'timed runs per size up to 5,000 queries, the median printed; one above (default 5)' },
    { name: 'seed', value: 'N', help: 'seed of the generated run and qrels (default 42)' },
    { name: 'dir', value: 'DIR', help: 'keep the generated files in DIR and reuse them (default: a temp dir, removed)' },
    { name: 'trec-eval', value: 'BIN', help: 'the trec_eval binary to compare against' },
    { name: 'trec-eval-src', value: 'DIR', help: 'trec_eval source tree (its v9.0.8 tag), built in a copy with make' },
    { name: 'coreb-only', help: 'time coreb alone, against the old constant (~3.8 s at 5,000 queries)' },
    { name: 'check-fixtures', help: 'first check the binary against ../shared/fixtures/trec (te9.0.8 outputs); refuse one that differs' },
  ],
});
const flag = (name: string, fallback: number): number => {
  const v = args.get(name);
  return v !== undefined ? Number(v) : fallback;
};

const SIZES = (args.get('queries') ?? '500,5000,50000').split(',').map(Number);
const DEPTH = flag('depth', 1000);
const REPEAT = flag('repeat', 5);
const SEED = flag('seed', 42);
const CORPUS = 200_000;
const JUDGED_RETRIEVED = 20;
const JUDGED_OTHER = 10;
/** The constant of `--coreb-only`: trec_eval 9.0.8 -q at 5,000 x 1,000 on the build machine. */
const OLD_REFERENCE_CPU_5000 = 3.8;

/** Deterministic uniform [0, 1) generator (mulberry32) so failures reproduce. */
const prng = createUniform;

/** Writes the seeded run and qrels; returns their paths. */
function generate(dir: string, queries: number): { qrels: string; run: string } {
  const rand = prng(SEED);
  const run = join(dir, `run-${queries}.txt`);
  const qrels = join(dir, `qrels-${queries}.txt`);
  const runFd = openSync(`${run}.part`, 'w');
  const qrelsFd = openSync(`${qrels}.part`, 'w');
  for (let q = 1; q <= queries; q++) {
    const qid = `q${String(q).padStart(5, '0')}`;
    const picked = new Set<number>();
    while (picked.size < DEPTH) picked.add(Math.floor(rand() * CORPUS));
    const docs = [...picked];
    const scores = docs.map(() => (rand() * 20).toFixed(4)).sort((a, b) => Number(b) - Number(a));
    let chunk = '';
    for (let i = 0; i < DEPTH; i++) chunk += `${qid} Q0 doc${docs[i]} ${i + 1} ${scores[i]} bench\n`;
    writeSync(runFd, chunk);
    let qchunk = '';
    const judged = new Set<number>();
    for (let j = 0; j < JUDGED_RETRIEVED; j++) judged.add(docs[Math.floor(rand() * rand() * DEPTH)]);
    for (let j = 0; j < JUDGED_OTHER; j++) judged.add(Math.floor(rand() * CORPUS));
    for (const d of judged) {
      const r = rand();
      qchunk += `${qid} 0 doc${d} ${r < 0.4 ? 0 : r < 0.7 ? 1 : 2}\n`;
    }
    writeSync(qrelsFd, qchunk);
  }
  closeSync(runFd);
  closeSync(qrelsFd);
  renameSync(`${run}.part`, run);
  renameSync(`${qrels}.part`, qrels);
  return { qrels, run };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const keep = args.get('dir');
const dir = keep ?? mkdtempSync(join(tmpdir(), 'coreb-metrics-speed-'));
try {
  if (keep !== undefined) mkdirSync(keep, { recursive: true });
  const te = await trecEvalBinary(
    { bin: args.get('trec-eval'), src: args.get('trec-eval-src'), none: args.has('coreb-only'), script: 'metrics-speed' },
    dir,
  );
  if (te !== undefined && args.has('check-fixtures') && !checkTrecEvalFixtures(te)) {
    process.stderr.write('metrics-speed: this trec_eval is not the te9.0.8 reference (outputs differ above); not comparing against it\n');
    process.exit(3);
  }
  process.stdout.write(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' ',
      )} (CPU seconds are the fair figure on a shared machine)\nreference: ${te ?? `none (--coreb-only): ${OLD_REFERENCE_CPU_5000} s CPU at 5,000 queries`}\n`,
  );
  const cli = corebCli;
  const summary: string[] = [];
  for (const queries of SIZES) {
    const t0 = performance.now();
    const have = existsSync(join(dir, `run-${queries}.txt`)) && existsSync(join(dir, `qrels-${queries}.txt`));
    const files = have ? { run: join(dir, `run-${queries}.txt`), qrels: join(dir, `qrels-${queries}.txt`) } : generate(dir, queries);
    const runBytes = statSync(files.run).size;
    process.stdout.write(
      `\n${queries} queries x ${DEPTH} docs (seed ${SEED}, ${(runBytes / 1e6).toFixed(1)} MB run)${have ? ', reused' : `, generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`}\n`,
    );
    const repeat = queries <= 5000 ? REPEAT : 1;
    for (const measures of ['official', 'all_trec']) {
      let inProcess: string | undefined;
      if (queries <= 5000) {
        const specs = parseMeasures([measures]);
        const cpu: number[] = [];
        const wall: number[] = [];
        for (let i = 0; i < repeat; i++) {
          const c0 = process.cpuUsage();
          const w0 = performance.now();
          const docs = new IdTable();
          const qrels = parseTrecQrels(readFileSync(files.qrels), { file: files.qrels, docs });
          const run = parseTrecRun(readFileSync(files.run), { file: files.run, docs, knownDocsOnly: true, judged: qrels });
          inProcess = renderTrec(evaluateColumns(qrels, run, { specs }), { perQuery: true, runId: run.runTag });
          const c = process.cpuUsage(c0);
          wall.push((performance.now() - w0) / 1000);
          cpu.push((c.user + c.system) / 1e6);
        }
        process.stdout.write(
          `  -m ${measures} in-process: ${median(cpu).toFixed(3)} s CPU, ${median(wall).toFixed(3)} s wall (median of ${repeat})\n`,
        );
      }
      const out = join(dir, 'coreb.txt');
      const teOut = join(dir, 'trec_eval.txt');
      const c: number[] = [];
      const t: number[] = [];
      for (let i = 0; i < repeat; i++) {
        // Interleaved, so that both sides see the same machine.
        c.push(timed(`"${process.execPath}" "${cli}" metrics -q -m ${measures} --qrels "${files.qrels}" --run "${files.run}"`, out, dir).cpu);
        if (te !== undefined)
          t.push(timed(`"${te}" -q ${measures === 'official' ? '' : `-m ${measures}`} "${files.qrels}" "${files.run}"`, teOut, dir).cpu);
      }
      const same = te !== undefined ? spawnSync('cmp', ['-s', out, teOut]).status === 0 : undefined;
      const ref = te !== undefined ? median(t) : (OLD_REFERENCE_CPU_5000 * queries) / 5000;
      const ratio = median(c) / ref;
      const line = `-m ${measures}: coreb ${median(c).toFixed(3)} s CPU, trec_eval ${ref.toFixed(3)} s${te === undefined ? ' (old constant, scaled)' : ''}: ${ratio.toFixed(2)}x${same === undefined ? '' : `, output identical: ${same}`}`;
      process.stdout.write(
        `  ${line} (median of ${repeat}${inProcess !== undefined ? `; in-process output = CLI output: ${inProcess === readFileSync(out, 'utf8')}` : ''})\n`,
      );
      summary.push(
        `| ${queries.toLocaleString('en-US')} | ${measures} | ${median(c).toFixed(2)} | ${ref.toFixed(2)} | ${ratio.toFixed(2)} | ${same ?? '-'} |`,
      );
    }
  }
  process.stdout.write(
    `\n| queries x ${DEPTH} | -m | coreb CPU s | trec_eval CPU s | ratio (goal <= 1) | identical |\n|---|---|---|---|---|---|\n${summary.join('\n')}\n`,
  );
} finally {
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
