/**
 * Judges every CoREB v202602 program whose problem is an AtCoder problem (1050 programs, five
 * languages) on the LiveCodeBench v5 public tests and prints the verdict table and the agreement per
 * language with CoREB's `meta_passed` and with the independent harness (`xlang_release_v2602.json`).
 * The output JSONL is resumable: re-running continues where a killed run stopped.
 * Usage: node dist/bench/sandbox-agreement.js [--shared DIR] [--out FILE] [--timeout-ms 2000]
 *        [--comparator tokens] [--jobs N]
 */
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ComparatorName } from '../src/core/execution.js';
import { computeAgreement, renderAgreement } from '../src/sandbox/judge-agreement.js';
import { readJudgeRecords, renderJudgeSummary, runJudging } from '../src/sandbox/judge-run.js';
import { createLcbTestLookup, loadLcbProblems } from '../src/dataset/lcb.js';
import { createLocalJudge } from '../src/sandbox/local-judge.js';
import { loadAtcoderData } from '../test/support/exec-data.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'sandbox-agreement',
  about: `judges every CoREB v202602 program whose problem is an AtCoder problem (1050 programs, five
languages) on the LiveCodeBench v5 public tests and prints the verdict table and the agreement per
language with CoREB's meta_passed and with the independent harness (xlang_release_v2602.json), the
references. The output JSONL is resumable: re-running continues where a killed run stopped.`,
  options: [
    { name: 'shared', value: 'DIR', help: 'the shared data directory (default ../shared from the working directory)' },
    { name: 'out', value: 'FILE', help: 'verdicts JSONL, resumed when present (default $TMPDIR/coreb-atcoder-agreement.jsonl)' },
    { name: 'timeout-ms', value: 'MS', help: 'time limit per test, milliseconds (default 2000)' },
    { name: 'comparator', value: 'NAME', help: 'output comparator (default tokens)' },
    { name: 'jobs', value: 'N', help: 'programs judged at once (default: available parallelism)' },
  ],
});
const values = {
  shared: args.get('shared') ?? join(process.cwd(), '..', 'shared'),
  out: args.get('out') ?? join(tmpdir(), 'coreb-atcoder-agreement.jsonl'),
  'timeout-ms': args.get('timeout-ms') ?? '2000',
  comparator: args.get('comparator') ?? 'tokens',
  jobs: args.get('jobs'),
};
const shared = values.shared;
const data = loadAtcoderData(join(shared, 'data/coreb/release_v2602/code_corpus.jsonl'), join(shared, 'data/coreb/xlang_release_v2602.json'));
const problems = await loadLcbProblems(join(shared, 'data/lcb_v5_problems.jsonl'));
const judge = await createLocalJudge({
  timeLimitMs: Number(values['timeout-ms']),
  comparator: values.comparator as ComparatorName,
  jobs: Number(values.jobs ?? availableParallelism()),
});
const t0 = performance.now();
const summary = await runJudging({ judge, testsOf: createLcbTestLookup(problems, 'public'), programs: data.programs, outFile: values.out });
const secs = (performance.now() - t0) / 1000;
const ids = new Set(data.programs.map((p) => p.id));
const recs = readJudgeRecords(values.out).filter((r) => ids.has(r.id));
const judged = recs.map((r) => ({ id: r.id, language: r.language, passed: r.passed }));
console.log(
  `sandbox-agreement: ${data.programs.length} AtCoder programs, LCB v5 public tests, comparator ${values.comparator}, ${values['timeout-ms']} ms`,
);
console.log(
  `judged ${summary.judged} now (${secs.toFixed(0)} s, ${judge.stats().compiles} compiles, ${judge.stats().runs} runs), ${summary.resumed} resumed from ${values.out}\n`,
);
console.log(renderJudgeSummary(summary));
console.log('agreement of `passed` with the independent harness (xlang) and with CoREB meta_passed:');
console.log(renderAgreement({ xlang: computeAgreement(judged, data.xlangPassed), meta_passed: computeAgreement(judged, data.corebPassed) }));
const confusion = new Map<string, number>();
for (const r of recs) {
  const k = `${r.verdict} / ${data.xlangStatus.get(r.id)}`;
  confusion.set(k, (confusion.get(k) ?? 0) + 1);
}
console.log('our verdict / xlang status:');
for (const [k, n] of [...confusion].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(34)} ${n}`);
