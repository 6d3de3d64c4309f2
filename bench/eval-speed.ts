/**
 * End-to-end `coreb eval` timing and quality: runs BM25 through `runEval` several times on a
 * release (default: the bundled coreb-mini; `--data DIR` for e.g. release_v2602) and prints the
 * median wall time per phase, plus the overall nDCG@10 / Recall@10 / MAP@10 against the reference
 * the issue names: a third-party code-aware BM25 on release_v2602 (0.3256 / 0.4647 / 0.2707).
 *
 * Usage: node dist/bench/eval-speed.js [--data DIR] [--repeat 5] [--retriever SPEC]
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runEval } from '../src/eval/index.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'eval-speed',
  about: `end-to-end \`coreb eval\` timing and quality: median wall time per phase over several runEval
runs, and overall nDCG@10 / Recall@10 / MAP@10 against a third-party code-aware BM25 on
release_v2602 (0.3256 / 0.4647 / 0.2707; compared only on that release).`,
  options: [
    { name: 'data', value: 'DIR', help: 'release directory (default: the bundled data/coreb-mini/release)' },
    { name: 'repeat', value: 'N', help: 'runs; the median is printed (default 5)' },
    { name: 'retriever', value: 'SPEC', help: 'retriever spec as for coreb eval (default bm25)' },
  ],
});
const flag = (name: string, fallback: string): string => args.get(name) ?? fallback;

const root = fileURLToPath(new URL('../../', import.meta.url));
const data = flag('data', join(root, 'data', 'coreb-mini', 'release'));
const repeat = Number(flag('repeat', '5'));
const spec = flag('retriever', 'bm25');
const REFERENCE = { name: 'third-party code-aware BM25 on release_v2602', 'ndcg@10': 0.3256, 'recall@10': 0.4647, 'map@10': 0.2707 } as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const phases = { load: [] as number[], index: [] as number[], search: [] as number[], evaluate: [] as number[], total: [] as number[] };
const cpu: number[] = [];
let last: Awaited<ReturnType<typeof runEval>>['results'] | undefined;
for (let i = 0; i < repeat; i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { results } = await runEval({ data, retrievers: [spec], corebVersion: 'bench', perQuery: false });
  phases.total.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  const r = results.retrievers[0];
  phases.load.push(results.timings.loadMs);
  phases.index.push(r.timings.indexMs);
  phases.search.push(r.timings.searchMs);
  phases.evaluate.push(r.timings.evaluateMs);
  last = results;
}
const r = last!.retrievers[0];
const queries = r.overall.queries;
process.stdout.write(`coreb eval (${spec}) on ${data}: ${queries} scored queries, median of ${repeat} runs\n`);
for (const [phase, xs] of Object.entries(phases)) {
  process.stdout.write(`  ${phase.padEnd(9)} ${(median(xs) / 1000).toFixed(3)} s\n`);
}
process.stdout.write(`  cpu       ${(median(cpu) / 1000).toFixed(3)} s (user + system; steadier than wall time on a busy machine)\n`);
process.stdout.write(`  throughput ${(queries / (median(phases.total) / 1000)).toFixed(0)} queries/s end to end\n`);
const comparable = last!.dataset.split === 'release_v2602' && last!.protocol.name === 'coreb';
process.stdout.write(`quality (protocol ${last!.protocol.name})${comparable ? ` vs ${REFERENCE.name}` : ''}:\n`);
for (const m of ['ndcg@10', 'recall@10', 'map@10'] as const) {
  const v = r.overall.metrics[m];
  const ref = comparable ? `  reference ${REFERENCE[m].toFixed(4)}  ratio ${(v / REFERENCE[m]).toFixed(3)}` : '';
  process.stdout.write(`  ${m.padEnd(10)} ${v.toFixed(4)}${ref}\n`);
}
for (const [task, g] of Object.entries(r.tasks)) {
  process.stdout.write(
    `  ${task.padEnd(10)} nDCG@10 ${g.metrics['ndcg@10'].toFixed(4)}  R@10 ${g.metrics['recall@10'].toFixed(4)}  MAP@10 ${g.metrics['map@10'].toFixed(4)}  (${g.queries} queries)\n`,
  );
}
