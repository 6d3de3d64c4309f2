import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunJournal } from '../cache/run-journal.js';
import type { Doc, Query } from '../core/dataset.js';
import type { Program, ProgramResult, TestCase } from '../core/execution.js';
import type { JudgeBackend } from '../sandbox/backend.js';
import { createExecReranker, createExecRerankerFromSpec, parseExecRerankerSpec } from './exec-reranker.js';
import { rerankLists } from './rerank-stage.js';
import { createTestJudge, toolchainSkipReason } from '../../test/support/judge.js';

/**
 * A judge that "runs" a tiny language: `sum` prints the sum of the input's integers, `echo N`
 * prints N, `fail` does not compile. Counts runs and builds, so screening and the journal show.
 */
function fakeJudge(): JudgeBackend & { runs: number; builds: number } {
  const j = {
    runs: 0,
    builds: 0,
    describe: () => ({ kind: 'fake', jobs: 1 }),
    stats: () => ({ compiles: j.builds, runs: j.runs }),
    close: async () => {},
    async judge(p: Program, tests: readonly TestCase[]): Promise<ProgramResult> {
      j.builds++;
      const base = {
        id: p.id,
        problemId: p.problemId,
        language: p.language,
        compileMs: 1,
        maxRunMs: 0,
        maxMemoryKb: -1,
        normalisations: [],
        comparator: 'tokens' as const,
        sandboxed: false,
      };
      if (p.code.startsWith('fail'))
        return { ...base, verdict: 'compile_error', passed: false, passRate: 0, testsPassed: 0, testsTotal: tests.length, tests: [] };
      const results = tests.map((t) => {
        j.runs++;
        const nums = (t.input.match(/-?\d+/g) ?? []).map(Number);
        const out = p.code.startsWith('sum') ? String(nums.reduce((a, b) => a + b, 0)) : p.code.replace(/^echo /, '').trim();
        return {
          verdict: t.outputs.includes(out) ? ('accepted' as const) : ('wrong_answer' as const),
          runMs: 1,
          cpuMs: 10,
          memoryKb: 1,
          exitCode: 0,
        };
      });
      const passed = results.filter((r) => r.verdict === 'accepted').length;
      return {
        ...base,
        verdict: passed === tests.length ? 'accepted' : 'wrong_answer',
        passed: passed === tests.length,
        passRate: passed / tests.length,
        testsPassed: passed,
        testsTotal: tests.length,
        tests: results,
      };
    },
  };
  return j;
}

const SUM_STATEMENT = 'Add the numbers.\n\nSample Input 1\n1 2\n\nSample Output 1\n3\n\nSample Input 2\n5 7\n\nSample Output 2\n12\n';
const PRODUCT_STATEMENT = 'Multiply the numbers.\n\nSample Input 1\n2 3\n\nSample Output 1\n6\n';

function lists(ids: string[]) {
  return { docIds: ids, scores: Float32Array.from(ids, (_, i) => ids.length - i) };
}

