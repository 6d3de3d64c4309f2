/**
 * The series check of a release against the last one: what moved between two CoREB releases
 * (counts per subtask, positives and hard negatives per query, token lengths, verified-correct share
 * per model x language, BM25 nDCG@10 and hard-negative intrusion per task), each figure flagged
 * when it leaves a documented band. A new release should look like the last one wherever it is not
 * meant to change; this says where it does not.
 */
import { RELEVANCE, TASKS, type Release, type TaskName } from '../core/dataset.js';
import type { DriftBands, DriftReport, DriftRow } from '../core/drift-report.js';
import type { ReleaseTokenStats, VerifiedByModelLanguage } from '../core/eval-results.js';
import { silentLogger, type Logger } from '../core/progress.js';
import { cachedReleaseTokenStats, verifiedByModelLanguage } from '../dataset/release-tokens.js';
import { loadRelease } from '../dataset/release.js';
import { subtaskFamily, subtaskFamilyName } from '../dataset/release-schema.js';
import { releaseIssues } from './dataset-issues.js';
import { failOnErrors } from './eval-data.js';
import { runEval } from './run-eval.js';

/** The default {@link DriftBands}. */
export const DEFAULT_DRIFT_BANDS: Readonly<DriftBands> = {
  countRelative: 0.25,
  perQueryRelative: 0.25,
  tokensRelative: 0.25,
  verifiedAbsolute: 0.1,
  ndcgAbsolute: 0.05,
  hardNegativesTop10Absolute: 0.5,
  intrusionAbsolute: 0.1,
};

/** Options of {@link compareReleases}. */
export interface CompareReleasesOptions {
  previousSplit?: string;
  currentSplit?: string;
  /** Bands to use (merged over {@link DEFAULT_DRIFT_BANDS}). */
  bands?: Partial<DriftBands>;
  /** Run BM25 on both releases (the slowest part: a few seconds on a 2,600-query release). Default true. */
  bm25?: boolean;
  /** coreb's version, written into the BM25 results. Default: this package's. */
  corebVersion?: string;
  /** Where token statistics are cached (see cachedReleaseTokenStats); default: not cached. */
  statsCacheDir?: string;
  signal?: AbortSignal;
  logger?: Logger;
}

/** What one release contributes to the comparison. */
interface ReleaseFigures {
  family: Map<string, number>;
  tasks: Map<string, number>;
  positives: Map<string, number>;
  hardNegatives: Map<string, number>;
  tokens: ReleaseTokenStats;
  verified: VerifiedByModelLanguage;
  bm25: Map<string, { ndcg: number; hnTop10: number; intrusion: number | null }>;
}

