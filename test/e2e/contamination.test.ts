/**
 * `coreb contamination` end to end: a small build made through loopback chat servers (OpenAI- and
 * Anthropic-format) whose answers are known, then the study with two solvers. Some programs are
 * "memorised" (they answer the original tests by lookup and fail the rewrite), one does not compile,
 * one reply has no program. The study's 2×2 tables, Pass@1 and McNemar p must equal what this test
 * computes by judging the same programs directly on the tests of the problem each was written for;
 * a rerun sends 0 requests; `--samples 2` sends the second samples with their own item and seed.
 */
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TestCase } from '../../src/core/execution.js';
import { loadLcbProblems } from '../../src/dataset/lcb.js';
import { mcnemarExactP } from '../../src/report/significance.js';
import { createBuildFake } from '../support/build-fake.js';
import { runCliAsync } from '../support/cli.js';
import { createTestJudge } from '../support/judge.js';
import { startPiston } from '../support/judge-services.js';
import { authoredBuildProblems, PROGRAMS } from '../support/build-problems.js';
import { startChatServer, type ChatServer } from '../support/loopback-chat-server.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-contamination-e2e-'));
const KEY = 'sk-anthropic-test-24680';
const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(tmp, { recursive: true, force: true });
});

const { problems: PROBLEMS, fakeProblems } = authoredBuildProblems('tq');
const { SUM_PY, SUM_PY_WRONG, SUM_CPP, SUM_CPP_BROKEN, REV_PY, REV_CPP } = PROGRAMS;
/** Answers the original tests from memory: passes the original, fails the rewrite. */
const REV_PY_MEMORISED = 'print({"apple": "elppa", "3": "3", "banana": "ananab"}[input().strip()])\n';

/** `<model>|<X-Coreb-Item>` -> program. The build's solve items (`PID/LANG`) are the rewritten form. */
const solutions = new Map<string, string>([
  // model-a: the build (rewritten form)
  ['model-a|tq_sum/python', SUM_PY],
  ['model-a|tq_sum/cpp', SUM_CPP],
  ['model-a|tq_rev/python', REV_PY_MEMORISED],
  ['model-a|tq_rev/cpp', REV_CPP],
  // model-a: original form
  ['model-a|tq_sum/python/original', SUM_PY],
  ['model-a|tq_sum/cpp/original', SUM_CPP_BROKEN],
  ['model-a|tq_rev/python/original', REV_PY_MEMORISED],
  ['model-a|tq_rev/cpp/original', REV_CPP],
  // model-b: the build
  ['model-b|tq_sum/python', SUM_PY_WRONG],
  ['model-b|tq_sum/cpp', SUM_CPP_BROKEN],
  ['model-b|tq_rev/python', REV_PY],
  // model-b|tq_rev/cpp: no program (a failed item, cached, counts as failing)
  ['model-b|tq_sum/python/original', SUM_PY_WRONG],
  ['model-b|tq_sum/cpp/original', SUM_CPP],
  ['model-b|tq_rev/python/original', REV_PY_MEMORISED],
  ['model-b|tq_rev/cpp/original', REV_CPP],
  // second samples (--samples 2)
  ['model-a|tq_sum/python/original/1', SUM_PY_WRONG],
  ['model-a|tq_sum/python/rewritten/1', SUM_PY],
  ['model-a|tq_sum/cpp/original/1', SUM_CPP],
  ['model-a|tq_sum/cpp/rewritten/1', SUM_CPP],
  ['model-a|tq_rev/python/original/1', REV_PY],
  ['model-a|tq_rev/python/rewritten/1', REV_PY],
  ['model-a|tq_rev/cpp/original/1', REV_CPP],
  ['model-a|tq_rev/cpp/rewritten/1', SUM_CPP_BROKEN],
]);

const problemsFile = join(tmp, 'problems.jsonl');
const buildDir = join(tmp, 'build');
let openai: ChatServer;
let anthropic: ChatServer;
const env = { ...process.env, FAKE_ANTHROPIC_KEY: KEY, COREB_CACHE_DIR: join(tmp, 'cache') };

