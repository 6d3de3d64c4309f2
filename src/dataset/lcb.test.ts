import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import {
  createLcbTestLookup,
  decodeLcbCompressedTests,
  lcbQuestionId,
  loadLcbProblems,
  parseLcbProblem,
  parseLcbTestCases,
  selectLcbTests,
} from './lcb.js';
import type { CorebError } from '../core/errors.js';
import { parsePickle } from './pickle.js';

const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'pass']).status === 0);

/** Pickles `expr` (a Python expression) with python3 at the given protocol, base64 out. */
function pickled(expr: string, protocol: number): Buffer {
  const r = spawnSync(
    python!,
    ['-c', `import pickle,sys,base64;sys.stdout.write(base64.b64encode(pickle.dumps(${expr}, protocol=${protocol})).decode())`],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, r.stderr);
  return Buffer.from(r.stdout, 'base64');
}

test('pickle reader decodes plain data from every protocol python3 writes', { skip: python ? false : 'python3 not found' }, () => {
  const expr = `{"s": "héllo ☃", "n": [1, -2, 300, 70000, -2**40, 2**62], "f": 1.5, "t": (1, "a"), "b": True, "z": None, "e": [], "big": "x"*70000}`;
  for (const protocol of [0, 1, 2, 3, 4, 5]) {
    const v = parsePickle(pickled(expr, protocol)) as Record<string, unknown>;
    assert.equal(v.s, 'héllo ☃', `protocol ${protocol}`);
    assert.deepEqual(v.n, [1, -2, 300, 70000, -(2 ** 40), 2 ** 62], `protocol ${protocol}`);
    assert.equal(v.f, 1.5);
    assert.deepEqual(v.t, [1, 'a']);
    assert.equal(v.b, true);
    assert.equal(v.z, null);
    assert.deepEqual(v.e, []);
    assert.equal((v.big as string).length, 70000);
  }
});

test('pickle reader refuses objects and truncated input with PARSE errors', { skip: python ? false : 'python3 not found' }, () => {
  assert.throws(() => parsePickle(pickled('__import__("collections").OrderedDict()', 4)), { code: 'PARSE' });
  const good = pickled('"abc"', 4);
  assert.throws(() => parsePickle(good.subarray(0, good.length - 3)), { code: 'PARSE' });
});

test('LiveCodeBench compressed private tests (base64 -> zlib -> pickle -> JSON) decode like LCB', {
  skip: python ? false : 'python3 not found',
}, () => {
  const tests = [
    { input: '3\n1 2 3\n', output: '6\n', testtype: 'stdin' },
    { input: '1\n5\n', output: '5\n', testtype: 'stdin' },
  ];
  const r = spawnSync(
    python!,
    [
      '-c',
      'import pickle,zlib,base64,json,sys;print(base64.b64encode(zlib.compress(pickle.dumps(json.dumps(json.loads(sys.stdin.read()))))).decode())',
    ],
    { input: JSON.stringify(tests), encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const encoded = r.stdout.trim();
  assert.deepEqual(decodeLcbCompressedTests(encoded), tests);
  const cases = parseLcbTestCases(encoded);
  assert.deepEqual(
    cases.map((c) => [c.kind, c.input, c.outputs]),
    tests.map((t) => ['stdin', t.input, [t.output]]),
  );
});

test('compressed tests without python: a hand-built protocol-4 pickle of a JSON string', () => {
  const json = JSON.stringify([{ input: 'a', output: 'b', testtype: 'stdin' }]);
  const body = Buffer.from(json, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  const pkl = Buffer.concat([Buffer.from([0x80, 4]), Buffer.from('X'), len, body, Buffer.from([0x94, 0x2e])]);
  const encoded = deflateSync(pkl).toString('base64');
  assert.deepEqual(parseLcbTestCases(encoded), [{ kind: 'stdin', input: 'a', outputs: ['b'] }]);
});

test('a LiveCodeBench record: JSON public tests, functional metadata, CoREB id mapping', () => {
  const p = parseLcbProblem({
    question_id: '3000',
    question_title: 'T',
    platform: 'leetcode',
    public_test_cases: JSON.stringify([{ input: '[1,2]\n3', output: '[0,1]', testtype: 'functional' }]),
    private_test_cases: '',
    metadata: JSON.stringify({ func_name: 'twoSum' }),
  });
  assert.equal(p.funcName, 'twoSum');
  assert.deepEqual(p.publicTests, [{ kind: 'functional', input: '[1,2]\n3', outputs: ['[0,1]'], funcName: 'twoSum' }]);
  assert.deepEqual(p.privateTests, []);
  assert.equal(selectLcbTests(p, 'all').length, 1);
  assert.equal(lcbQuestionId('lcb_abc387_a'), 'abc387_a');
  assert.equal(lcbQuestionId('abc387_a'), 'abc387_a');
  assert.throws(
    () => parseLcbProblem({ question_title: 'x' }, 'p.jsonl', 4),
    (e: Error) => /p\.jsonl:4/.test(e.message),
  );
  assert.throws(() => parseLcbProblem({ question_id: 'x', public_test_cases: '[{"input": ' }, 'p.jsonl', 2), { code: 'PARSE' });
});

test('createLcbTestLookup: CoREB lcb_ ids and bare question ids find the problem; the set picks the tests', () => {
  const p = parseLcbProblem({
    question_id: 'abc1_a',
    platform: 'atcoder',
    public_test_cases: JSON.stringify([{ input: '1', output: '1', testtype: 'stdin' }]),
    private_test_cases: JSON.stringify([{ input: '2', output: '2', testtype: 'stdin' }]),
  });
  const problems = new Map([[p.questionId, p]]);
  const all = createLcbTestLookup(problems);
  assert.deepEqual(
    all('lcb_abc1_a')?.map((t) => t.input),
    ['1', '2'],
  );
  assert.deepEqual(
    all('abc1_a')?.map((t) => t.input),
    ['1', '2'],
  );
  assert.equal(all('lcb_zzz_a'), undefined);
  assert.deepEqual(
    createLcbTestLookup(problems, 'public')('lcb_abc1_a')?.map((t) => t.input),
    ['1'],
  );
  assert.deepEqual(
    createLcbTestLookup(problems, 'private')('abc1_a')?.map((t) => t.input),
    ['2'],
  );
});

test('a test field that is not text is refused naming the problem, the test and the field, with file and line', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(mkdtempSync(join(tmpdir(), 'coreb-lcb-')), 'problems.jsonl');
  const ok = { question_id: 'a', public_test_cases: JSON.stringify([{ input: '1', output: '2', testtype: 'stdin' }]) };
  const bad = {
    question_id: 'b',
    public_test_cases: JSON.stringify([
      { input: '1', output: '2' },
      { input: { x: 1 }, output: '2', testtype: 'stdin' },
    ]),
  };
  writeFileSync(file, `${JSON.stringify(ok)}\n${JSON.stringify(bad)}\n`);
  await assert.rejects(loadLcbProblems(file), (e: unknown) => {
    const err = e as CorebError;
    assert.equal(err.location.line, 2);
    assert.equal(err.location.field, 'public_test_cases');
    assert.match(err.message, /problem b: test case 1: `input` must be a string, got an object \(\{"x":1\}\)/);
    assert.doesNotMatch(err.message, /object Object/);
    return true;
  });
  // Numbers written without quotes are text of that number.
  const n = parseLcbTestCases(JSON.stringify([{ input: 3, output: [4, '5'], testtype: 'stdin' }]));
  assert.deepEqual(n, [{ kind: 'stdin', input: '3', outputs: ['4', '5'] }]);
});
