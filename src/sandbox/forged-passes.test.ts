/**
 * The attack corpus of sealed `program` tests (HumanEval / MBXP style: the test program joined to
 * the candidate). Every way a candidate's own code was seen to fake a pass (docs/exec.md "Threat
 * model"): exiting early with status 0, printing the proof token from its environment or
 * /proc/self/environ, printing what its descriptors hold, hooks that run after a failed check
 * (excepthook, atexit, at_exit, a SIGABRT handler, a default uncaught-exception handler, a global
 * constructor, Go's init), and switching the checks off (`#define NDEBUG`, `#define assert`,
 * replacing `__assert_fail`, Go's `func panic`, Ruby's `def raise` and `Integer#==`, Python's
 * `__eq__`, a patched builtin, a re-exec under `-O`, a class shadowing Java's `AssertionError`).
 * Each attack is judged against a test it fails and must not be accepted; beside it, an honest program
 * of the same shape (the same hook, include, name or read, with a correct `add`) passes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExecLanguage, ProgramResult, TestCase } from '../core/execution.js';
import { createTestJudge, toolchainSkipReason } from '../../test/support/judge.js';
import type { JudgeBackend } from './backend.js';

const ALL: ExecLanguage[] = ['python', 'cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(ALL);
const made = skip === undefined ? await createTestJudge({ timeLimitMs: 4000, wallTimeFactor: 2 }) : skip;
const judge: JudgeBackend | undefined = typeof made === 'string' ? undefined : made;
const skipReason = typeof made === 'string' ? made : false;

/** One attack: the hostile candidate (its `add` wrong) and an honest candidate of the same shape (its `add` right). */
interface Attack {
  attack: string;
  honest: string;
  /** A test program other than the language's `fail` (and its passing twin), when the attack needs one. */
  fail?: string;
  pass?: string;
}

