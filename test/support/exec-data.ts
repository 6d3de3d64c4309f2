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

/** HumanEval-X canonical solutions as `program` tests: prompt + canonical solution, test program appended. */
export function loadHumanEvalX(file: string, language: ExecLanguage): ProgramWithTests[] {
  const rows = gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return rows.map((l) => {
    const r = JSON.parse(l) as { task_id: string; prompt: string; canonical_solution: string; test: string };
    return {
      program: { id: r.task_id, problemId: r.task_id, language, code: r.prompt + r.canonical_solution },
      tests: [{ kind: 'program', input: r.test, outputs: [] }],
    };
  });
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
