/**
 * `coreb report`: one self-contained, script-free HTML page (styles and SVG charts inlined, printable)
 * from one or more results files — leaderboard with significance marks, per-language / subtask /
 * query-type heat tables, hard-negative diagnostics, Recall@k, reranking deltas, cross-release
 * stability and provenance — plus every chart as .svg and .png.
 */
import { EventLoopTurns } from '../core/event-loop-turns.js';
import { join } from 'node:path';
import type { DatasetStats, EvalResults, GroupResult, RetrieverResult } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/progress.js';
import { saveAtomic } from '../dataset/atomic-write.js';
import { poolDatasetStats } from '../dataset/release-pool.js';
import { escapeXml as esc, renderChartSvg, renderPng, retrieverColours, withRetrieverColours, type ChartSpec, type RenderedChart } from './charts.js';
import { significantWins } from './compare.js';
import { CONTAMINATION_HEADER, contaminationRows, type ContaminationSummary } from './contamination.js';
import type { LoadedResults } from '../dataset/results-file.js';
import { kendallTauB, spearman } from './rank-correlation.js';
import { formatScore, rowLetter } from './grid.js';
import { nonSearchLanguageMeans, rankableRows, rankBy } from './render-results.js';
import { crossReleasePairs, explainGroups, groupResults, oldestFirst, type ReleaseGroup } from './result-groups.js';

/** Options of {@link writeHtmlReport}. */
export interface HtmlReportOptions {
  /** Output directory: `index.html` and `charts/<id>.svg|png`. */
  outDir: string;
  /** Write PNG copies of the charts (needs @resvg/resvg-js). Default true. */
  png?: boolean;
  /** Significance level of the leaderboard marks (Holm-adjusted randomization test). Default 0.05. */
  alpha?: number;
  /** Sign flips of the randomization test behind the marks. Default 10,000. */
  permutations?: number;
  /** Seed of the randomization test. Default 42. */
  seed?: number;
  /** Page title. Default `CoREB report`. */
  title?: string;
  /** Time shown as generated-at (ISO 8601). Default now. */
  now?: string;
  /** Contamination studies to show (`contamination.json` of a build or results folder, with its path). Default none. */
  contamination?: ReadonlyArray<{ file: string; summary: ContaminationSummary }>;
  /** Stops the report (Ctrl-C) between its steps and within its significance tests. */
  signal?: AbortSignal;
  logger?: Logger;
}

/** What {@link writeHtmlReport} wrote. */
export interface HtmlReportOutput {
  html: string;
  indexFile: string;
  charts: Array<{ id: string; svgFile: string; pngFile: string | null }>;
}

/** A reranked entry as issue 10 specifies it (`firstStage` + `rerank` block); read tolerantly. */
interface RerankBlock {
  depth?: number;
  reranker?: unknown;
  recallCeiling?: Record<string, number | null>;
  delta?: Record<string, Record<string, number>>;
  deltaRelative?: Record<string, Record<string, number | null>>;
}

const f4 = formatScore;
const signed = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(4);

/** Task names of a group, in the first retriever's order. */
function taskNames(g: ReleaseGroup): string[] {
  return Object.keys(g.retrievers[0]?.tasks ?? {});
}

/** The unweighted mean of the task means (`taskMean` when the results carry it). */
function taskMean(r: RetrieverResult, measure: string): number {
  const tm = (r as RetrieverResult & { taskMean?: GroupResult }).taskMean;
  if (tm !== undefined && typeof tm.metrics?.[measure] === 'number') return tm.metrics[measure];
  const vals = Object.values(r.tasks)
    .map((t) => t.metrics[measure])
    .filter((v) => typeof v === 'number');
  return vals.length > 0 ? vals.reduce((a, b) => a + b, 0) / vals.length : NaN;
}

/** How the results' overall column was computed (schema 1 could make it the task mean). */
function overallMeaning(results: EvalResults): string {
  const p = results.protocol as unknown as { overall?: string };
  return p.overall === 'task-mean' ? 'overall = mean of the task means' : 'overall = mean over all queries (query-weighted)';
}

function rerankOf(r: RetrieverResult): { firstStage: string; rerank: RerankBlock } | null {
  const x = r as RetrieverResult & { firstStage?: unknown; rerank?: unknown };
  if (typeof x.firstStage !== 'string' || typeof x.rerank !== 'object' || x.rerank === null) return null;
  return { firstStage: x.firstStage, rerank: x.rerank as RerankBlock };
}

/** Viridis at t in [0, 1] (5 stops, linear in RGB) and a readable text colour for it. */
function viridis(t: number): { bg: string; fg: string } {
  const stops = [
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ];
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const c = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * (x - i)));
  const lum = (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, fg: lum > 0.5 ? '#000' : '#fff' };
}

/** An HTML table; `heat` colours numeric body cells by value (viridis over the table's range). */
function htmlTable(
  header: string[],
  rows: string[][],
  options: { caption?: string; heat?: boolean; heatFrom?: number; rowHeader?: boolean; raw?: boolean } = {},
): string {
  const heatFrom = options.heatFrom ?? 1;
  const nums = rows.flatMap((r) =>
    r
      .slice(heatFrom)
      .map(Number)
      .filter((v) => Number.isFinite(v)),
  );
  const lo = Math.min(...nums);
  const hi = Math.max(...nums);
  const cell = (c: string, i: number) => {
    const content = options.raw ? c : esc(c);
    if (i === 0 && options.rowHeader !== false) return `<th scope="row">${content}</th>`;
    const plain = c.replace(/<sup[^>]*>.*?<\/sup>/g, '').replace(/<[^>]*>/g, '');
    const v = Number(plain);
    if (options.heat && i >= heatFrom && c !== '' && Number.isFinite(v) && hi > lo) {
      const { bg, fg } = viridis((v - lo) / (hi - lo));
      return `<td class="num heat" style="background:${bg};color:${fg}">${content}</td>`;
    }
    return `<td${/^[−+-]?[0-9.]+%?$|^–$/.test(plain) ? ' class="num"' : ''}>${content}</td>`;
  };
  return [
    '<div class="table-wrap"><table>',
    options.caption ? `<caption>${esc(options.caption)}</caption>` : '',
    `<thead><tr>${header.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('\n')}</tbody>`,
    '</table></div>',
  ].join('\n');
}

