/**
 * Loaders for the real execution data in ../shared (used by the `*.shared.test.ts` judge suites and
 * bench/sandbox-*.ts): CoREB v202602 AtCoder programs with their `meta_passed` and the independent
 * LiveCodeBench-public results, HumanEval-X canonical solutions, and codescope Codeforces programs.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ExecLanguage, Program, TestCase } from '../../src/core/execution.js';
import { parseCandidate } from '../../src/dataset/candidates.js';
import { parsePythonLiteral } from '../../src/dataset/python-literal.js';

/** The v202602 AtCoder-derived programs with both reference labels. */
export interface AtcoderData {
  programs: Program[];
  /** CoREB `meta_passed` by code id. */
  corebPassed: Map<string, boolean>;
  /** Independent harness (`xlang_release_v2602.json`): passed the LCB public tests, by code id. */
  xlangPassed: Map<string, boolean>;
  /** Independent harness status (`pass`, `wrong`, `compile_error`, `timeout`) by code id. */
  xlangStatus: Map<string, string>;
}

/** Loads every v202602 program whose problem is an AtCoder problem (listed in the xlang file). */
export function loadAtcoderData(codeCorpus: string, xlangFile: string): AtcoderData {
  const xlang = JSON.parse(readFileSync(xlangFile, 'utf8')) as Array<{ code_id: string; coreb_passed: boolean; lcb_public_status: string }>;
  const xlangPassed = new Map(xlang.map((x) => [x.code_id, x.lcb_public_status === 'pass']));
  const xlangStatus = new Map(xlang.map((x) => [x.code_id, x.lcb_public_status]));
  const programs: Program[] = [];
  const corebPassed = new Map<string, boolean>();
  for (const line of readFileSync(codeCorpus, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as Record<string, unknown>;
    const pid = String(row.meta_source_problem_id);
    if (!/^lcb_(abc|arc|agc)\d+_/.test(pid)) continue;
    const p = parseCandidate(row);
    programs.push(p);
    corebPassed.set(p.id, row.meta_passed === true);
  }
  return { programs, corebPassed, xlangPassed, xlangStatus };
}

/** A program with its own tests (HumanEval-X and codescope carry tests per program). */
export interface ProgramWithTests {
  program: Program;
  tests: TestCase[];
}

/** One HumanEval-X row: the fields the loaders read. */
interface HumanEvalRow {
  task_id: string;
  import?: string;
  prompt: string;
  declaration: string;
  canonical_solution: string;
  test: string;
  test_setup?: string;
}

function readHumanEvalX(file: string): HumanEvalRow[] {
  return gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as HumanEvalRow);
}

/**
 * HumanEval-X canonical solutions as `program` tests: prompt + canonical solution, with the test
 * program (Go: `test_setup` + `test`, a `go test` file importing testify's assert). With `broken`,
 * every `return` of the solution gives another value ({@link breakReturns}).
 */
export function loadHumanEvalX(file: string, language: ExecLanguage, broken = false): ProgramWithTests[] {
  return readHumanEvalX(file).map((r) => {
    const solution = broken ? breakReturns(language, r.declaration, r.canonical_solution) : r.canonical_solution;
    if (language === 'go') return humanEvalGo(r, solution);
    return {
      program: { id: r.task_id, problemId: r.task_id, language, code: r.prompt + solution },
      tests: [{ kind: 'program', input: r.test, outputs: [] }],
    };
  });
}

/**
 * HumanEval-X's packages its Go harness imports when the code uses them (CodeGeeX's
 * `IMPORT_HELPER["go"]`): the prompts' own import lists are incomplete (`math` used, not imported) or
 * too long (`strings` imported, not used), so the harness drops them and imports these as used.
 */
const HUMANEVAL_GO_PACKAGES = ['math', 'strings', 'fmt', 'strconv', 'time', 'bytes', 'regexp', 'sort', 'math/rand', 'crypto/md5'];

/**
 * A HumanEval-X Go row as its harness assembles it: the program is the prompt without its `import`
 * field plus the solution; the test program is `test_setup` with the packages the code uses, then `test`.
 */
