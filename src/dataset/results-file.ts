/**
 * Reads `coreb eval` results files for the report, compare and export commands, checking the
 * fields they rely on so a wrong file fails with its name and the field, not deep inside a chart.
 */
import { readFile } from 'node:fs/promises';
import { CorebError } from '../core/errors.js';
import type { EvalResults } from '../core/eval-results.js';

/** Schema ids this reader accepts: every `coreb.eval-results/<version>`. */
export const RESULTS_SCHEMA_PREFIX = 'coreb.eval-results/';

/** A results file as read, with the path it came from. */
export interface LoadedResults {
  /** The path as given. */
  file: string;
  results: EvalResults;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Checks a parsed value is a results file: `schema` starting with {@link RESULTS_SCHEMA_PREFIX},
 * `dataset`, `protocol`, and `retrievers[]` each with a `name`, `overall.metrics` and `tasks`.
 * @throws CorebError `VALIDATION` naming `file` and the first wrong field.
 */
export function parseEvalResults(value: unknown, file: string): EvalResults {
  const fail = (field: string, what: string): never => {
    throw new CorebError('VALIDATION', `${what}; expected a \`coreb eval\` results file (schema ${RESULTS_SCHEMA_PREFIX}N)`, { file, field });
  };
  if (!isRecord(value)) fail('(root)', 'not a JSON object');
  const v = value as Record<string, unknown>;
  if (typeof v.schema !== 'string' || !v.schema.startsWith(RESULTS_SCHEMA_PREFIX)) fail('schema', `got ${JSON.stringify(v.schema)}`);
  if (!isRecord(v.dataset)) fail('dataset', 'missing or not an object');
  if (!isRecord(v.protocol) || typeof v.protocol.name !== 'string') fail('protocol.name', 'missing');
  if (!Array.isArray(v.retrievers) || v.retrievers.length === 0) fail('retrievers', 'missing or empty');
  (v.retrievers as unknown[]).forEach((r, i) => {
    if (!isRecord(r) || typeof r.name !== 'string') fail(`retrievers[${i}].name`, 'missing');
    const rr = r as Record<string, unknown>;
    if (!isRecord(rr.overall) || !isRecord(rr.overall.metrics)) fail(`retrievers[${i}].overall.metrics`, 'missing');
    if (!isRecord(rr.tasks)) fail(`retrievers[${i}].tasks`, 'missing');
    if (rr.perQuery !== undefined && !isRecord(rr.perQuery)) fail(`retrievers[${i}].perQuery`, 'not an object');
  });
  return value as EvalResults;
}

/**
 * Loads and checks one results file.
 * @throws CorebError `NOT_FOUND`/`IO` when unreadable, `PARSE` for bad JSON, `VALIDATION` per {@link parseEvalResults}.
 */
export async function loadEvalResults(file: string): Promise<LoadedResults> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'NOT_FOUND' : 'IO';
    throw new CorebError(code, `cannot read results file: ${(e as Error).message}`, { file, cause: e });
  }
  let value: unknown;
  try {
    // A UTF-8 byte-order mark (Windows editors and PowerShell write one) is not part of the JSON.
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new CorebError('PARSE', `not valid JSON (${(e as Error).message}); pass the results.json that \`coreb eval --out DIR\` wrote`, {
      file,
      cause: e,
    });
  }
  return { file, results: parseEvalResults(value, file) };
}