test('text-to-code: programs reproducing every sample rise, a partial one next, ties keep the first stage; the journal makes a rerun execute nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-exec-rerank-'));
  try {
    const query: Query = { id: 'q1', text: SUM_STATEMENT, task: 'text2code' };
    const docs: Doc[] = [
      { id: 'd-echo12', text: 'echo 12', language: 'python' },
      { id: 'd-fail', text: 'fail', language: 'cpp' },
      { id: 'd-sum-a', text: 'sum a', language: 'python' },
      { id: 'd-echo3', text: 'echo 3', language: 'go' },
      { id: 'd-rust', text: 'sum', language: 'rust' },
      { id: 'd-sum-b', text: 'sum b', language: 'java' },
    ];
    const run = async (judge: ReturnType<typeof fakeJudge>) => {
      const journal = openRunJournal(dir);
      const reranker = createExecReranker({ judge, journal });
      const out = await rerankLists({
        reranker,
        queries: [query],
        docs: new Map(docs.map((d) => [d.id, d])),
        lists: new Map([['q1', lists(docs.map((d) => d.id))]]),
        depth: 10,
        fusion: { kind: 'none' },
        task: 'text2code',
      });
      const report = reranker.report();
      reranker.close();
      return { order: out.get('q1')?.docIds, report };
    };
    const judge = fakeJudge();
    const first = await run(judge);
    // sum a, sum b reproduce 2 of 2; echo 3 reproduces sample 1 only; echo 12 fails sample 1 (screened: its sample 2 never runs).
    assert.deepEqual(first.order, ['d-sum-a', 'd-sum-b', 'd-echo3', 'd-echo12', 'd-fail', 'd-rust']);
    assert.equal(first.report.allReproduced, 2);
    assert.equal(first.report.unrunnable, 1, 'rust is not a language the judge runs');
    // Round 1: sample 1 of 5 programs (4 runs, 1 build failure); round 2: sample 2 of the 3 that passed.
    assert.equal(judge.runs, 4 + 3);
    assert.deepEqual(first.report.runs, { requested: 5 + 3, cached: 0, executed: 7 });
    assert.equal(first.report.verdicts.compile_error, 1);
    const again = fakeJudge();
    const second = await run(again);
    assert.deepEqual(second.order, first.order);
    assert.equal(again.runs, 0);
    assert.equal(again.builds, 0);
    assert.deepEqual(second.report.runs, { requested: 8, cached: 8, executed: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without screening every sample runs; code-to-code and statements without samples are passed through in first-stage order', async () => {
  const judge = fakeJudge();
  const reranker = createExecReranker({ judge, settings: parseExecRerankerSpec('exec?screen=false') });
  const docs: Doc[] = [
    { id: 'a', text: 'echo 12', language: 'python' },
    { id: 'b', text: 'sum', language: 'python' },
  ];
  const docMap = new Map(docs.map((d) => [d.id, d]));
  const q: Query = { id: 'q', text: SUM_STATEMENT };
  const out = await rerankLists({
    reranker,
    queries: [q],
    docs: docMap,
    lists: new Map([['q', lists(['a', 'b'])]]),
    depth: 5,
    fusion: { kind: 'none' },
    task: 'text2code',
  });
  assert.deepEqual(out.get('q')?.docIds, ['b', 'a']);
  assert.equal(judge.runs, 4, 'both samples of both programs');
  for (const [task, text] of [
    ['code2code', 'sum'],
    ['text2code', 'Add the numbers; no examples.'],
  ] as const) {
    const kept = await rerankLists({
      reranker,
      queries: [{ id: 'p', text }],
      docs: docMap,
      lists: new Map([['p', lists(['a', 'b'])]]),
      depth: 5,
      fusion: { kind: 'none' },
      task,
    });
    assert.deepEqual(kept.get('p')?.docIds, ['a', 'b'], task);
  }
  assert.deepEqual(reranker.report().passedThrough, { noSamples: 1, code2code: 1, noRunnableLanguage: 0 });
  assert.equal(judge.runs, 4, 'nothing ran for the passed-through queries');
});

test("borrowed samples: a query stating no example takes its best-matching statement's; a code-to-code anchor the samples of the statement it reproduces", async () => {
  const judge = fakeJudge();
  const reranker = createExecReranker({ judge, settings: parseExecRerankerSpec('exec?borrow=all') });
  const statements: Doc[] = [
    { id: 'st-product', text: PRODUCT_STATEMENT },
    { id: 'st-sum', text: SUM_STATEMENT },
    { id: 'st-none', text: 'Add the numbers, then multiply them by nothing at all.' },
  ];
  reranker.useStatements(statements);
  const docs: Doc[] = [
    { id: 'a-echo6', text: 'echo 6', language: 'python' },
    { id: 'b-sum', text: 'sum b', language: 'go' },
    { id: 'c-echo3', text: 'echo 3', language: 'java' },
  ];
  const docMap = new Map(docs.map((d) => [d.id, d]));
  const run = (task: 'text2code' | 'code2code', q: Query) =>
    rerankLists({
      reranker,
      queries: [q],
      docs: docMap,
      lists: new Map([[q.id, lists(docs.map((d) => d.id))]]),
      depth: 5,
      fusion: { kind: 'none' },
      task,
    });
  // "Add the numbers." ranks the sum statement first: its two samples are borrowed.
  const t2c = await run('text2code', { id: 't', text: 'Add the numbers.' });
  assert.deepEqual(t2c.get('t')?.docIds, ['b-sum', 'c-echo3', 'a-echo6']);
  // The anchor (a sum program) reproduces the sum statement's samples, not the product one's (ranked first).
  const c2c = await run('code2code', { id: 'c', text: 'sum multiply numbers', language: 'python' });
  assert.deepEqual(c2c.get('c')?.docIds, ['b-sum', 'c-echo3', 'a-echo6']);
  assert.deepEqual(reranker.report().borrowed, { text2code: 1, code2code: 1 });
  // By default (borrow=text) the code-to-code anchor is passed through.
  const byDefault = createExecReranker({ judge: fakeJudge() });
  byDefault.useStatements(statements);
  const passed = await rerankLists({
    reranker: byDefault,
    queries: [{ id: 'c', text: 'sum multiply numbers', language: 'python' }],
    docs: docMap,
    lists: new Map([['c', lists(docs.map((d) => d.id))]]),
    depth: 5,
    fusion: { kind: 'none' },
    task: 'code2code',
  });
  assert.deepEqual(passed.get('c')?.docIds, ['a-echo6', 'b-sum', 'c-echo3']);
  assert.deepEqual(byDefault.report().borrowed, { text2code: 0, code2code: 0 });
  // Without borrowing both are passed through.
  const plain = createExecReranker({ judge: fakeJudge(), settings: parseExecRerankerSpec('exec?borrow=none') });
  plain.useStatements(statements);
  const kept = await rerankLists({
    reranker: plain,
    queries: [{ id: 't', text: 'Add the numbers.' }],
    docs: docMap,
    lists: new Map([['t', lists(docs.map((d) => d.id))]]),
    depth: 5,
    fusion: { kind: 'none' },
    task: 'text2code',
  });
  assert.deepEqual(kept.get('t')?.docIds, ['a-echo6', 'b-sum', 'c-echo3']);
});

test('exec spec parameters are checked', () => {
  assert.deepEqual(parseExecRerankerSpec('exec?timeoutMs=500&judge=piston:http://127.0.0.1:9&normalise=official&jobs=3&borrow=none'), {
    borrow: 'none',
    judge: 'piston:http://127.0.0.1:9',
    timeoutMs: 500,
    memoryMb: 512,
    normalise: 'official',
    screen: true,
    jobs: 3,
  });
  assert.throws(() => parseExecRerankerSpec('exec?k=3'), /unknown parameter `k`; valid: judge, timeoutMs/);
  assert.throws(() => parseExecRerankerSpec('exec?timeoutMs=0'), /timeoutMs must be an integer >= 1/);
  assert.throws(() => parseExecRerankerSpec('exec?borrow=yes'), /borrow must be text, all or none/);
  assert.equal(parseExecRerankerSpec('exec').borrow, 'text');
  assert.throws(() => parseExecRerankerSpec('exec?judge=ftp:x'), /unknown judge `ftp`/);
});

const skip = toolchainSkipReason(['python', 'cpp', 'java', 'go', 'ruby']);

test('the real judge: stdin samples in five languages (a C++ program ending in a stray main(); included), LeetCode examples through the functional driver, code-to-text', {
  skip,
}, async () => {
  // kept builds, as createExecRerankerFromSpec gives its judge
  const judge = await createTestJudge({ timeLimitMs: 2000, keepBuildsMb: 64 });
  if (typeof judge === 'string') return;
  const reranker = createExecReranker({ judge });
  try {
    const code = (id: string, language: string, text: string): Doc => ({ id, text, language });
    const docs = [
      code('py-product', 'python', 'a, b = map(int, input().split())\nprint(a * b)'),
      code('cpp-sum', 'cpp', 'using namespace std;\nint main() { long long a, b; cin >> a >> b; cout << a + b << endl; return 0; }\n\nmain();'),
      code(
        'java-sum',
        'java',
        'import java.util.*;\npublic class Main { public static void main(String[] x) { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }',
      ),
      code('go-sum', 'go', 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }'),
      code('rb-sum', 'ruby', 'a, b = gets.split.map(&:to_i)\nputs a + b'),
      code('py-sum', 'python', 'print(sum(map(int, input().split())))'),
    ];
    /** The text-to-code order of `candidates` for a statement, in their given first-stage order. */
    const rerankT2c = async (statement: string, candidates: Doc[]) =>
      (
        await rerankLists({
          reranker,
          queries: [{ id: 'q', text: statement }],
          docs: new Map(candidates.map((d) => [d.id, d])),
          lists: new Map([['q', lists(candidates.map((d) => d.id))]]),
          depth: 10,
          fusion: { kind: 'none' },
          task: 'text2code',
        })
      ).get('q')?.docIds;
    assert.deepEqual(await rerankT2c(SUM_STATEMENT, docs), ['cpp-sum', 'java-sum', 'go-sum', 'rb-sum', 'py-sum', 'py-product']);
    // another statement's samples for the same programs: nothing is compiled again
    const compiled = judge.stats().compiles;
    assert.equal((await rerankT2c(PRODUCT_STATEMENT, docs))?.[0], 'py-product');
    assert.equal(judge.stats().compiles, compiled, 'the C++, Java and Go builds were kept');
    assert.ok((judge.stats().buildsReused ?? 0) >= 3, JSON.stringify(judge.stats()));

    const leet =
      'Return the sum of nums minus k.\n\n**Example 1:**\n\nInput: nums = [1,2,3], k = 1\nOutput: 5\n\n**Example 2:**\n\nInput: nums = [4], k = 4\nOutput: 0\n';
    const calls = [
      code(
        'py-wrong',
        'python',
        'class Solution:\n    def helper(self, x):\n        return x\n    def f(self, nums, k):\n        return sum(nums)\n',
      ),
      code(
        'go-right',
        'go',
        'package main\nfunc f(nums []int, k int) int { s := 0; for _, v := range nums { s += v }; return s - k }\nfunc main() {}',
      ),
      code(
        'py-right',
        'python',
        'import sys\nclass Solution:\n    def f(self, nums: List[int], k: int) -> int:\n        return sum(nums) - k\nif __name__ == "__main__":\n    print(input())\n',
      ),
      code(
        'cpp-right',
        'cpp',
        'class Solution {\npublic:\n    int f(vector<int>& nums, int k) { int s = 0; for (int v : nums) s += v; return s - k; }\n};\nint main() { return 1; }',
      ),
    ];
    assert.deepEqual(await rerankT2c(leet, calls), ['go-right', 'py-right', 'cpp-right', 'py-wrong']);

    const texts: Doc[] = [
      { id: 'no-samples', text: 'Add two numbers.' },
      { id: 'product', text: PRODUCT_STATEMENT },
      { id: 'sum', text: SUM_STATEMENT },
    ];
    const c2t = await rerankLists({
      reranker,
      queries: [{ id: 'c', text: 'print(sum(map(int, input().split())))', language: 'python' }],
      docs: new Map(texts.map((d) => [d.id, d])),
      lists: new Map([['c', lists(texts.map((d) => d.id))]]),
      depth: 10,
      fusion: { kind: 'none' },
      task: 'code2text',
    });
    assert.deepEqual(c2t.get('c')?.docIds, ['sum', 'no-samples', 'product']);
    const report = reranker.report();
    assert.ok(report.cpuSeconds > 0 && report.compiles > 0, JSON.stringify(report));
  } finally {
    reranker.close();
  }
});

test('on a remote judge (a loopback Piston running the programs): the same order as the local judge, nothing journaled twice', {
  skip: toolchainSkipReason(['python', 'cpp', 'go']),
}, async () => {
  const { startPiston } = await import('../../test/support/judge-services.js');
  const svc = await startPiston({ runTimeoutCapMs: 20000 });
  const dir = mkdtempSync(join(tmpdir(), 'coreb-exec-remote-'));
  try {
    const docs: Doc[] = [
      { id: 'py-product', text: 'a, b = map(int, input().split())\nprint(a * b)', language: 'python' },
      { id: 'go-sum', text: 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }', language: 'go' },
      { id: 'cpp-sum', text: 'int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }', language: 'cpp' },
    ];
    const rerank = async () => {
      const reranker = await createExecRerankerFromSpec(`exec?judge=${encodeURIComponent(`piston:${svc.url}`)}`, { env: {}, cacheDir: dir });
      try {
        const out = await rerankLists({
          reranker,
          queries: [{ id: 'q', text: SUM_STATEMENT }],
          docs: new Map(docs.map((d) => [d.id, d])),
          lists: new Map([['q', lists(docs.map((d) => d.id))]]),
          depth: 5,
          fusion: { kind: 'none' },
          task: 'text2code',
        });
        return { order: out.get('q')?.docIds, report: reranker.report(), judge: reranker.describe().judge as { name?: string; kind?: string } };
      } finally {
        reranker.close();
      }
    };
    const first = await rerank();
    assert.deepEqual(first.order, ['go-sum', 'cpp-sum', 'py-product']);
    assert.ok(first.report.runs.executed >= 5, JSON.stringify(first.report.runs));
    const executeCalls = svc.requests.get('POST /api/v2/execute') ?? 0;
    assert.ok(executeCalls > 0);
    const second = await rerank();
    assert.deepEqual(second.order, first.order);
    assert.equal(second.report.runs.executed, 0);
    assert.equal(svc.requests.get('POST /api/v2/execute') ?? 0, executeCalls, 'no program sent again');
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
