/**
 * Leaderboards over many results (a results store, results files, eval folders): one per dataset
 * and protocol, never mixing either, ranked by the protocol's aggregate, with ranx-style
 * significance marks, model metadata and the cross-release and parameter-efficiency views; and
 * their renderings as aligned text, markdown and LaTeX. Pure.
 */
import { formatParameters, type GivenModelMeta, type ModelMeta } from '../core/model-meta.js';
import { FAMILY_MEASURE, type ImportedRow, type RetrieverResult, type TaskFamily } from '../core/eval-results.js';
import type { LoadedResults } from '../dataset/results-file.js';
import { rowModelMeta } from '../providers/presets.js';
import { significantWins } from './compare.js';
import { EventLoopTurns } from '../core/event-loop-turns.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { latexEscape, renderTable, type TableFormat } from '../core/table.js';
import { formatScore, rowLetter } from './grid.js';
import { rankableRows, rankBy } from './render-results.js';
import { groupResults, releaseTime, type ReleaseGroup } from './result-groups.js';

/** Options of {@link buildLeaderboards}. */
export interface LeaderboardOptions {
  /**
   * The measure ranked and tested. Default: the family's main score ({@link FAMILY_MEASURE}):
   * `ndcg@10` for retrieval boards (the paper's and MTEB's), `map@10` for reranking boards (MTEB's).
   */
  measure?: string;
  /** Significance level on Holm-adjusted p-values. Default 0.05. */
  alpha?: number;
  /** Sign flips of the paired randomization test. Default 10000. */
  permutations?: number;
  /** Its seed. Default 42. */
  seed?: number;
  /** Model metadata over what the rows carry (`--model-meta FILE`). */
  modelMeta?: GivenModelMeta;
  /** Progress of the significance tests (pairs of rows, per board and scope). Default silent. */
  progress?: Progress;
  /** Stops the significance tests (Ctrl-C): the event loop gets a turn every 50 ms of them. */
  signal?: AbortSignal;
}

/** One row of a leaderboard. */
export interface LeaderboardRow {
  /** 1-based rank; null for a row scored on other tasks or queries (listed after the ranked rows). */
  rank: number | null;
  /** The row's letter (a, b, ...), what the significance superscripts refer to. */
  letter: string;
  retriever: string;
  /** Query-weighted mean of the measure; null for an imported row (published task means only). */
  overall: number | null;
  /** Unweighted mean of the task means. */
  taskMean: number | null;
  /** Task -> the task's mean (null: not scored). */
  tasks: Record<string, number | null>;
  /** Queries averaged (pooled over tasks); null for an imported row. */
  queries: number | null;
  /** Extra measures asked for (`coreb eval --measures`): measure -> the aggregate ranked by. */
  measures: Record<string, number | null>;
  /** Scope (`overall`, or a task) -> the rows this one is significantly better than (names). */
  significantlyBetterThan: Record<string, string[]>;
  /** The model's metadata, when known. */
  model?: ModelMeta;
  /** Where an imported row comes from. */
  imported?: ImportedRow;
  /** What the row's numbers rest on that others' do not (e.g. `filter=language`); marked ‡. */
  warnings?: string[];
}

/** One leaderboard: one dataset under one protocol. */
export interface Leaderboard {
  /** The dataset split (`release_v2602`). */
  dataset: string;
  /** The dataset's SHA-256 (an MTEB import without a scored twin: `mteb-…`). */
  datasetSha256: string;
  /** When the release was made, when it says. */
  releaseDate?: string;
  /** The protocol name. */
  protocol: string;
  /** Whole-corpus retrieval, or reranking fixed candidate lists: never ranked together. */
  family: TaskFamily;
  /** Unique display label (the split, with the protocol or a number when needed). */
  label: string;
  /** The protocol's fingerprint (equal ones may be compared across releases). */
  protocolKey: string;
  measure: string;
  /** What the rows are ranked by. */
  rankBy: 'overall' | 'taskMean';
  tasks: string[];
  /** Extra measure columns. */
  extraMeasures: string[];
  rows: LeaderboardRow[];
  /** Sentences a reader needs: rows shown once, unranked rows, how the marks were computed. */
  notes: string[];
}

