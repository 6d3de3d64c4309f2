/**
 * One table in three renderings (aligned text, GitHub markdown, LaTeX booktabs), for the
 * leaderboards and the compare tables. Cells are given ready (marks included); LaTeX cells are
 * escaped by the caller (they may hold commands). Pure.
 */

/** Output flavours of {@link renderGrid}. */
export type GridFormat = 'table' | 'markdown' | 'latex';

/** A table to render. */
export interface Grid {
  title: string;
  header: string[];
  rows: string[][];
  /** Sentences under the table (LaTeX: comments). */
  notes?: string[];
  /** Columns from this index on are numbers: right-aligned. Default 1. */
  numericFrom?: number;
}

/** A score with 4 decimals (as trec_eval prints), `–` for a missing or non-finite value. */
export function formatScore(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(4);
}

/** The letter of the i-th row of a ranked table: a, b, ..., z, aa, ab, ... (what significance superscripts name). */
export function rowLetter(i: number): string {
  return i < 26 ? String.fromCharCode(97 + i) : rowLetter(Math.floor(i / 26) - 1) + String.fromCharCode(97 + (i % 26));
}

/** Escapes LaTeX's special characters in plain text. */
export function latexEscape(s: string): string {
  return s.replace(/[\\{}$&#^_%~]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\^{}' : `\\${c}`));
}

/** Renders `grid` as text (title, table, notes; trailing newline). */
export function renderGrid(grid: Grid, format: GridFormat): string {
  const from = grid.numericFrom ?? 1;
  const notes = grid.notes ?? [];
  if (format === 'latex') {
    return [
      `% ${grid.title}`,
      `\\begin{tabular}{${grid.header.map((_, i) => (i >= from ? 'r' : 'l')).join('')}}`,
      '\\toprule',
      `${grid.header.map(latexEscape).join(' & ')} \\\\`,
      '\\midrule',
      ...grid.rows.map((r) => `${r.join(' & ')} \\\\`),
      '\\bottomrule',
      '\\end{tabular}',
      ...notes.map((n) => `% ${n}`),
      '',
    ].join('\n');
  }
  if (format === 'markdown') {
    return [
      `### ${grid.title}`,
      '',
      `| ${grid.header.join(' | ')} |`,
      `|${grid.header.map((_, i) => (i >= from ? ' ---: ' : ' --- ')).join('|')}|`,
      ...grid.rows.map((r) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`),
      '',
      ...notes.map((n) => `_${n}_`),
      '',
    ].join('\n');
  }
  const widths = grid.header.map((h, i) => Math.max(h.length, ...grid.rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= from ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [grid.title, '', line(grid.header), widths.map((w) => '-'.repeat(w)).join('  '), ...grid.rows.map(line), '', ...notes, ''].join('\n');
}
