/**
 * `coreb build` end to end on two problems this test writes, through loopback chat servers (an
 * OpenAI-compatible one for the rewriter and solver A, an Anthropic one for solver B) that answer
 * by the X-Coreb-Stage / X-Coreb-Item headers: known verdicts, the tests stage, a quoted contract
 * retry, a failed item, comment stripping, validate + eval on the result, the qrels rules, a rerun
 * with 0 calls and identical bytes, and kill -9 mid-build followed by a rerun that repeats no
 * answered call.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RELEASE_TABLES } from '../../src/core/dataset.js';
import { createBuildFake } from '../support/build-fake.js';
import { cliPath, runCli, runCliAsync } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';
import { authoredBuildProblems, PROGRAMS, stdinTest } from '../support/build-problems.js';
import { startChatServer, type ChatServer } from '../support/loopback-chat-server.js';
import { startLoopbackServer } from '../support/loopback-server.js';
import { SEARCH_QUERY_KINDS, SEARCH_SUB_QUERY_TYPE } from '../../src/construct/index.js';
import { checkQrelsRules } from '../support/qrels-rules.js';

/** The per-language search-query rules as built (2 queries per type and variant). */
const SEARCH_RULES = { types: Object.keys(SEARCH_QUERY_KINDS), perVariant: 2, subQueryType: SEARCH_SUB_QUERY_TYPE };

const tmp = mkdtempSync(join(tmpdir(), 'coreb-build-e2e-'));
const KEY = 'sk-anthropic-test-98765';
const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(tmp, { recursive: true, force: true });
});

const { problems: PROBLEMS, fakeProblems } = authoredBuildProblems('tp');
const test_ = stdinTest;
const { SUM_PY, SUM_PY_WRONG, SUM_CPP, SUM_CPP_BROKEN, REV_PY, REV_CPP } = PROGRAMS;
const solutions = new Map<string, string>([
  ['model-a|tp_sum/python', SUM_PY],
  ['model-a|tp_sum/cpp', SUM_CPP],
  ['model-b|tp_sum/python', SUM_PY_WRONG],
  ['model-b|tp_sum/cpp', SUM_CPP_BROKEN],
  ['model-a|tp_rev/python', REV_PY],
  ['model-a|tp_rev/cpp', REV_CPP],
  ['model-b|tp_rev/python', 'import sys\ns = sys.stdin.readline().strip()\nprint(s[::-1])\n'],
  // model-b|tp_rev/cpp: no code -> a failed item after the contract retries.
]);
/** Known verdicts: solution key -> passed. */
const KNOWN: Record<string, boolean> = {
  'model-a_python@lcb_tp_sum': true,
  'model-a_cpp@lcb_tp_sum': true,
  'model-b_python@lcb_tp_sum': false,
  'model-b_cpp@lcb_tp_sum': false,
  'model-a_python@lcb_tp_rev': true,
  'model-a_cpp@lcb_tp_rev': true,
  'model-b_python@lcb_tp_rev': true,
};

const problemsFile = join(tmp, 'problems.jsonl');
let openai: ChatServer;
let anthropic: ChatServer;
/** While set, a call for which it returns true is not answered (the test kills the client then). */
let killing: ((n: number) => boolean) | undefined;