/** The aggregate of `measure` a row is ranked by: the task mean or the query-weighted overall. */
function aggregateOf(r: RetrieverResult, measure: string, by: 'overall' | 'taskMean'): number | null {
  const v = by === 'taskMean' ? r.taskMean?.metrics[measure] : r.overall.metrics[measure];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** One leaderboard of a group of results (see {@link buildLeaderboards}). */
export async function buildLeaderboard(g: ReleaseGroup, options: LeaderboardOptions = {}): Promise<Leaderboard> {
  const measure = options.measure ?? FAMILY_MEASURE[g.family];
  const alpha = options.alpha ?? 0.05;
  const permutations = options.permutations ?? 10000;
  const seed = options.seed ?? 42;
  const by = rankBy(g.results);
  const merged = { ...g.results, retrievers: g.retrievers };
  const { ranked, unranked, tasks } = rankableRows(merged);
  const allTasks = [...new Set([...tasks, ...g.retrievers.flatMap((r) => Object.keys(r.tasks))])];
  const key = (r: RetrieverResult) => aggregateOf(r, measure, by) ?? Number.NEGATIVE_INFINITY;
  const order = (rows: RetrieverResult[]) => [...rows].sort((a, b) => key(b) - key(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sorted = [...order(ranked), ...order(unranked)];
  const tested = sorted.filter((r) => r.perQuery !== undefined);
  const wins = new Map<string, Map<string, Set<string>>>();
  if (tested.length >= 2) {
    const progress = options.progress ?? silentProgress;
    const turns = new EventLoopTurns(options.signal);
    const scopes = ['overall', ...tasks];
    const pairs = (tested.length * (tested.length - 1)) / 2;
    progress.start(`significance tests, ${g.files[0]?.results.dataset.split ?? 'board'}`, scopes.length * pairs);
    for (const scope of scopes) {
      let last = 0;
      const onProgress = (done: number) => {
        progress.tick(done - last);
        last = done;
      };
      wins.set(scope, await significantWins(tested, { measure, scope, alpha, permutations, seed, onProgress, turns }));
    }
    progress.done();
  }
  const extra = [...new Set(g.files.flatMap((f) => f.results.options?.measures ?? []))];
  const rows = sorted.map((r, i): LeaderboardRow => {
    const better: Record<string, string[]> = {};
    for (const [scope, w] of wins) {
      const beaten = [...(w.get(r.name) ?? [])];
      if (beaten.length > 0) better[scope] = beaten.sort((a, b) => sorted.findIndex((x) => x.name === a) - sorted.findIndex((x) => x.name === b));
    }
    const model = rowModelMeta(r, options.modelMeta);
    return {
      rank: i < ranked.length ? i + 1 : null,
      letter: rowLetter(i),
      retriever: r.name,
      overall: r.imported !== undefined ? null : aggregateOf(r, measure, 'overall'),
      taskMean: aggregateOf(r, measure, 'taskMean'),
      tasks: Object.fromEntries(allTasks.map((t) => [t, typeof r.tasks[t]?.metrics[measure] === 'number' ? r.tasks[t].metrics[measure] : null])),
      queries: r.imported !== undefined ? null : r.overall.queries,
      measures: Object.fromEntries(extra.map((m) => [m, aggregateOf(r, m, by)])),
      significantlyBetterThan: better,
      ...(model !== undefined ? { model } : {}),
      ...(r.imported !== undefined ? { imported: r.imported } : {}),
      ...((r.warnings?.length ?? 0) > 0 ? { warnings: [...(r.warnings as string[])] } : {}),
    };
  });
  const notes: string[] = [];
  if (wins.size > 0) {
    notes.push(
      `Superscripts: the rows a score is significantly better than (paired randomization test on ${measure}, ${permutations} sign flips, seed ${seed}, Holm–Bonferroni over all pairs of a column, p <= ${alpha}).`,
    );
  } else notes.push('No significance marks: they need per-query values from at least two rows scored on the same queries.');
  const imported = rows.filter((r) => r.imported !== undefined);
  if (imported.length > 0) {
    notes.push(
      `Imported (published MTEB results, marked †): ${imported.map((r) => `${r.retriever} (revision ${r.imported!.revision})`).join(', ')}; task means only, no query counts, in no significance test.`,
    );
  }
  for (const r of rows.filter((x) => x.warnings !== undefined)) notes.push(`‡ ${r.retriever}: ${(r.warnings as string[]).join('; ')}.`);
  const unrankedRows = rows.filter((r) => r.rank === null);
  if (unrankedRows.length > 0) {
    notes.push(
      `Listed last, unranked: ${unrankedRows.map((r) => r.retriever).join(', ')}: scored on other tasks or queries than the ranked rows (${tasks.join(', ')}).`,
    );
  }
  if (g.duplicates.length > 0)
    notes.push(`Shown once: ${g.duplicates.map((d) => `${d.name} of ${d.file} (the same row as ${d.sameAs})`).join('; ')}.`);
  return {
    dataset: g.split,
    datasetSha256: g.results.dataset.sha256,
    ...(g.results.dataset.releaseDate !== undefined ? { releaseDate: g.results.dataset.releaseDate } : {}),
    protocol: g.protocol,
    family: g.family,
    label: g.label,
    protocolKey: g.protocolKey,
    measure,
    rankBy: by,
    tasks: allTasks,
    extraMeasures: extra,
    rows,
    notes,
  };
}

/**
 * Leaderboards of results files: grouped by dataset and protocol (see `groupResults`: the same row
 * in several files counts once, an imported row with a scored twin too), ordered by protocol, then
 * release date.
 */
export async function buildLeaderboards(files: readonly LoadedResults[], options: LeaderboardOptions = {}): Promise<Leaderboard[]> {
  const out: Leaderboard[] = [];
  for (const g of leaderboardGroups(files)) out.push(await buildLeaderboard(g, options));
  return out;
}

/** The groups of {@link buildLeaderboards}, in its order (protocol of first appearance, then release date). */
export function leaderboardGroups(files: readonly LoadedResults[]): ReleaseGroup[] {
  const groups = groupResults(files);
  const protocols = [...new Set(groups.map((g) => g.protocol))];
  return [...groups].sort((a, b) => {
    const pa = protocols.indexOf(a.protocol);
    const pb = protocols.indexOf(b.protocol);
    if (pa !== pb) return pa - pb;
    const ta = releaseTime(a);
    const tb = releaseTime(b);
    return Number.isNaN(ta) || Number.isNaN(tb) ? 0 : ta - tb;
  });
}

/** A model's score on each release of one protocol (the cross-release view). */
export interface CrossRelease {
  protocol: string;
  family: TaskFamily;
  measure: string;
  rankBy: 'overall' | 'taskMean';
  /** Leaderboard labels, oldest release first. */
  releases: string[];
  /** Retriever -> release label -> score and rank (absent: not scored there). */
  rows: Array<{ retriever: string; scores: Record<string, { score: number | null; rank: number | null }> }>;
}

/**
 * The cross-release views: for every protocol fingerprint with two or more leaderboards, each
 * retriever's ranked aggregate and rank on every release, oldest first; retrievers ordered by
 * their score on the newest release.
 */
export function crossReleaseViews(boards: readonly Leaderboard[]): CrossRelease[] {
  const out: CrossRelease[] = [];
  for (const key of [...new Set(boards.map((b) => `${b.protocolKey}\u0000${b.family}\u0000${b.measure}`))]) {
    const same = boards.filter((b) => `${b.protocolKey}\u0000${b.family}\u0000${b.measure}` === key);
    if (same.length < 2) continue;
    const names = [...new Set(same.flatMap((b) => b.rows.map((r) => r.retriever)))];
    const score = (b: Leaderboard, r: LeaderboardRow) => (b.rankBy === 'taskMean' ? r.taskMean : r.overall);
    const newest = same[same.length - 1];
    const rows = names.map((retriever) => ({
      retriever,
      scores: Object.fromEntries(
        same.flatMap((b) => {
          const r = b.rows.find((x) => x.retriever === retriever);
          return r === undefined ? [] : [[boardName(b), { score: score(b, r), rank: r.rank }]];
        }),
      ),
    }));
    rows.sort((a, b) => (b.scores[boardName(newest)]?.score ?? -1) - (a.scores[boardName(newest)]?.score ?? -1));
    out.push({
      protocol: same[0].protocol,
      family: same[0].family,
      measure: same[0].measure,
      rankBy: same[0].rankBy,
      releases: same.map(boardName),
      rows,
    });
  }
  return out;
}

/** A point of the parameter-efficiency view. */
export interface ParetoPoint {
  retriever: string;
  parameters: number;
  score: number;
  /** On the frontier: no other row has at most as many parameters and a higher score. */
  frontier: boolean;
}

/**
 * Score against parameters of one leaderboard's ranked rows with a known parameter count (paper
 * Figures 9, 10, 13): the points and which lie on the Pareto frontier (no row with at most as
 * many parameters scores higher). Rows without a count are named in `unknown`.
 */
export function paretoPoints(board: Leaderboard): { points: ParetoPoint[]; unknown: string[] } {
  const score = (r: LeaderboardRow) => (board.rankBy === 'taskMean' ? r.taskMean : r.overall);
  const known = board.rows.filter((r) => r.rank !== null && typeof r.model?.parameters === 'number' && score(r) !== null);
  const unknown = board.rows.filter((r) => r.rank !== null && !known.includes(r)).map((r) => r.retriever);
  const points = known.map((r) => ({ retriever: r.retriever, parameters: r.model!.parameters!, score: score(r)!, frontier: false }));
  for (const p of points) p.frontier = !points.some((q) => q !== p && q.parameters <= p.parameters && q.score > p.score);
  return { points: points.sort((a, b) => a.parameters - b.parameters || b.score - a.score), unknown };
}

/** A leaderboard's name without its protocol: the split, numbered when two datasets share it (`release_v2602 #2`). */
export function boardName(b: Pick<Leaderboard, 'dataset' | 'label'> & { family?: TaskFamily }): string {
  const n = / #\d+$/.exec(b.label);
  return `${b.dataset}${b.family === 'reranking' ? ' · reranking' : ''}${n === null ? '' : n[0]}`;
}

/** Output flavours of {@link renderLeaderboard}. */
export type LeaderboardFormat = TableFormat;

const f4 = formatScore;

/** Superscript letters of the rows `row` is significantly better than in `scope`, sorted. */
export function marksOf(board: Leaderboard, row: LeaderboardRow, scope: string): string {
  const beaten = row.significantlyBetterThan[scope] ?? [];
  return beaten
    .map((n) => board.rows.find((r) => r.retriever === n)?.letter ?? '')
    .sort()
    .join('');
}

/**
 * Renders one leaderboard: a title line, the table (rank, letter, retriever, the ranked aggregate
 * with its superscripts, the other aggregate, every task, extra measures, parameters, queries) and
 * its notes. Text marks significance as `0.4777^bc`, markdown as `0.4777<sup>bc</sup>`, LaTeX as
 * `0.4777\textsuperscript{bc}` (a full `tabular`, booktabs rules).
 */
export function renderLeaderboard(board: Leaderboard, format: LeaderboardFormat = 'table'): string {
  const sup = (s: string) => (s === '' ? '' : format === 'markdown' ? `<sup>${s}</sup>` : format === 'latex' ? `\\textsuperscript{${s}}` : `^${s}`);
  const m = board.measure;
  const rankedFirst = board.rankBy === 'taskMean' ? 'task mean' : 'overall';
  const header = [
    '#',
    '',
    'retriever',
    `${m} ${rankedFirst}`,
    board.rankBy === 'taskMean' ? 'overall' : 'task mean',
    ...board.tasks,
    ...board.extraMeasures,
    'params',
    'queries',
  ];
  const rows = board.rows.map((r) => {
    const first = board.rankBy === 'taskMean' ? r.taskMean : r.overall;
    const second = board.rankBy === 'taskMean' ? r.overall : r.taskMean;
    const name = `${r.retriever}${r.imported !== undefined ? ' †' : ''}${r.warnings !== undefined ? ' ‡' : ''}`;
    return [
      r.rank === null ? '–' : String(r.rank),
      r.letter,
      format === 'latex' ? latexEscape(name).replace('†', '$^\\dagger$').replace('‡', '$^\\ddagger$') : name,
      f4(first) + sup(marksOf(board, r, 'overall')),
      f4(second),
      ...board.tasks.map((t) => f4(r.tasks[t]) + sup(marksOf(board, r, t))),
      ...board.extraMeasures.map((x) => f4(r.measures[x])),
      formatParameters(r.model?.parameters),
      r.queries === null ? '–' : String(r.queries),
    ];
  });
  const title = `${boardName(board)} — protocol ${board.protocol}, ranked by ${rankedFirst} ${m}${board.releaseDate !== undefined ? `, released ${board.releaseDate.slice(0, 10)}` : ''} (dataset sha256 ${board.datasetSha256.slice(0, 12)})`;
  // Rank and letter are right- and left-aligned in text; the numbers from the aggregates on.
  return renderTable({ title, header, rows, notes: board.notes, align: 3 }, format);
}

/** Renders a cross-release view as text or markdown: score (rank) per release. */
export function renderCrossRelease(view: CrossRelease, format: LeaderboardFormat = 'table'): string {
  const header = ['retriever', ...view.releases];
  const rows = view.rows.map((r) => [
    r.retriever,
    ...view.releases.map((rel) => {
      const s = r.scores[rel];
      return s === undefined ? '–' : `${f4(s.score)}${s.rank === null ? '' : ` (${s.rank})`}`;
    }),
  ]);
  const title = `Across releases — ${view.family === 'reranking' ? 'reranking, ' : ''}protocol ${view.protocol}, ${view.rankBy === 'taskMean' ? 'task mean' : 'overall'} ${view.measure} (rank)`;
  return renderTable({ title, header, rows: format === 'latex' ? rows.map((r) => [latexEscape(r[0]), ...r.slice(1)]) : rows }, format);
}
