/**
 * The one table renderer: aligned text for terminals, GitHub markdown, LaTeX booktabs. Every table
 * coreb prints (leaderboards, per-task and per-subtask tables, compare, drift, audit, judge
 * summaries, release statistics, store listings) goes through {@link renderTable}, so they all look
 * alike: title, header, a rule, rows, then a blank line and the notes. Cells are given ready (marks
 * included); LaTeX cells are escaped by the caller (they may hold commands). Pure.
 */

/** Output flavours of {@link renderTable}. */
export type TableFormat = 'table' | 'markdown' | 'latex';

/** How a column's cells line up. */
export type ColumnAlign = 'left' | 'right';

/** A table to render. */
export interface TextTable {
  /** Title line (markdown: a `###` heading; LaTeX: a comment); none when omitted. */
  title?: string;
  header: readonly string[];
  rows: ReadonlyArray<readonly string[]>;
  /**
   * Alignment of each column: a list, or the index from which columns are numbers and right-aligned.
   * Default: the first column left, the others right.
   */
  align?: readonly ColumnAlign[] | number;
  /** Sentences under the table (markdown: italic; LaTeX: comments). */
  notes?: readonly string[];
  /** Text only: a prefix of every line (e.g. two spaces under a heading). Default none. */
  indent?: string;
}

/** The alignment of column `i` of `table`. */
function alignOf(table: TextTable, i: number): ColumnAlign {
  const a = table.align ?? 1;
  if (typeof a === 'number') return i >= a ? 'right' : 'left';
  return a[i] ?? 'left';
}

/** Escapes LaTeX's special characters in plain text. */
export function latexEscape(s: string): string {
  return s.replace(/[\\{}$&#^_%~]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\^{}' : `\\${c}`));
}

/**
 * The lines of `table` as aligned text: header and rows padded to each column's widest cell, two
 * spaces between columns, a rule of dashes under the header, no trailing spaces.
 */
export function tableLines(table: TextTable): string[] {
  const { header, rows } = table;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const indent = table.indent ?? '';
  const line = (cells: readonly string[]): string =>
    indent +
    widths
      .map((w, i) => {
        const c = cells[i] ?? '';
        return alignOf(table, i) === 'right' ? c.padStart(w) : c.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(header), indent + widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/**
 * A two-column list of names and what they are (a help text's commands, providers, rerankers):
 * each line `indent`, the name padded to the longest, two spaces, the text.
 * @param indent default two spaces.
 */
export function nameList(entries: ReadonlyArray<readonly [string, string]>, indent = '  '): string[] {
  const width = Math.max(0, ...entries.map(([name]) => name.length));
  return entries.map(([name, text]) => `${indent}${name.padEnd(width)}  ${text}`.trimEnd());
}

/** Renders `table` as text in `format` (title, table, notes; a trailing newline). Default format `table`. */
export function renderTable(table: TextTable, format: TableFormat = 'table'): string {
  const notes = table.notes ?? [];
  const title = table.title;
  if (format === 'latex') {
    return [
      ...(title === undefined ? [] : [`% ${title}`]),
      `\\begin{tabular}{${table.header.map((_, i) => (alignOf(table, i) === 'right' ? 'r' : 'l')).join('')}}`,
      '\\toprule',
      `${table.header.map(latexEscape).join(' & ')} \\\\`,
      '\\midrule',
      ...table.rows.map((r) => `${r.join(' & ')} \\\\`),
      '\\bottomrule',
      '\\end{tabular}',
      ...notes.map((n) => `% ${n}`),
      '',
    ].join('\n');
  }
  if (format === 'markdown') {
    const esc = (c: string): string => c.replace(/\|/g, '\\|');
    return [
      ...(title === undefined ? [] : [`### ${title}`, '']),
      `| ${table.header.map(esc).join(' | ')} |`,
      `|${table.header.map((_, i) => (alignOf(table, i) === 'right' ? '---:' : '---')).join('|')}|`,
      ...table.rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
      ...(notes.length > 0 ? ['', ...notes.map((n) => `_${n}_`)] : []),
      '',
    ].join('\n');
  }
  return [...(title === undefined ? [] : [title]), ...tableLines(table), ...(notes.length > 0 ? ['', ...notes] : []), ''].join('\n');
}
