/**
 * `coreb build` end to end from 10 real problems of ../shared/data/lcb_v5_problems.jsonl through a
 * loopback chat server that answers by the X-Coreb-Stage / X-Coreb-Item headers. The two solver
 * "models" answer with the programs CoREB v202602 holds for these problems (claude-4-sonnet,
 * gemini-3-flash; python and cpp); Python verdicts are known from plain python3 runs, C++ with a stray
 * `main();` cannot compile. Checks: validate accepts the release, eval scores it, labels equal the judge run directly,
 * every qrels rule holds, a rerun sends 0 requests and writes identical bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RELEASE_TABLES } from '../../src/core/dataset.js';
import { createBuildFake, type FakeProblem } from '../support/build-fake.js';
import { runCli, runCliAsync } from '../support/cli.js';
import { startChatServer, type ChatServer } from '../support/loopback-chat-server.js';
import { SEARCH_QUERY_KINDS, SEARCH_SUB_QUERY_TYPE } from '../../src/construct/index.js';
import { checkQrelsRules } from '../support/qrels-rules.js';
import { sharedPath } from '../support/shared.js';

/** AtCoder problems of LCB v5 where the v202602 release has 2-3 passing python/cpp programs. */
const IDS = ['abc375_f', 'abc376_e', 'abc377_d', 'abc377_e', 'abc377_g', 'abc378_a', 'abc379_a', 'abc379_c', 'abc379_d', 'abc379_f'];
const MODELS = ['claude-4-sonnet', 'gemini-3-flash'];
const LANGS = ['python', 'cpp'];

/** The per-language search-query rules as built (2 queries per type and variant). */
const SEARCH_RULES = { types: Object.keys(SEARCH_QUERY_KINDS), perVariant: 2, subQueryType: SEARCH_SUB_QUERY_TYPE };

const tmp = mkdtempSync(join(tmpdir(), 'coreb-build-shared-'));
const out = join(tmp, 'release');
const problemsFile = join(tmp, 'problems.jsonl');
let server: ChatServer;

