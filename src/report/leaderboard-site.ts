/**
 * `coreb leaderboard --site OUT`: a static multi-page site of leaderboards: an index, one page
 * per release and protocol, one per model (every release, every task, per language and subtask),
 * the cross-release view and the parameter-efficiency (Pareto) charts. Plain HTML and inline SVG,
 * no script, no network: it opens from the file system and prints.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { formatParameters } from '../core/model-meta.js';
import type { GroupResult, RetrieverResult } from '../core/eval-results.js';
import { saveAtomic } from '../dataset/atomic-write.js';
import type { LoadedResults } from '../dataset/results-file.js';
import { escapeXml as esc, renderChartSvg, type ChartSpec } from './charts.js';
import { formatScore } from './grid.js';
import {
  boardName,
  buildLeaderboards,
  crossReleaseViews,
  leaderboardGroups,
  marksOf,
  paretoPoints,
  type CrossRelease,
  type Leaderboard,
  type LeaderboardOptions,
  type LeaderboardRow,
} from './leaderboard.js';

/** Options of {@link writeLeaderboardSite}. */
export interface SiteOptions extends LeaderboardOptions {
  outDir: string;
  /** Page title prefix. Default `CoREB leaderboard`. */
  title?: string;
  /** The boards of `files`, already built by {@link buildLeaderboards} with these options (not built again). */
  boards?: Leaderboard[];
}

/** What {@link writeLeaderboardSite} wrote. */
export interface SiteOutput {
  /** Every page, relative to the output directory. */
  pages: string[];
  boards: Leaderboard[];
}

const f4 = formatScore;

/** A file-name slug: safe characters and a short hash of the whole name (distinct names, distinct files). */
function slug(name: string, identity = name): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 60);
  return `${safe || 'x'}-${createHash('sha256').update(identity).digest('hex').slice(0, 6)}`;
}

const CSS = `
:root { color-scheme: light; --fg:#1a1a1a; --muted:#555; --line:#d0d0d0; --accent:#0072B2; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 3rem; }
nav { border-bottom: 1px solid var(--line); padding: .5rem 0; margin-bottom: 1rem; }
nav a { margin-right: 1.2rem; color: var(--accent); }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .6rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; }
thead th { border-bottom: 2px solid #888; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
.note { color: var(--muted); font-size: .9rem; max-width: 60rem; }
.table-wrap { overflow-x: auto; }
sup { color: var(--accent); font-size: .7em; }
svg text { font: 12px system-ui, sans-serif; }
@media print { nav { display: none; } }
`;