before(async () => {
  writeFileSync(problemsFile, PROBLEMS.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const answer = createBuildFake({ problems: fakeProblems, solutions, breakOnce: new Set(['tests|tp_rev', 'abbreviate|tp_sum']) });
  openai = await startChatServer({ format: 'openai', answer: (c) => (killing?.(c.n) === true ? { fault: { status: 503 } } : answer(c)) });
  anthropic = await startChatServer({ format: 'anthropic', key: KEY, answer });
  servers.push(openai, anthropic);
});

function args(out: string, extra: string[] = []): string[] {
  const o = encodeURIComponent(openai.baseUrl);
  const a = encodeURIComponent(anthropic.baseUrl);
  return [
    'build',
    '--problems',
    problemsFile,
    '--out',
    out,
    '--rewriter',
    `openai:rewriter-1?baseUrl=${o}&concurrency=1&backoffMs=5`,
    '--solver',
    `openai:model-a?baseUrl=${o}&concurrency=1&backoffMs=5`,
    '--solver',
    `anthropic:model-b?baseUrl=${a}&apiKeyEnv=FAKE_ANTHROPIC_KEY&backoffMs=5`,
    '--languages',
    'python,cpp',
    '--release-name',
    'v202612',
    '--created-at',
    '2026-12-01T00:00:00Z',
    '--concurrency',
    '1',
    '--jobs',
    '2',
    ...extra,
  ];
}
const env = { ...process.env, FAKE_ANTHROPIC_KEY: KEY };
/** Each build its own reply and verdict cache (COREB_CACHE_DIR), unless a test shares one on purpose. */
const envFor = (out: string) => ({ ...env, COREB_CACHE_DIR: `${out}.cache` });
/** The item that breaks its contract on every attempt (model-b writes no C++ for tp_rev): 1 request + 2 retries per run. */
const isBroken = (c: { stage?: string; item?: string; format: string }) => c.format === 'anthropic' && c.stage === 'solve' && c.item === 'tp_rev/cpp';
const BROKEN_CALLS = 3;
const tables = (dir: string): Record<string, string> =>
  Object.fromEntries([...RELEASE_TABLES.map((t) => `${t}.jsonl`), 'problems.jsonl'].map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
// biome-ignore lint/suspicious/noExplicitAny: JSONL rows of the release tables, probed field by field
const rows = (dir: string, t: string): Array<Record<string, any>> =>
  readFileSync(join(dir, `${t}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

const out1 = join(tmp, 'release');
let first: Record<string, string>;
let callsInFullBuild = 0;

test('coreb build writes the 8 tables, problems.jsonl and a manifest; verdicts are the known ones; a failed item makes the status 6', async () => {
  const r = await runCliAsync(args(out1), { env: envFor(out1) });
  assert.equal(r.status, 6, r.stderr + r.stdout);
  assert.match(r.stdout, /missing: 1 item\(s\) failed/);
  assert.match(r.stdout, /judged 7 program\(s\) in the sandbox this run; 0 from the verdict cache/);
  callsInFullBuild = openai.calls.length + anthropic.calls.length;
  first = tables(out1);
  const code = rows(out1, 'code_corpus');
  assert.equal(code.length, 7);
  for (const c of code)
    assert.equal(c.meta_passed, KNOWN[`${c.meta_solution_key}@${c.meta_source_problem_id}`], `${c.meta_solution_key} ${c.meta_source_problem_id}`);
  assert.ok(code.every((c) => /^code_v202612_\d{5}$/.test(c.code_id)));
  assert.ok(
    code.every((c) => !c.code.includes('reads the input and prints the answer')),
    'comments stripped',
  );
  // The tests stage adapted tp_rev's words and kept the numeric case.
  const probs = readFileSync(join(out1, 'problems.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const rev = probs.find((p) => p.question_id === 'tp_rev');
  assert.deepEqual(JSON.parse(rev.public_test_cases), [test_('pear\n', 'raep\n'), test_('3\n', '3\n')]);
  assert.deepEqual(JSON.parse(rev.private_test_cases), [test_('cherry\n', 'yrrehc\n')]);
  assert.match(rev.question_title, /^Counterfactual /);
  // Hard negatives: headers stripped.
  const text = rows(out1, 'text_corpus');
  assert.equal(text.length, 2 * 5);
  assert.ok(text.every((t) => !/Modified Problem Description|^##/m.test(t.text)));
  // The manifest: usage per stage, the quoted retries, the failed item, no secret.
  const manifestText = readFileSync(join(out1, 'manifest.json'), 'utf8');
  assert.ok(!manifestText.includes(KEY));
  const m = JSON.parse(manifestText);
  assert.equal(m.stages.tests.contract_retries, 1);
  assert.equal(m.stages.abbreviate.contract_retries, 1);
  assert.deepEqual(m.abbreviation_fallbacks, []);
  assert.deepEqual(
    // biome-ignore lint/suspicious/noExplicitAny: manifest JSON
    m.failures.map((f: any) => `${f.stage} ${f.item} ${f.model}`),
    ['solve tp_rev/cpp model-b'],
  );
  assert.equal(m.stages.solve.failed, 1);
  assert.equal(m.stages.solve.replies, 8 + 2, '8 solve items, 2 contract retries for the failed one');
  assert.ok(m.stages.rewrite.input_tokens > 0 && m.stages.solve.output_tokens > 0);
  assert.equal(m.counts.table2_release.problems, 2);
  assert.equal(m.counts.table2_release.text_hard_negatives, 8);
  assert.deepEqual(m.counts.a8_verified_correct, { passed: 5, total: 7, rate: 0.7143 });
  assert.equal(Object.keys(m.prompts.sha256).length >= 7, true);
  assert.equal(m.models.solvers[1].apiKeyEnv, 'FAKE_ANTHROPIC_KEY');
  assert.equal(m.settings.concurrency_per_endpoint, 1);
  assert.equal(m.settings.queries_per_variant, 2);
  assert.match(r.stdout, /missing: 1 item\(s\) failed \(reply contract broken/);
});

test('every request carried the stage and item headers of its contract; the retry quoted the parse error', () => {
  const calls = [...openai.calls, ...anthropic.calls];
  for (const c of calls) {
    assert.ok(['rewrite', 'tests', 'abbreviate', 'solve', 'queries', 'negatives'].includes(c.stage), c.stage);
    if (c.stage === 'solve') assert.match(c.item, /^tp_(sum|rev)\/(python|cpp)$/);
    else if (c.stage === 'negatives')
      assert.match(c.item, /^tp_(sum|rev)\/(operation_type|optimization_objective|algorithmic_approach|problem_domain)$/);
    else if (c.stage === 'queries') assert.match(c.item, /^tp_(sum|rev)\/(title_search|description_search|algorithm_search)$/);
    else assert.match(c.item, /^tp_(sum|rev)$/);
  }
  const retry = openai.calls.find((c) => c.stage === 'tests' && c.messages.some((m) => m.role === 'assistant'));
  assert.ok(retry !== undefined);
  assert.match(retry.messages.at(-1)!.content, /"tests" has 1 cases; expected exactly 2/);
  const negTemps = openai.calls.filter((c) => c.stage === 'negatives').map((c) => (c.body as { temperature: number }).temperature);
  assert.ok(
    negTemps.every((t) => t >= 0.85 && t <= 1.0),
    String(negTemps),
  );
  assert.equal(anthropic.calls.filter((c) => c.stage !== 'solve').length, 0, 'solver B only solves');
});

test('search queries per language: one request per problem and type asks retro_any and each passing language', () => {
  const asked = openai.calls.filter((c) => c.stage === 'queries');
  const variantsOf = (item: string): string[] => {
    const c = asked.find((x) => x.item === item);
    assert.ok(c !== undefined, item);
    return [...new Set([...(c.messages.at(-1)?.content ?? '').matchAll(/"(retro_[a-z]+)"/g)].map((m) => m[1]))];
  };
  // tp_sum passes in python and cpp (model-a); tp_rev in python (both) and cpp (model-a).
  assert.deepEqual(variantsOf('tp_sum/title_search'), ['retro_any', 'retro_python', 'retro_cpp']);
  assert.deepEqual(variantsOf('tp_rev/algorithm_search'), ['retro_any', 'retro_python', 'retro_cpp']);
  assert.equal(asked.length, 2 * 3, 'one call per problem and query type');
  const prompt = asked[0].messages.at(-1)?.content ?? '';
  assert.match(prompt, /Available Languages: Python 3, C\+\+17/);
  assert.match(prompt, /Title: Counterfactual /, 'the query writer sees the rewrite');
  assert.doesNotMatch(prompt, /Title: (Sum of Pairs|Backwards Fruit)/, 'not the original');
  const search = rows(out1, 'text2code_queries').filter((q) => String(q.subtask).startsWith('t2c_search_'));
  const bySubtask = (st: string): number => search.filter((q) => q.subtask === st).length;
  assert.deepEqual(
    ['any', 'python', 'cpp'].map((l) => bySubtask(`t2c_search_${l}`)),
    [12, 12, 12],
    '2 problems x 3 types x 2 queries per variant',
  );
  const py = search.find((q) => q.subtask === 't2c_search_python' && q.meta_original_query_type === 'title_search');
  assert.ok(py !== undefined);
  assert.equal(py.sub_query_type, 'algorithm_search', 'title searches are filed as algorithm_search, as released');
  assert.equal(py.query_type, 'language_specific');
  assert.match(py.query, / in python$/, 'the query written for the python variant, used as written');
});

test('coreb validate accepts the release and coreb eval scores it; the Hub layout (parquet) reads back with the same numbers', () => {
  const v = runCli(['validate', out1]);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  assert.doesNotMatch(v.stdout, /unknown-table/, 'problems.jsonl is a build file, not a table');
  const e = runCli(['eval', '--data', out1, '--format', 'json', '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  assert.match(e.stdout, /bm25/);
  // What `hf upload DIR/hub` publishes: one config per table, one split, a card naming them.
  const hub = join(out1, 'hub');
  for (const t of RELEASE_TABLES) assert.ok(existsSync(join(hub, t, 'release_v202612-00000-of-00001.parquet')), t);
  const card = readFileSync(join(hub, 'README.md'), 'utf8');
  assert.match(
    card,
    /^- config_name: code2code_qrels\n {2}data_files:\n {2}- split: release_v202612\n {4}path: code2code_qrels\/release_v202612-\*$/m,
  );
  assert.ok(existsSync(join(hub, 'manifest', 'release_v202612.json')));
  const hv = runCli(['validate', hub, '--split', 'release_v202612', '--format', 'json', '--no-tokens']);
  assert.equal(hv.status, 0, hv.stdout + hv.stderr);
  assert.equal(JSON.parse(hv.stdout).issues.filter((i: { severity: string }) => i.severity === 'error').length, 0);
  const he = runCli(['eval', '--data', hub, '--split', 'release_v202612', '--format', 'json', '--quiet']);
  assert.equal(he.status, 0, he.stderr);
  const scores = (text: string) => {
    const r = JSON.parse(text).retrievers[0];
    return { overall: r.overall, tasks: r.tasks, subtasks: r.subtasks, perQuery: r.perQuery };
  };
  assert.deepEqual(scores(he.stdout), scores(e.stdout), 'the parquet release gives the JSONL release numbers, query by query');
});

test('labels agree with the judge run directly on the same programs and rewritten tests', () => {
  const res = join(tmp, 'direct.jsonl');
  const r = runCli([
    'exec',
    '--problems',
    join(out1, 'problems.jsonl'),
    '--candidates',
    join(out1, 'code_corpus.jsonl'),
    '--out',
    res,
    '--jobs',
    '2',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const direct = new Map(
    readFileSync(res, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((x) => [x.id, x.passed]),
  );
  for (const c of rows(out1, 'code_corpus')) assert.equal(c.meta_passed, direct.get(c.code_id), c.code_id);
  const compileError = readFileSync(res, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((x) => x.verdict === 'compile_error');
  assert.equal(compileError.length, 1, 'the broken C++ is a failed program, not an error');
});

test('the qrels obey every rule', () => {
  const { violations, checked } = checkQrelsRules(out1, { shape: 'official', primary: 'model-a', secondary: 'model-b', search: SEARCH_RULES });
  assert.deepEqual(violations, []);
  assert.ok(checked.t2c > 0 && checked.c2t > 0 && checked.c2t_match > 0 && checked.search_subtask > 0, JSON.stringify(checked));
  assert.ok((checked.c2c_cross_lang ?? 0) + (checked.c2c_mono_lang ?? 0) + (checked.c2c_cross_model ?? 0) > 0, JSON.stringify(checked));
});

test('a rerun asks only the failed item again and writes byte-identical tables; --previous prints the series check against the last release', async () => {
  const before = openai.calls.length + anthropic.calls.length;
  const a0 = anthropic.calls.length;
  const previous = join(projectRoot, 'data', 'coreb-mini', 'release');
  const r = await runCliAsync(args(out1, ['--previous', previous]), { env: envFor(out1) });
  assert.equal(r.status, 6, r.stderr);
  // A reply that broke its contract is not kept: the failed item (and nothing else) is asked again.
  assert.equal(openai.calls.length + anthropic.calls.length - before, BROKEN_CALLS);
  assert.ok(anthropic.calls.slice(a0).every(isBroken));
  assert.match(r.stdout, new RegExp(`${BROKEN_CALLS} request\\(s\\) sent this run`));
  assert.deepEqual(tables(out1), first);
  assert.match(r.stdout, /^series check: \S+ \(.*\) against coreb_mini_v1 \(.*coreb-mini\/release\); \d+ of \d+ figures outside their band$/m);
  assert.match(r.stdout, /^!? +text2code queries +360 +\d+ /m);
  assert.match(r.stdout, /text2code BM25 nDCG@10/);
});

test('a rebuild into a new --out with the same cache sends no request but the failed item, judges no program, writes identical tables', async () => {
  const out4 = join(tmp, 'rebuilt');
  const before = openai.calls.length + anthropic.calls.length;
  const a0 = anthropic.calls.length;
  const r = await runCliAsync(args(out4), { env: envFor(out1) });
  assert.equal(r.status, 6, r.stderr);
  assert.equal(openai.calls.length + anthropic.calls.length - before, BROKEN_CALLS);
  assert.ok(anthropic.calls.slice(a0).every(isBroken));
  assert.match(r.stdout, /judged 0 program\(s\) in the sandbox this run; 7 from the verdict cache/);
  assert.deepEqual(tables(out4), first);
  const stats = runCli(['cache', 'stats', '--store', 'verdicts', '--json'], { env: envFor(out1) });
  assert.equal(stats.status, 0, stats.stderr);
  assert.equal(JSON.parse(stats.stdout).records, 7);
  const refused = runCli(['cache', 'prune', '--store', 'verdicts'], { env: envFor(out1) });
  assert.equal(refused.status, 2, 'pruning a whole store needs --all or --older-than');
  const young = runCli(['cache', 'prune', '--store', 'verdicts', '--older-than', '1d', '--json'], { env: envFor(out1) });
  assert.deepEqual([JSON.parse(young.stdout).kept, JSON.parse(young.stdout).removed], [7, 0]);
  const all = runCli(['cache', 'prune', '--store', 'verdicts', '--all', '--json'], { env: envFor(out1) });
  assert.deepEqual([JSON.parse(all.stdout).kept, JSON.parse(all.stdout).removed], [0, 7]);
  const chat = runCli(['cache', 'stats', '--store', 'chat', '--json'], { env: envFor(out1) });
  assert.ok(JSON.parse(chat.stdout).records > 0);
});

test('--similar-embedder ranks the similar problems by embeddings (embedded once, cached, named in the manifest); --primary-solver sets model A; bad shape options are refused', async () => {
  const emb = await startLoopbackServer({ format: 'openai', dim: 8 });
  try {
    const outE = join(tmp, 'similar-embedder');
    const extra = ['--similar-embedder', `dense:openai:sim-model?baseUrl=${emb.baseUrl}&apiKeyEnv=E2E_KEY`, '--primary-solver', 'model-b'];
    const e = { ...envFor(out1), E2E_KEY: 'k-123' };
    const r = await runCliAsync(args(outE, extra), { env: e });
    assert.equal(r.status, 6, r.stderr + r.stdout);
    assert.equal(emb.calls.length, 1, 'every problem embedded in one request');
    assert.equal(emb.calls[0].texts.length, rows(outE, 'text_corpus').filter((t) => t.meta_is_noise_sample !== true).length);
    const m = JSON.parse(readFileSync(join(outE, 'manifest.json'), 'utf8'));
    assert.equal(m.settings.similar_problems.ranking, 'embedding cosine');
    assert.equal(m.settings.similar_problems.embedder.model, 'sim-model');
    assert.ok(!JSON.stringify(m).includes('k-123'), 'no key in the manifest');
    assert.deepEqual(m.roles, { primary_model: 'model-b', second_model: 'model-a' });
    assert.equal(m.shape, 'coreb-v202603');
    assert.deepEqual(checkQrelsRules(outE, { shape: 'official', primary: 'model-b', secondary: 'model-a' }).violations, []);
    const again = await runCliAsync(args(outE, extra), { env: e });
    assert.equal(again.status, 6, again.stderr);
    assert.equal(emb.calls.length, 1, 'the rerun takes the embeddings from the cache');
  } finally {
    await emb.close();
  }
  const noSolver = await runCliAsync(args(join(tmp, 'bad-role'), ['--primary-solver', 'model-z']), { env: envFor(out1) });
  assert.equal(noSolver.status, 2);
  assert.match(noSolver.stderr, /--primary-solver model-z is not a solver of this build; solvers: model-a, model-b/);
  const noShape = await runCliAsync(args(join(tmp, 'bad-shape'), ['--shape', 'coreb-v1999']), { env: envFor(out1) });
  assert.equal(noShape.status, 2);
  assert.match(noShape.stderr, /unknown release shape 'coreb-v1999'; expected one of coreb-v202603, coreb-v202602, coreb-mini/);
  const custom = await runCliAsync(args(join(tmp, 'custom-shape'), ['--c2c-subtasks', 'cross_lang', '--search-cap', '1']), { env: envFor(out1) });
  assert.equal(custom.status, 6, custom.stderr);
  const mc = JSON.parse(readFileSync(join(tmp, 'custom-shape', 'manifest.json'), 'utf8'));
  assert.equal(mc.shape, 'custom:coreb-v202603');
  assert.deepEqual(mc.shape_rules.code2code_subtasks, ['c2c_cross_lang']);
  const search = rows(join(tmp, 'custom-shape'), 'text2code_queries').filter((q) => String(q.subtask).startsWith('t2c_search_'));
  const perSubtask = new Map<string, number>();
  for (const q of search) perSubtask.set(q.subtask, (perSubtask.get(q.subtask) ?? 0) + 1);
  assert.ok(perSubtask.size > 0 && [...perSubtask.values()].every((n) => n === 1), JSON.stringify([...perSubtask]));
});

test('kill -9 mid-build, then a rerun: no answered call repeated, identical tables', async () => {
  const out2 = join(tmp, 'killed');
  const oa0 = openai.answered.length;
  const an0 = anthropic.answered.length;
  const killAt = openai.calls.length + Math.floor(callsInFullBuild * 0.6);
  const child = spawn(process.execPath, [cliPath, ...args(out2)], { env: envFor(out2), stdio: 'ignore' });
  killing = (n) => {
    if (n < killAt) return false;
    child.kill('SIGKILL');
    return true;
  };
  const status = await new Promise<string>((res) => child.on('exit', (c, sig) => res(sig ?? String(c))));
  killing = undefined;
  assert.equal(status, 'SIGKILL', 'the build was killed mid-way');
  const run1 = [...openai.answered.slice(oa0), ...anthropic.answered.slice(an0)];
  const oa1 = openai.answered.length;
  const an1 = anthropic.answered.length;
  assert.ok(run1.length > 0 && run1.length < callsInFullBuild, `killed after ${run1.length} of ${callsInFullBuild} calls`);
  const r = await runCliAsync(args(out2), { env: envFor(out2) });
  assert.equal(r.status, 6, r.stderr);
  // The failed item is asked again by design; every other call is paid exactly once.
  const run2 = [...openai.answered.slice(oa1), ...anthropic.answered.slice(an1)];
  const seen = new Set(run1.filter((c) => !isBroken(c)).map((c) => `${c.format}:${c.raw}`));
  for (const c of run2) assert.ok(!seen.has(`${c.format}:${c.raw}`), `call repeated after the kill: ${c.stage} ${c.item}`);
  const paid = (calls: typeof run1) => calls.filter((c) => !isBroken(c)).length;
  assert.equal(paid(run1) + paid(run2), callsInFullBuild - BROKEN_CALLS, 'every call of a full build paid exactly once');
  assert.deepEqual(tables(out2), first);
});

test('Ctrl-C mid-build: exit 130 within 2 s, no table written, and the rerun repeats no answered call', async () => {
  const out3 = join(tmp, 'interrupted');
  const oa0 = openai.answered.length;
  const an0 = anthropic.answered.length;
  const at = openai.calls.length + Math.floor(callsInFullBuild * 0.5);
  const child = spawn(process.execPath, [cliPath, ...args(out3)], { env: envFor(out3), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  let sentAt = 0;
  killing = (n) => {
    if (n < at) return false;
    if (sentAt === 0) {
      sentAt = performance.now();
      child.kill('SIGINT');
    }
    return true;
  };
  const status = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  const exitMs = performance.now() - sentAt;
  killing = undefined;
  assert.ok(sentAt > 0, 'interrupted mid-build');
  assert.equal(status, 130, stderr);
  assert.match(stderr, /SIGINT received, stopping cleanly/);
  assert.ok(exitMs < 2000, `exited ${exitMs.toFixed(0)} ms after SIGINT`);
  for (const f of [...RELEASE_TABLES.map((t) => `${t}.jsonl`), 'problems.jsonl']) assert.equal(existsSync(join(out3, f)), false, `no ${f} written`);
  const run1 = [...openai.answered.slice(oa0), ...anthropic.answered.slice(an0)];
  const oa1 = openai.answered.length;
  const an1 = anthropic.answered.length;
  const r = await runCliAsync(args(out3), { env: envFor(out3) });
  assert.equal(r.status, 6, r.stderr);
  const seen = new Set(run1.filter((c) => !isBroken(c)).map((c) => `${c.format}:${c.raw}`));
  for (const c of [...openai.answered.slice(oa1), ...anthropic.answered.slice(an1)])
    assert.ok(!seen.has(`${c.format}:${c.raw}`), `call repeated after the interrupt: ${c.stage} ${c.item}`);
  assert.deepEqual(tables(out3), first);
});

test('--config build.json with --dry-run prints the plan and sends nothing; the CLI wins over the file', async () => {
  const n = openai.calls.length + anthropic.calls.length;
  const cfg = join(tmp, 'build.json');
  writeFileSync(
    cfg,
    JSON.stringify({
      problems: 'problems.jsonl',
      out: 'from-config',
      rewriter: `openai:rewriter-1?baseUrl=${encodeURIComponent(openai.baseUrl)}`,
      solvers: [`openai:model-a?baseUrl=${encodeURIComponent(openai.baseUrl)}`, { provider: 'ollama', model: 'qwen2.5-coder:7b' }],
      languages: ['python', 'cpp', 'java'],
    }),
  );
  const r = await runCliAsync(['build', '--config', cfg, '--languages', 'python', '--dry-run']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(openai.calls.length + anthropic.calls.length, n);
  assert.match(r.stdout, /2 problem\(s\), 1 language\(s\), 2 solver\(s\); no request sent/);
  assert.match(r.stdout, /^shape: coreb-v202603 \(docs\/build\.md, "Release shape"\); model A \(primary\): model-a; model B: qwen2\.5-coder:7b$/m);
  assert.match(r.stdout, /^solve\s+ollama:qwen2.5-coder:7b\s+2\s/m);
  assert.match(r.stdout, /^negatives\s+openai:rewriter-1\s+8\s/m);
  const bad = await runCliAsync(['build', '--config', cfg, '--until', 'nope']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown stage `nope`; stages: load, rewrite, tests/);
  writeFileSync(cfg, JSON.stringify({ problem: 'x' }));
  const typo = await runCliAsync(['build', '--config', cfg]);
  assert.notEqual(typo.status, 0);
  assert.match(typo.stderr, /build\.json: field `problem`: unknown key; valid keys: problems/);
});

test('--until abbreviate stops there; --stages solve then continues from the stage outputs', async () => {
  const out3 = join(tmp, 'staged');
  const before = openai.calls.length;
  const r1 = await runCliAsync(args(out3, ['--until', 'abbreviate']), { env: envFor(out3) });
  assert.equal(r1.status, 0, r1.stderr);
  const stages1 = new Set(openai.calls.slice(before).map((c) => c.stage));
  assert.deepEqual([...stages1].sort(), ['abbreviate', 'rewrite', 'tests']);
  assert.ok(!readFileSync(join(out3, 'work', 'abbreviate.jsonl'), 'utf8').includes('"fallback":true'));
  const r2 = await runCliAsync(args(out3, ['--stages', 'solve']), { env: envFor(out3) });
  assert.equal(r2.status, 6, r2.stderr);
  assert.ok(readFileSync(join(out3, 'work', 'solve.jsonl'), 'utf8').includes('"model":"model-a"'));
  const r3 = await runCliAsync(args(out3, ['--stages', 'queries']), { env: envFor(out3) });
  assert.notEqual(r3.status, 0);
  assert.match(r3.stderr, /execute\.jsonl|no execution result|run the execute stage/);
});

test('once the endpoint answers, the rerun asks only the failed item and exits 0', async () => {
  solutions.set('model-b|tp_rev/cpp', PROGRAMS.REV_CPP);
  const before = openai.calls.length + anthropic.calls.length;
  const a0 = anthropic.calls.length;
  const r = await runCliAsync(args(out1), { env: envFor(out1) });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.equal(openai.calls.length + anthropic.calls.length - before, 1, 'the one item, answered at its first attempt');
  assert.ok(anthropic.calls.slice(a0).every(isBroken));
  assert.match(r.stdout, /judged 1 program\(s\) in the sandbox this run; 0 from the verdict cache, 7 already in work\/execute\.jsonl/);
  assert.deepEqual(JSON.parse(readFileSync(join(out1, 'manifest.json'), 'utf8')).failures, []);
});
