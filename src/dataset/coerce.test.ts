import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ValidationIssue } from '../core/issues.js';
import { camelCase, coerceRow, coerceValue, INVALID, parseStringListLiteral, RowChecker, type FieldSpec } from './coerce.js';

function run(v: unknown, spec: FieldSpec): { value: unknown; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const value = coerceValue(v, spec, spec.wire, new RowChecker(issues, { file: 'f', line: 7 }));
  return { value, issues };
}

test('camelCase converts wire names once', () => {
  assert.equal(camelCase('meta_anchor_code_id'), 'metaAnchorCodeId');
  assert.equal(camelCase('query-id'), 'queryId');
  assert.equal(camelCase('_id'), 'id');
});

test('stringified Python lists are parsed; other strings are not lists', () => {
  assert.deepEqual(parseStringListLiteral("['python', 'go']"), ['python', 'go']);
  assert.deepEqual(parseStringListLiteral("[\"a\", 'b\\'c']"), ['a', "b'c"]);
  assert.deepEqual(parseStringListLiteral('[]'), []);
  assert.equal(parseStringListLiteral('python'), null);
  assert.equal(parseStringListLiteral('[python]'), null);
});

test('integers: numeric strings and bigints convert, fractions and NaN fail, NaN means null when optional', () => {
  const int: FieldSpec = { wire: 'n', type: 'int', required: true };
  assert.equal(run(3, int).value, 3);
  assert.equal(run(3n, int).value, 3);
  const s = run('4', int);
  assert.equal(s.value, 4);
  assert.deepEqual(
    s.issues.map((i) => [i.kind, i.severity, i.line, i.field]),
    [['coerced-type', 'warning', 7, 'n']],
  );
  assert.equal(run(2.5, int).value, INVALID);
  assert.equal(run(2.5, int).issues[0].kind, 'not-integer');
  assert.equal(run(NaN, int).issues[0].kind, 'non-finite-number');
  const opt = run(NaN, { wire: 'n', type: 'int' });
  assert.equal(opt.value, undefined);
  assert.equal(opt.issues[0].kind, 'nan-as-null');
});

test('"None" is null for optional fields and an error for required ones', () => {
  assert.equal(run('None', { wire: 'x', type: 'number' }).value, undefined);
  assert.equal(run('None', { wire: 'x', type: 'number' }).issues[0].kind, 'stringified-null');
  assert.equal(run('None', { wire: 'x', type: 'string' }).value, undefined);
  assert.equal(run('None', { wire: 'x', type: 'string', required: true }).value, 'None');
  assert.equal(run('None', { wire: 'x', type: 'int', required: true }).issues[0].kind, 'missing-field');
});

test('parquet timestamps in string fields become ISO strings', () => {
  assert.equal(run(new Date(Date.UTC(2026, 0, 18, 12, 16, 39)), { wire: 'created_at', type: 'string' }).value, '2026-01-18T12:16:39.000Z');
});

test('booleans accept 0/1 and True/False with a warning; lists must hold strings', () => {
  const b: FieldSpec = { wire: 'b', type: 'bool' };
  assert.equal(run('True', b).value, true);
  assert.equal(run(0, b).value, false);
  assert.equal(run('maybe', b).issues[0].kind, 'wrong-type');
  const l: FieldSpec = { wire: 'l', type: 'strings' };
  assert.deepEqual(run(['a'], l).value, ['a']);
  assert.equal(run(['a', 1], l).issues[0].kind, 'wrong-type');
  assert.equal(run(5, l).issues[0].kind, 'wrong-type');
});

test('coerceRow merges nested and flattened meta, keeps unknown columns, drops rows missing required fields', () => {
  const schema = {
    fields: [
      { wire: 'id', type: 'string', required: true },
      { wire: 'n', type: 'int' },
    ],
    meta: [
      { wire: 'source_problem_id', type: 'string' },
      { wire: 'langs', type: 'strings' },
    ],
  } as const;
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const c = new RowChecker(issues, { file: 'f', row: 0 });
  const r = coerceRow({ id: 'a', n: null, meta: { source_problem_id: 'p', other_thing: 1 }, meta_langs: ['go'], odd_col: 'x' }, schema, c, seen);
  assert.equal(r.ok, true);
  assert.deepEqual(r.record, { id: 'a', n: null, meta: { sourceProblemId: 'p', langs: ['go'], otherThing: 1 }, extra: { oddCol: 'x' } });
  assert.deepEqual(
    issues.map((i) => [i.kind, i.field]),
    [
      ['unknown-field', 'meta.other_thing'],
      ['unknown-field', 'odd_col'],
    ],
  );
  assert.ok(issues.every((i) => i.severity === 'warning'));
  coerceRow({ id: 'b', odd_col: 'y', meta: { other_thing: 2 } }, schema, c, seen);
  assert.equal(issues.length, 2, 'an unknown column or meta field is reported once per file');
  assert.equal(coerceRow({ n: 1 }, schema, c, seen).ok, false);
});

test('parseStringListLiteral reads Python escapes as Python does and rejects non-string items', () => {
  assert.deepEqual(parseStringListLiteral("['a\\nb', 'tab\\there', 'x\\\\y']"), ['a\nb', 'tab\there', 'x\\y']);
  assert.deepEqual(parseStringListLiteral("  ['a',]  "), ['a']);
  assert.equal(parseStringListLiteral('[1, 2]'), null);
  assert.equal(parseStringListLiteral("['a'] trailing"), null);
});
