/**
 * What each retrieval aid without neural weights adds on CoREB, and what it costs: BM25 (the
 * reference), the vocabulary bridge, the execution-aware reranker, their combination and the
 * language filter, per task, with wall time, the judge's CPU seconds and programs compiled. The
 * bridge is trained on one problem-disjoint half of v202602 and every row is scored on the other
 * half (out-of-sample for the bridge; BM25's defaults were tuned on all of v202602). `--full` adds
 * BM25 and BM25 >> exec on the whole release. Prints a markdown table (docs/eval.md quotes it).
 * Usage: node dist/bench/no-gpu-retrieval.js [--shared DIR] [--depth 32] [--cache DIR] [--full]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeReleaseHalves } from '../test/support/release-halves.js';
import { cliPath } from '../test/support/cli.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'no-gpu-retrieval',
  about: `what BM25's vocabulary bridge, the exec reranker, their combination and the language filter
add over BM25 (the reference) on two problem-disjoint halves of CoREB v202602, per task, with time,
CPU seconds of the programs run and compiles; --full adds the whole release.`,
  options: [
    { name: 'shared', value: 'DIR', help: 'the shared data directory (default ../shared from the working directory)' },
    { name: 'depth', value: 'N', help: 'candidates reranked by exec (default 32)' },
    { name: 'cache', value: 'DIR', help: 'COREB_CACHE_DIR for the run journal (default: a new temporary folder, so every run is cold)' },
    { name: 'full', help: 'also BM25 and BM25 >> exec on all of v202602' },
  ],
});
const shared = args.get('shared') ?? join(process.cwd(), '..', 'shared');
const depth = args.get('depth') ?? '32';
const work = mkdtempSync(join(tmpdir(), 'coreb-no-gpu-'));
const cache = args.get('cache') ?? join(work, 'cache');
const release = join(shared, 'data', 'coreb', 'release_v2602');

interface Row {
  name: string;
  overall: { metrics: Record<string, number> };
  tasks: Record<string, { metrics: Record<string, number> }>;
  timings: { totalMs: number; rerankMs?: number };
  rerank?: { execution?: { cpuSeconds: number; compileSeconds: number; compiles: number; runs: { executed: number } } };
}

function cli(argv: string[]): void {
  const r = spawnSync(process.execPath, [cliPath, ...argv], {
    env: { ...process.env, COREB_CACHE_DIR: cache },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`coreb ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
}

function evalRows(data: string, retrievers: string[], rerank: boolean): Row[] {
  const out = join(work, `eval-${Math.random().toString(36).slice(2)}`);
  cli([
    'eval',
    '--data',
    data,
    ...retrievers.flatMap((r) => ['--retriever', r]),
    ...(rerank ? ['--reranker', 'exec', '--rerank-depth', depth] : []),
    '--runs',
    'none',
    '--quiet',
    '--out',
    out,
  ]);
  return (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Row[] }).retrievers;
}

const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(4));
const lines: string[] = [];
function print(where: string, rows: Row[], reference: Row): void {
  for (const r of rows) {
    const e = r.rerank?.execution;
    const d = r.overall.metrics['ndcg@10'] - reference.overall.metrics['ndcg@10'];
    lines.push(
      `| ${where} | ${r.name.replace(/\/[^,&>]*\/bridge-a\.json/, 'A.json')} | ${f(r.tasks.text2code?.metrics['ndcg@10'])} | ${f(r.tasks.code2text?.metrics['ndcg@10'])} | ${f(r.tasks.code2code?.metrics['ndcg@10'])} | ${f(r.overall.metrics['ndcg@10'])} | ${r === reference ? '' : `${d >= 0 ? '+' : ''}${d.toFixed(4)}`} | ${(r.timings.totalMs / 1000).toFixed(1)} | ${e === undefined ? '-' : `${e.cpuSeconds.toFixed(0)} + ${e.compileSeconds.toFixed(0)}`} | ${e === undefined ? '-' : `${e.runs.executed} / ${e.compiles}`} |`,
    );
  }
}

console.log(
  `# no-GPU retrieval on CoREB v202602 (${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores); exec depth ${depth}; cache ${cache}`,
);
const halves = writeReleaseHalves(release, join(work, 'halves'));
const bridge = join(work, 'bridge-a.json');
cli(['bridge', 'train', '--data', halves.a, '--out', bridge]);
const b = `bm25?bridge=${bridge}`;
const plain = evalRows(halves.b, ['bm25', b, 'bm25?filter=language'], false);
const reranked = evalRows(halves.b, ['bm25', b], true).filter((r) => r.name.includes('>>'));
const filtered = evalRows(halves.b, [`${b}&filter=language`], true);
print('half B', [...plain, ...reranked, ...filtered], plain[0]);
if (args.has('full')) {
  const full = evalRows(release, ['bm25'], true);
  print('all', full, full[0]);
}
console.log('| data | retriever | t2c | c2t | c2c | overall | vs BM25 | time (s) | exec CPU s (runs + compile) | runs / compiles |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const l of lines) console.log(l);
