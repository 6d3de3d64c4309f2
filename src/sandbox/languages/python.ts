/**
 * Python: run from source with `python3` (no compile step); functional tests get LiveCodeBench's
 * imports and a driver calling `Solution().<func_name>` as its harness does.
 */
import { BASE_LIMITS } from './tools.js';
import { appendLine, interpretedCommands, type JudgeLanguage } from './language.js';

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
  tools: ['python3'],
  limits: BASE_LIMITS,
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.py',
  comments: 'hash',
  endTests: (test, token, env) =>
    appendLine(
      test,
      `import os as _coreb_os, sys as _coreb_sys\n_coreb_sys.stdout.write('\\n' + ${token ?? `_coreb_os.environ.get('${env}', '')`} + '\\n')\n_coreb_sys.stdout.flush()\n`,
    ),
  functional: (code, funcName) => ({
    // The program's own `if __name__ == "__main__":` block would read the driver's stdin first.
    text: `__name__ = "coreb_solution"\n${FUNCTIONAL_PRELUDE}${code}\n${functionalDriver(funcName)}`,
    extraFiles: [],
    note: `python: LiveCodeBench imports and a driver calling Solution().${funcName} added (the program's own __main__ block is not run)`,
  }),
  ...interpretedCommands('python3', 'Python'),
};