/** Per language: a test program that `add` = a + b passes, one it fails, and the attacks. */
const CORPUS: Record<ExecLanguage, { pass: string; fail: string; attacks: Record<string, Attack> }> = {
  python: {
    pass: 'assert add(2, 3) == 5\n',
    fail: 'assert add(2, 3) == 5\nassert add(2, 2) == 5\n',
    attacks: {
      'os._exit(0) before the tests': {
        attack: 'import os\nos._exit(0)\ndef add(a, b):\n    return 0\n',
        honest: 'import os\n_pid = os.getpid()\ndef add(a, b):\n    return a + b\n',
      },
      'sys.exit(0) inside the function': {
        attack: 'import sys\ndef add(a, b):\n    sys.exit(0)\n',
        honest: 'import sys\ndef add(a, b):\n    if a is None:\n        sys.exit(1)\n    return a + b\n',
      },
      'the token from the environment': {
        attack:
          'import os, sys\nfor k, v in os.environ.items():\n    print(v)\nprint(os.environ.get("COREB_TESTS_DONE", ""))\nsys.stdout.flush()\nos._exit(0)\ndef add(a, b):\n    return 0\n',
        honest: 'import os\n_home = os.environ.get("HOME", "")\ndef add(a, b):\n    return a + b\n',
      },
      'the token from /proc/self/environ': {
        attack:
          'import os, sys\nprint(open("/proc/self/environ", "rb").read().replace(b"\\0", b"\\n").decode())\nsys.stdout.flush()\nos._exit(0)\ndef add(a, b):\n    return 0\n',
        honest: '_status = open("/proc/self/status").read()\ndef add(a, b):\n    return a + b\n',
      },
      'every open descriptor printed': {
        attack:
          'import os, sys\nfor fd in range(3, 256):\n    try:\n        data = os.pread(fd, 4096, 0).decode("latin-1")\n    except OSError:\n        continue\n    print(data)\n    for n in range(8, 40):\n        for i in range(0, max(0, len(data) - n + 1)):\n            print(data[i:i + n])\nsys.stdout.flush()\nos._exit(0)\ndef add(a, b):\n    return 0\n',
        honest: 'import os\n_ = os.read(0, 10)\ndef add(a, b):\n    return a + b\n',
      },
      'sys.excepthook printing after the failed assert': {
        attack:
          'import os, sys\ndef _hook(*a):\n    print(os.environ.get("COREB_TESTS_DONE", "done"))\n    sys.stdout.flush()\n    os._exit(0)\nsys.excepthook = _hook\ndef add(a, b):\n    return 0\n',
        honest: 'import sys\nsys.setrecursionlimit(10000)\ndef add(a, b):\n    return a + b\n',
      },
      'atexit exiting 0 after the failed assert': {
        attack: 'import atexit, os\natexit.register(lambda: os._exit(0))\ndef add(a, b):\n    return 0\n',
        honest: 'import atexit\natexit.register(lambda: None)\ndef add(a, b):\n    return a + b\n',
      },
      'a result whose __eq__ is always true': {
        attack: 'class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\ndef add(a, b):\n    return Anything()\n',
        honest:
          'class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n    def __eq__(self, other):\n        return (self.a, self.b) == (other.a, other.b)\ndef add(a, b):\n    return Pair(a, b).a + b\n',
      },
      'a result whose __sub__ hides the difference': {
        attack: 'class Close:\n    def __sub__(self, other):\n        return 0\ndef add(a, b):\n    return Close()\n',
        honest: 'from fractions import Fraction\ndef add(a, b):\n    return Fraction(a) + b\n',
        pass: 'assert abs(add(2, 3) - 5) < 1e-9\n',
        fail: 'assert abs(add(2, 2) - 5) < 1e-9\n',
      },
      'a patched builtin': {
        attack: 'import builtins\nbuiltins.abs = lambda x: 0\ndef add(a, b):\n    return 0\n',
        honest: 'import builtins\n_sum = builtins.sum\ndef add(a, b):\n    return _sum([a, b])\n',
        pass: 'assert abs(add(2, 3) - 5) < 1e-9\n',
        fail: 'assert abs(add(2, 2) - 5) < 1e-9\n',
      },
      're-executed under -O': {
        attack:
          'import os, sys\nif not sys.flags.optimize:\n    argv = open("/proc/self/cmdline", "rb").read().split(b"\\0")[:-1]\n    os.execv(argv[0], [argv[0], b"-O"] + argv[1:])\ndef add(a, b):\n    return 0\n',
        honest: 'import sys\n_o = sys.flags.optimize\ndef add(a, b):\n    return a + b\n',
      },
    },
  },
  cpp: {
    pass: '#include <cassert>\nint main() {\n  assert(add(2, 3) == 5);\n  return 0;\n}\n',
    fail: '#include <cassert>\nint main() {\n  assert(add(2, 3) == 5);\n  assert(add(2, 2) == 5);\n  return 0;\n}\n',
    attacks: {
      'std::_Exit(0) in a global constructor': {
        attack: '#include <cstdlib>\nstruct Early { Early() { std::_Exit(0); } } early;\nint add(int a, int b) { return 0; }\n',
        honest: '#include <cstdlib>\nstruct Early { int n; Early() : n(std::atoi("7")) {} } early;\nint add(int a, int b) { return a + b; }\n',
      },
      'exit(0) inside the function': {
        attack: '#include <cstdlib>\nint add(int a, int b) { std::exit(0); }\n',
        honest: '#include <cstdlib>\nint add(int a, int b) { if (a < -1000000) std::exit(1); return a + b; }\n',
      },
      'the token from the environment in a global constructor': {
        attack:
          '#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\nstruct Leak { Leak() { for (char** e = environ; *e; ++e) std::printf("%s\\n", *e); const char* t = std::getenv("COREB_TESTS_DONE"); std::printf("\\n%s\\n", t ? t : ""); std::fflush(stdout); std::_Exit(0); } } leak;\nint add(int a, int b) { return 0; }\n',
        honest:
          '#include <cstdlib>\nstruct Home { const char* h; Home() : h(std::getenv("HOME")) {} } home;\nint add(int a, int b) { return a + b; }\n',
      },
      'every open descriptor printed': {
        attack:
          '#include <cstdio>\n#include <cstdlib>\n#include <string>\n#include <unistd.h>\nstruct Scan { Scan() { for (int fd = 3; fd < 256; fd++) { char b[4096]; long n = pread(fd, b, sizeof b, 0); if (n <= 0) continue; std::string s(b, n); std::printf("%s\\n", s.c_str()); for (size_t k = 8; k < 40; k++) for (size_t i = 0; i + k <= s.size(); i++) std::printf("%s\\n", s.substr(i, k).c_str()); } std::fflush(stdout); std::_Exit(0); } } scan;\nint add(int a, int b) { return 0; }\n',
        honest: '#include <unistd.h>\nstruct Pid { long p; Pid() : p(getpid()) {} } pid;\nint add(int a, int b) { return a + b; }\n',
      },
      'a SIGABRT handler catching the failed assert': {
        attack:
          '#include <csignal>\n#include <cstdio>\n#include <cstdlib>\nstruct Catch { Catch() { std::signal(SIGABRT, [](int) { std::printf("\\n%s\\n", std::getenv("COREB_TESTS_DONE") ? std::getenv("COREB_TESTS_DONE") : ""); std::fflush(stdout); std::_Exit(0); }); } } c;\nint add(int a, int b) { return 0; }\n',
        honest: '#include <csignal>\nstruct Catch { Catch() { std::signal(SIGPIPE, SIG_IGN); } } c;\nint add(int a, int b) { return a + b; }\n',
      },
      '#define NDEBUG before the test includes <cassert>': {
        attack: '#define NDEBUG\nint add(int a, int b) { return 0; }\n',
        honest: '#define NDEBUG\nint add(int a, int b) { return a + b; }\n',
      },
      '#define assert to nothing': {
        attack: '#include <cassert>\n#undef assert\n#define assert(x) ((void)0)\nint add(int a, int b) { return 0; }\n',
        honest: '#include <cassert>\n#define CHECK(x) assert(x)\nint add(int a, int b) { CHECK(a > -1000000); return a + b; }\n',
      },
      'its own __assert_fail that returns': {
        attack:
          'extern "C" void __assert_fail(const char*, const char*, unsigned int, const char*) noexcept { }\nint add(int a, int b) { return 0; }\n',
        honest: 'extern "C" int coreb_helper_count(int n) { return n; }\nint add(int a, int b) { return coreb_helper_count(a) + b; }\n',
      },
    },
  },
  java: {
    pass: 'public class Main {\n  public static void main(String[] args) {\n    if (new Solution().add(2, 3) != 5) throw new AssertionError();\n  }\n}\n',
    fail: 'public class Main {\n  public static void main(String[] args) {\n    if (new Solution().add(2, 3) != 5) throw new AssertionError();\n    if (new Solution().add(2, 2) != 5) throw new AssertionError("2+2");\n  }\n}\n',
    attacks: {
      'System.exit(0) in a static initialiser': {
        attack: 'class Solution { static { System.exit(0); } int add(int a, int b) { return 0; } }\n',
        honest: 'class Solution { static int base; static { base = 0; } int add(int a, int b) { return base + a + b; } }\n',
      },
      'Runtime.halt(0) inside the method': {
        attack: 'class Solution { int add(int a, int b) { Runtime.getRuntime().halt(0); return 0; } }\n',
        honest: 'class Solution { int add(int a, int b) { if (a < -1000000) Runtime.getRuntime().halt(1); return a + b; } }\n',
      },
      'the token from the environment': {
        attack:
          'class Solution { static { System.out.println(System.getenv()); System.out.println(System.getenv("COREB_TESTS_DONE")); System.out.flush(); Runtime.getRuntime().halt(0); } int add(int a, int b) { return 0; } }\n',
        honest: 'class Solution { static String home = System.getenv("HOME"); int add(int a, int b) { return a + b; } }\n',
      },
      'a default uncaught-exception handler exiting 0': {
        attack:
          'class Solution { static { Thread.setDefaultUncaughtExceptionHandler((t, e) -> Runtime.getRuntime().halt(0)); } int add(int a, int b) { return 0; } }\n',
        honest:
          'class Solution { static { Thread.setDefaultUncaughtExceptionHandler((t, e) -> e.printStackTrace()); } int add(int a, int b) { return a + b; } }\n',
      },
      'a class shadowing java.lang.AssertionError': {
        attack:
          'class AssertionError extends RuntimeException { AssertionError() { Runtime.getRuntime().halt(0); } AssertionError(Object o) { this(); } }\nclass Solution { int add(int a, int b) { return 0; } }\n',
        honest: 'class Pair { int a, b; }\nclass Solution { int add(int a, int b) { Pair p = new Pair(); p.a = a; p.b = b; return p.a + p.b; } }\n',
      },
    },
  },
  go: {
    pass: 'func main() {\n\tif add(2, 3) != 5 {\n\t\tpanic("2+3")\n\t}\n}\n',
    fail: 'func main() {\n\tif add(2, 3) != 5 {\n\t\tpanic("2+3")\n\t}\n\tif add(2, 2) != 5 {\n\t\tpanic("2+2")\n\t}\n}\n',
    attacks: {
      'os.Exit(0) in init': {
        attack: 'package main\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n\nfunc add(a, b int) int { return 0 }\n',
        honest: 'package main\n\nimport "os"\n\nvar pid int\n\nfunc init() { pid = os.Getpid() }\n\nfunc add(a, b int) int { return a + b }\n',
      },
      'the token from the environment in init': {
        attack:
          'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc init() {\n\tfor _, e := range os.Environ() {\n\t\tfmt.Println(e)\n\t}\n\tfmt.Println(os.Getenv("COREB_TESTS_DONE"))\n\tos.Exit(0)\n}\n\nfunc add(a, b int) int { return 0 }\n',
        honest: 'package main\n\nimport "os"\n\nvar home = os.Getenv("HOME")\n\nfunc add(a, b int) int { return a + b }\n',
      },
      'a package-level func panic that does nothing': {
        attack: 'package main\n\nfunc panic(v interface{}) {}\n\nfunc add(a, b int) int { return 0 }\n',
        honest:
          'package main\n\nfunc max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc add(a, b int) int { return max(a, a) - a + a + b }\n',
      },
    },
  },
  ruby: {
    pass: 'raise "2+3" unless add(2, 3) == 5\n',
    fail: 'raise "2+3" unless add(2, 3) == 5\nraise "2+2" unless add(2, 2) == 5\n',
    attacks: {
      'exit!(0) at load': {
        attack: 'exit!(0)\ndef add(a, b)\n  0\nend\n',
        honest: '$stdout.sync = true\ndef add(a, b)\n  a + b\nend\n',
      },
      'exit(0) inside the method': {
        attack: 'def add(a, b)\n  exit(0)\nend\n',
        honest: 'def add(a, b)\n  exit(1) if a.nil?\n  a + b\nend\n',
      },
      'the token from the environment': {
        attack: 'ENV.each { |k, v| puts v }\nputs ENV.fetch("COREB_TESTS_DONE", "")\n$stdout.flush\nexit!(0)\ndef add(a, b)\n  0\nend\n',
        honest: 'HOME = ENV.fetch("HOME", "")\ndef add(a, b)\n  a + b\nend\n',
      },
      'at_exit exiting 0 after the failed raise': {
        attack: 'at_exit { exit!(0) }\ndef add(a, b)\n  0\nend\n',
        honest: 'at_exit { $stdout.flush }\ndef add(a, b)\n  a + b\nend\n',
      },
      'def raise at the top level': {
        attack: 'def raise(*a) end\ndef add(a, b)\n  0\nend\n',
        honest: 'def complain(*a) end\ndef add(a, b)\n  a + b\nend\n',
      },
      'Integer#== that is always true': {
        attack: 'class Integer\n  def ==(other)\n    true\n  end\nend\ndef add(a, b)\n  0\nend\n',
        honest: 'class Integer\n  def double\n    self * 2\n  end\nend\ndef add(a, b)\n  a.double - a + b\nend\n',
      },
    },
  },
};