interface Section {
  id: string;
  title: string;
  html: string;
}

/**
 * The rows of a group in leaderboard order: ranked by the protocol's aggregate (overall nDCG@10,
 * or the task mean), then the rows scored on other tasks (a partial run), unranked. The charts
 * list their series in this order too.
 */
function leaderboardRows(g: ReleaseGroup): { sorted: RetrieverResult[]; unranked: RetrieverResult[]; byTaskMean: boolean } {
  const byTaskMean = rankBy(g.results) === 'taskMean';
  const key = (r: RetrieverResult) => (byTaskMean ? taskMean(r, 'ndcg@10') : r.overall.metrics['ndcg@10']);
  const { ranked, unranked } = rankableRows({ ...g.results, retrievers: g.retrievers });
  return { sorted: [...[...ranked].sort((a, b) => key(b) - key(a)), ...[...unranked].sort((a, b) => key(b) - key(a))], unranked, byTaskMean };
}

/** The color (and bar-offset) encoding of one series per retriever, legend in leaderboard order. */
function byRetriever(g: ReleaseGroup, field = 'retriever'): Record<'color' | 'xOffset' | 'shape', Record<string, unknown>> {
  const order = leaderboardRows(g).sorted.map((r) => r.name);
  return {
    color: { field, type: 'nominal', sort: order, legend: { orient: 'bottom', direction: 'vertical' } },
    xOffset: { field, type: 'nominal', sort: order },
    shape: { field, type: 'nominal', sort: order },
  };
}

/** Builds the leaderboard with ranx-style superscripts (letters of the rows a score significantly beats). */
async function leaderboardSection(
  g: ReleaseGroup,
  o: Required<Pick<HtmlReportOptions, 'alpha' | 'permutations' | 'seed'>> & { turns: EventLoopTurns },
  gi: number,
): Promise<Section> {
  const tasks = taskNames(g);
  const { sorted, unranked, byTaskMean } = leaderboardRows(g);
  const letters = new Map(sorted.map((r, i) => [r.name, rowLetter(i)]));
  const marks = new Map<string, Map<string, Set<string>>>();
  const withPerQuery = sorted.filter((r) => r.perQuery !== undefined);
  if (withPerQuery.length >= 2) {
    for (const scope of ['overall', ...tasks]) {
      marks.set(
        scope,
        await significantWins(withPerQuery, {
          measure: 'ndcg@10',
          scope,
          alpha: o.alpha,
          permutations: o.permutations,
          seed: o.seed,
          turns: o.turns,
        }),
      );
    }
  }
  const sup = (name: string, scope: string) => {
    const w = marks.get(scope)?.get(name);
    if (w === undefined || w.size === 0) return '';
    return `<sup title="significantly better than ${esc([...w].join(', '))}">${[...w]
      .map((n) => letters.get(n)!)
      .sort()
      .join('')}</sup>`;
  };
  const header = ['', 'retriever', 'nDCG@10 (overall)', 'task mean', 'Recall@10', 'MAP@10', 'MRR@10', ...tasks.map((t) => `${t} nDCG@10`), 'queries'];
  const rows = sorted.map((r) => [
    letters.get(r.name)!,
    esc(r.name),
    f4(r.overall.metrics['ndcg@10']) + sup(r.name, 'overall'),
    f4(taskMean(r, 'ndcg@10')),
    f4(r.overall.metrics['recall@10']),
    f4(r.overall.metrics['map@10']),
    f4(r.overall.metrics['mrr@10']),
    ...tasks.map((t) => f4(r.tasks[t]?.metrics['ndcg@10']) + sup(r.name, t)),
    String(r.overall.queries),
  ]);
  const p = g.results.protocol;
  const unrankedNote =
    unranked.length > 0
      ? ` Listed last, unranked: ${unranked.map((r) => `${r.name} (scored on ${Object.keys(r.tasks).join(', ') || 'no task'})`).join('; ')}: only rows scored on the same tasks are ranked against each other; – = not scored.`
      : '';
  const dupNote =
    g.duplicates.length > 0 ? ` Shown once: ${g.duplicates.map((d) => `${d.name} of ${d.file} (the same row as in ${d.sameAs})`).join('; ')}.` : '';
  const note =
    (marks.size > 0
      ? `Superscripts: the rows a score is significantly better than (paired randomization test, ${o.permutations.toLocaleString('en')} sign flips, seed ${o.seed}, Holm–Bonferroni over all pairs of a column, p ≤ ${o.alpha}).`
      : 'No significance marks: they need per-query values from at least two retrievers (results written without --no-per-query).') +
    unrankedNote +
    dupNote;
  const html = [
    `<p>Protocol <strong>${esc(p.name)}</strong>: ${esc(overallMeaning(g.results))}; task mean = unweighted mean of the task means; relevance level ${esc(String(p.relevanceLevel))}.</p>`,
    htmlTable(header, rows, {
      raw: true,
      rowHeader: false,
      caption: `Leaderboard, ${g.label}, best ${byTaskMean ? 'task mean' : 'overall'} nDCG@10 first`,
    }),
    `<p class="note">${esc(note)}</p>`,
  ].join('\n');
  return { id: `leaderboard-${gi}`, title: `Leaderboard — ${g.split}, protocol ${g.protocol}${g.label.includes(' #') ? ` (${g.label})` : ''}`, html };
}

