/**
 * The judge on real data from ../shared: CoREB v202602 AtCoder programs against the LiveCodeBench v5
 * public tests (agreement with the independent harness and with CoREB's meta_passed, per language),
 * HumanEval-X canonical solutions (`program` tests) and codescope Codeforces programs (stdin tests
 * with lists of acceptable outputs). CI runs a deterministic sample of the slow parts; set
 * COREB_EXEC_FULL=1 for everything (bench/sandbox-agreement.ts prints the full table).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecLanguage } from '../../src/core/execution.js';
import { computeAgreement, renderAgreement } from '../../src/sandbox/judge-agreement.js';
import { renderJudgeSummary, runJudging, type JudgeRecord } from '../../src/sandbox/judge-run.js';
import { createLcbTestLookup, loadLcbProblems } from '../../src/dataset/lcb.js';
import { sharedPath } from '../support/shared.js';
import { createTestJudge, tempDir, toolchainSkipReason } from '../support/judge.js';
import { loadAtcoderData, loadCodescope, loadHumanEvalX } from '../support/exec-data.js';

const full = process.env.COREB_EXEC_FULL === '1';
const ALL: ExecLanguage[] = ['python', 'cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(ALL) ?? false;

/** Every `step`-th item and those `keep` names (all when running full). */
function sample<T>(items: T[], step: number, keep: (item: T) => boolean = () => false): T[] {
  return full ? items : items.filter((x, i) => i % step === 0 || keep(x));
}

test('AtCoder programs vs LiveCodeBench public tests: agreement per language', { skip }, async (t) => {
  const data = loadAtcoderData(
    sharedPath('data', 'coreb', 'release_v2602', 'code_corpus.jsonl'),
    sharedPath('data', 'coreb', 'xlang_release_v2602.json'),
  );
  assert.equal(data.programs.length, 1050, 'v202602 has 1050 AtCoder-derived programs (210 per language)');
  const problems = await loadLcbProblems(sharedPath('data', 'lcb_v5_problems.jsonl'));
  const problemIds = [...new Set(data.programs.map((p) => p.problemId))].sort();
  const chosen = new Set(sample(problemIds, 3));
  const programs = data.programs.filter((p) => chosen.has(p.problemId));
  const judge = await createTestJudge({ timeLimitMs: 2000, stopEarly: !full });
  assert.ok(typeof judge !== 'string', String(judge));
  const out = join(tempDir('coreb-atcoder-'), 'out.jsonl');
  const summary = await runJudging({ judge, testsOf: createLcbTestLookup(problems, 'public'), programs, outFile: out });
  assert.equal(summary.missingProblem, 0, 'every CoREB AtCoder problem is in lcb_v5_problems.jsonl');
  const recs = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as JudgeRecord);
  assert.equal(recs.length, programs.length);
  const judged = recs.map((r) => ({ id: r.id, language: r.language, passed: r.passed }));
  const xlang = computeAgreement(judged, data.xlangPassed);
  const coreb = computeAgreement(judged, data.corebPassed);
  t.diagnostic(`${programs.length} programs of ${chosen.size}/${problemIds.length} problems\n` + renderJudgeSummary(summary));
  t.diagnostic('\n' + renderAgreement({ xlang, meta_passed: coreb }));
  assert.equal(recs.filter((r) => r.verdict === 'sandbox_error').length, 0);
  // Same tests, same normalisations as the independent harness: near-total agreement expected.
  const all = xlang[xlang.length - 1];
  assert.ok(all.rate >= 0.93, `agreement with the independent harness ${(100 * all.rate).toFixed(1)}%`);
  for (const row of xlang) assert.ok(row.rate >= 0.85, `${row.language}: ${(100 * row.rate).toFixed(1)}%`);
  // Compile errors are a property of the source: they must match exactly.
  const ours = new Set(recs.filter((r) => r.verdict === 'compile_error').map((r) => r.id));
  const theirs = new Set(programs.filter((p) => data.xlangStatus.get(p.id) === 'compile_error').map((p) => p.id));
  assert.deepEqual([...ours].sort(), [...theirs].sort());
  // The public tests are weaker than CoREB's hidden ones (~83% agreement in the data card).
  assert.ok(coreb[coreb.length - 1].rate > 0.7);
});

/**
 * HumanEval-X tasks whose canonical solution is not deterministic: Go/95 iterates over a map and
 * its answer depends on Go's random iteration order (run alone with `go test`, it fails about one
 * run in three). Judged, not asserted.
 */
const HUMANEVAL_NONDETERMINISTIC: ReadonlySet<string> = new Set(['Go/95']);

/** HumanEval-X tasks whose C++ needs a library beside the standard one (Debian's libboost-dev, libssl-dev). */
const NEEDS_LIBRARY: ReadonlySet<string> = new Set(['CPP/22', 'CPP/137', 'CPP/162']);

test('HumanEval-X in all four languages: every canonical solution passes its test program, no broken one does (a third of the tasks; all with COREB_EXEC_FULL=1)', {
  skip,
}, async (t) => {
  const judge = await createTestJudge({ timeLimitMs: 6000 });
  assert.ok(typeof judge !== 'string', String(judge));
  const wrong: string[] = [];
  const lines: string[] = [];
  for (const language of ['python', 'cpp', 'java', 'go'] as const) {
    const file = sharedPath('data', 'humaneval-x', `humaneval_${language}.jsonl.gz`);
    for (const broken of [false, true]) {
      // every third task of 164 in CI (55 per language and variant), and the tasks that need a library
      // (Boost: CPP/22, CPP/137; OpenSSL's -lcrypto: CPP/162); all with COREB_EXEC_FULL=1
      const items = sample(loadHumanEvalX(file, language, broken), 3, (x) => NEEDS_LIBRARY.has(x.program.id));
      const results = await Promise.all(items.map(({ program, tests }) => judge.judge(program, tests)));
      const counts = new Map<string, number>();
      for (const r of results) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
      lines.push(`${language} ${broken ? 'broken' : 'canonical'} (${items.length}): ${[...counts].map(([v, n]) => `${v} ${n}`).join(', ')}`);
      for (const r of results) {
        if (HUMANEVAL_NONDETERMINISTIC.has(r.id)) continue;
        if (r.passed === broken)
          wrong.push(`${broken ? 'broken' : 'canonical'} ${r.id}: ${r.verdict} ${(r.compileOutput ?? r.tests[0]?.detail ?? '').slice(0, 200)}`);
      }
    }
  }
  t.diagnostic(lines.join('\n'));
  assert.deepEqual(wrong, []);
});

test('codescope Codeforces programs (python, cpp) pass every test', { skip }, async (t) => {
  const judge = await createTestJudge({ timeLimitMs: 6000 });
  assert.ok(typeof judge !== 'string', String(judge));
  const items = sample(loadCodescope(sharedPath('data', 'codescope', 'code_optimization_data.jsonl')), 6);
  const results = await Promise.all(items.map(({ program, tests }) => judge.judge(program, tests)));
  const tests = results.reduce((s, r) => s + r.testsTotal, 0);
  t.diagnostic(`${items.length} programs, ${tests} tests`);
  const failed = results.filter((r) => !r.passed);
  assert.deepEqual(
    failed.map(
      (r) =>
        `${r.id}: ${r.verdict} ${r.testsPassed}/${r.testsTotal} ${(r.compileOutput ?? r.tests.find((x) => x.verdict !== 'accepted')?.detail ?? '').slice(0, 200)}`,
    ),
    [],
  );
});
