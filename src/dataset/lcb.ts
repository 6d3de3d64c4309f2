/**
 * LiveCodeBench problem JSONL: `public_test_cases` is a JSON string; `private_test_cases` is either a
 * JSON string or LiveCodeBench's base64 -> zlib -> pickle -> JSON encoding, decoded here without
 * Python. Problems become {@link LcbProblem} records whose tests the judge runs.
 */
import { inflateSync } from 'node:zlib';
import { CorebError } from '../core/errors.js';
import type { TestCase } from '../core/execution.js';
import { loadJsonlRecords } from './jsonl.js';
import { parsePickle } from './pickle.js';

/** One LiveCodeBench problem with its tests. */
export interface LcbProblem {
  /** LiveCodeBench `question_id`, e.g. `abc387_a` (CoREB calls it `lcb_abc387_a`). */
  questionId: string;
  title: string;
  content: string;
  /** `atcoder`, `leetcode` or `codeforces`. */
  platform: string;
  contestId?: string;
  /** `contest_date` as given (ISO date-time, e.g. `2024-10-05T00:00:00`). */
  contestDate?: string;
  difficulty?: string;
  starterCode?: string;
  /** Method name of functional (LeetCode-style) tests (`metadata.func_name`). */
  funcName?: string;
  publicTests: TestCase[];
  privateTests: TestCase[];
  /** Parsed `metadata`. */
  metadata: Record<string, unknown>;
}

/** Test selections a caller can judge against. */
export const LCB_TEST_SETS = ['public', 'private', 'all'] as const;
/** A test selection. */
export type LcbTestSet = (typeof LCB_TEST_SETS)[number];

/** The tests of `problem` in `set` (default `all`: public then private). */
export function selectLcbTests(problem: LcbProblem, set: LcbTestSet = 'all'): TestCase[] {
  if (set === 'public') return problem.publicTests;
  if (set === 'private') return problem.privateTests;
  return [...problem.publicTests, ...problem.privateTests];
}

/** The LiveCodeBench question id for a CoREB problem id (`lcb_abc387_a` -> `abc387_a`). */
export function lcbQuestionId(problemId: string): string {
  return problemId.startsWith('lcb_') ? problemId.slice(4) : problemId;
}

/**
 * The test lookup a judge run needs (`testsOf` of sandbox's `runJudging`): a problem id matches a
 * LiveCodeBench `question_id` directly or after dropping CoREB's `lcb_` prefix; the tests are those of
 * `set` (default `all`: public then private). Unknown ids give `undefined`.
 */
export function createLcbTestLookup(
  problems: ReadonlyMap<string, LcbProblem>,
  set: LcbTestSet = 'all',
): (problemId: string) => TestCase[] | undefined {
  return (problemId) => {
    const problem = problems.get(problemId) ?? problems.get(lcbQuestionId(problemId));
    return problem === undefined ? undefined : selectLcbTests(problem, set);
  };
}

/** Decodes LiveCodeBench's compressed test encoding: base64 -> zlib -> pickle (a JSON string) -> JSON. */
export function decodeLcbCompressedTests(encoded: string): unknown {
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.from(encoded, 'base64'));
  } catch (e) {
    throw new CorebError('PARSE', `compressed tests: not base64-encoded zlib data (${(e as Error).message})`, { cause: e });
  }
  const value = parsePickle(raw);
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch (e) {
    throw new CorebError('PARSE', `compressed tests: the pickled string is not JSON (${(e as Error).message})`, { cause: e });
  }
}

/**
 * Parses a `public_test_cases` / `private_test_cases` value (a JSON string, the compressed encoding,
 * or an already-decoded array) into test cases. `output` may be a string or a list of acceptable outputs.
 */