function tasksChart(g: ReleaseGroup, gi: number): ChartSpec {
  const series = byRetriever(g);
  const tasks = taskNames(g);
  const values = g.retrievers.flatMap((r) => tasks.map((t) => ({ retriever: r.name, task: t, ndcg: r.tasks[t]?.metrics['ndcg@10'] ?? 0 })));
  const best = tasks.map((t) => {
    const top = [...g.retrievers].sort((a, b) => (b.tasks[t]?.metrics['ndcg@10'] ?? 0) - (a.tasks[t]?.metrics['ndcg@10'] ?? 0))[0];
    return `${t}: ${top.name} ${f4(top.tasks[t]?.metrics['ndcg@10'])}`;
  });
  return {
    id: `tasks-ndcg-${gi}`,
    title: `nDCG@10 per task — ${g.label}`,
    alt: `Grouped bar chart of nDCG@10 per task and retriever on ${g.label}. Best per task: ${best.join('; ')}.`,
    table: { header: ['retriever', ...tasks], rows: g.retrievers.map((r) => [r.name, ...tasks.map((t) => f4(r.tasks[t]?.metrics['ndcg@10']))]) },
    spec: {
      title: `nDCG@10 per task — ${g.label}`,
      width: Math.max(240, tasks.length * g.retrievers.length * 28),
      height: 240,
      data: { values },
      mark: { type: 'bar', tooltip: false },
      encoding: {
        x: { field: 'task', type: 'nominal', title: 'task', sort: tasks, axis: { labelAngle: 0 } },
        xOffset: series.xOffset,
        y: { field: 'ndcg', type: 'quantitative', title: 'nDCG@10', scale: { domain: [0, 1] } },
        color: series.color,
      },
    },
  };
}

function recallChart(g: ReleaseGroup, gi: number): ChartSpec | null {
  const series = byRetriever(g);
  const ks = g.results.measures
    .map((m) => /^recall@(\d+)$/.exec(m))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  if (ks.length < 2) return null;
  const values = g.retrievers.flatMap((r) => ks.map((k) => ({ retriever: r.name, k, recall: r.overall.metrics[`recall@${k}`] ?? 0 })));
  return {
    id: `recall-curve-${gi}`,
    title: `Recall@k (overall) — ${g.label}`,
    alt: `Line chart of overall Recall@k for k = ${ks.join(', ')} per retriever on ${g.label}. At k = ${ks[ks.length - 1]}: ${g.retrievers.map((r) => `${r.name} ${f4(r.overall.metrics[`recall@${ks[ks.length - 1]}`])}`).join('; ')}.`,
    table: {
      header: ['retriever', ...ks.map((k) => `Recall@${k}`)],
      rows: g.retrievers.map((r) => [r.name, ...ks.map((k) => f4(r.overall.metrics[`recall@${k}`]))]),
    },
    spec: {
      title: `Recall@k (overall) — ${g.label}`,
      width: 360,
      height: 240,
      data: { values },
      mark: { type: 'line', point: { filled: true, size: 50 } },
      encoding: {
        x: { field: 'k', type: 'quantitative', title: 'k (log scale)', scale: { type: 'log' }, axis: { values: ks } },
        y: { field: 'recall', type: 'quantitative', title: 'Recall@k', scale: { domain: [0, 1] } },
        color: series.color,
        shape: series.shape,
      },
    },
  };
}

function languageChart(g: ReleaseGroup, gi: number): ChartSpec | null {
  const values: Array<{ row: string; language: string; ndcg: number }> = [];
  for (const r of g.retrievers) {
    for (const [task, langs] of Object.entries(r.languages ?? {})) {
      for (const [language, grp] of Object.entries(langs)) values.push({ row: `${task} · ${r.name}`, language, ndcg: grp.metrics['ndcg@10'] });
    }
  }
  if (values.length === 0) return null;
  const langs = [...new Set(values.map((v) => v.language))].sort();
  const rows = [...new Set(values.map((v) => v.row))];
  const worst = [...values].sort((a, b) => a.ndcg - b.ndcg)[0];
  return {
    id: `languages-${gi}`,
    title: `nDCG@10 per language — ${g.label}`,
    alt: `Heat map of nDCG@10 per language (columns) for each task and retriever (rows) on ${g.label}; lowest cell ${worst.row}, ${worst.language}: ${f4(worst.ndcg)}.`,
    table: {
      header: ['task · retriever', ...langs],
      rows: rows.map((row) => [row, ...langs.map((l) => f4(values.find((v) => v.row === row && v.language === l)?.ndcg))]),
    },
    spec: {
      title: `nDCG@10 per language — ${g.label}`,
      data: { values },
      width: langs.length * 64,
      height: rows.length * 24,
      encoding: {
        x: { field: 'language', type: 'nominal', title: 'language', axis: { labelAngle: 0, orient: 'top' } },
        y: { field: 'row', type: 'nominal', title: null, sort: rows },
      },
      layer: [
        {
          mark: 'rect',
          encoding: { color: { field: 'ndcg', type: 'quantitative', title: 'nDCG@10', scale: { scheme: 'viridis', domain: [0, 1] } } },
        },
        {
          mark: { type: 'text', fontSize: 10 },
          encoding: {
            text: { field: 'ndcg', type: 'quantitative', format: '.3f' },
            color: { condition: { test: 'datum.ndcg > 0.6', value: 'black' }, value: 'white' },
          },
        },
      ],
    },
  };
}

