/**
 * The contamination study's summary (paper §3 step 2, §A.7, Table 13): per model and per language,
 * Pass@1 on the original problems and on their counterfactual rewrites, the difference, the paired
 * 2×2 table and McNemar's exact p-value, computed from judged outcomes; and the reader of a
 * written `contamination.json` for `coreb report`.
 */
import { renderTable } from '../core/table.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { mcnemarExactP, passAtK } from './significance.js';

/** One judged program of the study. */
export interface ContaminationOutcome {
  /** Solver label (the build's corpus `model` name). */
  model: string;
  /** Problem id (LiveCodeBench `question_id`). */
  problem: string;
  language: string;
  arm: 'original' | 'rewritten';
  /** Sample index, 0-based (< samples). */
  sample: number;
  /** Passed every test of the problem it was written for; a reply without a program counts as failed. */
  passed: boolean;
}

/** The fields of one cell (a model, or a model and language). */
export interface ContaminationCell {
  original: { passAt1: number };
  rewritten: { passAt1: number };
  /** rewritten.passAt1 − original.passAt1 (the paper's Δ = Ann − Orig; negative when rewriting hurts). */
  delta: number;
  /** Pairs (problem, language, sample i original ↔ sample i rewritten) by outcome. */
  table: { bothPass: number; originalOnly: number; rewrittenOnly: number; neither: number };
  /** McNemar's exact two-sided p on originalOnly vs rewrittenOnly. */
  mcnemarP: number;
}

/** `contamination.json`. */
export interface ContaminationSummary {
  models: Record<string, ContaminationCell & { languages: Record<string, ContaminationCell> }>;
}

function cell(outcomes: readonly ContaminationOutcome[], samples: number): ContaminationCell {
  // pass@1 per (problem, language, arm) from its samples, averaged over (problem, language).
  const passes = new Map<string, number>();
  const units = new Set<string>();
  const pairs = new Map<string, { o?: boolean; r?: boolean }>();
  for (const x of outcomes) {
    const unit = `${x.problem}\u0000${x.language}`;
    units.add(unit);
    const k = `${unit}\u0000${x.arm}`;
    passes.set(k, (passes.get(k) ?? 0) + (x.passed ? 1 : 0));
    const pk = `${unit}\u0000${x.sample}`;
    const pair = pairs.get(pk) ?? {};
    if (x.arm === 'original') pair.o = x.passed;
    else pair.r = x.passed;
    pairs.set(pk, pair);
  }
  const mean = (arm: string): number => {
    if (units.size === 0) return 0;
    let s = 0;
    for (const u of units) s += passAtK(samples, passes.get(`${u}\u0000${arm}`) ?? 0, 1);
    return s / units.size;
  };
  const table = { bothPass: 0, originalOnly: 0, rewrittenOnly: 0, neither: 0 };
  for (const { o = false, r = false } of pairs.values()) {
    if (o && r) table.bothPass++;
    else if (o) table.originalOnly++;
    else if (r) table.rewrittenOnly++;
    else table.neither++;
  }
  const original = mean('original');
  const rewritten = mean('rewritten');
  return {
    original: { passAt1: original },
    rewritten: { passAt1: rewritten },
    delta: rewritten - original,
    table,
    mcnemarP: mcnemarExactP(table.originalOnly, table.rewrittenOnly),
  };
}

/**
 * Summarises judged outcomes. Every (model, problem, language, arm) is expected to have `samples`
 * outcomes (a missing one counts as failed); models and languages are listed in code-point order.
 * @param samples samples per problem, language and arm (the n of the pass@k estimator); default 1
 */