const program = (input: string): TestCase[] => [{ kind: 'program', input, outputs: [] }];

function judgeOne(language: ExecLanguage, id: string, code: string, testProgram: string): Promise<ProgramResult> {
  return judge!.judge({ id, problemId: 'add', language, code }, program(testProgram));
}

for (const language of ALL) {
  const c = CORPUS[language];
  test(`${language}: no attack of the corpus is accepted; each honest program of its shape is`, { skip: skipReason }, async () => {
    const names = Object.keys(c.attacks);
    const results = await Promise.all(
      names.flatMap((name) => {
        const a = c.attacks[name];
        return [
          judgeOne(language, `${language}-attack`, a.attack, a.fail ?? c.fail),
          judgeOne(language, `${language}-honest`, a.honest, a.pass ?? c.pass),
        ];
      }),
    );
    const wrong: string[] = [];
    names.forEach((name, i) => {
      const [attack, honest] = [results[2 * i], results[2 * i + 1]];
      if (attack.verdict === 'accepted') wrong.push(`attack accepted: ${name}`);
      if (honest.verdict !== 'accepted')
        wrong.push(`honest twin of "${name}" got ${honest.verdict}: ${honest.compileOutput ?? honest.tests[0]?.detail ?? ''}`);
    });
    assert.deepEqual(wrong, []);
  });
}

