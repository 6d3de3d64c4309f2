/** Review checks: numbers, samples, abbreviation length, query leaks, near-miss similarity. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingNumbers, nearMissScores, numbersIn, queryLeak, runReviewChecks, samplesKept, textSimilarity, type CheckedProblem } from './checks.js';

const ORIGINAL =
  'Alice has N integers A_1..A_N. Print their sum.\n\nConstraints\n1 <= N <= 100\n-10^9 <= A_i <= 10^9\n\nSample Input 1\n\n3\n1 2 3\n\nSample Output 1\n\n6';

test('numbers: every number of the original must be in the rewrite', () => {
  assert.deepEqual(numbersIn('1 <= N <= 2 x 10^5, 2.5 and 1'), ['1', '2', '10', '5', '2.5']);
  assert.deepEqual(missingNumbers(ORIGINAL, ORIGINAL.replace('Alice', 'Marcus')), []);
  assert.deepEqual(missingNumbers(ORIGINAL, ORIGINAL.replace('1 <= N <= 100', '1 <= N <= 1000').replace('10^9', '10^8')), ['100']);
});

test('samples: those written in the original statement must appear in the rewrite, in their rewritten form', () => {
  const samples = [
    { input: '3\n1 2 3\n', output: '6\n' },
    { input: '2\n5 5\n', output: '10\n' },
  ];
  assert.deepEqual(samplesKept(ORIGINAL, ORIGINAL.replace('Alice', 'Bob'), samples), { inStatement: [0], missing: [] });
  assert.deepEqual(samplesKept(ORIGINAL, ORIGINAL.replace('3\n1 2 3', '3\n1 2 4'), samples), { inStatement: [0], missing: [0] });
  const words = 'Reverse the word.\nInput: apple\nOutput: elppa';
  const rewritten = 'Reverse the word.\nInput: pear\nOutput: raep';
  assert.deepEqual(samplesKept(words, rewritten, [{ input: 'apple', output: 'elppa' }], [{ input: 'pear', output: 'raep' }]), {
    inStatement: [0],
    missing: [],
  });
  assert.deepEqual(samplesKept(words, rewritten, [{ input: 'apple', output: 'elppa' }]).missing, [0], 'not adapted: the original form is looked for');
});

test('query leaks: the id (numeric only as a word) and titles of two words or more', () => {
  assert.match(queryLeak('solution for ABC387_A in python', 'abc387_a', []) ?? '', /problem id/);
  assert.match(queryLeak('abc387 a sum', 'abc387_a', []) ?? '', /problem id/);
  assert.equal(queryLeak('array of 36745 items', '3674', []), undefined);
  assert.match(queryLeak('leetcode 3674 answer', '3674', []) ?? '', /problem id/);
  assert.match(queryLeak('how to solve sum-of-pairs fast', 'x', ['Sum of Pairs']) ?? '', /title "Sum of Pairs"/);
  assert.equal(queryLeak('sum integers quickly', 'x', ['Sum']), undefined, 'one-word titles are too common to flag');
  assert.match(queryLeak('pairs summing to k, unlike abc376_a', 'abc374_b', []) ?? '', /names a problem id \(`abc376_a`\)/);
  assert.match(queryLeak('codeforces 2050A greedy', 'abc374_b', []) ?? '', /`2050A`/);
  assert.equal(queryLeak('sort 1000 values, n up to 2000', 'abc374_b', []), undefined);
});

test('similarity: identical 1, disjoint 0, stop words ignored, symmetric', () => {
  assert.equal(textSimilarity('count the pairs of integers', 'count the pairs of integers'), 1);
  assert.equal(textSimilarity('graph shortest path', 'string palindrome reversal'), 0);
  assert.equal(textSimilarity('the of and', 'graph'), 0);
  const a = 'Given an array, count pairs whose sum is even.';
  const b = 'Given an array, find the longest subarray whose sum is odd.';
  assert.ok(Math.abs(textSimilarity(a, b) - textSimilarity(b, a)) < 1e-12);
  assert.ok(textSimilarity(a, b) > 0.2 && textSimilarity(a, b) < 0.8);
});

test('runReviewChecks: a good item passes every check; a bad one fails each with a readable reason', () => {
  const abbrev = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
  const good: CheckedProblem = {
    id: 'abc1_a',
    original: { title: 'Sum of Pairs', statement: ORIGINAL, samples: [{ input: '3\n1 2 3\n', output: '6\n' }] },
    rewrite: { title: 'Harbour Tally', statement: ORIGINAL.replace('Alice has N integers', 'The harbour logs N crates') },
    abbreviation: abbrev,
    queries: ['sum n integers', 'total of crate weights'],
    negatives: [
      { strategy: 'operation_type', text: 'The harbour logs N crates. Print the maximum crate weight; constraints as before.' },
      { strategy: 'problem_domain', text: 'Harbour tally: N crates are logged; print how many distinct crate labels appear.' },
    ],
  };
  const ok = runReviewChecks(good);
  assert.deepEqual(
    ok.map((c) => [c.name, c.ok]),
    [
      ['numbers', true],
      ['samples', true],
      ['abbreviation', true],
      ['query_leaks', true],
      ['near_misses', true],
    ],
    JSON.stringify(ok),
  );
  const bad = runReviewChecks({
    ...good,
    rewrite: { title: 'Harbour Tally', statement: 'The harbour logs N crates. Print their total.' },
    abbreviation: 'Too short.',
    queries: ['abc1_a solution', 'harbour tally in go'],
    negatives: [
      { strategy: 'operation_type', text: 'Harbour Tally\n\nThe harbour logs N crates. Print their total.' },
      { strategy: 'problem_domain', text: 'Paint a fence with k colours so that no two posts match.' },
    ],
  });
  const msg = Object.fromEntries(bad.map((c) => [c.name, c.ok ? 'ok' : c.message]));
  assert.match(msg.numbers, /number\(s\) of the original missing: 1, 100, 10, 9/);
  assert.match(msg.samples, /sample\(s\) 1 of 1 not found/);
  assert.match(msg.abbreviation, /^2 words \(50–150 expected\)/);
  assert.match(msg.query_leaks, /query 1 names the problem id `abc1_a`; query 2 contains the title "Harbour Tally"/);
  assert.match(msg.near_misses, /operation_type too close, problem_domain too far/);
  const scores = nearMissScores({ ...good, negatives: [{ strategy: 's', text: 'Harbour Tally\n\n' + good.rewrite!.statement }] });
  assert.deepEqual(scores, [{ strategy: 's', similarity: 1, verdict: 'too_close' }]);
});