function intrusionChart(g: ReleaseGroup, gi: number): ChartSpec | null {
  const series = byRetriever(g);
  const tasks = taskNames(g);
  const values = g.retrievers.flatMap((r) =>
    tasks
      .filter((t) => r.tasks[t]?.diagnostics?.intrusionRate != null)
      .map((t) => ({ retriever: r.name, task: t, rate: r.tasks[t].diagnostics.intrusionRate as number })),
  );
  if (values.length === 0) return null;
  return {
    id: `intrusion-${gi}`,
    title: `Hard-negative intrusion rate — ${g.label}`,
    alt: `Grouped bar chart of the hard-negative intrusion rate per task and retriever on ${g.label}: ${values.map((v) => `${v.task} ${v.retriever} ${(v.rate * 100).toFixed(1)}%`).join('; ')}.`,
    table: {
      header: ['retriever', ...tasks],
      rows: g.retrievers.map((r) => [r.name, ...tasks.map((t) => f4(r.tasks[t]?.diagnostics?.intrusionRate))]),
    },
    spec: {
      title: `Hard-negative intrusion rate — ${g.label}`,
      width: Math.max(240, tasks.length * g.retrievers.length * 28),
      height: 200,
      data: { values },
      mark: 'bar',
      encoding: {
        x: { field: 'task', type: 'nominal', sort: tasks, axis: { labelAngle: 0 } },
        xOffset: series.xOffset,
        y: { field: 'rate', type: 'quantitative', title: 'intrusion rate', axis: { format: '%' }, scale: { domain: [0, 1] } },
        color: series.color,
      },
    },
  };
}

function rerankSection(g: ReleaseGroup, gi: number): { section: Section; chart: ChartSpec } | null {
  const entries = g.retrievers
    .map((r) => ({ r, rr: rerankOf(r) }))
    .filter((x): x is { r: RetrieverResult; rr: NonNullable<ReturnType<typeof rerankOf>> } => x.rr !== null);
  if (entries.length === 0) return null;
  const tasks = taskNames(g);
  const header = ['reranked', 'first stage', 'depth', ...tasks.flatMap((t) => [`${t} Δ nDCG@10`, `${t} Δ %`, `${t} recall ceiling`])];
  const rows = entries.map(({ r, rr }) => [
    r.name,
    rr.firstStage,
    String(rr.rerank.depth ?? '–'),
    ...tasks.flatMap((t) => {
      const rel = rr.rerank.deltaRelative?.[t]?.['ndcg@10'];
      return [
        signed(rr.rerank.delta?.[t]?.['ndcg@10']),
        rel === undefined || rel === null ? '–' : `${rel >= 0 ? '+' : '−'}${Math.abs(rel * 100).toFixed(1)}%`,
        f4(rr.rerank.recallCeiling?.[t]),
      ];
    }),
  ]);
  const values = entries.flatMap(({ r, rr }) => tasks.map((t) => ({ reranked: r.name, task: t, delta: rr.rerank.delta?.[t]?.['ndcg@10'] ?? 0 })));
  const chart: ChartSpec = {
    id: `rerank-deltas-${gi}`,
    title: `Reranking: Δ nDCG@10 over the first stage — ${g.label}`,
    alt: `Bar chart of the change in nDCG@10 from reranking, per task: ${values.map((v) => `${v.reranked} ${v.task} ${signed(v.delta)}`).join('; ')}.`,
    table: {
      header: ['reranked', ...tasks],
      rows: entries.map(({ r, rr }) => [r.name, ...tasks.map((t) => signed(rr.rerank.delta?.[t]?.['ndcg@10']))]),
    },
    spec: {
      title: `Reranking: Δ nDCG@10 over the first stage — ${g.label}`,
      width: Math.max(240, tasks.length * entries.length * 28),
      height: 200,
      data: { values },
      mark: 'bar',
      encoding: {
        x: { field: 'task', type: 'nominal', sort: tasks, axis: { labelAngle: 0 } },
        xOffset: { field: 'reranked', type: 'nominal' },
        y: { field: 'delta', type: 'quantitative', title: 'Δ nDCG@10' },
        color: { field: 'reranked', type: 'nominal', legend: { orient: 'bottom', direction: 'vertical' } },
      },
    },
  };
  const html = [
    htmlTable(header, rows, {
      caption: 'Reranked entries: change over their first stage; the recall ceiling is the first stage Recall@depth (no reranker can exceed it)',
    }),
  ].join('\n');
  return { section: { id: `rerank-${gi}`, title: `Reranking — ${g.label}`, html }, chart };
}

/** The subtasks a group's retrievers were scored on, with their query counts (the first retriever that has each). */
function subtaskCounts(g: ReleaseGroup): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of g.retrievers) for (const [s, grp] of Object.entries(r.subtasks ?? {})) if (!out.has(s)) out.set(s, grp.queries);
  return out;
}

/** Query-weighted mean of nDCG@10 over the given subtasks (those of `task` only, when given). */
function sharedMean(r: RetrieverResult, subtasks: readonly string[], task?: string): number {
  let sum = 0;
  let n = 0;
  for (const s of subtasks) {
    const grp = r.subtasks?.[s] as (GroupResult & { task?: string }) | undefined;
    if (grp === undefined || (task !== undefined && grp.task !== task)) continue;
    sum += grp.metrics['ndcg@10'] * grp.queries;
    n += grp.queries;
  }
  return n > 0 ? sum / n : Number.NaN;
}

/**
 * What changed in the composition of two releases: subtasks only in one of them, and subtasks whose
 * share of all queries moved by more than 5 points. Empty when the composition is the same.
 */
function compositionChanges(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): string[] {
  const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((x, y) => x + y, 0) || 1;
  const ta = total(a);
  const tb = total(b);
  const out: string[] = [];
  const onlyA = [...a.keys()].filter((s) => !b.has(s));
  const onlyB = [...b.keys()].filter((s) => !a.has(s));
  if (onlyB.length > 0) out.push(`added ${onlyB.map((s) => `${s} (${b.get(s)} queries)`).join(', ')}`);
  if (onlyA.length > 0) out.push(`removed ${onlyA.map((s) => `${s} (${a.get(s)} queries)`).join(', ')}`);
  for (const [s, na] of a) {
    const nb = b.get(s);
    if (nb === undefined) continue;
    const moved = (nb / tb - na / ta) * 100;
    if (Math.abs(moved) > 5) out.push(`${s} share ${((na / ta) * 100).toFixed(1)}% → ${((nb / tb) * 100).toFixed(1)}%`);
  }
  return out;
}

