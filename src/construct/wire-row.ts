/**
 * Wire rows of the CoREB tables (snake_case keys, flattened `meta_*` columns) and their rendering as
 * JSONL lines byte-compatible with the official release (Python `json.dumps` spacing, pandas floats).
 */

/** A wire row: snake_case keys, flattened `meta_*` columns, JSON values. */
export type WireRow = Record<string, string | number | boolean | null | string[]>;

/**
 * Columns the official tables store as floating point (pandas wrote them): integers in them are
 * rendered `1.0`, so readers that keep JSON number types see the same types as in release v202602.
 */
export const FLOAT_COLUMNS: ReadonlySet<string> = new Set([
  'meta_pass_rate',
  'abbreviated_text_length',
  'meta_noise_variation',
  'meta_num_relevant_docs',
  'label',
]);

/**
 * Renders one wire row as a JSONL line in the official tables' style (Python `json.dumps` spacing:
 * `", "` between items and `": "` after keys, non-ASCII kept as is, {@link FLOAT_COLUMNS} as floats).
 * No trailing newline.
 */
export function renderWireRow(row: WireRow): string {
  const value = (k: string, v: WireRow[string]): string => {
    if (Array.isArray(v)) return `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
    if (typeof v === 'number' && Number.isInteger(v) && FLOAT_COLUMNS.has(k)) return `${v}.0`;
    return JSON.stringify(v);
  };
  return `{${Object.entries(row)
    .map(([k, v]) => `${JSON.stringify(k)}: ${value(k, v)}`)
    .join(', ')}}`;
}