export function parseLcbTestCases(value: unknown, funcName?: string): TestCase[] {
  let list: unknown = value;
  if (typeof value === 'string') {
    const s = value.trim();
    if (s === '') return [];
    if (s.startsWith('[') || s.startsWith('{')) {
      try {
        list = JSON.parse(s);
      } catch (e) {
        throw new CorebError('PARSE', `test cases: malformed JSON (${(e as Error).message})`, { cause: e });
      }
    } else list = decodeLcbCompressedTests(s);
  }
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) throw new CorebError('PARSE', `test cases: expected a list of {input, output, testtype}, got ${typeof list}`);
  return list.map((t, i) => {
    if (t === null || typeof t !== 'object') throw new CorebError('PARSE', `test case ${i}: expected an object, got ${typeof t}`);
    const r = t as Record<string, unknown>;
    const kind = r.testtype === 'functional' ? 'functional' : r.testtype === 'program' ? 'program' : 'stdin';
    // Text, or a number written without quotes; an object would become `[object Object]`.
    const text = (v: unknown, field: string): string => {
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      throw new CorebError(
        'PARSE',
        `test case ${i}: \`${field}\` must be a string, got ${Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : typeof v} (${JSON.stringify(v).slice(0, 60)})`,
      );
    };
    const out = r.output;
    const outputs = Array.isArray(out) ? out.map((o, k) => text(o, `output[${k}]`)) : out === undefined || out === null ? [] : [text(out, 'output')];
    const tc: TestCase = { kind, input: r.input === undefined || r.input === null ? '' : text(r.input, 'input'), outputs };
    if (kind === 'functional' && funcName !== undefined) tc.funcName = funcName;
    return tc;
  });
}

function parseMetadata(v: unknown): Record<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string' && v.trim() !== '') {
    try {
      const m = JSON.parse(v) as unknown;
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) return m as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return {};
}

/** Turns one raw LiveCodeBench JSONL record into a problem; errors carry `file` and `line`. */
export function parseLcbProblem(raw: Record<string, unknown>, file?: string, line?: number): LcbProblem {
  const id = raw.question_id;
  if (typeof id !== 'string' || id === '') {
    throw new CorebError('VALIDATION', 'field `question_id` missing; every LiveCodeBench problem needs a string question_id', {
      file,
      line,
    });
  }
  const metadata = parseMetadata(raw.metadata);
  const funcName = typeof metadata.func_name === 'string' ? metadata.func_name : undefined;
  const tests = (field: string): TestCase[] => {
    try {
      return parseLcbTestCases(raw[field], funcName);
    } catch (e) {
      throw new CorebError('PARSE', `problem ${id}: ${(e as Error).message}`, { file, line, field, cause: e });
    }
  };
  const p: LcbProblem = {
    questionId: id,
    title: String(raw.question_title ?? ''),
    content: String(raw.question_content ?? ''),
    platform: String(raw.platform ?? ''),
    publicTests: tests('public_test_cases'),
    privateTests: tests('private_test_cases'),
    metadata,
  };
  if (typeof raw.contest_id === 'string') p.contestId = raw.contest_id;
  if (typeof raw.contest_date === 'string' && raw.contest_date !== '') p.contestDate = raw.contest_date;
  if (typeof raw.difficulty === 'string') p.difficulty = raw.difficulty;
  if (typeof raw.starter_code === 'string') p.starterCode = raw.starter_code;
  if (funcName !== undefined) p.funcName = funcName;
  return p;
}

/**
 * Loads LiveCodeBench problems (JSONL, plain or .gz) keyed by `question_id`.
 * @throws CorebError `PARSE` / `VALIDATION` at the first bad record (with file and line), `NOT_FOUND`.
 */
export async function loadLcbProblems(file: string): Promise<Map<string, LcbProblem>> {
  const out = new Map<string, LcbProblem>();
  for (const r of await loadJsonlRecords(file)) {
    const p = parseLcbProblem(r.value, file, r.line);
    if (out.has(p.questionId)) {
      throw new CorebError('VALIDATION', `duplicate question_id \`${p.questionId}\``, { file, line: r.line, field: 'question_id' });
    }
    out.set(p.questionId, p);
  }
  return out;
}
