/**
 * Python: run from source with `python3` (no compile step); functional tests get LiveCodeBench's
 * imports and a driver calling `Solution().<func_name>` as its harness does.
 */
import { BASE_LIMITS } from './tools.js';
import { interpretedCommands, type JudgeLanguage } from './language.js';
import { findSuspicions, sealSuffix, type SealedProgram, type SuspicionRule, type TestProof } from './sealing.js';

/** Imports LiveCodeBench puts before LeetCode-style Python solutions. */
const FUNCTIONAL_PRELUDE =
  'from typing import *\nfrom collections import *\nfrom itertools import *\nfrom functools import *\n' +
  'from heapq import *\nfrom bisect import *\nimport math, string, re, sys\n';

/** Python driver for `functional` tests: JSON argument lines on stdin, JSON result on stdout. */
function functionalDriver(funcName: string): string {
  return [
    '',
    'def _coreb_main():',
    '    import sys as _s, json as _j',
    "    _args = [_j.loads(_l) for _l in _s.stdin.read().split('\\n') if _l.strip()]",
    `    _r = Solution().${funcName}(*_args)`,
    '    _s.stdout.write(_j.dumps(_r))',
    '',
    '_coreb_main()',
    '',
  ].join('\n');
}

/** Python 3, run with `python3 main.py`. */
export const python: JudgeLanguage = {
  id: 'python',
  label: 'Python',
  remote: { piston: ['python', 'python3'], judge0: /^Python \(3\./, sandboxFusion: { language: 'python', runtime: 'python3', addressSpace: true } },
  outOfMemory: /MemoryError/,
  prompt: {
    name: 'Python 3',
    fence: 'python',
    functionalRule: "Complete the starter code's `class Solution` method; do not read input or print.",
  },
  tools: ['python3'],
  limits: BASE_LIMITS,
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.py',
  comments: 'hash',
  sealProgram: (code, test, proof) => sealPython(code, test, proof),
  suspicions: (code) => findSuspicions(code, maskHash(code), PYTHON_SUSPICIONS),
  functional: (code, funcName) => ({
    // The program's own `if __name__ == "__main__":` block would read the driver's stdin first.
    text: `__name__ = "coreb_solution"\n${FUNCTIONAL_PRELUDE}${code}\n${functionalDriver(funcName)}`,
    extraFiles: [],
    note: `python: LiveCodeBench imports and a driver calling Solution().${funcName} added (the program's own __main__ block is not run)`,
  }),
  ...interpretedCommands('python3', 'Python'),
};

/** `code` with `#` comments blanked (string contents are kept: Python suspicions read names, not literals). */
function maskHash(code: string): string {
  return code.replace(/#[^\n]*/g, (m) => ' '.repeat(m.length));
}

/** What a Python candidate written to forge a program test would do (recorded on its verdict). */
const PYTHON_SUSPICIONS: readonly SuspicionRule[] = [
  [/\bos\s*\.\s*(?:environ|getenv)\b|\benviron\b/, 'reads its environment'],
  [/\/proc\/|\/dev\/fd|\bos\s*\.\s*(?:read|pread|fdopen|listdir\s*\(\s*['"]\/(?:proc|dev))\b/, 'reads /proc, /dev/fd or raw descriptors'],
  [
    /\bdef\s+__(?:eq|ne|lt|le|gt|ge|bool|len|hash|abs|sub|rsub|float|int|index|contains)__\b|__(?:eq|ne)__\s*=/,
    'defines comparison or conversion methods (a result that equals anything)',
  ],
  [
    /\bsys\s*\.\s*(?:excepthook|settrace|setprofile|_getframe)\b|\batexit\b|\bthreading\s*\.\s*(?:excepthook|settrace)\b/,
    'hooks exceptions, exit or tracing',
  ],
  [/\bbuiltins\b|__builtins__/, 'touches builtins'],
  [/\bsys\s*\.\s*exit\s*=|^\s*def\s+(?:exit|quit)\s*\(/m, 'redefines sys.exit or exit'],
  [/\bos\s*\.\s*(?:exec\w*|_exit|kill)\b|\bsys\s*\.\s*(?:executable|flags)\b|\bsubprocess\b/, 'exits or re-executes itself'],
  [/\bctypes\b|\bgc\s*\.\s*get_(?:objects|referents|referrers)\b/, 'reaches into the interpreter (ctypes, gc)'],
];

/**
 * The sealed runner for Python `program` tests. It starts before the candidate: it takes the proof
 * descriptor out of reach of an exec (close-on-exec), notes the functions and modules the test's
 * checks rely on, runs the candidate's code as `__main__`, then the test program compiled with every
 * `assert` turned into an `if` (so `-O` cannot remove it) whose values are checked (a value of a
 * class the candidate wrote with its own `__eq__`, `__bool__`, … fails the test), and prints the proof
 * only when nothing was patched, no tracer is set and the test ran to its end. A failed check ends the
 * process at once (`os._exit`, taken before the candidate ran), so no hook of the candidate's runs.
 */
const PYTHON_RUNNER = String.raw`def _coreb_sealed(_solution, _tests, _proof_fd, _proof_at, _proof_literal, _v_name, _fail_name):
    import ast, builtins, linecache, os, sys, types
    import math, cmath, operator, functools, itertools, collections, re, string, heapq, bisect, copy
    _exit, _write, _pread, _gettrace, _getprofile = os._exit, os.write, os.pread, sys.gettrace, sys.getprofile
    _type, _isinstance, _getattr, _id, _len, _dict = type, isinstance, getattr, id, len, dict
    if _proof_fd is not None:
        try:
            os.set_inheritable(_proof_fd, False)
        except OSError:
            pass
    _watched = [builtins, math, cmath, operator, functools, itertools, collections, re, string, heapq, bisect, copy, os, sys, types]
    _snapshot = [(m, m.__name__, _dict(vars(m))) for m in _watched]
    _volatile = {"sys": {"stdout", "stderr", "stdin", "last_type", "last_value", "last_traceback", "last_exc", "ps1", "ps2", "argv", "path", "modules", "meta_path", "path_hooks", "path_importer_cache", "dont_write_bytecode", "tracebacklimit", "flags"}, "os": {"environ"}, "builtins": {"_", "__debug__"}}
    import site
    _roots = [os.path.dirname(os.__file__)] + list(site.getsitepackages())
    _roots += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    _trusted_dirs = tuple(sorted({os.path.join(p, "") for p in _roots if p and os.path.isabs(p)}))
    _dunders = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__hash__", "__abs__", "__sub__", "__rsub__", "__add__", "__radd__", "__float__", "__int__", "__index__", "__round__", "__contains__", "__iter__", "__getattr__", "__getattribute__", "__instancecheck__", "__subclasscheck__", "__neg__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__mod__", "__and__", "__or__")
    _plain = {int, float, str, bool, type(None), bytes, complex}
    _verdicts = {}

    def _fail(message):
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        _write(2, ("coreb: the test failed: " + message + "\n").encode("utf-8", "replace"))
        _exit(1)

    def _changed():
        for m, name, before in _snapshot:
            if sys.modules.get(name) is not m:
                return "sys.modules['%s'] was replaced" % name
            now = vars(m)
            skip = _volatile.get(name, ())
            for k, v in before.items():
                if k not in skip and now.get(k, _changed) is not v:
                    return "%s.%s was replaced" % (name, k)
        if _gettrace() is not None or _getprofile() is not None:
            return "a trace or profile function is set"
        return None

    def _untrusted(t):
        known = _verdicts.get(t)
        if known is not None:
            return known
        why = ""
        for cls in t.__mro__:
            if cls.__module__ == "builtins":
                continue
            for name in _dunders:
                f = cls.__dict__.get(name)
                if f is None:
                    continue
                f = _getattr(f, "__func__", f)
                code = _getattr(f, "__code__", None)
                if code is None:
                    if _type(f).__module__ == "builtins" or _isinstance(f, (types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodDescriptorType, types.MethodWrapperType)):
                        continue
                    why = "%s.%s is not a function" % (cls.__qualname__, name)
                elif not code.co_filename.startswith(_trusted_dirs):
                    why = "%s defines its own %s" % (cls.__qualname__, name)
                if why:
                    break
            if why:
                break
        _verdicts[t] = why
        return why

    def _check(x):
        t = _type(x)
        if t in _plain:
            return x
        stack = [x]
        seen = 0
        while stack and seen < 100000:
            y = stack.pop()
            seen += 1
            ty = _type(y)
            if ty in _plain:
                continue
            if ty in (list, tuple, set, frozenset):
                stack.extend(y)
                continue
            if ty is _dict:
                stack.extend(y.keys())
                stack.extend(y.values())
                continue
            why = _untrusted(ty)
            if why:
                _fail("a value the test checks is of a class the program wrote: " + why)
        return x

    class _Seal(ast.NodeTransformer):
        def _wrap(self, node):
            return ast.copy_location(ast.Call(func=ast.Name(id=_v_name, ctx=ast.Load()), args=[node], keywords=[]), node)

        def visit_Assert(self, node):
            where = ast.unparse(node.test)
            test = _Values(self._wrap).visit(node.test)
            msg = node.msg if node.msg is not None else ast.Constant(value=where[:300])
            call = ast.Call(func=ast.Name(id=_fail_name, ctx=ast.Load()), args=[msg, ast.Constant(value=node.lineno)], keywords=[])
            out = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=self._wrap(test)), body=[ast.Expr(value=call)], orelse=[])
            return ast.copy_location(out, node)

    class _Values(ast.NodeTransformer):
        def __init__(self, wrap):
            self.wrap = wrap

        def visit_Call(self, node):
            self.generic_visit(node)
            return self.wrap(node)

        def visit_Compare(self, node):
            self.generic_visit(node)
            node.left = self.wrap(node.left)
            node.comparators = [self.wrap(c) for c in node.comparators]
            return node

    def _assert_failed(msg, line):
        _fail("assertion failed at tests.py line %d: %s" % (line, msg))

    main = types.ModuleType("__main__")
    main.__dict__.update({"__file__": "solution.py", "__builtins__": builtins})
    sys.modules["__main__"] = main
    for name, text in (("solution.py", _solution), ("tests.py", _tests)):
        linecache.cache[name] = (_len(text), None, text.splitlines(True), name)
    sys.argv[0] = "solution.py"
    exec(compile(_solution, "solution.py", "exec"), main.__dict__)
    why = _changed()
    if why:
        _fail("the program changed what the test relies on: " + why)
    tree = ast.fix_missing_locations(_Seal().visit(ast.parse(_tests, "tests.py")))
    main.__dict__[_v_name] = _check
    main.__dict__[_fail_name] = _assert_failed
    exec(compile(tree, "tests.py", "exec"), main.__dict__)
    why = _changed()
    if why:
        _fail("the program changed what the test relies on: " + why)
    if main.__dict__.get(_v_name) is not _check or main.__dict__.get(_fail_name) is not _assert_failed:
        _fail("the program replaced the test's checks")
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    token = _pread(_proof_fd, _proof_at[1], _proof_at[0]) if _proof_fd is not None else _proof_literal.encode()
    _write(1, b"\n" + token + b"\n")
`;

/** `s` as a Python string literal (ASCII, escaped). */
function pythonString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A Python `program` test, sealed: `main.py` is coreb's runner ({@link PYTHON_RUNNER}) with the
 * candidate's code and the test program as string literals, run as `solution.py` and `tests.py`.
 */
export function sealPython(code: string, test: string, proof: TestProof): SealedProgram {
  const suffix = sealSuffix();
  const fd = proof.channel === 'fd' ? `${proof.fd}, (${proof.offset}, ${proof.length})` : 'None, None';
  const literal = proof.channel === 'literal' ? pythonString(proof.token) : 'None';
  const text = `${PYTHON_RUNNER}\n_coreb_sealed(${pythonString(code)}, ${pythonString(test)}, ${fd}, ${literal}, "_coreb_v_${suffix}", "_coreb_fail_${suffix}")\n`;
  return {
    text,
    checked: true,
    notes: [
      "python: test program sealed: coreb's runner runs the program as solution.py, then tests.py with each assert made an if (-O proof) whose values must not be of classes the program wrote with their own __eq__ and the like; builtins and the standard modules the checks use must be unchanged; the proof token is printed at the end",
    ],
  };
}