before(async () => {
  writeFileSync(problemsFile, PROBLEMS.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const answer = createBuildFake({ problems: fakeProblems, solutions });
  openai = await startChatServer({ format: 'openai', answer });
  anthropic = await startChatServer({ format: 'anthropic', key: KEY, answer });
  servers.push(openai, anthropic);
});

const solverA = (): string => `openai:model-a?baseUrl=${encodeURIComponent(openai.baseUrl)}&concurrency=2&backoffMs=5`;
const solverB = (): string => `anthropic:model-b?baseUrl=${encodeURIComponent(anthropic.baseUrl)}&apiKeyEnv=FAKE_ANTHROPIC_KEY&backoffMs=5`;

/** Verdicts of the judge run directly: `<model>|<pid>|<lang>|<arm>|<sample>` -> passed. */
async function judgeDirectly(samples: number, models: readonly string[] = ['model-a', 'model-b']): Promise<Map<string, boolean>> {
  // the same few programs recur across models and arms: each is compiled once (keepBuildsMb)
  const judge = await createTestJudge({ jobs: 2, keepBuildsMb: 64 });
  assert.equal(typeof judge, 'object', String(judge));
  if (typeof judge === 'string') throw new Error(judge);
  const original = await loadLcbProblems(problemsFile);
  const rewritten = await loadLcbProblems(join(buildDir, 'problems.jsonl'));
  const testsOf = (pid: string, arm: string): TestCase[] => {
    const p = (arm === 'original' ? original : rewritten).get(pid);
    assert.ok(p !== undefined, pid);
    return [...p.publicTests, ...p.privateTests];
  };
  const out = new Map<string, boolean>();
  try {
    for (const model of models) {
      for (const pid of ['tq_sum', 'tq_rev']) {
        for (const lang of ['python', 'cpp'] as const) {
          for (const arm of ['original', 'rewritten']) {
            for (let s = 0; s < samples; s++) {
              const item = s > 0 ? `${pid}/${lang}/${arm}/${s}` : arm === 'rewritten' ? `${pid}/${lang}` : `${pid}/${lang}/${arm}`;
              const code = solutions.get(`${model}|${item}`);
              let passed = false;
              if (code !== undefined) {
                const r = await judge.judge({ id: `${model}/${item}`, problemId: pid, language: lang, code }, testsOf(pid, arm));
                passed = r.passed;
              }
              out.set(`${model}|${pid}|${lang}|${arm}|${s}`, passed);
            }
          }
        }
      }
    }
  } finally {
    await judge.close();
  }
  return out;
}

/** The 2×2 table and pass rates this test computes from direct verdicts. */
function expectedCell(v: Map<string, boolean>, model: string, langs: string[], samples: number) {
  const table = { bothPass: 0, originalOnly: 0, rewrittenOnly: 0, neither: 0 };
  let o = 0;
  let r = 0;
  let n = 0;
  for (const pid of ['tq_sum', 'tq_rev']) {
    for (const lang of langs) {
      for (let s = 0; s < samples; s++) {
        const a = v.get(`${model}|${pid}|${lang}|original|${s}`) as boolean;
        const b = v.get(`${model}|${pid}|${lang}|rewritten|${s}`) as boolean;
        if (a && b) table.bothPass++;
        else if (a) table.originalOnly++;
        else if (b) table.rewrittenOnly++;
        else table.neither++;
        o += a ? 1 : 0;
        r += b ? 1 : 0;
        n++;
      }
    }
  }
  return { table, original: o / n, rewritten: r / n, p: mcnemarExactP(table.originalOnly, table.rewrittenOnly) };
}

function checkSummary(json: string, v: Map<string, boolean>, samples: number): void {
  // biome-ignore lint/suspicious/noExplicitAny: contamination.json probed field by field
  const s = JSON.parse(json) as { models: Record<string, any> };
  assert.deepEqual(Object.keys(s.models), ['model-a', 'model-b']);
  for (const model of ['model-a', 'model-b']) {
    const cells: Array<[unknown, string[]]> = [
      [s.models[model], ['python', 'cpp']],
      [s.models[model].languages.python, ['python']],
      [s.models[model].languages.cpp, ['cpp']],
    ];
    for (const [got, langs] of cells) {
      const e = expectedCell(v, model, langs, samples);
      // biome-ignore lint/suspicious/noExplicitAny: as above
      const g = got as any;
      assert.deepEqual(g.table, e.table, `${model} ${langs}`);
      assert.ok(Math.abs(g.original.passAt1 - e.original) < 1e-12, `${model} ${langs} original`);
      assert.ok(Math.abs(g.rewritten.passAt1 - e.rewritten) < 1e-12, `${model} ${langs} rewritten`);
      assert.ok(Math.abs(g.delta - (e.rewritten - e.original)) < 1e-12);
      assert.equal(g.mcnemarP, e.p);
    }
  }
}

test('the study of a build equals the table computed from the judge run directly', async () => {
  const b = await runCliAsync(
    [
      'build',
      '--problems',
      problemsFile,
      '--out',
      buildDir,
      '--rewriter',
      `openai:rewriter-1?baseUrl=${encodeURIComponent(openai.baseUrl)}&backoffMs=5`,
      '--solver',
      solverA(),
      '--solver',
      solverB(),
      '--languages',
      'python,cpp',
      '--release-name',
      'v202612',
      '--created-at',
      '2026-12-01T00:00:00Z',
      '--jobs',
      '2',
    ],
    { env },
  );
  assert.equal(b.status, 6, 'the build has one failed item (model-b writes no C++ for tq_rev)');
  const before = openai.calls.length + anthropic.calls.length;
  const r = await runCliAsync(['contamination', buildDir, '--solver', solverA(), '--solver', solverB(), '--jobs', '2'], { env });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const newCalls = openai.calls.length + anthropic.calls.length - before;
  // The rewritten requests are the build's solve requests (cached), except model-b's tq_rev/cpp: the
  // build dropped the replies that broke its contract, so the study asks it again (1 + 2 retries).
  // The rest are the 2 models x 2 problems x 2 languages original requests.
  assert.equal(newCalls, 8 + 3, `requests sent: ${newCalls}`);
  const sent = [...openai.calls, ...anthropic.calls].filter((c) => c.item.endsWith('/original'));
  assert.equal(sent.length, 8);
  assert.ok(
    sent.every((c) => c.stage === 'solve'),
    'stage header solve',
  );
  const v = await judgeDirectly(1);
  // What the test's programs were written to show.
  assert.equal(v.get('model-a|tq_rev|python|original|0'), true);
  assert.equal(v.get('model-a|tq_rev|python|rewritten|0'), false, 'the memorised program fails the rewrite');
  assert.equal(v.get('model-b|tq_rev|cpp|rewritten|0'), false, 'no program');
  const json = readFileSync(join(buildDir, 'contamination.json'), 'utf8');
  checkSummary(json, v, 1);
  const s = JSON.parse(json);
  assert.deepEqual(s.models['model-a'].table, { bothPass: 2, originalOnly: 1, rewrittenOnly: 1, neither: 0 });
  assert.deepEqual(s.models['model-b'].table, { bothPass: 1, originalOnly: 2, rewrittenOnly: 0, neither: 1 });
  assert.equal(s.models['model-b'].mcnemarP, 0.5);
  assert.match(r.stdout, /model-b\s+all\s+75\.0%\s+25\.0%\s+-50\.0\s+1\s+2\s+0\s+1\s+0\.500/);
  assert.match(readFileSync(join(buildDir, 'contamination.txt'), 'utf8'), /McNemar p/);

  // A rerun: nothing sent, same JSON.
  const n0 = openai.calls.length + anthropic.calls.length;
  const again = await runCliAsync(['contamination', buildDir, '--solver', solverA(), '--solver', solverB(), '--jobs', '2'], { env });
  assert.equal(again.status, 0, again.stderr);
  assert.equal(openai.calls.length + anthropic.calls.length, n0);
  assert.match(again.stdout, /0 request\(s\) sent this run/);
  assert.equal(readFileSync(join(buildDir, 'contamination.json'), 'utf8'), json);
});

test('the same study on a remote judge (--judge piston:URL, a loopback Piston running the programs) gives the same tables', async () => {
  const svc = await startPiston({ runTimeoutCapMs: 20000 });
  try {
    const copy = join(tmp, 'build-remote');
    cpSync(buildDir, copy, { recursive: true });
    const r = await runCliAsync(
      ['contamination', copy, '--solver', solverA(), '--solver', solverB(), '--jobs', '2', '--judge', `piston:${svc.url}`],
      { env },
    );
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.ok((svc.requests.get('POST /api/v2/execute') ?? 0) > 0, 'the programs ran on the service');
    const local = JSON.parse(readFileSync(join(buildDir, 'contamination.json'), 'utf8'));
    const remote = JSON.parse(readFileSync(join(copy, 'contamination.json'), 'utf8'));
    for (const m of ['model-a', 'model-b']) assert.deepEqual(remote.models[m].table, local.models[m].table, m);
    const bad = await runCliAsync(['contamination', copy, '--solver', solverA(), '--judge', 'judge1:http://x'], { env });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown judge `judge1`/);
  } finally {
    await svc.close();
  }
});

