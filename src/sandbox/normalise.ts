/**
 * The only source changes the judge makes, each recorded in the result: C++ snippets without any
 * `#include` get `<bits/stdc++.h>`, Java files are named after their public class, Go files without a
 * package clause become `package main`; `program` tests append the test program, `functional` tests a
 * driver. Nothing else is "fixed": code that does not compile is a `compile_error`.
 */
import type { ExecLanguage, TestKind } from '../core/execution.js';
import { functionalSource } from './functional.js';

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
export function prepareSource(language: ExecLanguage, code: string, kind: TestKind, extra = ''): PreparedSource {
  const notes: string[] = [];
  let text = code;
  let driver: ReturnType<typeof functionalSource> | undefined;
  if (kind === 'program') {
    text = `${code.replace(/\s+$/, '')}\n\n${extra}\n`;
    notes.push(`${language}: test program appended`);
  } else if (kind === 'functional') {
    if (language === 'python') {
      text = PYTHON_FUNCTIONAL_PRELUDE + code + '\n' + pythonFunctionalDriver(extra);
      notes.push(`python: LiveCodeBench imports and a driver calling Solution().${extra} added`);
    } else {
      driver = functionalSource(language, code, extra);
      text = driver.text;
      notes.push(driver.note);
    }
  }
  let fileName = driver?.fileName ?? FILE_NAMES[language];
  let mainClass: string | undefined;
  // (a functional driver brings <bits/stdc++.h> itself)
  if (language === 'cpp' && !/^\s*#\s*include\b/m.test(text)) {
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
  if (driver?.mainClass !== undefined) mainClass = driver.mainClass;
  const out: PreparedSource = { fileName, text, mainClass, normalisations: notes };
  if (driver !== undefined && driver.extraFiles.length > 0) out.extraFiles = driver.extraFiles;
  return out;
}
