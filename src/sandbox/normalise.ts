/**
 * The only source changes the judge makes, each recorded in the result: C++ snippets without any
 * `#include` get `<bits/stdc++.h>`, Java files are named after their public class, Go files without a
 * package clause become `package main`; `program` tests append the test program, `functional` tests a
 * driver, with the run's completion token printed at the test program's end (see
 * {@link COMPLETION_TOKEN_ENV}). Nothing else is "fixed": code that does not compile is a `compile_error`.
 */
import { CorebError } from '../core/errors.js';
import type { ExecLanguage, TestKind } from '../core/execution.js';
import { functionalSource } from './functional.js';
import { OFFICIAL_CXX_FLAGS, officialSource } from './official-harness.js';

/** A source file ready to build. */
export interface PreparedSource {
  /** File name inside the work dir (e.g. `main.cpp`, `Main.java`). */
  fileName: string;
  /** File contents. */
  text: string;
  /** Java: the class to run. */
  mainClass?: string;
  /** Changes made, in words, for the result's `normalisations`. */
  normalisations: string[];
  /** Other files written beside `fileName` (functional drivers in Go and Ruby); Go builds them all. */
  extraFiles?: Array<{ name: string; text: string }>;
  /** C++: the g++ flags to build with instead of the judge's (the official harness's); no precompiled header then. */
  cxxFlags?: readonly string[];
}

/**
 * Which source changes the judge makes: `coreb` (default: only those listed in this file's header)
 * or `official`, the official CoREB harness's (official-harness.ts: comment stripping, C++ headers
 * and `main` rewrites, `g++ -std=c++17`), for re-judging a release the way its labels were made.
 */
export const NORMALISATIONS = ['coreb', 'official'] as const;
/** A normalisation name. */
export type NormalisationName = (typeof NORMALISATIONS)[number];

/** Options of {@link prepareSource}. */
export interface PrepareOptions {
  /** Source changes to make; default `coreb`. */
  normalise?: NormalisationName;
  /**
   * The completion token written into the test program as a literal, for judges that cannot set a
   * run's environment (remote services); default: read from {@link COMPLETION_TOKEN_ENV} at run time.
   */
  completionToken?: string;
}

const FILE_NAMES: Readonly<Record<ExecLanguage, string>> = {
  python: 'main.py',
  cpp: 'main.cpp',
  java: 'Main.java',
  go: 'main.go',
  ruby: 'main.rb',
};

