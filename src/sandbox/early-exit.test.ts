/**
 * Early exits are not passes: a `program` test (HumanEval / MBXP style: the test code appended to
 * the candidate, pass = exit status 0) passes only when the test program ran to its end and printed
 * the run's completion token. Each language's early exit with status 0 — Python `os._exit(0)` and
 * `sys.exit(0)`, a C++ global constructor calling `std::_Exit(0)` and a plain `exit(0)` in the
 * function under test, Go `func init(){ os.Exit(0) }`, Ruby `exit!(0)`, Java `System.exit(0)` — is
 * judged against a test that fails, beside the honest program that passes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExecLanguage, TestCase } from '../core/execution.js';
import { createTestJudge, toolchainSkipReason } from '../../test/support/judge.js';
import type { JudgeBackend } from './backend.js';
import { withCompletionToken } from './normalise.js';

const ALL: ExecLanguage[] = ['python', 'cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(ALL);
const made = skip === undefined ? await createTestJudge({ timeLimitMs: 4000, wallTimeFactor: 2 }) : skip;
const judge: JudgeBackend | undefined = typeof made === 'string' ? undefined : made;
const skipReason = typeof made === 'string' ? made : false;

/** Per language: the honest `add`, the attacks (each a whole candidate), and a test program with one true and one false assertion. */
const CASES: Record<ExecLanguage, { honest: string; attacks: Record<string, string>; pass: string; fail: string }> = {
  python: {
    honest: 'def add(a, b):\n    return a + b\n',
    attacks: {
      'os._exit(0) at import': 'import os\nos._exit(0)\ndef add(a, b):\n    return 0\n',
      'sys.exit(0) inside the function': 'import sys\ndef add(a, b):\n    sys.exit(0)\n',
      'atexit printing a guess': 'import atexit, sys\natexit.register(lambda: print("ok"))\ndef add(a, b):\n    sys.exit(0)\n',
    },
    pass: 'assert add(2, 3) == 5\n',
    fail: 'assert add(2, 3) == 5\nassert add(2, 2) == 5\n',
  },
  cpp: {
    honest: 'int add(int a, int b) { return a + b; }\n',
    attacks: {
      'std::_Exit(0) in a global constructor':
        '#include <cstdlib>\nstruct Early { Early() { std::_Exit(0); } } early;\nint add(int a, int b) { return 0; }\n',
      'exit(0) inside the function': '#include <cstdlib>\nint add(int a, int b) { std::exit(0); }\n',
    },
    pass: '#include <cassert>\nint main() { assert(add(2, 3) == 5); }\n',
    fail: '#include <cassert>\nint main() {\n  assert(add(2, 3) == 5);\n  assert(add(2, 2) == 5);\n}\n',
  },
  java: {
    honest: 'class Solution { int add(int a, int b) { return a + b; } }\n',
    attacks: {
      'System.exit(0) in a static initialiser': 'class Solution { static { System.exit(0); } int add(int a, int b) { return 0; } }\n',
      'Runtime.halt(0) inside the method': 'class Solution { int add(int a, int b) { Runtime.getRuntime().halt(0); return 0; } }\n',
    },
    pass: 'public class Main {\n  public static void main(String[] args) {\n    if (new Solution().add(2, 3) != 5) throw new AssertionError();\n  }\n}\n',
    fail: 'public class Main {\n  public static void main(String[] args) {\n    if (new Solution().add(2, 3) != 5) throw new AssertionError();\n    if (new Solution().add(2, 2) != 5) throw new AssertionError("2+2");\n  }\n}\n',
  },
  go: {
    honest: 'package main\n\nfunc add(a, b int) int { return a + b }\n',
    attacks: {
      'os.Exit(0) in init': 'package main\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n\nfunc add(a, b int) int { return 0 }\n',
    },
    pass: 'func main() {\n\tif add(2, 3) != 5 {\n\t\tpanic("2+3")\n\t}\n}\n',
    fail: 'func main() {\n\tif add(2, 3) != 5 {\n\t\tpanic("2+3")\n\t}\n\tif add(2, 2) != 5 {\n\t\tpanic("2+2")\n\t}\n}\n',
  },
  ruby: {
    honest: 'def add(a, b)\n  a + b\nend\n',
    attacks: {
      'exit!(0) at load': 'exit!(0)\ndef add(a, b)\n  0\nend\n',
      'exit(0) inside the method': 'def add(a, b)\n  exit(0)\nend\n',
    },
    pass: 'raise "2+3" unless add(2, 3) == 5\n',
    fail: 'raise "2+3" unless add(2, 3) == 5\nraise "2+2" unless add(2, 2) == 5\n',
  },
};

const program = (input: string): TestCase => ({ kind: 'program', input, outputs: [] });

for (const language of ALL) {
  test(`${language}: early exits with status 0 are not accepted; the honest program beside them is`, { skip: skipReason }, async () => {
    const c = CASES[language];
    const honest = await judge!.judge({ id: `${language}-honest`, problemId: 'add', language, code: c.honest }, [program(c.pass)]);
    assert.equal(honest.verdict, 'accepted', JSON.stringify(honest));
    assert.ok(
      honest.normalisations.some((n) => n.includes('completion token')),
      honest.normalisations.join('; '),
    );
    const honestFails = await judge!.judge({ id: `${language}-honest-fail`, problemId: 'add', language, code: c.honest }, [program(c.fail)]);
    assert.equal(honestFails.verdict, 'runtime_error', JSON.stringify(honestFails));
    for (const [name, code] of Object.entries(c.attacks)) {
      const r = await judge!.judge({ id: `${language}-${name}`, problemId: 'add', language, code }, [program(c.fail)]);
      assert.notEqual(r.verdict, 'accepted', `${language} ${name}: ${JSON.stringify(r.tests[0])}`);
      if (r.tests[0]?.exitCode === 0) assert.match(r.tests[0].detail ?? '', /before the test program reached its end/);
    }
  });
}

test('the completion token goes at the end of main; a test program without main is judged by its exit status and says so', () => {
  const cpp = withCompletionToken('cpp', 'int main() {\n  const char* s = "}";\n  // }\n  assert(f() == 1);\n}\nint g() { return 1; }\n');
  assert.ok(cpp.checked);
  assert.match(cpp.text, /assert\(f\(\) == 1\);\n\n\{ const char\* _coreb_t = std::getenv\("COREB_TESTS_DONE"\);.*\n\}\nint g\(\)/s);
  const java = withCompletionToken(
    'java',
    'public class Main {\n  public static void main(String[] a) throws Exception {\n    run();\n  }\n  static void run() {}\n}\n',
  );
  assert.match(java.text, /run\(\);\n\s*\nSystem\.out\.print\(.*\n\}\n {2}static void run/s);
  assert.deepEqual(withCompletionToken('go', 'func helper() {}\n'), { text: 'func helper() {}\n', checked: false });
});
