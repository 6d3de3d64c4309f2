/**
 * Renders `coreb eval` results for people: a leaderboard of retrievers side by side, then each
 * retriever's per-task, per-language and per-subtask tables, as aligned text or as markdown.
 */
import { TASK_SHORT_NAME } from '../core/dataset.js';
import type { EvalResults, GroupResult, RetrieverResult } from '../core/eval-results.js';

/** Output flavours of {@link renderResults}. */
export type ReportFormat = 'table' | 'markdown';

/** Options of {@link renderResults}. */
export interface RenderOptions {
  /** `table` (aligned plain text, default) or `markdown` (GitHub tables). */
  format?: ReportFormat;
  /** Include per-subtask tables. Default: true for markdown, false for table. */
  subtasks?: boolean;
}

/** Leaderboard columns: overall measures. */
const BOARD_MEASURES = ['ndcg@10', 'recall@10', 'map@10', 'mrr@10'] as const;
/** Per-task table columns. */
const TASK_MEASURES = ['ndcg@1', 'ndcg@10', 'map@10', 'recall@10', 'recall@100', 'mrr@10', 'p@1'] as const;
/** Short task labels for narrow columns (`t2c`, ...); other task names are shown whole. */
const SHORT: Readonly<Record<string, string>> = TASK_SHORT_NAME;

/** A table: header row and body rows of cells; numeric columns are right-aligned. */
interface Table {
  title: string;
  header: string[];
  rows: string[][];
  /** Free text under the table. */
  note?: string;
}

/** Formats a metric value with 4 decimals (the way trec_eval and the paper print them). */
export function formatMetric(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(4);
}

/** Renders the whole results file as text (tables separated by blank lines, trailing newline). */
export function renderResults(results: EvalResults, options: RenderOptions = {}): string {
  const format = options.format ?? 'table';
  const withSubtasks = options.subtasks ?? format === 'markdown';
  const tables: Table[] = [];
  const p = results.protocol;
  const head =
    `coreb eval — ${results.dataset.kind} ${shortPath(results.dataset.dir)} split ${results.dataset.split} (sha256 ${results.dataset.sha256.slice(0, 12)}), ` +
    `protocol ${p.name}: relevance level ${p.relevanceLevel}, nDCG ${p.ndcg}` +
    (p.anchorExclusion ? ', c2c anchors excluded' : '') +
    (p.ignoreIdenticalIds ? ', identical ids ignored' : '') +
    (p.name === 'coreb' ? `, c2t_match negatives ${p.c2tMatchNegatives === 'exclude' ? 'excluded' : 'counted as 0'}` : '') +
    `, overall ${p.overall}` +
    (p.roundDigits !== null ? `, rounded to ${p.roundDigits} decimals` : '');
  tables.push(leaderboard(results));
  for (const r of results.retrievers) {
    tables.push(taskTable(r));
    const lang = languageTable(r);
    if (lang !== null) tables.push(lang);
    if (withSubtasks) tables.push(subtaskTable(r));
  }
  const body = tables.map((t) => (format === 'markdown' ? markdown(t) : plain(t))).join('\n');
  return (format === 'markdown' ? `_${head}_\n\n` : `${head}\n\n`) + body;
}

/** The last two components of a path (`coreb-mini/release`), enough to recognise a dataset. */
function shortPath(dir: string): string {
  return dir.split(/[\\/]/).filter((p) => p !== '').slice(-2).join('/');
}

/** The retrievers side by side: overall measures and nDCG@10 per task, best first by overall nDCG@10. */
function leaderboard(results: EvalResults): Table {
  const tasks = Object.keys(results.retrievers[0]?.tasks ?? {});
  const header = ['#', 'retriever', ...BOARD_MEASURES, ...tasks.map((t) => `${SHORT[t] ?? t} ndcg@10`), 'queries', 'time'];
  const sorted = [...results.retrievers].sort((a, b) => b.overall.metrics['ndcg@10'] - a.overall.metrics['ndcg@10']);
  const rows = sorted.map((r, i) => [
    String(i + 1),
    r.name,
    ...BOARD_MEASURES.map((m) => formatMetric(r.overall.metrics[m])),
    ...tasks.map((t) => formatMetric(r.tasks[t]?.metrics['ndcg@10'])),
    String(r.overall.queries),
    `${(r.timings.totalMs / 1000).toFixed(1)}s`,
  ]);
  return { title: `Leaderboard (overall = ${results.protocol.overall})`, header, rows };
}

function groupRow(name: string, g: GroupResult, extra: string[] = []): string[] {
  return [
    name,
    ...extra,
    String(g.queries),
    ...TASK_MEASURES.map((m) => formatMetric(g.metrics[m])),
    formatMetric(g.diagnostics.intrusionRate),
    g.diagnostics.hardNegativesTop10.toFixed(2),
  ];
}

function taskTable(r: RetrieverResult): Table {
  const header = ['task', 'queries', ...TASK_MEASURES, 'hn-intr', 'hn/q@10'];
  const rows = Object.entries(r.tasks).map(([t, g]) => groupRow(t, g));
  rows.push(groupRow('overall', r.overall));
  const notes: string[] = [];
  for (const [t, g] of Object.entries(r.tasks)) {
    if (g.missingQueries > 0) notes.push(`${t}: ${g.missingQueries} queries missing from the run`);
    if (g.excludedQueries > 0) notes.push(`${t}: ${g.excludedQueries} c2t_match negatives excluded`);
  }
  notes.push('hn-intr = share of queries (with a positive and a hard negative in the top 10) where a hard negative ranks above every positive; hn/q@10 = hard negatives per query in the top 10');
  return { title: `${r.name}: per task`, header, rows, note: notes.join('\n') };
}

function languageTable(r: RetrieverResult): Table | null {
  const tasks = Object.keys(r.languages).filter((t) => Object.keys(r.languages[t]).length > 0);
  if (tasks.length === 0) return null;
  const langs = [...new Set(tasks.flatMap((t) => Object.keys(r.languages[t])))].sort();
  const header = ['task', ...langs];
  const rows = tasks.map((t) => [t, ...langs.map((l) => formatMetric(r.languages[t][l]?.metrics['ndcg@10']))]);
  return { title: `${r.name}: nDCG@10 per language`, header, rows };
}

function subtaskTable(r: RetrieverResult): Table {
  const header = ['subtask', 'queries', ...TASK_MEASURES, 'hn-intr', 'hn/q@10'];
  const rows = Object.entries(r.subtasks).map(([s, g]) => groupRow(s, g));
  return { title: `${r.name}: per subtask`, header, rows };
}

function isNumeric(cell: string): boolean {
  return /^-?[0-9.]+s?$/.test(cell) || cell === '-';
}

function plain(t: Table): string {
  const widths = t.header.map((h, i) => Math.max(h.length, ...t.rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i > 0 && isNumeric(c) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const out = [t.title, line(t.header), widths.map((w) => '-'.repeat(w)).join('  '), ...t.rows.map(line)];
  if (t.note) out.push(t.note);
  return out.join('\n') + '\n';
}

function markdown(t: Table): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  const numericCol = t.header.map((_, i) => i > 0 && t.rows.length > 0 && t.rows.every((r) => isNumeric(r[i])));
  const out = [
    `### ${t.title}`,
    '',
    `| ${t.header.map(esc).join(' | ')} |`,
    `|${numericCol.map((n) => (n ? '---:' : '---')).join('|')}|`,
    ...t.rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ];
  if (t.note) out.push('', ...t.note.split('\n').map((l) => `_${l}_`));
  return out.join('\n') + '\n';
}
