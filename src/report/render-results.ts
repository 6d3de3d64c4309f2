/**
 * Renders `coreb eval` results for people: a leaderboard of retrievers side by side, then each
 * retriever's per-task, per-language and per-subtask tables, as aligned text or as markdown.
 */
import { counted } from '../core/words.js';
import { TASK_SHORT_NAME } from '../core/dataset.js';
import { subtaskLanguage } from '../dataset/release-schema.js';
import type { EvalResults, GroupResult, RetrieverResult } from '../core/eval-results.js';
import { renderTable, type ColumnAlign } from '../core/table.js';

/** Output flavours of {@link renderResults}. */
export type ReportFormat = 'table' | 'markdown' | 'latex';

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
    (p.qrels === 'positives-only' ? ', qrels reduced to rel-2 documents (queries without one dropped)' : '') +
    (p.name === 'coreb' ? `, c2t_match negatives ${p.c2tMatchNegatives === 'exclude' ? 'excluded' : 'counted as 0'}` : '') +
    `, ranked by ${rankBy(results) === 'taskMean' ? 'task mean' : 'query-weighted overall'}` +
    (p.roundDigits !== null ? `, rounded to ${p.roundDigits} decimals` : '');
  tables.push(leaderboard(results));
  tables.push(...fileLevelTables(results));
  for (const r of results.retrievers) {
    tables.push(taskTable(r));
    const lang = languageTable(r);
    if (lang !== null) tables.push(lang);
    // Per subtask only where there are subtasks (a repository benchmark has query types instead).
    if (withSubtasks && Object.keys(r.subtasks).length > 0) tables.push(subtaskTable(r));
    // Per query type: always on a repository benchmark (subject, message, issue), with --subtasks elsewhere.
    const types = r.fileLevel !== undefined || withSubtasks ? queryTypeTable(r) : null;
    if (types !== null) tables.push(types);
  }
  const body = tables.map((t) => render(t, format)).join('\n');
  return (format === 'markdown' ? `_${head}_\n\n` : format === 'latex' ? `% ${head}\n\n` : `${head}\n\n`) + body;
}

/** The last two components of a path (`coreb-mini/release`), enough to recognise a dataset. */
function shortPath(dir: string): string {
  return dir
    .split(/[\\/]/)
    .filter((p) => p !== '')
    .slice(-2)
    .join('/');
}

/**
 * What a leaderboard of `results` ranks by: the protocol's `rankBy` (results schema 2), else
 * `taskMean` when schema 1's `overall` was the task mean.
 */
export function rankBy(results: Pick<EvalResults, 'protocol'>): 'overall' | 'taskMean' {
  const p = results.protocol as unknown as { rankBy?: string; overall?: string };
  if (p.rankBy === 'taskMean' || p.rankBy === 'overall') return p.rankBy;
  return p.overall === 'task-mean' ? 'taskMean' : 'overall';
}

/** The task mean of a retriever (absent from files of schema 1). */
function taskMeanOf(r: RetrieverResult): GroupResult | undefined {
  return (r as { taskMean?: GroupResult }).taskMean;
}

/**
 * The tasks a leaderboard compares: those the results were evaluated on, and any other task a row
 * was scored on (results merged from several files), in first-seen order.
 */
export function leaderboardTasks(results: EvalResults): string[] {
  const tasks = [...(results.options?.tasks ?? [])];
  for (const r of results.retrievers) for (const t of Object.keys(r.tasks)) if (!tasks.includes(t)) tasks.push(t);
  return tasks;
}

/**
 * Splits rows into those ranked against each other and the rest: only rows scored on the same
 * queries are comparable, so the ranked rows are those scored on the same tasks with the same query
 * count per task as the most complete row (most tasks of {@link leaderboardTasks}, then most
 * queries; the first such); a row scored on fewer or other tasks, or on part of a task's queries
 * (`--subtasks`, a partial run), is listed apart, unranked.
 */