function page(title: string, depth: number, body: string): string {
  const up = depth === 0 ? '' : '../'.repeat(depth);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<nav><a href="${up}index.html">Leaderboards</a><a href="${up}cross-release.html">Across releases</a><a href="${up}pareto.html">Parameters vs score</a><a href="${up}models.html">Models</a></nav>
<main>
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

function table(header: string[], rows: string[][], caption?: string, numericFrom = 1): string {
  return [
    '<div class="table-wrap"><table>',
    caption !== undefined ? `<caption>${esc(caption)}</caption>` : '',
    `<thead><tr>${header.map((h, i) => `<th scope="col"${i >= numericFrom ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('\n')}</tbody>`,
    '</table></div>',
  ].join('\n');
}

const td = (html: string, attrs = '', numeric = true) => `<td${numeric ? ' class="num"' : ''}${attrs}>${html}</td>`;

function boardTitle(b: Leaderboard): string {
  return `${boardName(b)} — protocol ${b.protocol}`;
}

/** The leaderboard table; every score cell carries `data-retriever` and `data-col` (what the tests read). */
function boardTable(b: Leaderboard, modelHref: (name: string) => string): string {
  const first = b.rankBy === 'taskMean' ? 'task mean' : 'overall';
  const header = [
    '#',
    '',
    'retriever',
    `${b.measure} ${first}`,
    b.rankBy === 'taskMean' ? 'overall' : 'task mean',
    ...b.tasks,
    ...b.extraMeasures,
    'parameters',
    'queries',
  ];
  const marks = (r: LeaderboardRow, scope: string) => {
    const letters = marksOf(b, r, scope);
    return letters === ''
      ? ''
      : `<sup title="significantly better than ${esc((r.significantlyBetterThan[scope] ?? []).join(', '))}">${letters}</sup>`;
  };
  const cell = (r: LeaderboardRow, col: string, v: number | null, scope?: string) =>
    td(`${f4(v)}${scope !== undefined ? marks(r, scope) : ''}`, ` data-retriever="${esc(r.retriever)}" data-col="${esc(col)}"`);
  const rows = b.rows.map((r) => {
    const a = b.rankBy === 'taskMean' ? r.taskMean : r.overall;
    const c = b.rankBy === 'taskMean' ? r.overall : r.taskMean;
    return [
      td(r.rank === null ? '–' : String(r.rank)),
      td(r.letter, '', false),
      `<th scope="row"><a href="${modelHref(r.retriever)}">${esc(r.retriever)}</a>${r.imported !== undefined ? ' <span title="imported from published MTEB results">†</span>' : ''}</th>`,
      cell(r, b.rankBy, a, 'overall'),
      cell(r, b.rankBy === 'taskMean' ? 'overall' : 'taskMean', c),
      ...b.tasks.map((t) => cell(r, t, r.tasks[t], t)),
      ...b.extraMeasures.map((m) => cell(r, m, r.measures[m])),
      td(esc(formatParameters(r.model?.parameters)), r.model?.parameters != null ? ` data-parameters="${r.model.parameters}"` : ''),
      td(r.queries === null ? '–' : String(r.queries)),
    ];
  });
  return table(header, rows, `Leaderboard — ${boardTitle(b)}, best ${first} ${b.measure} first`, 3);
}

/** Width and height of the Pareto chart's plot area, px (the labels are placed for this size). */
const PARETO_W = 520;
const PARETO_H = 320;
/** Width of a label character at the charts' 11 px font, px (an estimate; Vega's renderer estimates too). */
const CHAR_W = 6.3;

/**
 * Where each point's label goes: right, left, above or below the point, the first place that
 * overlaps no point and no label placed before (points in order of score, best first); a label
 * with no free place is left out (the table under the chart lists every point). `obstacles`
 * (x0, y0, x1, y1 in px) are other marks labels must not cover: the frontier's segments.
 */
export function placeParetoLabels(
  points: ReadonlyArray<{ retriever: string; x: number; y: number }>,
  obstacles: ReadonlyArray<[number, number, number, number]> = [],
): Map<string, { dx: number; dy: number; align: 'left' | 'right' | 'center' } | null> {
  type Box = [number, number, number, number];
  const boxes: Box[] = [...points.map((p): Box => [p.x - 5, p.y - 5, p.x + 5, p.y + 5]), ...obstacles];
  const hit = (b: Box) =>
    b[0] < 0 || b[2] > PARETO_W + 160 || b[1] < -10 || b[3] > PARETO_H || boxes.some((o) => b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]);
  const out = new Map<string, { dx: number; dy: number; align: 'left' | 'right' | 'center' } | null>();
  for (const p of [...points].sort((a, b) => a.y - b.y)) {
    const w = p.retriever.length * CHAR_W;
    const options: Array<{ dx: number; dy: number; align: 'left' | 'right' | 'center'; box: Box }> = [
      { dx: 8, dy: 4, align: 'left', box: [p.x + 8, p.y - 6, p.x + 8 + w, p.y + 6] },
      { dx: -8, dy: 4, align: 'right', box: [p.x - 8 - w, p.y - 6, p.x - 8, p.y + 6] },
      { dx: 0, dy: -9, align: 'center', box: [p.x - w / 2, p.y - 20, p.x + w / 2, p.y - 8] },
      { dx: 0, dy: 17, align: 'center', box: [p.x - w / 2, p.y + 7, p.x + w / 2, p.y + 19] },
    ];
    const free = options.find((o) => !hit(o.box));
    if (free === undefined) out.set(p.retriever, null);
    else {
      boxes.push(free.box);
      out.set(p.retriever, { dx: free.dx, dy: free.dy, align: free.align });
    }
  }
  return out;
}

/**
 * The Pareto chart of one leaderboard as a Vega-Lite spec (the report's one chart path): score
 * against parameters (log scale), the frontier as a step line, rows without parameters (BM25) as
 * dashed reference lines, every label placed where it overlaps nothing ({@link placeParetoLabels}).
 * Null when no row has a parameter count above 0: there is nothing to plot against.
 */
export function paretoChart(b: Leaderboard): ChartSpec | null {
  const { points } = paretoPoints(b);
  const zero = points.filter((p) => p.parameters === 0);
  const pts = points.filter((p) => p.parameters > 0);
  if (pts.length === 0) return null;
  const lo = Math.floor(Math.log10(Math.min(...pts.map((p) => p.parameters))));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...pts.map((p) => p.parameters)))));
  const ymax = Math.min(1, Math.ceil((Math.max(...points.map((p) => p.score)) * 1.1 + 1e-9) * 10) / 10) || 1;
  const px = (n: number) => ((Math.log10(n) - lo) / (hi - lo)) * PARETO_W;
  const py = (v: number) => PARETO_H - (v / ymax) * PARETO_H;
  // The frontier's step line (step-after: across at a point's score, then up to the next point).
  const steps = pts.filter((p) => p.frontier).sort((m, n) => m.parameters - n.parameters);
  const segments: Array<[number, number, number, number]> = steps.slice(1).flatMap((n, i): Array<[number, number, number, number]> => {
    const m = steps[i];
    return [
      [px(m.parameters), py(m.score) - 1.5, px(n.parameters), py(m.score) + 1.5],
      [px(n.parameters) - 1.5, py(n.score), px(n.parameters) + 1.5, py(m.score)],
    ];
  });
  const labels = placeParetoLabels(
    pts.map((p) => ({ retriever: p.retriever, x: px(p.parameters), y: py(p.score) })),
    segments,
  );
  const values = pts.map((p) => ({
    retriever: p.retriever,
    parameters: p.parameters,
    score: p.score,
    frontier: p.frontier ? 'on the frontier' : 'dominated',
    ...(labels.get(p.retriever) ?? { align: 'none' }),
  }));
  const frontier = values.filter((v) => v.frontier === 'on the frontier').sort((x, y) => x.parameters - y.parameters);
  const x = {
    field: 'parameters',
    type: 'quantitative',
    title: 'parameters (log scale)',
    scale: { type: 'log', domain: [10 ** lo, 10 ** hi] },
    axis: { format: '~s' },
  };
  const y = {
    field: 'score',
    type: 'quantitative',
    title: `${b.measure} (${b.rankBy === 'taskMean' ? 'task mean' : 'overall'})`,
    scale: { domain: [0, ymax] },
  };
  // One text layer per place (Vega-Lite takes a label's offset and alignment from its mark).
  const PLACES = [
    { align: 'left', dx: 8, dy: 4 },
    { align: 'right', dx: -8, dy: 4 },
    { align: 'center', dx: 0, dy: -9 },
    { align: 'center', dx: 0, dy: 17 },
  ] as const;
  const labelLayers = PLACES.map((place) => ({
    data: { values: values.filter((v) => v.align === place.align && 'dy' in v && v.dy === place.dy && v.dx === place.dx) },
    mark: { type: 'text', align: place.align, dx: place.dx, dy: place.dy - 4, fontSize: 11 },
    encoding: { x, y, text: { field: 'retriever' } },
  })).filter((l) => l.data.values.length > 0);
  const left = labels.size - [...labels.values()].filter((l) => l !== null).length;
  const spec: Record<string, unknown> = {
    width: PARETO_W,
    height: PARETO_H,
    layer: [
      ...(frontier.length > 1
        ? [{ data: { values: frontier }, mark: { type: 'line', interpolate: 'step-after', color: '#0072B2', strokeWidth: 1.5 }, encoding: { x, y } }]
        : []),
      ...zero.map((z) => ({
        data: { values: [{ score: z.score, label: `${z.retriever} (no parameters) ${f4(z.score)}` }] },
        layer: [
          { mark: { type: 'rule', strokeDash: [5, 4], color: '#D55E00' }, encoding: { y } },
          { mark: { type: 'text', align: 'right', dy: -6, color: '#D55E00', fontSize: 11, x: PARETO_W }, encoding: { y, text: { field: 'label' } } },
        ],
      })),
      {
        data: { values },
        mark: { type: 'point', size: 70, strokeWidth: 1.5, color: '#0072B2', opacity: 1 },
        encoding: {
          x,
          y,
          fill: {
            field: 'frontier',
            type: 'nominal',
            scale: { domain: ['on the frontier', 'dominated'], range: ['#0072B2', '#ffffff'] },
            legend: { title: null, orient: 'bottom' },
          },
          tooltip: [{ field: 'retriever' }, { field: 'parameters', format: '~s' }, { field: 'score', format: '.4f' }],
        },
      },
      ...labelLayers,
    ],
  };
  return {
    id: `pareto-${slug(b.label)}`,
    title: `${b.measure} against parameters — ${boardTitle(b)}`,
    alt: `${b.measure} (${b.rankBy === 'taskMean' ? 'task mean' : 'overall'}) against parameters, ${boardTitle(b)}: ${points
      .map((p) => `${p.retriever}: ${formatParameters(p.parameters)} parameters, ${f4(p.score)}${p.frontier ? ' (frontier)' : ''}`)
      .join('; ')}.${left > 0 ? ` ${left} label(s) left out where they would overlap (see the table).` : ''}`,
    table: {
      header: ['retriever', 'parameters', b.measure, 'frontier'],
      rows: points.map((p) => [p.retriever, formatParameters(p.parameters), f4(p.score), p.frontier ? 'yes' : '']),
    },
    spec,
  };
}

/** Each board's Pareto section, rendered once (the board's page and pareto.html show it). */
const paretoSections = new WeakMap<Leaderboard, Promise<string>>();

function paretoSection(b: Leaderboard): Promise<string> {
  let section = paretoSections.get(b);
  if (section === undefined) paretoSections.set(b, (section = renderParetoSection(b)));
  return section;
}

async function renderParetoSection(b: Leaderboard): Promise<string> {
  const chart = paretoChart(b);
  const { points, unknown } = paretoPoints(b);
  if (chart === null) {
    return `<p class="note">No parameter counts for the rows of ${esc(boardTitle(b))}${points.length > 0 ? ` (only rows without parameters: ${esc(points.map((p) => p.retriever).join(', '))})` : ''}: give them with --model-meta FILE (see docs/report.md).</p>`;
  }
  const svg = await renderChartSvg(chart);
  return [
    `<figure class="pareto">${svg}<figcaption class="note">Filled points lie on the Pareto frontier: no row with at most as many parameters scores higher.${unknown.length > 0 ? ` Not drawn (parameters unknown): ${esc(unknown.join(', '))}.` : ''}</figcaption></figure>`,
    table(
      ['retriever', 'parameters', b.measure, 'frontier'],
      points.map((p) => [
        `<th scope="row">${esc(p.retriever)}</th>`,
        td(esc(formatParameters(p.parameters))),
        td(f4(p.score), ` data-retriever="${esc(p.retriever)}" data-col="pareto"`),
        td(p.frontier ? 'yes' : ''),
      ]),
      `Points — ${boardTitle(b)}`,
    ),
  ].join('\n');
}

function crossTable(v: CrossRelease, modelHref: (n: string) => string): string {
  return table(
    ['retriever', ...v.releases],
    v.rows.map((r) => [
      `<th scope="row"><a href="${modelHref(r.retriever)}">${esc(r.retriever)}</a></th>`,
      ...v.releases.map((rel) => {
        const s = r.scores[rel];
        return td(
          s === undefined ? '–' : `${f4(s.score)}${s.rank === null ? '' : ` <span class="note">(${s.rank})</span>`}`,
          ` data-retriever="${esc(r.retriever)}" data-col="${esc(rel)}"`,
        );
      }),
    ]),
    `Protocol ${v.protocol}: ${v.rankBy === 'taskMean' ? 'task mean' : 'overall'} ${v.measure} (rank) per release, oldest first`,
  );
}

function groupRows(groups: Record<string, GroupResult>, measure: string, title: string): string {
  const names = Object.keys(groups);
  if (names.length === 0) return '';
  return table(
    ['group', 'queries', measure, 'recall@10', 'mrr@10'],
    names.map((n) => [
      `<th scope="row">${esc(n)}</th>`,
      td(String(groups[n].queries)),
      td(f4(groups[n].metrics[measure])),
      td(f4(groups[n].metrics['recall@10'])),
      td(f4(groups[n].metrics['mrr@10'])),
    ]),
    title,
  );
}

function modelPage(
  appearances: Array<{ board: Leaderboard; row: LeaderboardRow; source: RetrieverResult }>,
  boardHref: (b: Leaderboard) => string,
): string {
  const meta = appearances.find((a) => a.row.model !== undefined)?.row.model;
  const parts: string[] = [];
  if (meta !== undefined) {
    const facts: Array<[string, string]> = [
      ['parameters', formatParameters(meta.parameters)],
      ['embedding dimension', meta.embedDim === null ? '?' : String(meta.embedDim)],
      ['max tokens', meta.maxTokens === null ? '?' : String(meta.maxTokens)],
      ['open weights', meta.openWeights === null ? '?' : meta.openWeights ? 'yes' : 'no'],
      ['licence', meta.license ?? '?'],
      ['code-specialised', meta.codeSpecialised === null ? '?' : meta.codeSpecialised ? 'yes' : 'no'],
      ['release date', meta.releaseDate ?? '?'],
    ];
    parts.push(
      '<h2>Model</h2>',
      `<dl>${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd data-meta="${esc(k)}">${esc(v)}</dd>`).join('')}${meta.reference != null ? `<dt>reference</dt><dd>${esc(meta.reference)}</dd>` : ''}</dl>`,
      meta.source != null ? `<p class="note">Source: ${esc(meta.source)}.</p>` : '',
    );
  }
  parts.push(
    '<h2>Every release</h2>',
    table(
      ['leaderboard', 'rank', 'overall', 'task mean', 'queries'],
      appearances.map(({ board, row }) => [
        `<th scope="row"><a href="${boardHref(board)}">${esc(boardTitle(board))}</a></th>`,
        td(row.rank === null ? '–' : `${row.rank} of ${board.rows.filter((r) => r.rank !== null).length}`),
        td(f4(row.overall), ` data-board="${esc(board.label)}" data-col="overall"`),
        td(f4(row.taskMean), ` data-board="${esc(board.label)}" data-col="taskMean"`),
        td(row.queries === null ? '–' : String(row.queries)),
      ]),
    ),
  );
  for (const { board, source } of appearances) {
    parts.push(`<h2>${esc(boardTitle(board))}</h2>`);
    if (source.imported !== undefined) {
      parts.push(
        `<p class="note">Imported from published MTEB results (${esc(source.imported.from)}, model revision ${esc(source.imported.revision)}${source.imported.mtebVersion !== undefined ? `, mteb ${esc(source.imported.mtebVersion)}` : ''}): task means only.</p>`,
      );
    }
    const tasks = Object.keys(source.tasks);
    parts.push(
      table(
        ['task', 'queries', board.measure, 'recall@10', 'map@10', 'mrr@10'],
        tasks.map((t) => [
          `<th scope="row">${esc(t)}</th>`,
          td(source.imported !== undefined ? '–' : String(source.tasks[t].queries)),
          td(f4(source.tasks[t].metrics[board.measure]), ` data-board="${esc(board.label)}" data-col="${esc(t)}"`),
          td(f4(source.tasks[t].metrics['recall@10'])),
          td(f4(source.tasks[t].metrics['map@10'])),
          td(f4(source.tasks[t].metrics['mrr@10'])),
        ]),
        'Per task',
      ),
    );
    for (const t of tasks) {
      const langs = source.languages?.[t];
      if (langs !== undefined) parts.push(groupRows(langs, board.measure, `${t}: per language`));
    }
    const subtasks = source.subtasks ?? {};
    if (Object.keys(subtasks).length > 0) parts.push(groupRows(subtasks, board.measure, 'Per subtask'));
  }
  return parts.join('\n');
}

/**
 * Writes the site under `options.outDir`: `index.html` (every leaderboard), `boards/<slug>.html`
 * (one per release and protocol, with its Pareto chart), `models/<slug>.html` (one per model
 * name), `models.html`, `cross-release.html` and `pareto.html`. Pages are written atomically.
 */
export async function writeLeaderboardSite(files: readonly LoadedResults[], options: SiteOptions): Promise<SiteOutput> {
  // The groups come in buildLeaderboards' order, so given boards line up with them.
  const groups = leaderboardGroups(files);
  const boards = options.boards ?? (await buildLeaderboards(files, options));
  const title = options.title ?? 'CoREB leaderboard';
  const pages = new Map<string, string>();
  const boardFile = (b: Leaderboard) =>
    `boards/${slug(`${boardName(b)}-${b.protocol}`, `${b.label}|${b.protocol}|${b.datasetSha256}|${b.protocolKey}`)}.html`;
  const modelFile = (name: string) => `models/${slug(name)}.html`;
  const fromRoot = { board: (b: Leaderboard) => boardFile(b), model: (n: string) => modelFile(n) };
  const fromSub = { board: (b: Leaderboard) => `../${boardFile(b)}`, model: (n: string) => `../${modelFile(n)}` };
  const cross = crossReleaseViews(boards);

  const protocols = [...new Set(boards.map((b) => b.protocol))];
  const index: string[] = [
    `<p>${boards.length} leaderboard(s) from ${files.length} results file(s): one per release and protocol; rows of different protocols or datasets are never ranked together.</p>`,
  ];
  for (const p of protocols) {
    index.push(`<h2>Protocol ${esc(p)}</h2>`);
    for (const b of boards.filter((x) => x.protocol === p)) {
      const top = b.rows.filter((r) => r.rank !== null).slice(0, 3);
      index.push(
        `<p><a href="${fromRoot.board(b)}">${esc(boardTitle(b))}</a> — ${b.rows.length} row(s); best: ${top.map((r) => `${esc(r.retriever)} ${f4(b.rankBy === 'taskMean' ? r.taskMean : r.overall)}`).join(', ') || 'none'}</p>`,
      );
    }
  }
  pages.set('index.html', page(title, 0, index.join('\n')));

  for (const b of boards) {
    const body = [
      boardTable(b, fromSub.model),
      ...b.notes.map((n) => `<p class="note">${esc(n)}</p>`),
      '<h2>Parameters vs score</h2>',
      await paretoSection(b),
    ].join('\n');
    pages.set(boardFile(b), page(`${title}: ${boardTitle(b)}`, 1, body));
  }

  pages.set(
    'cross-release.html',
    page(
      `${title}: across releases`,
      0,
      cross.length === 0
        ? '<p class="note">One release per protocol: nothing to compare across releases yet.</p>'
        : cross.map((v) => `<h2>Protocol ${esc(v.protocol)}</h2>${crossTable(v, fromRoot.model)}`).join('\n'),
    ),
  );
  pages.set(
    'pareto.html',
    page(
      `${title}: parameters vs score`,
      0,
      (await Promise.all(boards.map(async (b) => `<h2>${esc(boardTitle(b))}</h2>${await paretoSection(b)}`))).join('\n'),
    ),
  );

  const byModel = new Map<string, Array<{ board: Leaderboard; row: LeaderboardRow; source: RetrieverResult }>>();
  boards.forEach((b, i) => {
    for (const row of b.rows) {
      const source = groups[i].retrievers.find((r) => r.name === row.retriever)!;
      const list = byModel.get(row.retriever) ?? [];
      list.push({ board: b, row, source });
      byModel.set(row.retriever, list);
    }
  });
  const names = [...byModel.keys()].sort();
  pages.set(
    'models.html',
    page(
      `${title}: models`,
      0,
      table(
        ['model', 'parameters', 'leaderboards'],
        names.map((n) => {
          const a = byModel.get(n)!;
          return [
            `<th scope="row"><a href="${fromRoot.model(n)}">${esc(n)}</a></th>`,
            td(esc(formatParameters(a.find((x) => x.row.model)?.row.model?.parameters))),
            td(
              a
                .map((x) => `<a href="${fromRoot.board(x.board)}">${esc(x.board.label)}</a>${x.row.rank !== null ? ` (#${x.row.rank})` : ''}`)
                .join(', '),
              '',
              false,
            ),
          ];
        }),
      ),
    ),
  );
  for (const n of names) pages.set(modelFile(n), page(`${title}: ${n}`, 1, modelPage(byModel.get(n)!, fromSub.board)));

  for (const [rel, html] of pages) await saveAtomic(join(options.outDir, ...rel.split('/')), html);
  return { pages: [...pages.keys()], boards };
}
