/**
 * `coreb metrics` speed: generates a seeded 5,000-query x 1,000-document run with graded qrels in a
 * temp dir, then times parse + evaluate (every supported measure, per query) + trec-format output,
 * in-process and through the CLI, against trec_eval 9.0.8's ~3.8 s CPU on the same size.
 *
 * Usage: node dist/bench/metrics-speed.js [--queries 5000] [--depth 1000] [--repeat 5] [--seed 42]
 *   [--dir DIR]   keep the generated files in DIR and reuse them when present
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IdTable, parseTrecQrels, parseTrecRun } from '../src/dataset/index.js';
import { evaluateColumns, parseMeasures, renderTrec } from '../src/metrics/index.js';
import { createUniform } from '../src/core/random.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'metrics-speed',
  about: `\`coreb metrics\` speed: parse + evaluate (every supported measure, per query) + trec-format
output of a seeded run with graded qrels, in-process and through the CLI, against trec_eval 9.0.8's
~3.8 s CPU on the default size (5,000 queries x 1,000 documents).`,
  options: [
    { name: 'queries', value: 'N', help: 'queries in the run (default 5000)' },
    { name: 'depth', value: 'N', help: 'documents per query (default 1000)' },
    { name: 'repeat', value: 'N', help: 'timed runs; the median is printed (default 5)' },
    { name: 'seed', value: 'N', help: 'seed of the generated run and qrels (default 42)' },
    { name: 'dir', value: 'DIR', help: 'keep the generated files in DIR and reuse them (default: a temp dir, removed)' },
  ],
});
const flag = (name: string, fallback: number): number => {
  const v = args.get(name);
  return v !== undefined ? Number(v) : fallback;
};

const QUERIES = flag('queries', 5000);
const DEPTH = flag('depth', 1000);
const REPEAT = flag('repeat', 5);
const SEED = flag('seed', 42);
const CORPUS = 200_000;
const JUDGED_RETRIEVED = 20;
const JUDGED_OTHER = 10;
const REFERENCE = { name: 'trec_eval 9.0.8 -q (same size, this machine)', cpuSeconds: 3.8 };

/** Deterministic uniform [0, 1) generator (mulberry32) so failures reproduce. */
const prng = createUniform;