export function rankableRows(results: EvalResults): { ranked: RetrieverResult[]; unranked: RetrieverResult[]; tasks: string[] } {
  const all = leaderboardTasks(results);
  // A row's population: the tasks it was scored on and how many queries each averaged.
  const key = (r: RetrieverResult) =>
    all
      .filter((t) => r.tasks[t] !== undefined)
      .map((t) => `${t}:${r.tasks[t].queries}`)
      .join(',');
  const keys = results.retrievers.map(key);
  // Ranked: the rows of the complete population (scored on the most tasks, then the most queries).
  const completeness = (r: RetrieverResult) => {
    const tasks = all.filter((t) => r.tasks[t] !== undefined);
    return { tasks: tasks.length, queries: tasks.reduce((n, t) => n + r.tasks[t].queries, 0) };
  };
  let best = -1;
  for (const [i, r] of results.retrievers.entries()) {
    if (r.imported !== undefined && results.retrievers.some((x) => x.imported === undefined)) continue;
    const c = completeness(r);
    const b = best < 0 ? undefined : completeness(results.retrievers[best]);
    if (b === undefined || c.tasks > b.tasks || (c.tasks === b.tasks && c.queries > b.queries)) best = i;
  }
  const target = best < 0 ? '' : keys[best];
  const targetTasks = target === '' ? [] : target.split(',').map((k) => k.slice(0, k.lastIndexOf(':')));
  // An imported row (published task means, no query counts) is ranked when it has the same tasks.
  const fits = (r: RetrieverResult, i: number) =>
    r.imported !== undefined ? all.filter((t) => r.tasks[t] !== undefined).join(',') === targetTasks.join(',') : keys[i] === target;
  const ranked = results.retrievers.filter(fits);
  const unranked = results.retrievers.filter((r, i) => !fits(r, i));
  return { ranked, unranked, tasks: targetTasks };
}

/**
 * The retrievers side by side: query-weighted overall measures, the task mean of nDCG@10 and
 * nDCG@10 per task, best first by the protocol's ranking aggregate; a note states the population
 * (queries averaged per task, and how the c2t_match negatives and empty lists entered it). Only
 * rows scored on the same tasks are ranked (see {@link rankableRows}); a task a row was not scored
 * on shows `-`, never 0. Failed retrievers are named under the table.
 */
function leaderboard(results: EvalResults): Table {
  const tasks = leaderboardTasks(results);
  // Measures asked for beside the protocol's own (`--measures`) get columns of their own.
  const extra = (results.options?.measures ?? []).filter((m) => !(BOARD_MEASURES as readonly string[]).includes(m));
  const header = [
    '#',
    'retriever',
    ...BOARD_MEASURES,
    ...extra,
    'task-mean ndcg@10',
    ...tasks.map((t) => `${SHORT[t] ?? t} ndcg@10`),
    'queries',
    'time',
  ];
  const by = rankBy(results);
  const key = (r: RetrieverResult) => (by === 'taskMean' ? (taskMeanOf(r) ?? r.overall) : r.overall).metrics['ndcg@10'] ?? -Infinity;
  const { ranked, unranked, tasks: rankedOn } = rankableRows(results);
  const order = (rows: RetrieverResult[]) => [...rows].sort((a, b) => key(b) - key(a));
  const row = (r: RetrieverResult, place: string) => [
    place,
    (r.warnings?.length ?? 0) > 0 ? `${r.name} ‡` : r.name,
    ...BOARD_MEASURES.map((m) => formatMetric(r.overall.metrics[m])),
    ...extra.map((m) => formatMetric(r.overall.metrics[m])),
    formatMetric(taskMeanOf(r)?.metrics['ndcg@10']),
    ...tasks.map((t) => formatMetric(r.tasks[t]?.metrics['ndcg@10'])),
    String(r.overall.queries),
    `${(r.timings.totalMs / 1000).toFixed(1)}s`,
  ];
  const rows = [...order(ranked).map((r, i) => row(r, String(i + 1))), ...order(unranked).map((r) => row(r, '-'))];
  const title = `Leaderboard (ranked by ${by === 'taskMean' ? 'the task mean' : 'the query-weighted overall'}; measures are query-weighted overall, task-mean = unweighted mean of the task means)`;
  const notes = [populationNote(results)];
  if (unranked.length > 0) {
    const on = (r: RetrieverResult) =>
      Object.keys(r.tasks)
        .map((t) => SHORT[t] ?? t)
        .join('+') || 'no task';
    notes.push(
      `unranked (#: -): ${unranked.map((r) => `${r.name} (scored on ${on(r)})`).join(', ')}; ranks compare only rows scored on the same tasks (${rankedOn.map((t) => SHORT[t] ?? t).join('+') || 'none'}); - = not scored`,
    );
  }
  for (const f of results.failed ?? []) notes.push(`failed: ${f.name} (${f.code}): ${f.error}`);
  for (const r of results.retrievers) if ((r.warnings?.length ?? 0) > 0) notes.push(`‡ ${r.name}: ${(r.warnings as string[]).join('; ')}`);
  return { title, header, rows, note: notes.join('\n') };
}

