// Verdict rules without bubblewrap or toolchains: every branch of classifyRun and the program summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecutionResult, Program, TestCase, TestResult } from '../core/execution.js';
import { DEFAULT_LIMITS } from './languages/index.js';
import { classifyRun, createProgramResult, lastLine, type ClassifyOptions } from './verdict.js';

const ok: ExecutionResult = {
  exitCode: 0,
  stdout: '3\n',
  stderr: '',
  stdoutTruncated: false,
  timedOut: false,
  wallMs: 12.4,
  cpuMs: 8.6,
  memoryKb: 9000,
};
const stdin: TestCase = { kind: 'stdin', input: '1 2\n', outputs: ['3'] };
const opts: ClassifyOptions = { limits: DEFAULT_LIMITS.cpp, language: 'cpp', comparator: 'tokens', tolerance: 1e-6 };
const verdictOf = (r: Partial<ExecutionResult>, t: TestCase = stdin, o: Partial<ClassifyOptions> = {}): [string, string | undefined] => {
  const v = classifyRun({ ...ok, ...r }, t, { ...opts, ...o });
  return [v.verdict, v.detail];
};

test('an accepted run keeps its measurements, rounded to whole ms', () => {
  assert.deepEqual(classifyRun(ok, stdin, opts), { verdict: 'accepted', runMs: 12, cpuMs: 9, memoryKb: 9000, exitCode: 0 });
});

test('limits and failures, in precedence order', () => {
  const limitMs = DEFAULT_LIMITS.cpp.timeLimitMs;
  const memKb = DEFAULT_LIMITS.cpp.memoryLimitMb * 1024;
  assert.deepEqual(verdictOf({}, stdin, { aborted: true }), ['sandbox_error', 'interrupted']);
  assert.deepEqual(verdictOf({ stdoutTruncated: true, timedOut: true }), [
    'output_limit',
    `more than ${DEFAULT_LIMITS.cpp.outputLimitBytes} bytes of output`,
  ]);
  assert.deepEqual(verdictOf({ timedOut: true, wallMs: 19000.7, exitCode: null }), ['time_limit', 'killed after 19001 ms wall-clock']);
  assert.deepEqual(verdictOf({ exitCode: null, stderr: 'bwrap: x\nsetting up uid map: denied\n' }), ['sandbox_error', 'setting up uid map: denied']);
  assert.deepEqual(verdictOf({ cpuMs: -1 }), ['sandbox_error', 'the sandbox did not report a status']);
  assert.deepEqual(verdictOf({ exitCode: 152, cpuMs: 10 }), ['time_limit', 'CPU time 10 ms']);
  assert.deepEqual(verdictOf({ cpuMs: limitMs + 1 }), ['time_limit', `CPU time ${limitMs + 1} ms`]);
  assert.deepEqual(verdictOf({ cpuMs: limitMs })[0], 'accepted', 'at the limit is within it');
  assert.deepEqual(verdictOf({ exitCode: 153 }), ['output_limit', 'file size limit exceeded']);
  assert.deepEqual(verdictOf({ exitCode: 1, stderr: 'Traceback\nMemoryError\n' }), ['memory_limit', 'MemoryError']);
  assert.deepEqual(verdictOf({ exitCode: 134, stderr: "terminate called after throwing an instance of 'std::bad_alloc'" })[0], 'memory_limit');
  assert.deepEqual(verdictOf({ memoryKb: memKb + 1 }), ['memory_limit', `peak memory ${memKb + 1} KiB`]);
  assert.deepEqual(
    verdictOf({ memoryKb: memKb + 1 }, stdin, {
      language: 'java',
      limits: { ...DEFAULT_LIMITS.java, memoryLimitMb: DEFAULT_LIMITS.cpp.memoryLimitMb },
    })[0],
    'accepted',
    "Java's RSS is not held against the limit",
  );
  assert.deepEqual(verdictOf({ exitCode: 0, stderr: 'MemoryError' })[0], 'accepted', 'an OOM message needs a failing exit');
  assert.deepEqual(verdictOf({ exitCode: 139, stderr: 'Segmentation fault\n' }), ['runtime_error', 'exit 139: Segmentation fault']);
  assert.deepEqual(verdictOf({ exitCode: 1 }), ['runtime_error', 'exit 1']);
});

