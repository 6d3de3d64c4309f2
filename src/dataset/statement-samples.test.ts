import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArguments, parseStatementSamples, toJsonText } from './statement-samples.js';

test('AtCoder samples in the markdown of rewritten statements: bold, ### and plain headings, explanations after the output', () => {
  const text = [
    'XYZ Academy Suffix',
    '',
    '**Input**',
    '',
    'The input is given from Standard Input in the following format:',
    'S',
    '',
    '**Sample Input 1**',
    'johnstudent',
    '',
    '**Sample Output 1**',
    'Yes',
    '',
    'The string S = johnstudent ends with student, so print Yes.',
    '',
    '### Sample Input 2:',
    '```',
    '3 4',
    '1 2 3',
    '```',
    '',
    '### Sample Output 2:',
    '```',
    '6',
    '7',
    '```',
    '',
    'Sample Input 3',
    '',
    '2',
    '',
    'Sample Output 3',
    '',
    'No',
  ].join('\n');
  assert.deepEqual(parseStatementSamples(text), [
    { kind: 'stdin', input: 'johnstudent\n', output: 'Yes' },
    { kind: 'stdin', input: '3 4\n1 2 3\n', output: '6\n7' },
    { kind: 'stdin', input: '2\n', output: 'No' },
  ]);
});

test('a Sample Input without its Sample Output is left out, the next pair still read', () => {
  const text = 'Sample Input 1\n5\n\nSample Input 2\n7\n\nSample Output 2\n8\n';
  assert.deepEqual(parseStatementSamples(text), [{ kind: 'stdin', input: '7\n', output: '8' }]);
});

test('LeetCode examples: inline, bold, fenced and one-argument-per-line layouts become calls with JSON arguments', () => {
  const text = [
    'Return the maximum number of operations.',
    '',
    '**Example 1:**',
    '',
    'Input: playlist = "abbaa", favoriteSequence = "aba", removableIndices = [0,1,2]',
    'Output: 1',
    'Explanation: We can remove one.',
    '',
    '### Example 2:',
    '**Input:**',
    '```plaintext',
    'edges = [(0, 1), (1, 2)]',
    'flag = True',
    '```',
    '',
    '**Output:**',
    '```',
    '2',
    '```',
    '',
    '**Example 3:**',
    "**Input:** `s = 'ab'`, `k = 12345678901234567890`",
    '**Output:** `"ba"`',
  ].join('\n');
  assert.deepEqual(parseStatementSamples(text), [
    {
      kind: 'call',
      args: [
        { name: 'playlist', json: '"abbaa"' },
        { name: 'favoriteSequence', json: '"aba"' },
        { name: 'removableIndices', json: '[0,1,2]' },
      ],
      output: '1',
    },
    {
      kind: 'call',
      args: [
        { name: 'edges', json: '[[0, 1], [1, 2]]' },
        { name: 'flag', json: 'true' },
      ],
      output: '2',
    },
    {
      kind: 'call',
      args: [
        { name: 's', json: '"ab"' },
        { name: 'k', json: '12345678901234567890' },
      ],
      output: '"ba"',
    },
  ]);
});

test('statements without examples, prose examples and unparseable values give no samples', () => {
  assert.deepEqual(parseStatementSamples('Given nums, return the sum. For example, for [1,2] the answer is 3.'), []);
  assert.deepEqual(parseStatementSamples('Example 1:\nInput: tree = {1: {"a": 2}}\nOutput: 3\n'), []);
  assert.deepEqual(parseStatementSamples('Example 1:\nInput: n = 4\n\nExplanation: none\n'), []);
});

test('arguments and values: bare values, mixed forms refused, Python literals', () => {
  assert.deepEqual(parseArguments('[1, 2, 3]'), [{ name: 'arg0', json: '[1, 2, 3]' }]);
  assert.equal(parseArguments('nums = [1], 3'), undefined);
  assert.equal(toJsonText("['a', \"b'c\"]"), '["a", "b\'c"]');
  assert.equal(toJsonText('None'), 'null');
  assert.equal(toJsonText('`-5`'), '-5');
  assert.equal(toJsonText('abc'), undefined);
});