async function figures(loaded: Release, options: CompareReleasesOptions, dir: string, split: string): Promise<ReleaseFigures> {
  // Queries of no known subtask family are not scored (docs/eval.md), so they are not counted either.
  const release: Release = { ...loaded, tasks: { ...loaded.tasks } };
  for (const task of TASKS) {
    release.tasks[task] = { ...loaded.tasks[task], queries: loaded.tasks[task].queries.filter((q) => subtaskFamily(q.subtask) !== undefined) };
  }
  const family = new Map<string, number>();
  const tasks = new Map<string, number>();
  const positives = new Map<string, number>();
  const hardNegatives = new Map<string, number>();
  for (const task of TASKS) {
    const t = release.tasks[task];
    tasks.set(task, t.queries.length);
    for (const q of t.queries) {
      const f = subtaskFamilyName(q.subtask);
      family.set(f, (family.get(f) ?? 0) + 1);
    }
    let pos = 0;
    let neg = 0;
    for (const r of t.qrels) {
      if (r.relevance >= RELEVANCE.positive) pos++;
      else if (r.relevance === RELEVANCE.hardNegative) neg++;
    }
    positives.set(task, t.queries.length > 0 ? pos / t.queries.length : 0);
    hardNegatives.set(task, t.queries.length > 0 ? neg / t.queries.length : 0);
  }
  const tokens = await cachedReleaseTokenStats(release, options.statsCacheDir, options.signal);
  const bm25 = new Map<string, { ndcg: number; hnTop10: number; intrusion: number | null }>();
  if (options.bm25 !== false) {
    const { results } = await runEval({
      data: dir,
      split,
      retrievers: ['bm25'],
      perQuery: false,
      datasetStats: false,
      ...(options.corebVersion !== undefined ? { corebVersion: options.corebVersion } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      // The release's warnings were printed when it was checked above.
      logger: silentLogger,
    });
    const r = results.retrievers[0];
    for (const [task, g] of Object.entries(r.tasks)) {
      bm25.set(task, { ndcg: g.metrics['ndcg@10'], hnTop10: g.diagnostics.hardNegativesTop10, intrusion: g.diagnostics.intrusionRate });
    }
  }
  return { family, tasks, positives, hardNegatives, tokens, verified: verifiedByModelLanguage(release), bm25 };
}

function row(
  section: string,
  figure: string,
  previous: number | null,
  current: number | null,
  band: { relative?: number; absolute?: number },
): DriftRow {
  const delta = previous === null || current === null ? null : current - previous;
  let flag: string | null = null;
  if (previous === null && current !== null) flag = 'added';
  else if (previous !== null && current === null) flag = 'removed';
  else if (delta !== null && previous !== null) {
    if (band.relative !== undefined) {
      const rel = previous === 0 ? (current === 0 ? 0 : Number.POSITIVE_INFINITY) : Math.abs(delta) / Math.abs(previous);
      if (rel > band.relative)
        flag = `moved ${previous === 0 ? 'from 0' : `${(rel * 100).toFixed(0)}%`} (band ±${(band.relative * 100).toFixed(0)}%)`;
    } else if (band.absolute !== undefined && Math.abs(delta) > band.absolute) {
      flag = `moved ${Math.abs(delta).toFixed(3)} (band ±${band.absolute})`;
    }
  }
  return { section, figure, previous, current, delta, flag };
}

/** Rows for keys of two maps (union, sorted), each compared within `band`. */
function mapRows(
  section: string,
  label: (k: string) => string,
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  band: { relative?: number; absolute?: number },
  order?: readonly string[],
): DriftRow[] {
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  keys.sort((x, y) => (order === undefined ? x.localeCompare(y) : order.indexOf(x) - order.indexOf(y)));
  return keys.map((k) => row(section, label(k), a.get(k) ?? null, b.get(k) ?? null, band));
}

const means = (m: Record<string, { meanTokens: number }>): Map<string, number> => new Map(Object.entries(m).map(([k, v]) => [k, v.meanTokens]));

/** Verified-correct share per `model language`. */
function shares(v: VerifiedByModelLanguage): Map<string, number> {
  const out = new Map<string, number>();
  for (const [model, langs] of Object.entries(v)) {
    for (const [lang, c] of Object.entries(langs)) if (c.programs > 0) out.set(`${model} ${lang}`, c.passed / c.programs);
  }
  return out;
}

/**
 * The verified-correct shares of two releases, model × language. A model only the previous release
 * has and one only the current has are paired (in order of programs judged, most first), as a
 * solver renamed or replaced between releases is: one row says so, and its languages are compared
 * across the pair instead of five rows removed and five added. What stays unpaired is added or removed.
 */
function verifiedRows(a: VerifiedByModelLanguage, b: VerifiedByModelLanguage, absolute: number): DriftRow[] {
  const programs = (v: VerifiedByModelLanguage, m: string) => Object.values(v[m]).reduce((s, c) => s + c.programs, 0);
  const byPrograms = (v: VerifiedByModelLanguage, ms: string[]) => ms.sort((x, y) => programs(v, y) - programs(v, x) || x.localeCompare(y));
  const gone = byPrograms(
    a,
    Object.keys(a).filter((m) => !(m in b)),
  );
  const added = byPrograms(
    b,
    Object.keys(b).filter((m) => !(m in a)),
  );
  const pairs = gone.slice(0, added.length).map((m, i) => [m, added[i]] as const);
  const renamed = new Map(pairs);
  const prev = new Map<string, number>();
  for (const [k, v] of shares(a)) {
    const [model, ...rest] = k.split(' ');
    const to = renamed.get(model);
    prev.set(to === undefined ? k : [to, ...rest].join(' '), v);
  }
  const from = new Map(pairs.map(([p, c]) => [c, p]));
  const label = (k: string) => {
    const [model, ...rest] = k.split(' ');
    const was = from.get(model);
    return `${was === undefined ? model : `${was} → ${model}`} ${rest.join(' ')} verified share`;
  };
  return [
    ...pairs.map(
      ([p, c]): DriftRow => ({
        section: 'verified',
        figure: `model ${p} → ${c}`,
        previous: null,
        current: null,
        delta: null,
        flag: 'renamed or replaced (its languages compared across the pair)',
      }),
    ),
    ...mapRows('verified', label, prev, shares(b), { absolute }),
  ];
}

/**
 * Compares two releases (`previous` the last one, `current` the new one) and flags every figure
 * outside its band. Both are loaded with the same rules as `coreb validate` (what they cannot
 * score is not counted).
 * @example
 * ```ts
 * const drift = await compareReleases('release_v2602', 'release_v2603', {});
 * console.log(renderDriftReport(drift));
 * ```
 */
export async function compareReleases(previousDir: string, currentDir: string, options: CompareReleasesOptions): Promise<DriftReport> {
  const bands: DriftBands = { ...DEFAULT_DRIFT_BANDS, ...options.bands };
  const logger = options.logger ?? silentLogger;
  const prev = await loadRelease(previousDir, options.previousSplit !== undefined ? { split: options.previousSplit } : {});
  failOnErrors(previousDir, releaseIssues(prev), logger);
  const cur = await loadRelease(currentDir, options.currentSplit !== undefined ? { split: options.currentSplit } : {});
  failOnErrors(currentDir, releaseIssues(cur), logger);
  const a = await figures(prev.release, options, previousDir, prev.release.split);
  const b = await figures(cur.release, options, currentDir, cur.release.split);
  const order: readonly TaskName[] = TASKS;
  const rows: DriftRow[] = [
    ...mapRows('counts', (k) => `${k} queries`, a.tasks, b.tasks, { relative: bands.countRelative }, order),
    ...mapRows('counts', (k) => `${k} queries`, a.family, b.family, { relative: bands.countRelative }),
    ...mapRows('qrels', (k) => `${k} positives / query`, a.positives, b.positives, { relative: bands.perQueryRelative }, order),
    ...mapRows('qrels', (k) => `${k} hard negatives / query`, a.hardNegatives, b.hardNegatives, { relative: bands.perQueryRelative }, order),
    ...mapRows('tokens', (k) => `${k} query tokens`, means(a.tokens.queryVariants), means(b.tokens.queryVariants), {
      relative: bands.tokensRelative,
    }),
    ...mapRows('tokens', (k) => `code corpus ${k} tokens`, means(a.tokens.codeCorpus), means(b.tokens.codeCorpus), {
      relative: bands.tokensRelative,
    }),
    ...mapRows('tokens', (k) => `text corpus ${k} tokens`, means(a.tokens.textCorpus), means(b.tokens.textCorpus), {
      relative: bands.tokensRelative,
    }),
    ...verifiedRows(a.verified, b.verified, bands.verifiedAbsolute),
  ];
  if (options.bm25 !== false) {
    const pick = (f: ReleaseFigures, g: (x: { ndcg: number; hnTop10: number; intrusion: number | null }) => number | null) => {
      const out = new Map<string, number>();
      for (const [t, x] of f.bm25) {
        const v = g(x);
        if (v !== null) out.set(t, v);
      }
      return out;
    };
    rows.push(
      ...mapRows(
        'bm25',
        (k) => `${k} BM25 nDCG@10`,
        pick(a, (x) => x.ndcg),
        pick(b, (x) => x.ndcg),
        { absolute: bands.ndcgAbsolute },
        order,
      ),
      ...mapRows(
        'bm25',
        (k) => `${k} BM25 hard negatives in top 10 / query`,
        pick(a, (x) => x.hnTop10),
        pick(b, (x) => x.hnTop10),
        { absolute: bands.hardNegativesTop10Absolute },
        order,
      ),
      ...mapRows(
        'bm25',
        (k) => `${k} BM25 hard-negative intrusion`,
        pick(a, (x) => x.intrusion),
        pick(b, (x) => x.intrusion),
        { absolute: bands.intrusionAbsolute },
        order,
      ),
    );
  }
  return {
    previous: { dir: previousDir, split: prev.release.split },
    current: { dir: currentDir, split: cur.release.split },
    bands,
    rows,
    flagged: rows.filter((r) => r.flag !== null).length,
  };
}