test('coreb report shows the study: a build folder alone, or a results file with contamination.json beside it', async () => {
  const s = JSON.parse(readFileSync(join(buildDir, 'contamination.json'), 'utf8'));
  const out = join(tmp, 'report-build');
  const r = await runCliAsync(['report', buildDir, '--out', out, '--no-png']);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /contamination study \(.*contamination\.json\):\nmodel\s+language\s+orig Pass@1/);
  assert.match(r.stdout, /model-b\s+all\s+75\.0%\s+25\.0%\s+-50\.0\s+1\s+2\s+0\s+1\s+0\.500/);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const sec = /<section id="contamination">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  for (const m of ['model-a', 'model-b']) {
    const c = s.models[m];
    const row = new RegExp(
      `<th scope="row">${m}</th><td>all</td><td class="num">${(100 * c.original.passAt1).toFixed(1)}%</td><td class="num">${(100 * c.rewritten.passAt1).toFixed(1)}%</td>`,
    );
    assert.match(sec, row, `${m} row in the page`);
  }
  // A results file whose folder holds contamination.json: leaderboard and study on one page.
  const evalDir = join(tmp, 'eval-with-study');
  const e = await runCliAsync(['eval', '--data', buildDir, '--out', evalDir, '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  copyFileSync(join(buildDir, 'contamination.json'), join(evalDir, 'contamination.json'));
  const out2 = join(tmp, 'report-results');
  const r2 = await runCliAsync(['report', join(evalDir, 'results.json'), '--out', out2, '--no-png', '--permutations', '200']);
  assert.equal(r2.status, 0, r2.stderr);
  const html2 = readFileSync(join(out2, 'index.html'), 'utf8');
  assert.match(html2, /<section id="leaderboard-0">/);
  assert.match(html2, /<section id="contamination">[\s\S]*model-b/);
  // A folder with neither file is a clear error.
  const bad = await runCliAsync(['report', tmp, '--out', join(tmp, 'report-none')]);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /no results\.json \(coreb eval --out\), no results-store entry \(coreb eval --results\) and no contamination\.json/);
});

