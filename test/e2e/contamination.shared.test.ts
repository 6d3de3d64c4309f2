/**
 * `coreb contamination` on a build of 10 real problems of ../shared/data/lcb_v5_problems.jsonl made
 * through a loopback chat server whose answers are known: the two solver "models" answer the
 * rewritten problems with their own CoREB v202602 programs (python, cpp) and the original problems
 * with the other model's program, so the two arms differ by real verdicts. The study's tables, Pass@1
 * and McNemar p must equal those this test computes by judging every program directly on the tests of
 * the problem it was written for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ExecLanguage, TestCase } from '../../src/core/execution.js';
import { loadLcbProblems } from '../../src/dataset/lcb.js';
import { mcnemarExactP } from '../../src/report/significance.js';
import { createBuildFake, type FakeProblem } from '../support/build-fake.js';
import { runCliAsync } from '../support/cli.js';
import { createTestJudge } from '../support/judge.js';
import { startChatServer, type ChatServer } from '../support/loopback-chat-server.js';
import { sharedPath } from '../support/shared.js';

const IDS = ['abc375_f', 'abc376_e', 'abc377_d', 'abc377_e', 'abc377_g', 'abc378_a', 'abc379_a', 'abc379_c', 'abc379_d', 'abc379_f'];
const MODELS = ['claude-4-sonnet', 'gemini-3-flash'];
const LANGS: ExecLanguage[] = ['python', 'cpp'];

const tmp = mkdtempSync(join(tmpdir(), 'coreb-contamination-shared-'));
const out = join(tmp, 'build');
const problemsFile = join(tmp, 'problems.jsonl');
let server: ChatServer;
/** `<model>|<item>` -> program. */
const solutions = new Map<string, string>();

before(async () => {
  const lines = readFileSync(sharedPath('data', 'lcb_v5_problems.jsonl'), 'utf8').split('\n').filter(Boolean);
  const chosen = lines.map((l) => JSON.parse(l) as Record<string, string>).filter((p) => IDS.includes(p.question_id));
  assert.equal(chosen.length, 10);
  writeFileSync(problemsFile, chosen.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const problems = new Map<string, FakeProblem>(chosen.map((p) => [p.question_id, { title: p.question_title, statement: p.question_content }]));
  for (const l of readFileSync(sharedPath('data', 'coreb', 'release_v2602', 'code_corpus.jsonl'), 'utf8').split('\n')) {
    if (l.trim() === '') continue;
    const r = JSON.parse(l) as Record<string, unknown>;
    const qid = String(r.meta_source_problem_id).slice(4);
    if (!IDS.includes(qid) || !LANGS.includes(r.language as ExecLanguage) || !MODELS.includes(String(r.model))) continue;
    const other = MODELS.find((m) => m !== r.model) as string;
    solutions.set(`${r.model}|${qid}/${r.language}`, String(r.code)); // the build's solve = rewritten
    solutions.set(`${other}|${qid}/${r.language}/original`, String(r.code));
  }
  assert.equal(solutions.size, 80);
  server = await startChatServer({ format: 'openai', answer: createBuildFake({ problems, solutions }) });
});
after(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('on 10 LCB v5 problems the study equals the table computed from the judge', async (t) => {
  const u = encodeURIComponent(server.baseUrl);
  const solverArgs = MODELS.flatMap((m) => ['--solver', `openai:${m}?baseUrl=${u}`]);
  const b = await runCliAsync([
    'build',
    '--problems',
    problemsFile,
    '--out',
    out,
    '--rewriter',
    `openai:qwen-32b?baseUrl=${u}`,
    ...solverArgs,
    '--languages',
    LANGS.join(','),
    '--release-name',
    'v202612',
    '--created-at',
    '2026-12-01T00:00:00Z',
    '--jobs',
    '2',
  ]);
  assert.equal(b.status, 0, b.stderr + b.stdout);
  const n0 = server.calls.length;
  const r = await runCliAsync(['contamination', out, ...solverArgs, '--jobs', '2']);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.equal(server.calls.length - n0, 40, 'only the original-problem requests are new');
  assert.ok(server.calls.slice(n0).every((c) => c.stage === 'solve' && /^abc\d+_[a-g]\/(python|cpp)\/original$/.test(c.item)));

  // Direct verdicts: every program on the tests of the problem it was written for.
  // the same few programs recur across models and arms: each is compiled once (keepBuildsMb)
  const judge = await createTestJudge({ jobs: 2, keepBuildsMb: 64 });
  if (typeof judge === 'string') throw new Error(judge);
  const original = await loadLcbProblems(problemsFile);
  const rewritten = await loadLcbProblems(join(out, 'problems.jsonl'));
  const tests = (m: typeof original, id: string): TestCase[] => {
    const p = m.get(id);
    assert.ok(p !== undefined, id);
    return [...p.publicTests, ...p.privateTests];
  };
  const verdict = new Map<string, boolean>();
  const jobs = MODELS.flatMap((model) =>
    IDS.flatMap((id) => LANGS.flatMap((lang) => (['original', 'rewritten'] as const).map((arm) => ({ model, id, lang, arm })))),
  );
  try {
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < jobs.length) {
          const { model, id, lang, arm } = jobs[next++];
          const code = solutions.get(`${model}|${id}/${lang}${arm === 'original' ? '/original' : ''}`) as string;
          const res = await judge.judge(
            { id: `${model}/${id}/${lang}/${arm}`, problemId: id, language: lang, code },
            tests(arm === 'original' ? original : rewritten, id),
          );
          verdict.set(`${model}|${id}|${lang}|${arm}`, res.passed);
        }
      }),
    );
  } finally {
    await judge.close();
  }
  // biome-ignore lint/suspicious/noExplicitAny: contamination.json probed field by field
  const s = JSON.parse(readFileSync(join(out, 'contamination.json'), 'utf8')) as { models: Record<string, any> };
  assert.deepEqual(Object.keys(s.models), MODELS);
  let discordant = 0;
  for (const model of MODELS) {
    for (const langs of [LANGS, ['python'], ['cpp']]) {
      const table = { bothPass: 0, originalOnly: 0, rewrittenOnly: 0, neither: 0 };
      let o = 0;
      let w = 0;
      for (const id of IDS) {
        for (const lang of langs) {
          const a = verdict.get(`${model}|${id}|${lang}|original`) as boolean;
          const b2 = verdict.get(`${model}|${id}|${lang}|rewritten`) as boolean;
          if (a && b2) table.bothPass++;
          else if (a) table.originalOnly++;
          else if (b2) table.rewrittenOnly++;
          else table.neither++;
          o += a ? 1 : 0;
          w += b2 ? 1 : 0;
        }
      }
      const got = langs.length === 2 ? s.models[model] : s.models[model].languages[langs[0]];
      const n = IDS.length * langs.length;
      assert.deepEqual(got.table, table, `${model} ${langs}`);
      assert.ok(Math.abs(got.original.passAt1 - o / n) < 1e-12 && Math.abs(got.rewritten.passAt1 - w / n) < 1e-12, `${model} ${langs}`);
      assert.equal(got.mcnemarP, mcnemarExactP(table.originalOnly, table.rewrittenOnly));
      if (langs.length === 2) discordant += table.originalOnly + table.rewrittenOnly;
    }
  }
  assert.ok(discordant > 0, 'the swapped programs make the arms differ');
  t.diagnostic(r.stdout);
});
