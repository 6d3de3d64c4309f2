/**
 * Which function of a program a LeetCode-style example calls, when nothing names it: the statement
 * gives the arguments by name (`nums = [1,2], k = 3`), the program declares functions with
 * parameter lists. The function taking as many parameters, whose names match the arguments' best,
 * is the one the functional driver (functional.ts) calls. Pure; no I/O.
 */
import type { ExecLanguage } from '../core/execution.js';
import { splitTopLevel } from '../core/split-top-level.js';

/** A function or method a program declares. */
export interface DeclaredFunction {
  name: string;
  /** Parameter names in order (Python's `self` left out). */
  params: string[];
}

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'main', 'new', 'else', 'do', 'synchronized']);

/** Comments and string literals blanked (so a brace or `def` inside them is not read). */
function blank(code: string, language: ExecLanguage): string {
  const hash = language === 'python' || language === 'ruby';
  const re = hash ? /#[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g : /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;
  return code.replace(re, (m) => (m.startsWith('"') || m.startsWith("'") ? '""' : ' '));
}

/** The name a parameter declares: the last identifier (C++, Java), the first (Go, Python, Ruby). */
function paramName(language: ExecLanguage, param: string): string | undefined {
  const p = param.replace(/=[\s\S]*$/, '').replace(/\[[^\]]*\]/g, ' ');
  if (language === 'cpp' || language === 'java') {
    const ids = p.replace(/<[^<>]*(<[^<>]*>[^<>]*)*>/g, ' ').match(/[A-Za-z_]\w*/g);
    return ids?.[ids.length - 1];
  }
  return /[A-Za-z_]\w*/.exec(p.replace(/^[*&]+/, ''))?.[0];
}

/** Every function or method `code` declares with a parameter list, in order. */
export function declaredFunctions(language: ExecLanguage, code: string): DeclaredFunction[] {
  const text = blank(code, language);
  const re: RegExp =
    language === 'python'
      ? /^[ \t]*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/gm
      : language === 'ruby'
        ? /^[ \t]*def\s+(?:self\.)?([A-Za-z_]\w*[?!]?)\s*(?:\(([^)]*)\)|([^\n;]*))/gm
        : language === 'go'
          ? /\bfunc\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(([^)]*)\)/g
          : /([A-Za-z_]\w*)\s*\(([^()]*)\)\s*(?:const\s*)?(?:noexcept\s*)?(?:throws\s+[\w\s,.]+)?\{/g;
  const out: DeclaredFunction[] = [];
  for (const m of text.matchAll(re)) {
    const name = m[1];
    if (NOT_FUNCTIONS.has(name)) continue;
    const list = m[2] ?? m[3] ?? '';
    const params = splitTopLevel(list, { open: '<[({', close: '>])}' })
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map((p) => paramName(language, p))
      .filter((p): p is string => p !== undefined && p !== 'void');
    out.push({ name, params: language === 'python' ? params.filter((p, i) => !(i === 0 && (p === 'self' || p === 'cls'))) : params });
  }
  return out;
}

/** `removable_indices` and `removableIndices` compare equal. */
function fold(name: string): string {
  return name.replace(/_/g, '').toLowerCase();
}

/**
 * The function an example with arguments `argNames` calls: among the declared functions taking
 * exactly that many parameters, the one whose parameter names match the most argument names
 * (case and underscores ignored); the first such on a tie. Undefined when none has that arity.
 * @example
 * ```ts
 * findCallTarget('python', 'class Solution:\n  def twoSum(self, nums, target): ...', ['nums', 'target']); // 'twoSum'
 * ```
 */
export function findCallTarget(language: ExecLanguage, code: string, argNames: readonly string[]): string | undefined {
  const want = argNames.map(fold);
  let best: { name: string; score: number } | undefined;
  for (const f of declaredFunctions(language, code)) {
    if (f.params.length !== argNames.length) continue;
    const score = f.params.reduce((s, p, i) => s + (fold(p) === want[i] ? 2 : want.includes(fold(p)) ? 1 : 0), 0);
    if (best === undefined || score > best.score) best = { name: f.name, score };
  }
  return best?.name;
}