before(async () => {
  const lines = readFileSync(sharedPath('data', 'lcb_v5_problems.jsonl'), 'utf8').split('\n').filter(Boolean);
  const chosen = lines.map((l) => JSON.parse(l) as Record<string, string>).filter((p) => IDS.includes(p.question_id));
  assert.equal(chosen.length, 10);
  writeFileSync(problemsFile, chosen.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const problems = new Map<string, FakeProblem>(chosen.map((p) => [p.question_id, { title: p.question_title, statement: p.question_content }]));
  const solutions = new Map<string, string>();
  for (const l of readFileSync(sharedPath('data', 'coreb', 'release_v2602', 'code_corpus.jsonl'), 'utf8').split('\n')) {
    if (l.trim() === '') continue;
    const r = JSON.parse(l) as Record<string, unknown>;
    const qid = String(r.meta_source_problem_id).slice(4);
    if (!IDS.includes(qid) || !LANGS.includes(String(r.language)) || !MODELS.includes(String(r.model))) continue;
    solutions.set(`${r.model}|${qid}/${r.language}`, String(r.code));
  }
  assert.equal(solutions.size, 40);
  server = await startChatServer({ format: 'openai', answer: createBuildFake({ problems, solutions }) });
});
after(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const args = (): string[] => {
  const u = encodeURIComponent(server.baseUrl);
  return [
    'build',
    '--problems',
    problemsFile,
    '--out',
    out,
    '--rewriter',
    `openai:qwen-32b?baseUrl=${u}`,
    ...MODELS.flatMap((m) => ['--solver', `openai:${m}?baseUrl=${u}`]),
    '--languages',
    LANGS.join(','),
    '--release-name',
    'v202612',
    '--created-at',
    '2026-12-01T00:00:00Z',
    '--jobs',
    '2',
  ];
};
const tables = (): Record<string, string> =>
  Object.fromEntries([...RELEASE_TABLES.map((t) => `${t}.jsonl`), 'problems.jsonl'].map((f) => [f, readFileSync(join(out, f), 'utf8')]));
// biome-ignore lint/suspicious/noExplicitAny: JSONL rows of the release tables, probed field by field
const rows = (t: string): Array<Record<string, any>> =>
  readFileSync(join(out, `${t}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
let first: Record<string, string>;

test('builds a release from 10 LCB v5 problems; labels equal the known verdicts', async (t) => {
  const r = await runCliAsync(args());
  assert.equal(r.status, 0, r.stderr + r.stdout);
  first = tables();
  const code = rows('code_corpus');
  assert.equal(code.length, 40);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(m.counts.table2_release.problems, 10);
  assert.equal(m.counts.table2_release.text_corpus, 50);
  assert.equal(
    server.calls.length,
    10 * (1 + 1 + 4 + 3 + 4),
    'rewrite, abbreviate, solve x4, queries x3 (one per query type), negatives x4 per problem',
  );
  // Known verdicts, independently of coreb's judge: every Python program is run here with plain
  // python3 on the rewritten problem's tests (tokens compared, numbers within 1e-6); C++ programs
  // with the stray top-level `main();` line of CoREB's generation prompt (docs/exec.md) cannot
  // compile. (The release's own meta_passed refers to its rewritten tests, which v202602 does not
  // publish, so it is not a verdict on these tests.)
  const probs = new Map(
    readFileSync(join(out, 'problems.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const p = JSON.parse(l) as Record<string, string>;
        return [
          `lcb_${p.question_id}`,
          [...JSON.parse(p.public_test_cases), ...JSON.parse(p.private_test_cases)] as Array<{ input: string; output: string }>,
        ];
      }),
  );
  const sameTokens = (a: string, b: string): boolean => {
    const x = a.trim().split(/\s+/);
    const y = b.trim().split(/\s+/);
    return x.length === y.length && x.every((t, k) => t === y[k] || (Number.isFinite(Number(t)) && Math.abs(Number(t) - Number(y[k])) <= 1e-6));
  };
  let known = 0;
  for (const c of code) {
    if (c.language === 'python') {
      const pass = (probs.get(c.meta_source_problem_id) ?? []).every((t) => {
        const r = spawnSync('python3', ['-c', c.code], { input: t.input, encoding: 'utf8', timeout: 20000 });
        return r.status === 0 && sameTokens(r.stdout, t.output);
      });
      assert.equal(c.meta_passed, pass, `${c.meta_solution_key} ${c.meta_source_problem_id}: plain python3 says ${pass}`);
      known++;
    } else if (/^\s*main\(\);\s*$/m.test(c.code)) {
      assert.equal(c.meta_passed, false, `${c.code_id}: C++ with a stray main(); does not compile`);
      known++;
    }
  }
  assert.ok(known >= 20, `${known} programs with a known verdict`);
  t.diagnostic(
    `tables ${JSON.stringify(m.tables)}; verified correct ${JSON.stringify(m.counts.a8_verified_correct)}; judgments ${JSON.stringify(m.counts.table5_judgments)}; ${server.calls.length} calls, tokens ${JSON.stringify(Object.fromEntries(Object.entries(m.stages as Record<string, { input_tokens: number; output_tokens: number }>).map(([k, u]) => [k, u.input_tokens + u.output_tokens])))}`,
  );
  assert.ok(code.some((c) => c.meta_passed === true) && code.some((c) => c.meta_passed === false));
});

test('coreb validate accepts it and coreb eval scores it', () => {
  const v = runCli(['validate', out]);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  const e = runCli(['eval', '--data', out, '--format', 'json', '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  const res = JSON.parse(e.stdout) as unknown;
  assert.ok(JSON.stringify(res).includes('bm25'));
});

test('labels agree with the judge run directly on the same programs', () => {
  const res = join(tmp, 'direct.jsonl');
  const r = runCli(['exec', '--problems', join(out, 'problems.jsonl'), '--candidates', join(out, 'code_corpus.jsonl'), '--out', res, '--jobs', '2']);
  assert.equal(r.status, 0, r.stderr);
  const direct = new Map(
    readFileSync(res, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((x) => [x.id, x.passed]),
  );
  for (const c of rows('code_corpus')) assert.equal(c.meta_passed, direct.get(c.code_id), c.code_id);
});

test('the qrels obey every rule', () => {
  const { violations, checked } = checkQrelsRules(out, { shape: 'official', primary: MODELS[0], secondary: MODELS[1], search: SEARCH_RULES });
  assert.deepEqual(violations, []);
  assert.ok(checked.t2c >= 20 && checked.c2t > 0 && checked.c2t_match === 40 && checked.search_subtask > 0, JSON.stringify(checked));
  // Both official code-to-code subtasks these two languages allow (cross_model needs model A passing outside Python).
  assert.ok(checked.c2c_mono_lang >= 1 && checked.c2c_cross_lang >= 1, JSON.stringify(checked));
});

test('a rerun sends 0 requests and writes byte-identical tables', async () => {
  const n = server.calls.length;
  const r = await runCliAsync(args());
  assert.equal(r.status, 0, r.stderr);
  assert.equal(server.calls.length, n);
  assert.deepEqual(tables(), first);
});