/**
 * Cross-release stability between two groups of the same protocol, `a` the older (the paper's
 * Table 14), and the same change measured on the subtasks both releases share, so a change of
 * composition is not read as a change of the models.
 */
function stabilitySection(a: ReleaseGroup, b: ReleaseGroup, pi: number): { section: Section; chart: ChartSpec } | null {
  const shared = a.retrievers.filter((r) => b.retrievers.some((x) => x.name === r.name));
  if (shared.length === 0) return null;
  const other = (r: RetrieverResult) => b.retrievers.find((x) => x.name === r.name)!;
  const tasks = taskNames(a).filter((t) => taskNames(b).includes(t));
  const oa = shared.map((r) => r.overall.metrics['ndcg@10']);
  const ob = shared.map((r) => other(r).overall.metrics['ndcg@10']);
  const rank = (xs: number[]) => xs.map((x) => 1 + xs.filter((y) => y > x).length);
  const ra = rank(oa);
  const rb = rank(ob);
  const deltas = shared
    .flatMap((r) => tasks.map((t) => Math.abs((other(r).tasks[t]?.metrics['ndcg@10'] ?? NaN) - (r.tasks[t]?.metrics['ndcg@10'] ?? NaN))))
    .filter(Number.isFinite);
  const sortedD = [...deltas].sort((x, y) => x - y);
  const median =
    sortedD.length === 0
      ? NaN
      : sortedD.length % 2
        ? sortedD[(sortedD.length - 1) / 2]
        : (sortedD[sortedD.length / 2 - 1] + sortedD[sortedD.length / 2]) / 2;
  const rho = spearman(oa, ob);
  const tau = kendallTauB(oa, ob);
  const header = [
    'retriever',
    `${a.label} rank`,
    `${b.label} rank`,
    `${a.label} nDCG@10`,
    `${b.label} nDCG@10`,
    'Δ overall',
    ...tasks.map((t) => `Δ ${t}`),
  ];
  const rows = shared.map((r, i) => [
    r.name,
    String(ra[i]),
    String(rb[i]),
    f4(oa[i]),
    f4(ob[i]),
    signed(ob[i] - oa[i]),
    ...tasks.map((t) => signed((other(r).tasks[t]?.metrics['ndcg@10'] ?? NaN) - (r.tasks[t]?.metrics['ndcg@10'] ?? NaN))),
  ]);
  // The same change on the subtasks both releases have.
  const ca = subtaskCounts(a);
  const cb = subtaskCounts(b);
  const common = [...ca.keys()].filter((s) => cb.has(s)).sort();
  const onlyA = [...ca.keys()].filter((s) => !cb.has(s)).sort();
  const onlyB = [...cb.keys()].filter((s) => !ca.has(s)).sort();
  const changes = compositionChanges(ca, cb);
  const sharedRows = shared.map((r) => [
    r.name,
    f4(sharedMean(r, common)),
    f4(sharedMean(other(r), common)),
    signed(sharedMean(other(r), common) - sharedMean(r, common)),
    ...tasks.map((t) => signed(sharedMean(other(r), common, t) - sharedMean(r, common, t))),
  ]);
  const leftOut =
    onlyA.length + onlyB.length === 0
      ? 'Both releases have the same subtasks.'
      : `Left out of this table: ${[onlyA.length > 0 ? `only in ${a.label}: ${onlyA.join(', ')}` : '', onlyB.length > 0 ? `only in ${b.label}: ${onlyB.join(', ')}` : ''].filter((x) => x !== '').join('; ')} (a subtask one release lacks has no change to measure).`;
  const summary = `${shared.length} retrievers in both. Spearman ρ = ${Number.isFinite(rho) ? rho.toFixed(3) : 'n/a'}, Kendall τ-b = ${Number.isFinite(tau) ? tau.toFixed(3) : 'n/a'} (overall nDCG@10 rankings); median |Δ| per-task nDCG@10 = ${f4(median)}, max ${f4(sortedD[sortedD.length - 1])}.`;
  const values = shared.flatMap((r, i) => [
    { retriever: r.name, release: a.label, ndcg: oa[i] },
    { retriever: r.name, release: b.label, ndcg: ob[i] },
  ]);
  const chart: ChartSpec = {
    id: 'stability',
    title: `Cross-release stability: ${a.label} → ${b.label}`,
    alt: `Slope chart of overall nDCG@10 per retriever in ${a.label} and ${b.label}. ${summary}`,
    table: { header: ['retriever', a.label, b.label], rows: shared.map((r, i) => [r.name, f4(oa[i]), f4(ob[i])]) },
    spec: {
      title: `Cross-release stability: ${a.label} → ${b.label}`,
      width: 260,
      height: 260,
      data: { values },
      mark: { type: 'line', point: { filled: true, size: 60 } },
      encoding: {
        x: { field: 'release', type: 'ordinal', title: 'release', sort: [a.label, b.label], axis: { labelAngle: 0 } },
        y: { field: 'ndcg', type: 'quantitative', title: 'overall nDCG@10', scale: { zero: false } },
        color: { field: 'retriever', type: 'nominal', legend: { orient: 'bottom', direction: 'vertical' } },
      },
    },
  };
  const html = [
    `<p>${esc(summary)} Releases ordered by date (${esc(a.label)} before ${esc(b.label)}).</p>`,
    changes.length > 0
      ? `<p class="warn"><strong>Composition changed</strong>: ${esc(changes.join('; '))}. The change of the overall and per-task numbers mixes the models' change with the releases'; the second table compares the shared subtasks only.</p>`
      : '',
    htmlTable(header, rows, { caption: `Per-retriever change from ${a.label} to ${b.label}, as published (paper Table 14)` }),
    htmlTable(
      ['retriever', `${a.label} nDCG@10 (shared)`, `${b.label} nDCG@10 (shared)`, 'Δ shared', ...tasks.map((t) => `Δ ${t} (shared)`)],
      sharedRows,
      {
        caption: `The same change on the ${common.length} subtasks both releases have (query-weighted over those subtasks)`,
      },
    ),
    `<p class="note">${esc(leftOut)}</p>`,
  ].join('\n');
  const id = pi === 0 ? 'stability' : `stability-${pi}`;
  return { section: { id, title: `Cross-release stability — ${a.label} → ${b.label}`, html }, chart: { ...chart, id } };
}

