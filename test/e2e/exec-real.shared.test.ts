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
import type { ExecLanguage, ProgramResult } from '../../src/core/execution.js';
import { computeAgreement, renderAgreement } from '../../src/sandbox/judge-agreement.js';
import { renderJudgeSummary, runJudging, type JudgeRecord } from '../../src/sandbox/judge-run.js';
import { createLcbTestLookup, loadLcbProblems } from '../../src/dataset/lcb.js';
import { sharedPath } from '../support/shared.js';
import { createTestJudge, tempDir, toolchainSkipReason } from '../support/judge.js';
import { loadAtcoderData, loadCodescope, loadHumanEvalX } from '../support/exec-data.js';

const full = process.env.COREB_EXEC_FULL === '1';
const ALL: ExecLanguage[] = ['python', 'cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(ALL) ?? false;

/** Every `step`-th item (all when running full). */
function sample<T>(items: T[], step: number): T[] {
  return full ? items : items.filter((_, i) => i % step === 0);
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

/** HumanEval-X tasks that need libraries outside the toolchain packages (Boost, OpenSSL's -lcrypto). */
const HUMANEVAL_EXTERNAL: ReadonlySet<string> = new Set(['CPP/22', 'CPP/137', 'CPP/162']);

test('HumanEval-X canonical solutions pass their test programs (python, cpp, java)', { skip }, async (t) => {
  const judge = await createTestJudge({ timeLimitMs: 6000 });
  assert.ok(typeof judge !== 'string', String(judge));
  const steps: Record<string, number> = { python: 1, cpp: 3, java: 4 };
  const before = judge.stats();
  const results: ProgramResult[] = [];
  let count = 0;
  for (const language of ['python', 'cpp', 'java'] as const) {
    const items = sample(loadHumanEvalX(sharedPath('data', 'humaneval-x', `humaneval_${language}.jsonl.gz`), language), steps[language]);
    count += items.length;
    results.push(...(await Promise.all(items.map(({ program, tests }) => judge.judge(program, tests)))));
  }
  const failed = results.filter((r) => !r.passed && !HUMANEVAL_EXTERNAL.has(r.id));
  t.diagnostic(`${count} tasks judged; ${judge.stats().compiles - before.compiles} compiles`);
  assert.deepEqual(
    failed.map((r) => `${r.id}: ${r.verdict} ${(r.compileOutput ?? r.tests[0]?.detail ?? '').slice(0, 200)}`),
    [],
  );
  for (const r of results.filter((x) => HUMANEVAL_EXTERNAL.has(x.id))) assert.equal(r.verdict, 'compile_error', r.id);
});

test('codescope Codeforces programs (python, cpp) pass every test', { skip }, async (t) => {
  const judge = await createTestJudge({ timeLimitMs: 6000 });
  assert.ok(typeof judge !== 'string', String(judge));
  const items = sample(loadCodescope(sharedPath('data', 'codescope', 'code_optimization_data.jsonl')), 2);
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