test('outputs: comparator for stdin tests, exit status for program tests, JSON for functional tests', () => {
  const float: TestCase = { ...stdin, outputs: ['3.5'] };
  assert.deepEqual(verdictOf({ stdout: '3.5000001\n' }, float)[0], 'accepted', 'tokens: within 1e-6');
  assert.deepEqual(verdictOf({ stdout: '3.5000001\n' }, float, { comparator: 'exact' })[0], 'wrong_answer');
  assert.deepEqual(verdictOf({ stdout: '3.0000001\n' }), ['wrong_answer', 'token 1: "3.0000001", expected "3"'], 'an integer answer is exact');
  assert.deepEqual(verdictOf({ stdout: '4\n' })[0], 'wrong_answer');
  assert.deepEqual(verdictOf({ stdout: '3\n' }, { ...stdin, outputs: ['1', '3'] })[0], 'accepted', 'any accepted output passes');
  assert.deepEqual(verdictOf({ stdout: 'anything' }, { kind: 'program', input: 'assert f() == 1', outputs: [] })[0], 'accepted');
  const fn: TestCase = { kind: 'functional', input: '[1,2]\n3', outputs: ['[0, 1]'], funcName: 'twoSum' };
  assert.deepEqual(verdictOf({ stdout: '[0,1]' }, fn)[0], 'accepted');
  assert.deepEqual(verdictOf({ stdout: '[0,1.0000000001]' }, fn)[0], 'accepted', 'numbers within the tokens tolerance');
  assert.deepEqual(verdictOf({ stdout: '[0,1.0000000001]' }, fn, { comparator: 'exact' })[0], 'wrong_answer');
  assert.deepEqual(verdictOf({ stdout: '[1,0]' }, fn), ['wrong_answer', 'got [1,0]']);
  assert.deepEqual(verdictOf({ stdout: 'oops' }, fn), ['wrong_answer', 'output is not JSON']);
  assert.deepEqual(verdictOf({ stdout: '"abc"' }, { ...fn, outputs: ['abc'] })[0], 'accepted', 'a non-JSON expected output is a string');
});

test('lastLine takes the last non-empty line, at most 200 characters', () => {
  assert.equal(lastLine('a\nb\n\n'), 'b');
  assert.equal(lastLine(''), '');
  assert.equal(lastLine('x'.repeat(300)).length, 200);
});

const program: Program = { id: 'p1', problemId: 'abc1_a', language: 'cpp', code: 'int main(){}' };
const run = (verdict: TestResult['verdict'], runMs: number, memoryKb: number): TestResult => ({
  verdict,
  runMs,
  cpuMs: runMs,
  memoryKb,
  exitCode: 0,
});
const base = { compileMs: 210, normalisations: ['cpp: added #include <bits/stdc++.h>'], comparator: 'tokens' as const, sandboxed: true };

test('createProgramResult: all accepted passes; the first failing test decides; unrun tests count as failed', () => {
  const all = createProgramResult(program, { ...base, testsTotal: 2, results: [run('accepted', 5, 100), run('accepted', 9, 50)] });
  assert.deepEqual(
    [all.verdict, all.passed, all.passRate, all.testsPassed, all.testsTotal, all.maxRunMs, all.maxMemoryKb, all.compileMs],
    ['accepted', true, 1, 2, 2, 9, 100, 210],
  );
  assert.equal('compileOutput' in all, false);
  assert.deepEqual([all.id, all.problemId, all.language, all.comparator, all.sandboxed], ['p1', 'abc1_a', 'cpp', 'tokens', true]);
  const early = createProgramResult(program, {
    ...base,
    testsTotal: 4,
    results: [run('accepted', 5, 100), run('time_limit', 6000, 80), run('wrong_answer', 1, 1)],
  });
  assert.deepEqual([early.verdict, early.passed, early.passRate, early.tests.length], ['time_limit', false, 0.25, 3]);
});

test('createProgramResult: a failed build wins; no tests is a sandbox error; no runs means unknown memory', () => {
  const failed = createProgramResult(program, { ...base, testsTotal: 3, results: [], failedBuild: 'compile_error', compileOutput: 'error: x' });
  assert.deepEqual(
    [failed.verdict, failed.passRate, failed.maxRunMs, failed.maxMemoryKb, failed.compileOutput],
    ['compile_error', 0, 0, -1, 'error: x'],
  );
  const none = createProgramResult(program, { ...base, testsTotal: 0, results: [] });
  assert.deepEqual([none.verdict, none.passed, none.passRate], ['sandbox_error', false, 0]);
});