/** Writes the seeded run and qrels; returns their paths. */
function generate(dir: string): { qrels: string; run: string } {
  const rand = prng(SEED);
  const runParts: string[] = [];
  const qrelsParts: string[] = [];
  for (let q = 1; q <= QUERIES; q++) {
    const qid = `q${String(q).padStart(5, '0')}`;
    const picked = new Set<number>();
    while (picked.size < DEPTH) picked.add(Math.floor(rand() * CORPUS));
    const docs = [...picked];
    const scores = docs.map(() => (rand() * 20).toFixed(4)).sort((a, b) => Number(b) - Number(a));
    let chunk = '';
    for (let i = 0; i < DEPTH; i++) chunk += `${qid} Q0 doc${docs[i]} ${i + 1} ${scores[i]} bench\n`;
    runParts.push(chunk);
    let qchunk = '';
    const judged = new Set<number>();
    for (let j = 0; j < JUDGED_RETRIEVED; j++) judged.add(docs[Math.floor(rand() * rand() * DEPTH)]);
    for (let j = 0; j < JUDGED_OTHER; j++) judged.add(Math.floor(rand() * CORPUS));
    for (const d of judged) {
      const r = rand();
      qchunk += `${qid} 0 doc${d} ${r < 0.4 ? 0 : r < 0.7 ? 1 : 2}\n`;
    }
    qrelsParts.push(qchunk);
  }
  const run = join(dir, 'run.txt');
  const qrels = join(dir, 'qrels.txt');
  writeFileSync(run, runParts.join(''));
  writeFileSync(qrels, qrelsParts.join(''));
  return { qrels, run };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

const keep = args.get('dir');
const dir = keep ?? mkdtempSync(join(tmpdir(), 'coreb-metrics-speed-'));
try {
  const t0 = performance.now();
  if (keep !== undefined) mkdirSync(keep, { recursive: true });
  const reuse = keep !== undefined && existsSync(join(keep, 'run.txt')) && existsSync(join(keep, 'qrels.txt'));
  const files = reuse ? { run: join(dir, 'run.txt'), qrels: join(dir, 'qrels.txt') } : generate(dir);
  const runBytes = readFileSync(files.run).length;
  process.stdout.write(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (CPU seconds are the fair figure on a shared machine)\n`,
  );
  process.stdout.write(
    reuse
      ? `reusing ${files.run} (${(runBytes / 1e6).toFixed(1)} MB)\n`
      : `generated ${QUERIES} queries x ${DEPTH} docs (seed ${SEED}, ${(runBytes / 1e6).toFixed(1)} MB run) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );

  for (const measures of ['all', 'official']) {
    const specs = parseMeasures([measures]);
    const phases = {
      read: [] as number[],
      parse: [] as number[],
      evaluate: [] as number[],
      render: [] as number[],
      wall: [] as number[],
      cpu: [] as number[],
    };
    let inProcess = '';
    for (let i = 0; i < REPEAT; i++) {
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      const qb = readFileSync(files.qrels);
      const rb = readFileSync(files.run);
      const w1 = performance.now();
      const docs = new IdTable();
      const qrels = parseTrecQrels(qb, { file: files.qrels, docs });
      const run = parseTrecRun(rb, { file: files.run, docs, knownDocsOnly: true, judged: qrels });
      const w2 = performance.now();
      const result = evaluateColumns(qrels, run, { specs });
      const w3 = performance.now();
      inProcess = renderTrec(result, { perQuery: true, runId: run.runTag });
      const w4 = performance.now();
      const c = process.cpuUsage(c0);
      phases.read.push(w1 - w0);
      phases.parse.push(w2 - w1);
      phases.evaluate.push(w3 - w2);
      phases.render.push(w4 - w3);
      phases.wall.push(w4 - w0);
      phases.cpu.push((c.user + c.system) / 1000);
    }
    // Cross-check the fast parse (only judged docs interned) against the plain one (every doc interned).
    const plainDocs = new IdTable();
    const plainQrels = parseTrecQrels(readFileSync(files.qrels), { docs: plainDocs });
    const plainRun = parseTrecRun(readFileSync(files.run), { docs: plainDocs });
    const plain = renderTrec(evaluateColumns(plainQrels, plainRun, { specs }), { perQuery: true, runId: plainRun.runTag });
    const lines = inProcess.split('\n').length - 1;
    process.stdout.write(
      `\n-m ${measures} -q (${lines} output lines), median of ${REPEAT}:\n` +
        `  in-process: ${(median(phases.wall) / 1000).toFixed(3)} s wall, ${(median(phases.cpu) / 1000).toFixed(3)} s CPU ` +
        `(read ${median(phases.read).toFixed(0)} ms, parse ${median(phases.parse).toFixed(0)} ms, ` +
        `evaluate ${median(phases.evaluate).toFixed(0)} ms, render ${median(phases.render).toFixed(0)} ms)\n`,
    );

    const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
    const wall: number[] = [];
    const cpu: number[] = [];
    let cliOut = '';
    for (let i = 0; i < REPEAT; i++) {
      const out = join(dir, 'out.txt');
      const r = spawnSync(
        '/usr/bin/time',
        [
          '-f',
          '%e %U %S',
          '-o',
          join(dir, 'time.txt'),
          'sh',
          '-c',
          `"${process.execPath}" "${cli}" metrics --qrels "${files.qrels}" --run "${files.run}" -m ${measures} -q > "${out}"`,
        ],
        { encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`CLI failed: ${r.stderr}`);
      const [e, u, s] = readFileSync(join(dir, 'time.txt'), 'utf8').trim().split(/\s+/).map(Number);
      wall.push(e);
      cpu.push(u + s);
      cliOut = readFileSync(out, 'utf8');
    }
    const ratio = median(cpu) / REFERENCE.cpuSeconds;
    process.stdout.write(
      `  CLI (node startup included): ${median(wall).toFixed(3)} s wall, ${median(cpu).toFixed(3)} s CPU ` +
        `= ${(ratio * 100).toFixed(0)}% of ${REFERENCE.name} ${REFERENCE.cpuSeconds} s (goal <= 50%)\n` +
        `  output identical in-process vs CLI: ${cliOut === inProcess}, fast vs plain parse: ${plain === inProcess} (sha256 ${sha(cliOut)})\n`,
    );
  }
} finally {
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