test('a failed check is a runtime_error naming it; an early exit 0 is a wrong_answer saying so', { skip: skipReason }, async () => {
  const failed = await judgeOne('cpp', 'cpp-fail', 'int add(int a, int b) { return a + b; }\n', CORPUS.cpp.fail);
  assert.equal(failed.verdict, 'runtime_error');
  assert.match(failed.tests[0].detail ?? '', /assertion failed: add\(2, 2\) == 5/);
  const early = await judgeOne('python', 'py-early', 'import os\nos._exit(0)\n', CORPUS.python.fail);
  assert.equal(early.verdict, 'wrong_answer');
  assert.match(early.tests[0].detail ?? '', /before the test program reached its end/);
  const scan = await judgeOne('python', 'py-scan', CORPUS.python.attacks['every open descriptor printed'].attack, CORPUS.python.fail);
  assert.equal(scan.verdict, 'wrong_answer');
  assert.match(scan.tests[0].detail ?? '', /proof file/);
  assert.ok(
    scan.suspicions?.some((s) => s.includes('raw descriptors')),
    JSON.stringify(scan.suspicions),
  );
});

/** Every shape of a test's `main` that its compiler accepts, each with a passing test (and a failing twin). */
const MAIN_SHAPES: Array<[ExecLanguage, string, string, string]> = [
  [
    'cpp',
    'return 0; at the end (MBCPP)',
    'int add(int a, int b) { return a + b; }\n',
    '#include <cassert>\nint main() {\n  assert(add(2, X) == 5);\n  return 0;\n}\n',
  ],
  [
    'cpp',
    'several returns',
    'int add(int a, int b) { return a + b; }\n',
    'int main() {\n  if (add(2, X) != 5) return 1;\n  if (add(1, 1) != 2) { return 2; }\n  return 0;\n}\n',
  ],
  [
    'cpp',
    'exit(0) at the end',
    '#include <cstdlib>\nint add(int a, int b) { return a + b; }\n',
    '#include <cassert>\nint main() {\n  assert(add(2, X) == 5);\n  exit(0);\n}\n',
  ],
  [
    'cpp',
    'int main(void), falling off the end',
    'int add(int a, int b) { return a + b; }\n',
    '#include <cassert>\nint main(void) {\n  assert(add(2, X) == 5);\n}\n',
  ],
  [
    'cpp',
    'signed main',
    'int add(int a, int b) { return a + b; }\n',
    '#include <cassert>\nsigned main() {\n  assert(add(2, X) == 5);\n  return 0;\n}\n',
  ],
  [
    'cpp',
    'main(int argc, char** argv)',
    'int add(int a, int b) { return a + b; }\n',
    '#include <cassert>\nint main(int argc, char** argv) {\n  assert(argc >= 1 && argv != nullptr);\n  assert(add(2, X) == 5);\n  return 0;\n}\n',
  ],
  [
    'java',
    'System.exit(0) as the last statement',
    'class Solution { int add(int a, int b) { return a + b; } }\n',
    'public class Main {\n  public static void main(String[] args) throws Exception {\n    if (new Solution().add(2, X) != 5) throw new AssertionError();\n    System.exit(0);\n  }\n}\n',
  ],
  [
    'go',
    'os.Exit(0) as the last statement',
    'package main\n\nfunc add(a, b int) int { return a + b }\n',
    'import "os"\n\nfunc main() {\n\tif add(2, X) != 5 {\n\t\tpanic("wrong")\n\t}\n\tos.Exit(0)\n}\n',
  ],
  [
    'go',
    'a go test file with testify',
    'package main\n\nfunc add(a, b int) int { return a + b }\n',
    'package main\n\nimport (\n\t"testing"\n\t"github.com/stretchr/testify/assert"\n)\n\nfunc TestAdd(t *testing.T) {\n\tassert := assert.New(t)\n\tassert.Equal(5, add(2, X))\n}\n',
  ],
];

test('every main shape compilers accept passes when its checks hold and fails when one does not', { skip: skipReason }, async () => {
  const runs = await Promise.all(
    MAIN_SHAPES.flatMap(([language, , code, t]) => [
      judgeOne(language, `${language}-ok`, code, t.replace('X', '3')),
      judgeOne(language, `${language}-bad`, code, t.replace('X', '2')),
    ]),
  );
  const wrong: string[] = [];
  MAIN_SHAPES.forEach(([language, shape], i) => {
    const [ok, bad] = [runs[2 * i], runs[2 * i + 1]];
    if (ok.verdict !== 'accepted') wrong.push(`${language} ${shape}: ${ok.verdict} ${ok.compileOutput ?? ok.tests[0]?.detail ?? ''}`);
    if (bad.verdict === 'accepted') wrong.push(`${language} ${shape}: a failing check was accepted`);
  });
  assert.deepEqual(wrong, []);
});