/** The file-level localization columns shown (all of them are in results.json). */
const LOCALIZATION_COLUMNS = ['acc@1', 'acc@5', 'acc@10', 'hit@1', 'hit@5', 'hit@10'] as const;

/**
 * Repository benchmarks: the leaderboard's measures, localization accuracy and hit rate and any
 * `--measures` extras at file level, over all files and without test files, per query type.
 */
function fileLevelTables(results: EvalResults): Table[] {
  const rows = results.retrievers.filter((r) => r.fileLevel !== undefined);
  if (rows.length === 0) return [];
  const extra = (results.options?.measures ?? []).filter((m) => !(BOARD_MEASURES as readonly string[]).includes(m));
  const columns = [...BOARD_MEASURES, ...LOCALIZATION_COLUMNS, ...extra];
  const header = ['retriever', ...columns, 'queries'];
  const line = (name: string, g: GroupResult | undefined) => [name, ...columns.map((m) => formatMetric(g?.metrics[m])), String(g?.queries ?? 0)];
  const out: Table[] = [
    {
      title: 'File level (a file ranked at its best chunk, labelled with its best chunk; acc@k: every gold file in the top k, hit@k: one)',
      header,
      rows: rows.map((r) => line(r.name, r.fileLevel?.overall)),
    },
  ];
  const nonTest = rows.filter((r) => r.fileLevel?.nonTest !== undefined);
  if (nonTest.length > 0) {
    const dropped = nonTest[0].fileLevel?.nonTest?.droppedQueries ?? 0;
    out.push({
      title: 'File level without test files (test files out of the gold set and the ranking)',
      header,
      rows: nonTest.map((r) => line(r.name, r.fileLevel?.nonTest?.overall)),
      note: dropped > 0 ? `${dropped} queries whose every gold file is a test file are left out` : '',
    });
  }
  const types = [...new Set(rows.flatMap((r) => Object.keys(r.fileLevel?.queryTypes ?? {})))];
  if (types.length > 1) {
    out.push({
      title: 'File level per query type',
      header: ['retriever', 'query type', ...columns, 'queries'],
      rows: rows.flatMap((r) => types.map((t) => [r.name, ...line(t, r.fileLevel?.queryTypes?.[t])])),
    });
  }
  return out;
}

