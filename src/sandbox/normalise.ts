/**
 * The only source changes the judge makes, each recorded in the result: `program` tests append the
 * test program, `functional` tests a driver, with the run's completion token printed at the test
 * program's end (see {@link COMPLETION_TOKEN_ENV}); then the language's own changes (each module's
 * `prepare` in languages/: C++ snippets without any `#include` get `<bits/stdc++.h>`, Java files are
 * named after their public class, Go files without a package clause become `package main`). Nothing
 * else is "fixed": code that does not compile is a `compile_error`.
 */
import { CorebError } from '../core/errors.js';
import type { TestKind } from '../core/execution.js';
import type { FunctionalSource } from './functional.js';
import { judgeLanguage } from './languages/index.js';
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

/**
 * The environment variable holding a run's completion token: a fresh random string per test run
 * that the test program prints when it has run to its end. A program test passes only with exit
 * status 0 AND the token on stdout, so a program that exits early with status 0 (`os._exit(0)`,
 * `std::_Exit(0)` in a global constructor, Go's `os.Exit(0)` in `init`, Ruby's `exit!(0)`) is not
 * accepted: it never reached the end of the tests.
 */
export const COMPLETION_TOKEN_ENV = 'COREB_TESTS_DONE';

/**
 * The test program with the completion token printed at its end: Python and Ruby after the last
 * line, C++, Java and Go as the last statement of `main` (a `return` before it skips the token, as
 * an early exit does). `checked` is false when there is no `main` to end (nothing is added).
 */
export function withCompletionToken(language: string, test: string, literal?: string): { text: string; checked: boolean } {
  // A literal token is hex only, so it needs no escaping in any language.
  if (literal !== undefined && !/^[\w-]+$/.test(literal)) throw new CorebError('INTERNAL', `completion token must be [A-Za-z0-9_-], got ${literal}`);
  return judgeLanguage(language).endTests(test, literal === undefined ? undefined : `"${literal}"`, COMPLETION_TOKEN_ENV);
}

/**
 * Prepares `code` for `language` and test `kind`; `extra` is the test program (`program`) or the
 * method name (`functional`).
 */
export function prepareSource(language: string, source: string, kind: TestKind, extra = '', options: PrepareOptions = {}): PreparedSource {
  const lang = judgeLanguage(language);
  const notes: string[] = [];
  const official = options.normalise === 'official';
  let code = source;
  if (official) {
    const o = officialSource(language, source);
    code = o.text;
    notes.push(...o.changes);
  }
  let text = code;
  let driver: FunctionalSource | undefined;
  if (kind === 'program') {
    const ended = withCompletionToken(language, extra, options.completionToken);
    text = `${code.replace(/\s+$/, '')}\n\n${ended.text}\n`;
    notes.push(`${language}: test program appended`);
    if (ended.checked) notes.push(`${language}: the test program prints the run's completion token when it reaches its end`);
    else notes.push(`${language}: no main function found in the test program: an exit status 0 alone passes`);
  } else if (kind === 'functional') {
    driver = lang.functional(code, extra);
    text = driver.text;
    notes.push(driver.note);
  }
  const own = lang.prepare?.(text, kind, official) ?? { text, notes: [] };
  notes.push(...own.notes);
  const out: PreparedSource = {
    fileName: driver?.fileName ?? own.fileName ?? lang.fileName,
    text: own.text,
    mainClass: driver?.mainClass ?? own.mainClass,
    normalisations: notes,
  };
  if (official && language === 'cpp') {
    out.cxxFlags = OFFICIAL_CXX_FLAGS;
    notes.push(`cpp (official): compiled with g++ ${OFFICIAL_CXX_FLAGS.join(' ')} (no -O2, no ONLINE_JUDGE, no precompiled header)`);
  }
  if (driver !== undefined && driver.extraFiles.length > 0) out.extraFiles = driver.extraFiles;
  return out;
}