/** The release's descriptive tables (paper Tables 1, 9, 16 and §A.8), when the results carry them. */
function datasetSection(g: ReleaseGroup, gi: number): Section | null {
  const st = g.results.dataset.stats;
  if (st === undefined) return null;
  return { id: `dataset-${gi}`, title: `Dataset — ${g.label}`, html: datasetTables(st, 'the whole release') };
}

/**
 * The releases of the report pooled (each release once, however many groups score it), as the
 * paper's tables aggregate its releases; null with fewer than two releases carrying statistics.
 */
function pooledDatasetSection(groups: readonly ReleaseGroup[]): Section | null {
  const seen = new Map<string, { split: string; stats: DatasetStats }>();
  // Oldest release first (as the cross-release view orders them).
  for (const g of oldestFirst(groups)) {
    const st = g.results.dataset.stats;
    if (st !== undefined && !seen.has(g.results.dataset.sha256)) seen.set(g.results.dataset.sha256, { split: g.split, stats: st });
  }
  if (seen.size < 2) return null;
  const splits = [...seen.values()].map((x) => x.split).join(', ');
  return {
    id: 'dataset-pooled',
    title: `Dataset — ${seen.size} releases pooled`,
    html: `<p>${esc(splits)} together: every mean over all items of all releases, counts summed (the aggregation of the paper's descriptive tables; <code>coreb validate A B</code> prints the same).</p>\n${datasetTables(poolDatasetStats([...seen.values()].map((x) => x.stats)), `${seen.size} releases pooled`)}`,
  };
}

function datasetTables(st: DatasetStats, scope: string): string {
  const t = st.tokens;
  const rows: string[][] = [];
  for (const [k, m] of Object.entries(t.queryTasks)) rows.push([`${k} queries`, m.meanTokens.toFixed(1), String(m.items)]);
  for (const [k, m] of Object.entries(t.queryVariants)) rows.push([`  ${k} (languages pooled)`, m.meanTokens.toFixed(1), String(m.items)]);
  for (const [k, m] of Object.entries(t.codeCorpus)) rows.push([`code corpus: ${k}`, m.meanTokens.toFixed(1), String(m.items)]);
  for (const [k, m] of Object.entries(t.textCorpus)) rows.push([`text corpus: ${k}`, m.meanTokens.toFixed(1), String(m.items)]);
  const models = Object.keys(st.verified).sort();
  const langs = [...new Set(models.flatMap((m) => Object.keys(st.verified[m])))].sort();
  const share = (c: { programs: number; passed: number } | undefined) =>
    c === undefined || c.programs === 0 ? '–' : `${((100 * c.passed) / c.programs).toFixed(1)}% (${c.passed}/${c.programs})`;
  const html = [
    htmlTable(['group', `mean ${t.encoding} tokens`, 'items'], rows, {
      caption: `Average length in ${t.encoding} tokens (paper Tables 1, 9, 16), ${scope}`,
    }),
    models.length > 0
      ? htmlTable(
          ['model', ...langs],
          models.map((m) => [m, ...langs.map((l) => share(st.verified[m][l]))]),
          { caption: 'Verified-correct programs per model and language (paper §A.8): passed / programs in the code corpus' },
        )
      : '',
  ].join('\n');
  return html;
}

function heatTables(g: ReleaseGroup): string {
  const parts: string[] = [];
  const tasks = taskNames(g);
  for (const t of tasks) {
    const langs = [...new Set(g.retrievers.flatMap((r) => Object.keys(r.languages?.[t] ?? {})))].sort();
    if (langs.length === 0) continue;
    parts.push(
      htmlTable(
        ['retriever', ...langs],
        g.retrievers.map((r) => [r.name, ...langs.map((l) => f4(r.languages[t]?.[l]?.metrics['ndcg@10']))]),
        { heat: true, caption: `${t}: nDCG@10 per language (pooled: every query of the language)` },
      ),
    );
    const views = g.retrievers.map((r) => nonSearchLanguageMeans(r, t));
    if (views.some((v) => Object.keys(v).length > 0)) {
      parts.push(
        htmlTable(
          ['retriever', ...langs],
          g.retrievers.map((r, i) => [r.name, ...langs.map((l) => f4(views[i][l]))]),
          { heat: true, caption: `${t}: nDCG@10 per language, the paper's view (§B.6): mean of the non-search language subtasks, each counted once` },
        ),
      );
    }
  }
  return parts.join('\n');
}

function subtaskTable(g: ReleaseGroup): string {
  const subtasks = [...new Set(g.retrievers.flatMap((r) => Object.keys(r.subtasks ?? {})))].sort();
  if (subtasks.length === 0) return '<p>No subtasks in these results.</p>';
  return htmlTable(
    ['subtask', 'queries', ...g.retrievers.map((r) => r.name)],
    subtasks.map((s) => [
      s,
      String(g.retrievers.find((r) => r.subtasks[s])?.subtasks[s].queries ?? ''),
      ...g.retrievers.map((r) => f4(r.subtasks[s]?.metrics['ndcg@10'])),
    ]),
    { heat: true, heatFrom: 2, caption: 'nDCG@10 per subtask' },
  );
}