/** One line per distinct population: queries averaged per task and what entered or left it. */
function populationNote(results: EvalResults): string {
  const lines = new Map<string, string[]>();
  for (const r of results.retrievers) {
    const parts = Object.entries(r.tasks).map(([t, g]) => {
      const extra: string[] = [];
      if (g.zeroedQueries > 0) extra.push(`incl. ${g.zeroedQueries} c2t_match negatives scored 0`);
      if (g.excludedQueries > 0) extra.push(`${g.excludedQueries} excluded`);
      if ((g.emptyQueries?.length ?? 0) > 0) extra.push(`incl. ${g.emptyQueries.length} with an empty list scored 0`);
      if (g.missingQueries > 0) extra.push(`${g.missingQueries} missing from the run`);
      return `${SHORT[t] ?? t} ${g.queries}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
    });
    const line = parts.join(', ');
    const names = lines.get(line) ?? [];
    names.push(r.name);
    lines.set(line, names);
  }
  const one = lines.size === 1;
  return [...lines].map(([line, names]) => `population${one ? '' : ` of ${names.join(', ')}`}: ${line} queries`).join('\n');
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
  const tm = taskMeanOf(r);
  if (tm !== undefined) rows.push(groupRow('task mean', tm));
  const notes: string[] = [];
  for (const [t, g] of Object.entries(r.tasks)) {
    if (g.missingQueries > 0) notes.push(`${t}: ${counted(g.missingQueries, 'query', 'queries')} missing from the run`);
    if (g.excludedQueries > 0)
      notes.push(
        `${t}: ${counted(g.excludedQueries, 'query', 'queries')} excluded by the protocol (c2t_match negatives, or no rel-2 document under mteb)`,
      );
    if (g.zeroedQueries > 0) notes.push(`${t}: ${g.zeroedQueries} c2t_match negatives counted, each scoring 0`);
    if ((g.emptyQueries?.length ?? 0) > 0)
      notes.push(
        `${t}: ${counted(g.emptyQueries.length, 'query', 'queries')} with an empty ranked list counted, each scoring 0 (no line in the run file)`,
      );
  }
  for (const t of r.unscoredTasks ?? []) notes.push(`${t}: unscored (not one query has a ranked list); left out of overall and the task mean`);
  for (const w of (r as { warnings?: string[] }).warnings ?? []) notes.push(`warning: ${w}`);
  notes.push(
    'hn-intr = share of queries (with a positive and a hard negative in the top 10) where a hard negative ranks above every positive; hn/q@10 = hard negatives per query in the top 10',
  );
  return { title: `${r.name}: per task`, header, rows, note: notes.join('\n') };
}

/**
 * The paper's per-language view (§B.6, Figure 6): for each language, the unweighted mean of nDCG@10
 * over the task's language-variant subtasks other than `search` (text-to-code: canonical_retro and
 * full_retro; code-to-text likewise), so each subtask counts once whatever its query count. The
 * pooled view (every query of the language averaged) is {@link RetrieverResult.languages}.
 * @returns language -> mean, empty when the task has no such subtasks.
 */
export function nonSearchLanguageMeans(r: RetrieverResult, task: string, measure = 'ndcg@10'): Record<string, number> {
  const by = new Map<string, number[]>();
  for (const [name, g] of Object.entries(r.subtasks ?? {})) {
    if (g.task !== task) continue;
    const lang = subtaskLanguage(name);
    if (lang === undefined || name.includes('_search_')) continue;
    const v = g.metrics[measure];
    if (typeof v === 'number') by.set(lang, [...(by.get(lang) ?? []), v]);
  }
  const out: Record<string, number> = {};
  for (const l of [...by.keys()].sort()) out[l] = by.get(l)!.reduce((a, b) => a + b, 0) / by.get(l)!.length;
  return out;
}

function languageTable(r: RetrieverResult): Table | null {
  const tasks = Object.keys(r.languages).filter((t) => Object.keys(r.languages[t]).length > 0);
  if (tasks.length === 0) return null;
  const langs = [...new Set(tasks.flatMap((t) => Object.keys(r.languages[t])))].sort();
  const header = ['task', ...langs];
  const rows = tasks.map((t) => [t, ...langs.map((l) => formatMetric(r.languages[t][l]?.metrics['ndcg@10']))]);
  // The paper's view beside the pooled one: text-to-code and code-to-text without the search subtasks.
  for (const t of tasks) {
    const means = nonSearchLanguageMeans(r, t);
    if (Object.keys(means).length > 0) rows.push([`${t} (§B.6)`, ...langs.map((l) => formatMetric(means[l]))]);
  }
  const note =
    "rows: every query of the language pooled; (§B.6) rows: the paper's view, the mean of the non-search language subtasks (canonical_retro, full_retro), each counted once";
  return { title: `${r.name}: nDCG@10 per language`, header, rows, note };
}

/** Per query type (sub_query_type, or a repository benchmark's subject / message / issue), when there are several. */
function queryTypeTable(r: RetrieverResult): Table | null {
  const rows: string[][] = [];
  for (const [task, types] of Object.entries(r.subQueryTypes)) {
    if (Object.keys(types).length < 2) continue;
    for (const [t, g] of Object.entries(types)) rows.push(groupRow(`${task} / ${t}`, g));
  }
  if (rows.length === 0) return null;
  return { title: `${r.name}: per query type`, header: ['task / type', 'queries', ...TASK_MEASURES, 'hn-intr', 'hn/q@10'], rows };
}

function subtaskTable(r: RetrieverResult): Table {
  const header = ['subtask', 'queries', ...TASK_MEASURES, 'hn-intr', 'hn/q@10'];
  const rows = Object.entries(r.subtasks).map(([s, g]) => groupRow(s, g));
  return { title: `${r.name}: per subtask`, header, rows };
}

function isNumeric(cell: string): boolean {
  return /^-?[0-9.]+s?$/.test(cell) || cell === '-';
}

/** `t` through the one table renderer: a column right-aligned when every cell of it is a number. */
function render(t: Table, format: ReportFormat): string {
  const align = t.header.map((_, i): ColumnAlign => (i > 0 && t.rows.length > 0 && t.rows.every((r) => isNumeric(r[i])) ? 'right' : 'left'));
  return renderTable({ title: t.title, header: t.header, rows: t.rows, align, notes: t.note?.split('\n') }, format);
}
