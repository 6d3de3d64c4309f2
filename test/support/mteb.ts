/**
 * MTEB results-file helpers for the export tests: the fixture of MTEB's results shape (our own
 * values; keys and order as MTEB 2.x writes them) and the nested key paths of a document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './shared.js';

/** The fixture: an MTEB results file's shape. */
export function mtebResultsFixture(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(projectRoot, 'test', 'fixtures', 'mteb-results-shape.json'), 'utf8')) as Record<string, unknown>;
}

/** Reads a file MTEB-style JSON (Python's `NaN` literal read as null). */
export function readMtebJson<T = Record<string, unknown>>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8').replace(/\bNaN\b/g, 'null')) as T;
}

/** Nested key paths of a JSON value in order (arrays: their first element only). */
export function keyPaths(v: unknown, prefix = ''): string[] {
  if (Array.isArray(v)) return v.length > 0 && typeof v[0] === 'object' && v[0] !== null ? keyPaths(v[0], `${prefix}[0]`) : [];
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [`${prefix}.${k}`, ...keyPaths(x, `${prefix}.${k}`)]);
}
