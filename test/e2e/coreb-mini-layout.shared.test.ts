/**
 * Checks that the bundled coreb-mini release uses the official table layout: the same files, the
 * same columns in the same order and the same JSON value types as CoREB release_v2602.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, sharedPath } from '../support/shared.js';

const TABLES = [
  'code_corpus',
  'text_corpus',
  'text2code_queries',
  'text2code_qrels',
  'code2code_queries',
  'code2code_qrels',
  'code2text_queries',
  'code2text_qrels',
] as const;

const lines = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

/** JSON type of a raw value, telling integers from floats by their text (`1` vs `1.0`). */
function typesByColumn(file: string): { columns: string[]; types: Map<string, Set<string>> } {
  const rows = lines(file);
  const types = new Map<string, Set<string>>();
  let columns: string[] = [];
  for (const [i, line] of rows.entries()) {
    const row = JSON.parse(line) as Record<string, unknown>;
    if (i === 0) columns = Object.keys(row);
    for (const [k, v] of Object.entries(row)) {
      let t: string = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
      if (typeof v === 'number') {
        const raw = new RegExp(`"${k}": (-?[0-9.eE+-]+)`).exec(line)?.[1] ?? '';
        t = /[.eE]/.test(raw) ? 'float' : 'int';
      }
      if (!types.has(k)) types.set(k, new Set());
      types.get(k)?.add(t);
    }
  }
  return { columns, types };
}

for (const table of TABLES) {
  test(`coreb-mini ${table} has the columns and value types of release_v2602`, () => {
    const real = typesByColumn(sharedPath('data', 'coreb', 'release_v2602', `${table}.jsonl`));
    const mini = typesByColumn(join(projectRoot, 'data', 'coreb-mini', 'release', `${table}.jsonl`));
    assert.deepEqual(mini.columns, real.columns);
    for (const col of real.columns) {
      const want = real.types.get(col) ?? new Set();
      const got = mini.types.get(col) ?? new Set();
      for (const t of got) assert.ok(want.has(t), `${table}.${col}: type ${t} not in the official ${[...want].join('|')}`);
    }
  });
}