test('a provider error is not a failed program: it stops the study (exit 6) and writes no summary', async () => {
  const out = join(tmp, 'refused');
  const r = await runCliAsync(
    ['contamination', buildDir, '--solver', 'openai:model-z?baseUrl=http%3A%2F%2F127.0.0.1%3A9%2Fv1&maxRetries=0', '--out', out, '--jobs', '2'],
    { env },
  );
  assert.equal(r.status, 6, r.stderr + r.stdout);
  assert.match(r.stderr, /127\.0\.0\.1:9\/v1\/chat\/completions: request failed/);
  assert.equal(existsSync(join(out, 'contamination.json')), false);
});

test('--samples 2: second samples carry /1 items and a seed; pass@1 is the unbiased estimate', async () => {
  const out = join(tmp, 'samples');
  const n0 = openai.calls.length;
  const r = await runCliAsync(['contamination', buildDir, '--solver', solverA(), '--samples', '2', '--out', out, '--jobs', '2'], { env });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const sent = openai.calls.slice(n0);
  assert.equal(sent.length, 8, 'only the second samples are new');
  assert.ok(
    sent.every((c) => /\/(original|rewritten)\/1$/.test(c.item) && c.body.seed === 1),
    JSON.stringify(sent.map((c) => [c.item, c.body.seed])),
  );
  const v = await judgeDirectly(2, ['model-a']);
  // biome-ignore lint/suspicious/noExplicitAny: contamination.json
  const s = JSON.parse(readFileSync(join(out, 'contamination.json'), 'utf8')) as { models: Record<string, any> };
  assert.deepEqual(Object.keys(s.models), ['model-a']);
  const e = expectedCell(v, 'model-a', ['python', 'cpp'], 2);
  assert.deepEqual(s.models['model-a'].table, e.table);
  assert.ok(Math.abs(s.models['model-a'].original.passAt1 - e.original) < 1e-12);
  assert.ok(Math.abs(s.models['model-a'].rewritten.passAt1 - e.rewritten) < 1e-12);
  // By hand: original passes 1,0 | 0,1 | 1,1 | 1,1 = 6/8; rewritten 1,1 | 1,1 | 0,1 | 1,0 = 6/8.
  assert.equal(s.models['model-a'].original.passAt1, 0.75);
  assert.equal(s.models['model-a'].rewritten.passAt1, 0.75);
});