function queryTypeTable(g: ReleaseGroup): string {
  const keys = [
    ...new Set(g.retrievers.flatMap((r) => Object.entries(r.subQueryTypes ?? {}).flatMap(([t, m]) => Object.keys(m).map((k) => `${t}\u0000${k}`)))),
  ].sort();
  if (keys.length === 0) return '<p>No sub_query_type groups in these results.</p>';
  return htmlTable(
    ['task / sub_query_type', ...g.retrievers.map((r) => r.name)],
    keys.map((k) => {
      const [t, s] = k.split('\u0000');
      return [`${t} / ${s}`, ...g.retrievers.map((r) => f4(r.subQueryTypes[t]?.[s]?.metrics['ndcg@10']))];
    }),
    { heat: true, caption: 'nDCG@10 per sub_query_type (t2c) and text type (c2t)' },
  );
}

function diagnosticsTable(g: ReleaseGroup): string {
  const tasks = taskNames(g);
  const header = ['retriever', 'task', 'intrusion rate', 'eligible queries', 'HN/q@10', 'nDCG@10 − Recall@10'];
  const rows = g.retrievers.flatMap((r) =>
    tasks.map((t) => {
      const d = r.tasks[t]?.diagnostics;
      return [
        r.name,
        t,
        f4(d?.intrusionRate),
        String(d?.intrusionEligible ?? '–'),
        typeof d?.hardNegativesTop10 === 'number' ? d.hardNegativesTop10.toFixed(2) : '–',
        signed(d?.ndcgRecallGap10),
      ];
    }),
  );
  return [
    htmlTable(header, rows, { caption: 'Hard-negative diagnostics per task' }),
    '<p class="note">Intrusion = among queries with a positive and a hard negative (label 1) in the top 10, the share where a hard negative ranks above every positive (paper §4.2, Fig. 7). HN/q@10 = hard negatives per query in the top 10.</p>',
  ].join('\n');
}

function provenance(groups: readonly ReleaseGroup[]): string {
  const parts: string[] = [];
  for (const g of groups) {
    for (const f of g.files) {
      const r = f.results;
      const d = r.dataset;
      const kv = (obj: Record<string, unknown>) =>
        htmlTable(
          ['field', 'value'],
          Object.entries(obj).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]),
          { rowHeader: true },
        );
      parts.push(
        `<details><summary>${esc(f.file)} — ${esc(d.kind)} ${esc(d.split)}, sha256 ${esc(d.sha256.slice(0, 16))}…</summary>`,
        `<p>coreb ${esc(String(r.coreb?.version ?? '?'))}, created ${esc(String(r.createdAt))}, schema ${esc(String(r.schema))}.</p>`,
        '<h4>Dataset</h4>',
        kv({ kind: d.kind, dir: d.dir, split: d.split, sha256: d.sha256 }),
        htmlTable(
          ['task', 'documents', 'queries'],
          Object.entries(d.counts ?? {}).map(([t, c]) => [t, String(c.corpus), String(c.queries)]),
        ),
        `<details><summary>${(d.files ?? []).length} files</summary>`,
        htmlTable(
          ['path', 'bytes', 'sha256'],
          (d.files ?? []).map((x) => [x.path, String(x.bytes), x.sha256]),
        ),
        '</details>',
        '<h4>Protocol</h4>',
        kv(r.protocol as unknown as Record<string, unknown>),
        '<h4>Options</h4>',
        kv(r.options as unknown as Record<string, unknown>),
        '<h4>Retrievers</h4>',
        ...r.retrievers.map(
          (x) => `<p><strong>${esc(x.name)}</strong> (spec <code>${esc(x.spec)}</code>)</p><pre>${esc(JSON.stringify(x.description, null, 2))}</pre>`,
        ),
        '</details>',
      );
    }
  }
  return parts.join('\n');
}

function contaminationSection(studies: ReadonlyArray<{ file: string; summary: ContaminationSummary }>): string {
  return [
    ...studies.map((st) =>
      htmlTable(CONTAMINATION_HEADER, contaminationRows(st.summary), { caption: `Pass@1 on original vs rewritten problems — ${st.file}` }),
    ),
    '<p class="note">Each solver wrote programs for the original problems and for their counterfactual rewrites (paper §A.7, Table 13); Pass@1 per model and per language, Δ = rewritten − original in percentage points (negative: the rewrite hurts, which suggests the originals were seen in training), the paired 2×2 table (both pass, original only, rewritten only, neither) and McNemar’s exact two-sided p on the discordant pairs.</p>',
  ].join('\n');
}

const STYLE = `
:root { color-scheme: light; }
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #111; line-height: 1.4; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
nav ul { columns: 2; }
.table-wrap { overflow-x: auto; margin: .6rem 0; }
table { border-collapse: collapse; font-size: .85rem; }
caption { text-align: left; font-weight: bold; padding: .3rem 0; }
th, td { border: 1px solid #bbb; padding: .2rem .45rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
sup { color: #0b4f8a; font-weight: bold; margin-left: .1rem; }
figure { margin: 1rem 0; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #333; }
.note { font-size: .85rem; color: #333; }
pre { background: #f6f6f6; padding: .5rem; overflow-x: auto; font-size: .8rem; }
details { margin: .4rem 0; } summary { cursor: pointer; }
@media print { details { display: block; } details > summary { list-style: none; } nav { display: none; } body { margin: 0; max-width: none; } }
`;

function figure(c: RenderedChart): string {
  return [
    `<figure id="fig-${esc(c.id)}" class="chart">`,
    c.svg,
    `<figcaption>${esc(c.alt)} <a href="charts/${esc(c.id)}.svg">SVG</a> · <a href="charts/${esc(c.id)}.png">PNG</a></figcaption>`,
    `<details><summary>Data of this chart</summary>${htmlTable(c.table.header, c.table.rows)}</details>`,
    '</figure>',
  ].join('\n');
}