export function summarizeContamination(outcomes: readonly ContaminationOutcome[], samples = 1): ContaminationSummary {
  const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const models: ContaminationSummary['models'] = {};
  for (const m of sorted(outcomes.map((x) => x.model))) {
    const mine = outcomes.filter((x) => x.model === m);
    const languages: Record<string, ContaminationCell> = {};
    for (const l of sorted(mine.map((x) => x.language)))
      languages[l] = cell(
        mine.filter((x) => x.language === l),
        samples,
      );
    models[m] = { ...cell(mine, samples), languages };
  }
  return { models };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const pv = (p: number): string => (p >= 0.001 ? p.toFixed(3) : p.toExponential(1));

/** The summary as a plain-text table (one row per model, then one per model and language). */
export function renderContaminationTable(s: ContaminationSummary): string {
  const head = CONTAMINATION_HEADER;
  const rows = contaminationRows(s);
  return renderTable({ header: head, rows, align: 2 });
}

/** The file name `coreb contamination` writes. */
export const CONTAMINATION_FILE = 'contamination.json';

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Checks a parsed `contamination.json`: `models` maps each model to a cell (`original.passAt1`,
 * `rewritten.passAt1`, `delta`, `table` with the four counts, `mcnemarP`) with `languages` of cells.
 * @throws CorebError `VALIDATION` naming `file` and the first wrong field.
 */
export function parseContaminationSummary(value: unknown, file: string): ContaminationSummary {
  const fail = (field: string, what: string): never => {
    throw new CorebError('VALIDATION', `${what}; expected a \`coreb contamination\` summary`, { file, field });
  };
  const num = (x: unknown, field: string): void => {
    if (typeof x !== 'number' || !Number.isFinite(x)) fail(field, `expected a number, got ${JSON.stringify(x)}`);
  };
  const checkCell = (c: unknown, at: string): void => {
    if (!isRecord(c)) fail(at, 'not an object');
    const cc = c as Record<string, unknown>;
    num((cc.original as Record<string, unknown> | undefined)?.passAt1, `${at}.original.passAt1`);
    num((cc.rewritten as Record<string, unknown> | undefined)?.passAt1, `${at}.rewritten.passAt1`);
    num(cc.delta, `${at}.delta`);
    num(cc.mcnemarP, `${at}.mcnemarP`);
    if (!isRecord(cc.table)) fail(`${at}.table`, 'missing or not an object');
    for (const k of ['bothPass', 'originalOnly', 'rewrittenOnly', 'neither']) num((cc.table as Record<string, unknown>)[k], `${at}.table.${k}`);
  };
  if (!isRecord(value) || !isRecord(value.models)) return fail('models', 'missing or not an object');
  for (const [m, c] of Object.entries(value.models)) {
    checkCell(c, `models.${m}`);
    const langs = (c as Record<string, unknown>).languages;
    if (!isRecord(langs)) fail(`models.${m}.languages`, 'missing or not an object');
    for (const [l, lc] of Object.entries(langs as Record<string, unknown>)) checkCell(lc, `models.${m}.languages.${l}`);
  }
  return value as unknown as ContaminationSummary;
}

/**
 * Reads the `contamination.json` of `dir` (a build or results folder) when there is one.
 * @returns undefined when the folder has none
 * @throws CorebError `PARSE` / `VALIDATION` naming the file for a file that is not a summary.
 */
export async function readContaminationIn(dir: string): Promise<{ file: string; summary: ContaminationSummary } | undefined> {
  const file = join(dir, CONTAMINATION_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CorebError('IO', `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file, cause: e });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new CorebError('PARSE', `not valid JSON: ${(e as Error).message}`, { file, cause: e });
  }
  return { file, summary: parseContaminationSummary(value, file) };
}

/** Rows of the summary for a table: model (blank after its first row), language, then the figures as text. */
export function contaminationRows(s: ContaminationSummary): string[][] {
  const rows: string[][] = [];
  const row = (m: string, l: string, c: ContaminationCell): string[] => [
    m,
    l,
    pct(c.original.passAt1),
    pct(c.rewritten.passAt1),
    signed(c.delta),
    String(c.table.bothPass),
    String(c.table.originalOnly),
    String(c.table.rewrittenOnly),
    String(c.table.neither),
    pv(c.mcnemarP),
  ];
  for (const [m, c] of Object.entries(s.models)) {
    rows.push(row(m, 'all', c));
    for (const [l, lc] of Object.entries(c.languages)) rows.push(row('', l, lc));
  }
  return rows;
}

/** The column headers of {@link contaminationRows}. */
export const CONTAMINATION_HEADER = [
  'model',
  'language',
  'orig Pass@1',
  'rewr Pass@1',
  'Δ pts',
  'both',
  'orig only',
  'rewr only',
  'neither',
  'McNemar p',
];
