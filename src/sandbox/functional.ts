/**
 * What the judge checks before running `functional` (LeetCode-style) tests, and the shape of a
 * program with its driver; each language module (languages/) writes its own driver, as
 * LiveCodeBench's harness does for Python: the test input is one JSON value per line, one per argument; the driver
 * decodes each into the type the program's method declares, calls the method and prints the result
 * as JSON, which the judge compares by JSON equality (verdict.ts).
 *
 * The argument types come from the program itself, so a `vector<long long>&` or `List<Integer>`
 * parameter gets what it declares: C++ deduces them from the member-function pointer at compile
 * time, Java and Go read them by reflection, Ruby is untyped. Supported: integers of every width,
 * floating point, bool, char (a one-character JSON string), strings, and arrays/lists of those
 * nested to any depth. The program's own `main` (many programs carry a stdin `main` beside
 * `class Solution`) is not run.
 */
import { judgeLanguage } from './languages/index.js';
import { escapeRegExp, stripCComments, type FunctionalSource } from './languages/language.js';

export type { FunctionalSource };

/** A functional problem the judge cannot run for a program, decided before building it. */
export interface FunctionalRefusal {
  /** `compile_error` when the program lacks the method the tests call; `sandbox_error` when the driver does not support its types. */
  verdict: 'compile_error' | 'sandbox_error';
  /** One sentence naming the method, language and what is missing or unsupported. */
  reason: string;
}

/** LeetCode's linked structures and interactive helpers: no JSON encoding the driver could guess. */
const UNSUPPORTED_TYPES =
  /\b(ListNode|TreeNode|Node|NestedInteger|Interval|Employee|ImmutableListNode|MountainArray|CustomFunction|Robot|Master|Sea|BinaryMatrix|ArrayReader|HtmlParser)\b/;

/** What the drivers accept, in words (for refusals and docs). */
export const FUNCTIONAL_TYPES = 'integers, floating point, bool, char, strings, and arrays/lists/slices of those (any depth)';

function stripComments(code: string, hash: boolean): string {
  return hash ? code.replace(/^=begin[\s\S]*?^=end/gm, ' ').replace(/#[^\n{]*$/gm, '') : stripCComments(code);
}

/**
 * Why functional tests calling `funcName` cannot run `code` in `language`, or undefined when they
 * can: no method name in the tests, no such method in the program (`compile_error`, as LeetCode
 * reports it), or a parameter/return type the driver has no JSON encoding for (`sandbox_error`:
 * the judge's limit, not the program's fault). Python is left to LiveCodeBench's rules.
 */
export function checkFunctional(language: string, code: string, funcName: string): FunctionalRefusal | undefined {
  if (!/^[A-Za-z_]\w*$/.test(funcName)) {
    return { verdict: 'sandbox_error', reason: `functional tests need a method name (LiveCodeBench metadata.func_name); got \`${funcName}\`` };
  }
  const lang = judgeLanguage(language);
  if (lang.declaration === undefined) return undefined;
  const decl = lang.declaration(escapeRegExp(funcName)).exec(stripComments(code, lang.comments === 'hash'))?.[0];
  if (decl === undefined) {
    return {
      verdict: 'compile_error',
      reason: `the functional tests call ${funcName} (the problem's func_name), but the ${language} program defines no ${lang.declarationPlace ?? 'function'} named ${funcName}`,
    };
  }
  const other = lang.functionalCheck?.(code, funcName);
  if (other !== undefined) return { verdict: 'compile_error', reason: other };
  const bad = UNSUPPORTED_TYPES.exec(decl);
  if (bad !== null) {
    return {
      verdict: 'sandbox_error',
      reason: `the ${language} functional driver cannot pass a ${bad[1]} to ${funcName} (it supports ${FUNCTIONAL_TYPES}); the judge cannot run this program`,
    };
  }
  return undefined;
}