/** Builds the page and its charts (no I/O besides lazily loading the chart renderer). */
export async function renderHtmlReport(
  files: readonly LoadedResults[],
  options: Omit<HtmlReportOptions, 'outDir' | 'png' | 'logger'> = {},
): Promise<{ html: string; charts: RenderedChart[] }> {
  const studies = options.contamination ?? [];
  if (files.length === 0 && studies.length === 0) throw new CorebError('USAGE', 'coreb report needs at least one results file or contamination.json');
  const o = { alpha: options.alpha ?? 0.05, permutations: options.permutations ?? 10000, seed: options.seed ?? 42 };
  const turns = new EventLoopTurns(options.signal);
  // Every section lists a group's rows in its leaderboard's order.
  const groups = groupResults(files).map((g) => ({ ...g, retrievers: leaderboardRows(g).sorted }));
  const colours = retrieverColours(groups);
  const body: string[] = [];
  const toc: Array<{ id: string; title: string }> = [];
  const charts: RenderedChart[] = [];
  const render = async (spec: ChartSpec | null): Promise<string> => {
    if (spec === null) return '';
    const coloured = { ...spec, spec: withRetrieverColours(spec.spec, colours) };
    const rendered: RenderedChart = { ...coloured, svg: await renderChartSvg(coloured) };
    charts.push(rendered);
    return figure(rendered);
  };
  const section = (s: Section) => {
    toc.push({ id: s.id, title: s.title });
    body.push(`<section id="${esc(s.id)}"><h2>${esc(s.title)}</h2>\n${s.html}\n</section>`);
  };
  const why = explainGroups(groups);
  if (why.length > 0) {
    section({
      id: 'leaderboards',
      title: `${groups.length} leaderboards`,
      html: `<p>These results form ${groups.length} leaderboards, one per dataset and protocol: rows of different datasets or protocols are never ranked together or tested against each other, because their numbers do not measure the same thing.</p>\n<ul>${why.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`,
    });
  }
  for (const [gi, g] of groups.entries()) {
    if (turns.due()) await turns.take(() => `coreb report stopped at ${g.label}`);
    const lb = await leaderboardSection(g, { ...o, turns }, gi);
    section({ ...lb, html: lb.html + (await render(tasksChart(g, gi))) });
    const ds = datasetSection(g, gi);
    if (ds !== null) section(ds);
    section({ id: `languages-${gi}`, title: `Per language — ${g.label}`, html: heatTables(g) + (await render(languageChart(g, gi))) });
    section({ id: `subtasks-${gi}`, title: `Per subtask — ${g.label}`, html: subtaskTable(g) });
    section({ id: `query-types-${gi}`, title: `Per sub_query_type — ${g.label}`, html: queryTypeTable(g) });
    section({ id: `diagnostics-${gi}`, title: `Hard negatives — ${g.label}`, html: diagnosticsTable(g) + (await render(intrusionChart(g, gi))) });
    const rc = recallChart(g, gi);
    if (rc !== null) section({ id: `recall-${gi}`, title: `Recall@k — ${g.label}`, html: await render(rc) });
    const rr = rerankSection(g, gi);
    if (rr !== null) section({ ...rr.section, html: rr.section.html + (await render(rr.chart)) });
  }
  const pooled = pooledDatasetSection(groups);
  if (pooled !== null) section(pooled);
  for (const [pi, [a, b]] of crossReleasePairs(groups).entries()) {
    const st = stabilitySection(a, b, pi);
    if (st !== null) section({ ...st.section, html: st.section.html + (await render(st.chart)) });
    else
      section({
        id: pi === 0 ? 'stability' : `stability-${pi}`,
        title: 'Cross-release stability',
        html: `<p>${esc(`${a.label} and ${b.label} share no retriever name; nothing to compare.`)}</p>`,
      });
  }
  if (studies.length > 0) section({ id: 'contamination', title: 'Contamination study', html: contaminationSection(studies) });
  if (groups.length > 0)
    section({
      id: 'provenance',
      title: 'Provenance',
      html: `<p>Dataset identity, protocol and retriever descriptions of every results file.</p>\n${provenance(groups)}`,
    });
  const title = options.title ?? 'CoREB report';
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body>`,
    `<header><h1>${esc(title)}</h1><p>${esc([...groups.map((g) => `${g.label}: ${g.retrievers.length} retriever(s)`), ...(studies.length > 0 ? [`${studies.length} contamination stud${studies.length === 1 ? 'y' : 'ies'}`] : [])].join(' · '))}. Generated ${esc(options.now ?? new Date().toISOString())} by coreb report.</p></header>`,
    `<nav aria-label="Contents"><ul>${toc.map((t) => `<li><a href="#${esc(t.id)}">${esc(t.title)}</a></li>`).join('')}</ul></nav>`,
    '<main>',
    ...body,
    '</main></body></html>',
    '',
  ].join('\n');
  return { html, charts };
}

/**
 * Writes `index.html` and `charts/<id>.svg` (+ `.png` unless `png: false`) into `outDir`, atomically.
 * A missing PNG renderer is a warning (the page and SVGs are complete without it).
 */
export async function writeHtmlReport(files: readonly LoadedResults[], options: HtmlReportOptions): Promise<HtmlReportOutput> {
  const logger = options.logger ?? silentLogger;
  const { html, charts } = await renderHtmlReport(files, options);
  const out: HtmlReportOutput = { html, indexFile: join(options.outDir, 'index.html'), charts: [] };
  let png = options.png ?? true;
  for (const c of charts) {
    const svgFile = join(options.outDir, 'charts', `${c.id}.svg`);
    await saveAtomic(svgFile, `<?xml version="1.0" encoding="UTF-8"?>\n${c.svg}\n`);
    let pngFile: string | null = null;
    if (png) {
      try {
        pngFile = join(options.outDir, 'charts', `${c.id}.png`);
        await saveAtomic(pngFile, await renderPng(c.svg));
      } catch (e) {
        if (!(e instanceof CorebError) || e.code !== 'UNSUPPORTED') throw e;
        logger.warn(`${e.message}; writing SVG charts only`);
        png = false;
        pngFile = null;
      }
    }
    out.charts.push({ id: c.id, svgFile, pngFile });
  }
  await saveAtomic(out.indexFile, html);
  return out;
}