function humanEvalGo(r: HumanEvalRow, solution: string): ProgramWithTests {
  const code = (r.import ? r.prompt.replace(r.import, '') : r.prompt) + solution;
  const setup = r.test_setup ?? '';
  const used = HUMANEVAL_GO_PACKAGES.filter((p) => !setup.includes(`"${p}"`) && new RegExp(`\\b${p.split('/').pop()}\\.`).test(solution));
  const imports = used.length > 0 ? `import (\n${used.map((p) => `    "${p}"`).join('\n')}\n)\n` : '';
  return {
    program: { id: r.task_id, problemId: r.task_id, language: 'go', code },
    tests: [{ kind: 'program', input: `${setup}\n${imports}\n${r.test}`, outputs: [] }],
  };
}

/**
 * A canonical solution whose every `return VALUE` returns another value of the declared type:
 * booleans negated, numbers plus one, strings with a character more, anything else the type's empty
 * value (C++ `{}`, Java and Go `null`/`nil`; Python: by the value's type at run time).
 */
export function breakReturns(language: ExecLanguage, declaration: string, solution: string): string {
  if (language === 'python') {
    const helper =
      '\ndef _coreb_broken(v):\n    if isinstance(v, bool): return not v\n    if isinstance(v, (int, float)): return v + 1\n' +
      "    if isinstance(v, str): return v + 'x'\n    if isinstance(v, (list, tuple)): return type(v)(list(v) + [None])\n    return None\n";
    return (
      solution.replace(/\breturn\b([^\n]*)/g, (_m, v: string) => (v.trim() === '' ? 'return None' : `return _coreb_broken(${v.trim()})`)) + helper
    );
  }
  const decl = declaration.trim().split('\n').pop() ?? '';
  const type =
    language === 'go'
      ? (/\)\s*([^{]*?)\s*\{\s*$/.exec(decl)?.[1] ?? '')
      : (/(?:^|\s)([\w:<>,\s]+?)\s+\w+\s*\(/.exec(decl.replace(/\b(?:public|private|static|final|inline)\b/g, ''))?.[1] ?? '').trim();
  const t = type.replace(/\s+/g, '');
  const change = (v: string): string => {
    if (/^(bool|boolean)$/.test(t)) return `!(${v})`;
    if (/^(int|long|longlong|float|double|int64|float64|float32|int32|uint|size_t)$/i.test(t)) return `(${v}) + 1`;
    if (/^(string|String)$/.test(t)) return `(${v}) + "x"`;
    return language === 'cpp' ? '{}' : language === 'go' ? 'nil' : 'null';
  };
  return solution.replace(/\breturn\s+([^;\n]+?)\s*;?(\s*)$/gm, (m, v: string, ws: string) =>
    language === 'go' ? `return ${change(v)}${ws}` : /;\s*$/.test(m) ? `return ${change(v)};${ws}` : m,
  );
}

/** codescope Codeforces programs (both baselines of every Python 3 / GNU C++ row) with their stdin tests. */
export function loadCodescope(file: string): ProgramWithTests[] {
  const out: ProgramWithTests[] = [];
  const langs: Readonly<Record<string, ExecLanguage>> = { 'Python 3': 'python', 'GNU C++': 'cpp' };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as Record<string, unknown>;
    const language = langs[String(r.lang)];
    if (language === undefined) continue;
    const cases = parsePythonLiteral(String(r.testcases)) as Array<{ input: string; output: string[] | string }>;
    const tests: TestCase[] = cases.map((c) => ({ kind: 'stdin', input: c.input, outputs: Array.isArray(c.output) ? c.output : [c.output] }));
    for (const which of ['time_baseline_source_code', 'memory_baseline_source_code']) {
      const code = r[which];
      if (typeof code !== 'string' || code.trim() === '') continue;
      out.push({ program: { id: `${String(r.src_uid)}:${language}:${which.split('_')[0]}`, problemId: String(r.src_uid), language, code }, tests });
    }
  }
  return out;
}