/** The name of the first `public class` (or interface/enum/record) in Java source, if any. */
export function javaPublicClass(code: string): string | undefined {
  const m = /^\s*public\s+(?:(?:final|abstract|static|strictfp)\s+)*(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/m.exec(
    stripJavaComments(code),
  );
  return m?.[1];
}

/**
 * The top-level class whose body declares `static void main`, if any (nested classes are skipped;
 * braces are counted outside comments, strings and character literals).
 */
export function javaMainClass(code: string): string | undefined {
  const text = stripJavaComments(code).replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  let depth = 0;
  let current: string | undefined;
  const decl = /\b(?:class|enum|record|interface)\s+([A-Za-z_$][\w$]*)|[{}]|\bstatic\s+void\s+main\s*\(/g;
  for (const m of text.matchAll(decl)) {
    if (m[0] === '{') depth++;
    else if (m[0] === '}') depth--;
    else if (m[1] !== undefined) {
      if (depth === 0) current = m[1];
    } else if (current !== undefined) return current;
  }
  return undefined;
}

function stripJavaComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}

/**
 * The environment variable holding a run's completion token: a fresh random string per test run
 * that the test program prints when it has run to its end. A program test passes only with exit
 * status 0 AND the token on stdout, so a program that exits early with status 0 (`os._exit(0)`,
 * `std::_Exit(0)` in a global constructor, Go's `os.Exit(0)` in `init`, Ruby's `exit!(0)`) is not
 * accepted: it never reached the end of the tests.
 */
export const COMPLETION_TOKEN_ENV = 'COREB_TESTS_DONE';

/**
 * The index of the `}` closing the body that opens at `open` (the index of its `{`), counting
 * braces outside comments, string, character and Go raw-string literals; -1 when unbalanced.
 */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const e = text.indexOf('\n', i);
      i = e < 0 ? text.length : e;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? text.length : e + 1;
    } else if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\' && c !== '`') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** The main function's opening brace in a C++, Java or Go test program, or -1. */
function mainBodyStart(language: ExecLanguage, test: string): number {
  const re =
    language === 'cpp'
      ? /\bint\s+main\s*\([^)]*\)\s*\{/
      : language === 'java'
        ? /\bstatic\s+void\s+main\s*\([^)]*\)\s*(?:throws\s+[\w.,\s]+)?\{/
        : /\bfunc\s+main\s*\(\s*\)\s*\{/;
  const m = re.exec(test);
  return m === null ? -1 : m.index + m[0].length - 1;
}

/**
 * The test program with the completion token printed at its end: Python and Ruby after the last
 * line, C++, Java and Go as the last statement of `main` (a `return` before it skips the token, as
 * an early exit does). `checked` is false when there is no `main` to end (nothing is added).
 */
export function withCompletionToken(language: ExecLanguage, test: string, literal?: string): { text: string; checked: boolean } {
  const env = COMPLETION_TOKEN_ENV;
  // A literal token is hex only, so it needs no escaping in any language.
  if (literal !== undefined && !/^[\w-]+$/.test(literal)) throw new CorebError('INTERNAL', `completion token must be [A-Za-z0-9_-], got ${literal}`);
  const q = literal === undefined ? undefined : `"${literal}"`;
  if (language === 'python') {
    return {
      text: `${test.replace(/\s+$/, '')}\n\nimport os as _coreb_os, sys as _coreb_sys\n_coreb_sys.stdout.write('\\n' + ${q ?? `_coreb_os.environ.get('${env}', '')`} + '\\n')\n_coreb_sys.stdout.flush()\n`,
      checked: true,
    };
  }
  if (language === 'ruby') {
    return {
      text: `${test.replace(/\s+$/, '')}\n\n$stdout.write("\\n" + ${q ?? `ENV.fetch('${env}', '')`} + "\\n")\n$stdout.flush\n`,
      checked: true,
    };
  }
  const open = mainBodyStart(language, test);
  const close = open < 0 ? -1 : closingBrace(test, open);
  if (close < 0) return { text: test, checked: false };
  const statement =
    language === 'cpp'
      ? `\n{ const char* _coreb_t = ${q ?? `std::getenv("${env}")`}; std::fputs("\\n", stdout); std::fputs(_coreb_t ? _coreb_t : "", stdout); std::fputs("\\n", stdout); std::fflush(stdout); }\n`
      : language === 'java'
        ? `\nSystem.out.print("\\n" + ${q ?? `java.util.Objects.toString(System.getenv("${env}"), "")`} + "\\n"); System.out.flush();\n`
        : `\n_coreb_os.Stdout.WriteString("\\n" + ${q ?? `_coreb_os.Getenv("${env}")`} + "\\n")\n`;
  const prefix = language === 'cpp' ? '#include <cstdio>\n#include <cstdlib>\n' : '';
  return { text: `${prefix}${test.slice(0, close)}${statement}${test.slice(close)}`, checked: true };
}

/** Python driver for `functional` tests: JSON argument lines on stdin, JSON result on stdout. */
function pythonFunctionalDriver(funcName: string): string {
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

/** Imports LiveCodeBench puts before LeetCode-style Python solutions. */
const PYTHON_FUNCTIONAL_PRELUDE =
  'from typing import *\nfrom collections import *\nfrom itertools import *\nfrom functools import *\n' +
  'from heapq import *\nfrom bisect import *\nimport math, string, re, sys\n';

/**
 * Prepares `code` for `language` and test `kind`; `extra` is the test program (`program`) or the
 * method name (`functional`).
 */
export function prepareSource(language: ExecLanguage, source: string, kind: TestKind, extra = '', options: PrepareOptions = {}): PreparedSource {
  const notes: string[] = [];
  const official = options.normalise === 'official';
  let code = source;
  if (official) {
    const o = officialSource(language, source);
    code = o.text;
    notes.push(...o.changes);
  }
  let text = code;
  let driver: ReturnType<typeof functionalSource> | undefined;
  if (kind === 'program') {
    const ended = withCompletionToken(language, extra, options.completionToken);
    text = `${code.replace(/\s+$/, '')}\n\n${ended.text}\n`;
    notes.push(`${language}: test program appended`);
    if (ended.checked) notes.push(`${language}: the test program prints the run's completion token when it reaches its end`);
    else notes.push(`${language}: no main function found in the test program: an exit status 0 alone passes`);
  } else if (kind === 'functional') {
    if (language === 'python') {
      // The program's own `if __name__ == "__main__":` block would read the driver's stdin first.
      text = `__name__ = "coreb_solution"\n${PYTHON_FUNCTIONAL_PRELUDE}${code}\n${pythonFunctionalDriver(extra)}`;
      notes.push(`python: LiveCodeBench imports and a driver calling Solution().${extra} added (the program's own __main__ block is not run)`);
    } else {
      driver = functionalSource(language, code, extra);
      text = driver.text;
      notes.push(driver.note);
    }
  }
  let fileName = driver?.fileName ?? FILE_NAMES[language];
  let mainClass: string | undefined;
  // (a functional driver brings <bits/stdc++.h> itself)
  if (language === 'cpp' && !official && !/^\s*#\s*include\b/m.test(text)) {
    text = '#include <bits/stdc++.h>\n' + text;
    notes.push('cpp: added #include <bits/stdc++.h> (snippet had no #include)');
  } else if (language === 'java') {
    const pub = javaPublicClass(text);
    mainClass = javaMainClass(text) ?? pub ?? 'Main';
    if (pub !== undefined) {
      fileName = `${pub}.java`;
      if (pub !== 'Main') notes.push(`java: file named ${fileName} after its public class`);
    }
  } else if (language === 'go' && !/^\s*package\s+\w+/m.test(text)) {
    text = 'package main\n\n' + text;
    notes.push('go: added `package main` (no package clause)');
  }
  if (language === 'go' && kind === 'program' && text.includes('_coreb_os.')) {
    // The completion token needs "os": imported under a name of its own, after the package clause.
    text = text.replace(/^(\s*package\s+\w+[^\n]*\n)/m, '$1import _coreb_os "os"\n');
  }
  if (driver?.mainClass !== undefined) mainClass = driver.mainClass;
  const out: PreparedSource = { fileName, text, mainClass, normalisations: notes };
  if (official && language === 'cpp') {
    out.cxxFlags = OFFICIAL_CXX_FLAGS;
    notes.push(`cpp (official): compiled with g++ ${OFFICIAL_CXX_FLAGS.join(' ')} (no -O2, no ONLINE_JUDGE, no precompiled header)`);
  }
  if (driver !== undefined && driver.extraFiles.length > 0) out.extraFiles = driver.extraFiles;
  return out;
}
