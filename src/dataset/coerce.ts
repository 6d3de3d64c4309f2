/**
 * Field-level checking and conversion of raw rows (JSONL objects or parquet rows) into typed
 * records: wire names become camelCase here, once. Known quirks of exported data (stringified
 * lists, "None", numeric strings, NaN-for-missing) are accepted with a warning; wrong types are errors.
 */
import type { SourceLocation } from '../core/errors.js';
import type { ValidationIssue } from '../core/issues.js';
import { parsePythonLiteral } from './python-literal.js';

/** Value types a field may declare. */
export const FIELD_TYPES = ['string', 'int', 'number', 'bool', 'strings'] as const;
/** A field's value type: `strings` is a list of strings. */
export type FieldType = (typeof FIELD_TYPES)[number];

/** One field of a table schema. */
export interface FieldSpec {
  /** Name on the wire (snake_case); for meta fields, without the `meta_` prefix. */
  wire: string;
  type: FieldType;
  /** A row without a valid value here is reported as an error and dropped; default false. */
  required?: boolean;
}

/** The schema of one table: top-level fields and the fields of its `meta` object. */
export interface TableSchema {
  fields: readonly FieldSpec[];
  meta: readonly FieldSpec[];
}

/** `snake_case` / `kebab-case` -> `camelCase` (`source_problem_id` -> `sourceProblemId`, `_id` -> `id`). */
export function camelCase(wire: string): string {
  return wire.replace(/^[_-]+/, '').replace(/[_-]+([a-zA-Z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** A schema's names worked out once (camelCased, flattened meta columns, the known sets). */
interface SchemaNames {
  fields: string[];
  meta: string[];
  flat: string[];
  known: Set<string>;
  metaKnown: Set<string>;
}
const SCHEMA_NAMES = new WeakMap<TableSchema, SchemaNames>();
function schemaNames(schema: TableSchema): SchemaNames {
  let n = SCHEMA_NAMES.get(schema);
  if (n === undefined) {
    n = {
      fields: schema.fields.map((f) => camelCase(f.wire)),
      meta: schema.meta.map((f) => camelCase(f.wire)),
      flat: schema.meta.map((f) => `meta_${f.wire}`),
      known: new Set(['meta', ...schema.fields.map((f) => f.wire), ...schema.meta.map((f) => `meta_${f.wire}`)]),
      metaKnown: new Set(schema.meta.map((f) => f.wire)),
    };
    SCHEMA_NAMES.set(schema, n);
  }
  return n;
}

const NULL_STRINGS = new Set(['None', 'none', 'null', 'NULL', 'nan', 'NaN', '']);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list ${truncate(JSON.stringify(v))}`;
  if (typeof v === 'string') return `the string ${truncate(JSON.stringify(v))}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

function truncate(s: string): string {
  return s.length > 50 ? s.slice(0, 47) + '...' : s;
}

const EXPECTED: Record<FieldType, string> = {
  string: 'a string',
  int: 'an integer',
  number: 'a finite number',
  bool: 'a boolean',
  strings: 'a list of strings',
};

/**
 * Parses a Python- or JSON-style list literal of strings (`['a', "b"]`) with
 * {@link parsePythonLiteral}; null when it is not one.
 */
export function parseStringListLiteral(s: string): string[] | null {
  const t = s.trim();
  if (!t.startsWith('[')) return null;
  let v: unknown;
  try {
    v = parsePythonLiteral(t);
  } catch {
    return null;
  }
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
}

/** Collects issues for one row at one location (`where`: file and line or row). */
export class RowChecker {
  constructor(
    readonly issues: ValidationIssue[],
    readonly where: SourceLocation,
  ) {}

  /** Records an error of `kind` on `field` at this row. */
  error(kind: string, field: string | undefined, message: string): void {
    this.issues.push({ severity: 'error', kind, ...this.where, field, message });
  }

  /** Records a warning of `kind` on `field` at this row. */
  warn(kind: string, field: string | undefined, message: string): void {
    this.issues.push({ severity: 'warning', kind, ...this.where, field, message });
  }
}

/** Marker: the value was invalid (already reported). */
export const INVALID: unique symbol = Symbol('invalid');

/**
 * Checks and converts one value. Returns the converted value, `undefined` for missing/null values
 * (reported when `spec.required`), or {@link INVALID} after reporting a wrong type.
 * @param field the wire name as the user sees it (e.g. `meta_anchor_code_id`).
 */
export function coerceValue(v: unknown, spec: FieldSpec, field: string, c: RowChecker): unknown {
  // A bad value of an optional field cannot make a score wrong: it is dropped with a warning (read as
  // missing; a check that needs the field, such as a c2c query's anchor, then reports its absence).
  const bad = (kind: string, message: string): typeof INVALID => {
    if (spec.required) c.error(kind, field, message);
    else c.warn(kind, field, `${message}; dropped (read as missing)`);
    return INVALID;
  };
  if (typeof v === 'bigint') v = Number(v);
  if (v === undefined || v === null) {
    if (spec.required) {
      c.error('missing-field', field, `${v === null ? 'is null' : 'is missing'}; every record needs ${EXPECTED[spec.type]} \`${field}\``);
      return INVALID;
    }
    return undefined;
  }
  if (typeof v === 'string' && spec.type !== 'string' && NULL_STRINGS.has(v.trim())) {
    if (spec.required) {
      c.error('missing-field', field, `is ${describe(v)}; expected ${EXPECTED[spec.type]}`);
      return INVALID;
    }
    c.warn('stringified-null', field, `${describe(v)} read as null; expected ${EXPECTED[spec.type]} or null`);
    return undefined;
  }
  switch (spec.type) {
    case 'string':
      if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString();
      if (typeof v === 'string') {
        if (!spec.required && v === 'None') {
          c.warn('stringified-null', field, 'the string "None" read as null; write null for a missing value');
          return undefined;
        }
        return v;
      }
      if (typeof v === 'number' && Number.isFinite(v)) {
        c.warn('coerced-type', field, `number ${v} read as the string "${v}"; expected a string`);
        return String(v);
      }
      break;
    case 'int':
    case 'number': {
      let n = v;
      if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) {
        n = Number(v);
        c.warn('coerced-type', field, `${describe(v)} read as the number ${n}; expected ${EXPECTED[spec.type]}`);
      }
      if (typeof n !== 'number') break;
      if (Number.isNaN(n) && !spec.required) {
        c.warn('nan-as-null', field, `NaN read as null (missing); expected ${EXPECTED[spec.type]} or null`);
        return undefined;
      }
      if (!Number.isFinite(n)) return bad('non-finite-number', `is ${n}; expected ${EXPECTED[spec.type]} (NaN and infinities are not allowed)`);
      if (spec.type === 'int' && !Number.isInteger(n)) return bad('not-integer', `is ${n}; expected an integer`);
      return n;
    }
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (v === 0 || v === 1 || v === 'True' || v === 'False' || v === 'true' || v === 'false') {
        const b = v === 1 || v === 'True' || v === 'true';
        c.warn('coerced-type', field, `${describe(v)} read as ${b}; expected a boolean`);
        return b;
      }
      break;
    case 'strings':
      if (Array.isArray(v) || ArrayBuffer.isView(v)) {
        const arr = Array.from(v as ArrayLike<unknown>);
        if (arr.every((x) => typeof x === 'string')) return arr;
        return bad('wrong-type', `has a non-string element (${describe(arr.find((x) => typeof x !== 'string'))}); expected a list of strings`);
      }
      if (typeof v === 'string') {
        const list = parseStringListLiteral(v);
        if (list !== null) {
          c.warn('stringified-list', field, `${describe(v)} read as a list; expected a JSON list of strings`);
          return list;
        }
      }
      break;
  }
  return bad('wrong-type', `is ${describe(v)}; expected ${EXPECTED[spec.type]}`);
}

/** A converted row: camelCased known fields, meta, extras; `ok` false when a required field failed. */
export interface CoercedRow {
  ok: boolean;
  record: Record<string, unknown>;
}

/**
 * Converts one raw row by `schema`. Meta fields are read from a nested `meta` object (or a JSON
 * string of one) and from flattened `meta_<name>` columns; a flattened column wins unless it is
 * null and the nested object has the field. Unknown columns are kept camelCased: `meta_*` in `meta`, the
 * rest in `extra`.
 * @param unknownSeen wire names already warned about as unknown (one warning per column per file).
 */
export function coerceRow(raw: Record<string, unknown>, schema: TableSchema, c: RowChecker, unknownSeen: Set<string>): CoercedRow {
  let ok = true;
  const record: Record<string, unknown> = {};
  const meta: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  const names = schemaNames(schema);
  const { known, metaKnown } = names;
  for (let i = 0; i < schema.fields.length; i++) {
    const spec = schema.fields[i];
    const v = coerceValue(raw[spec.wire], spec, spec.wire, c);
    if (v === INVALID) {
      if (spec.required) ok = false;
    } else if (v !== undefined) record[names.fields[i]] = v;
    else if (spec.wire in raw) record[names.fields[i]] = null;
  }
  let nested: Record<string, unknown> = {};
  const rawMeta = raw.meta;
  if (typeof rawMeta === 'string') {
    try {
      const parsed: unknown = JSON.parse(rawMeta);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        nested = parsed as Record<string, unknown>;
        c.warn('stringified-object', 'meta', 'a JSON string read as the meta object; expected an object');
      } else c.error('wrong-type', 'meta', `is ${describe(rawMeta)}; expected an object`);
    } catch {
      c.error('wrong-type', 'meta', `is ${describe(rawMeta)}; expected an object`);
    }
  } else if (rawMeta !== null && rawMeta !== undefined) {
    if (typeof rawMeta === 'object' && !Array.isArray(rawMeta)) nested = rawMeta as Record<string, unknown>;
    else c.error('wrong-type', 'meta', `is ${describe(rawMeta)}; expected an object`);
  }
  for (let i = 0; i < schema.meta.length; i++) {
    const spec = schema.meta[i];
    const flatName = names.flat[i];
    const hasFlat = flatName in raw;
    const hasNested = spec.wire in nested;
    const useFlat = hasFlat && (raw[flatName] !== null || !hasNested);
    const v = coerceValue(useFlat ? raw[flatName] : nested[spec.wire], spec, useFlat ? flatName : `meta.${spec.wire}`, c);
    if (v === INVALID) {
      if (spec.required) ok = false;
    } else if (v !== undefined) meta[names.meta[i]] = v;
    else if (hasFlat || hasNested) meta[names.meta[i]] = null;
  }
  for (const [k, v] of Object.entries(nested)) {
    if (metaKnown.has(k)) continue;
    if (!unknownSeen.has(`meta.${k}`)) {
      unknownSeen.add(`meta.${k}`);
      c.warn('unknown-field', `meta.${k}`, 'meta field not in the CoREB schema; kept as read');
    }
    meta[camelCase(k)] = typeof v === 'bigint' ? Number(v) : v;
  }
  for (const [k, v] of Object.entries(raw)) {
    if (known.has(k)) continue;
    if (!unknownSeen.has(k)) {
      unknownSeen.add(k);
      c.warn('unknown-field', k, `${k.startsWith('meta_') ? 'meta field' : 'column'} not in the CoREB schema; kept as read`);
    }
    const val = typeof v === 'bigint' ? Number(v) : v;
    if (k.startsWith('meta_')) meta[camelCase(k.slice(5))] = val;
    else extra[camelCase(k)] = val;
  }
  record.meta = meta;
  if (Object.keys(extra).length > 0) record.extra = extra;
  return { ok, record };
}
