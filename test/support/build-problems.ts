/**
 * Two LiveCodeBench-format problems authored for the build and contamination e2e tests, with the
 * fake chat server's view of them and the programs the fake solvers answer with.
 */
import type { FakeProblem } from './build-fake.js';

/** One stdin test case in LiveCodeBench's wire shape. */
export const stdinTest = (input: string, output: string): Record<string, string> => ({ input, output, testtype: 'stdin' });

/**
 * The problems `PREFIX_sum` (sum of N integers, numeric tests kept by a rewrite) and `PREFIX_rev`
 * (reverse a word; the fake's rewrite renames the fruits, so its tests are rewritten), as problem
 * rows and as the fake server's problem table.
 */
export function authoredBuildProblems(prefix: string) {
  const problems = [
    {
      question_id: `${prefix}_sum`,
      question_title: 'Sum of Pairs',
      question_content: 'Alice has N integers. Print their sum.\n\nConstraints: 1 <= N <= 100.',
      platform: 'atcoder',
      starter_code: '',
      metadata: '{}',
      public_test_cases: JSON.stringify([stdinTest('3\n1 2 3\n', '6\n')]),
      private_test_cases: JSON.stringify([stdinTest('2\n10 -4\n', '6\n'), stdinTest('1\n7\n', '7\n')]),
    },
    {
      question_id: `${prefix}_rev`,
      question_title: 'Backwards Fruit',
      question_content: 'Bob writes the name of a fruit backwards. Given the word, print it reversed.',
      platform: 'atcoder',
      starter_code: '',
      metadata: '{}',
      public_test_cases: JSON.stringify([stdinTest('apple\n', 'elppa\n'), stdinTest('3\n', '3\n')]),
      private_test_cases: JSON.stringify([stdinTest('banana\n', 'ananab\n')]),
    },
  ];
  const fakeProblems = new Map<string, FakeProblem>([
    [`${prefix}_sum`, { title: 'Sum of Pairs', statement: problems[0].question_content }],
    [
      `${prefix}_rev`,
      {
        title: 'Backwards Fruit',
        statement: problems[1].question_content,
        rename: { apple: 'pear', elppa: 'raep', banana: 'cherry', ananab: 'yrrehc' },
      },
    ],
  ]);
  return { problems, fakeProblems };
}

/** Programs for the two problems: correct, wrong and non-compiling ones. */
export const PROGRAMS = {
  SUM_PY: 'import sys\nd = sys.stdin.read().split()\nn = int(d[0])\nprint(sum(int(x) for x in d[1:1 + n]))\n',
  SUM_PY_WRONG: 'import sys\nd = sys.stdin.read().split()\nprint(sum(int(x) for x in d[1:]) + 1)\n',
  SUM_CPP:
    '#include <iostream>\nint main() { int n; long long s = 0, x; std::cin >> n; while (n--) { std::cin >> x; s += x; } std::cout << s << "\\n"; }\n',
  SUM_CPP_BROKEN: '#include <iostream>\nint main() { std::cout << 6 << "\\n" }\n',
  REV_PY: 'print(input().strip()[::-1])\n',
  REV_CPP: '#include <bits/stdc++.h>\nusing namespace std;\nint main() { string s; cin >> s; reverse(s.begin(), s.end()); cout << s << "\\n"; }\n',
} as const;
