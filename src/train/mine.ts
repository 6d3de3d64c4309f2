/**
 * Mines reranker training records from a CoREB release and any retriever's ranked lists: one record
 * per (query, positive) pair, as the published CoREB reranker dataset has, with hard negatives
 * (same-problem documents the qrels label as hard negatives, best-ranked first, then other
 * high-ranked non-positives from a rank window) and seeded random easy negatives from other
 * problems. Problem disjointness from a test release is enforced here.
 */
import { stat } from 'node:fs/promises';
import { TASK_SHORT_NAME, type Doc, type Query, type RetrievalTask, type TaskName } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { createRng, seedFrom } from '../core/random.js';
import type { RankedList } from '../core/retrieval.js';
import { RERANK_TASK_LABEL, type RerankPassage, type RerankTrainRecord } from '../core/rerank-training.js';
import { loadRelease } from '../dataset/release.js';
import { loadTextFile, splitLines } from '../dataset/text-file.js';
import { owningProblemId, releaseTasks } from '../dataset/release-tasks.js';

/** Options of {@link mineRerankRecords}. */
export interface MineOptions {
  /** The release's tasks to mine (see dataset's `releaseTasks`). */
  tasks: ReadonlyMap<TaskName, RetrievalTask>;
  /** Ranked lists per task name (query id -> list, best first); a query without a list gets qrels hard negatives only. */
  lists: ReadonlyMap<string, ReadonlyMap<string, RankedList>>;
  /** Hard negatives per record. Default 8. */
  hardNegatives?: number;
  /** Ranks (1-based, inclusive) the run-mined hard negatives come from. Default [10, 100]. */
  window?: readonly [number, number];
  /** Easy negatives per record. Default 8. */
  easyNegatives?: number;
  /** Seed of the easy-negative sampling. Default 42. */
  seed?: number;
  /** Lowest label that counts as positive. Default 2 (CoREB). */
  positiveLevel?: number;
  /** Problems that must not appear in the training data (e.g. every problem of the test release). */
  excludeProblems?: ReadonlySet<string>;
  /**
   * When the release shares problems with `excludeProblems`: false (default) refuses with an error
   * listing them; true leaves those problems' queries and documents out.
   */
  dropOverlap?: boolean;
  signal?: AbortSignal;
  progress?: Progress;
}

/** Counts of one task's mining. */
export interface MineTaskStats {
  queries: number;
  /** Records written (one per positive). */
  records: number;
  /** Queries with no ranked list (only qrels hard negatives). */
  queriesWithoutList: number;
  /** Positives whose document is missing from the corpus (left out). */
  missingPositives: number;
  /** Queries left out because their problem is excluded (with `dropOverlap`). */
  droppedQueries: number;
  /** Hard negatives taken from the qrels (same problem) and from the run window, over all records. */
  hardFromQrels: number;
  hardFromRun: number;
  easy: number;
  /** Records with fewer hard / easy negatives than asked for. */
  shortHard: number;
  shortEasy: number;
}

/** Result of {@link mineRerankRecords}. */
export interface MineResult {
  records: RerankTrainRecord[];
  stats: Record<string, MineTaskStats>;
  /** Problems shared with the excluded set (empty unless `dropOverlap` let them through). */
  overlap: string[];
}

/** The problem a document belongs to (see {@link owningProblemId}), as a list (empty when none). */
export function docProblems(d: Doc): string[] {
  const id = owningProblemId(d.problemId, d.meta?.originalProblemId);
  return id === undefined ? [] : [id];
}

/** All problems a task set touches (queries and corpus documents, see {@link docProblems}). */
export function taskProblems(tasks: Iterable<RetrievalTask>): Set<string> {
  const out = new Set<string>();
  for (const t of tasks) {
    for (const q of t.queries) if (q.problemId !== undefined) out.add(q.problemId);
    for (const d of t.corpus) for (const p of docProblems(d)) out.add(p);
  }
  return out;
}

/**
 * The problem ids named by `--exclude-problems` values: a release directory (every problem of its
 * queries and corpora), a text file (one id per line, `#` comments), or a comma-separated list.
 */
export async function loadProblemSet(
  values: readonly string[],
): Promise<{ problems: Set<string>; sources: Array<{ value: string; kind: 'release' | 'file' | 'list'; problems: number }> }> {
  const problems = new Set<string>();
  const sources: Array<{ value: string; kind: 'release' | 'file' | 'list'; problems: number }> = [];
  for (const v of values) {
    const st = await stat(v).catch(() => undefined);
    let ids: string[];
    let kind: 'release' | 'file' | 'list';
    if (st?.isDirectory()) {
      const { release, issues } = await loadRelease(v);
      const bad = issues.find((i) => i.severity === 'error' && i.kind === 'missing-table');
      if (bad) throw new CorebError('VALIDATION', `--exclude-problems ${v}: not a complete CoREB release (${bad.message})`, { file: v });
      ids = [...taskProblems(Object.values(releaseTasks(release)))];
      kind = 'release';
      if (ids.length === 0)
        throw new CorebError('VALIDATION', `--exclude-problems ${v}: the release names no problems (meta.source_problem_id)`, { file: v });
    } else if (st?.isFile()) {
      ids = splitLines((await loadTextFile(v)).text)
        .map((l) => l.replace(/#.*/, '').trim())
        .filter((l) => l !== '');
      kind = 'file';
    } else {
      ids = v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      kind = 'list';
      if (ids.length === 0 || (ids.length === 1 && /[/\\]/.test(ids[0]))) {
        throw new CorebError('NOT_FOUND', `--exclude-problems ${v}: no such release directory or file (or give problem ids separated by commas)`);
      }
    }
    for (const id of ids) problems.add(id);
    sources.push({ value: v, kind, problems: ids.length });
  }
  return { problems, sources };
}

/**
 * The warning to show when a release is mined without an exclusion set: for v202602 (the CoREB
 * reranker's training release) it names v202603, the release it is evaluated on. Undefined when
 * problems are excluded.
 */
export function disjointnessWarning(split: string, excluded: boolean): string | undefined {
  if (excluded) return undefined;
  if (/v?(20)?2602\b/.test(split)) {
    return `mining ${split} without --exclude-problems: the CoREB reranker is evaluated on v202603; name that release (--exclude-problems path/to/release_v2603) so no test problem enters the training data`;
  }
  return `mining ${split} without --exclude-problems: nothing guarantees the records are problem-disjoint from your test release`;
}

function newStats(): MineTaskStats {
  return {
    queries: 0,
    records: 0,
    queriesWithoutList: 0,
    missingPositives: 0,
    droppedQueries: 0,
    hardFromQrels: 0,
    hardFromRun: 0,
    easy: 0,
    shortHard: 0,
    shortEasy: 0,
  };
}

/**
 * Mines one record per (query, positive). Per query, the hard negatives (shared by its records)
 * are: the documents the qrels label 1 ≤ label < positiveLevel (in CoREB v202602: same-problem
 * failing or wrong-language code for t2c and c2c; for c2t, LLM-written near-miss texts, which that
 * release attributes to other problems), those ranked best by the run first and
 * unranked ones after (by id); then, to fill up, documents at ranks `window[0]..window[1]` of the
 * run that are not positive, not the anchor, and not an unjudged document of the query's own
 * problem (it could be an unlabelled positive). Easy negatives are drawn per record with a seeded
 * generator (seed, query id, positive id) from the task's corpus, among unjudged documents of
 * problems other than the query's and its judged documents'. Documents of excluded problems
 * (by {@link docProblems}) never appear.
 * @throws CorebError `VALIDATION` listing every problem shared with `excludeProblems` unless
 * `dropOverlap`.
 */
export function mineRerankRecords(o: MineOptions): MineResult {
  const hardN = o.hardNegatives ?? 8;
  const easyN = o.easyNegatives ?? 8;
  const [from, to] = o.window ?? [10, 100];
  const seed = o.seed ?? 42;
  const level = o.positiveLevel ?? 2;
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to >= from)) {
    throw new CorebError('USAGE', `hard-negative window must be ranks FROM-TO with 1 <= FROM <= TO, got ${from}-${to}`);
  }
  const excluded = o.excludeProblems ?? new Set<string>();
  const overlap = [...taskProblems(o.tasks.values())].filter((p) => excluded.has(p)).sort();
  if (overlap.length > 0 && !o.dropOverlap) {
    throw new CorebError(
      'VALIDATION',
      `the release shares ${overlap.length} problem(s) with --exclude-problems, so its records would not be problem-disjoint: ${overlap.join(', ')}. Mine another release, or pass --drop-overlap to leave these problems out`,
      { details: { overlap } },
    );
  }
  const progress = o.progress ?? silentProgress;
  const records: RerankTrainRecord[] = [];
  const stats: Record<string, MineTaskStats> = {};
  for (const [name, task] of o.tasks) {
    const st = (stats[TASK_SHORT_NAME[name]] = newStats());
    const byId = new Map<string, Doc>();
    for (const d of task.corpus) byId.set(d.id, d);
    const usable = (d: Doc | undefined): d is Doc => d !== undefined && !docProblems(d).some((p) => excluded.has(p));
    const lists = o.lists.get(name);
    progress.start(`mine ${TASK_SHORT_NAME[name]}`, task.queries.length);
    for (const q of task.queries) {
      if (o.signal?.aborted) throw o.signal.reason;
      progress.tick();
      st.queries++;
      const labels = task.qrels.get(q.id) ?? new Map<string, number>();
      const problems = queryProblems(q, labels, byId);
      if ([...problems].some((p) => excluded.has(p))) {
        st.droppedQueries++;
        continue;
      }
      const list = lists?.get(q.id);
      if (list === undefined) st.queriesWithoutList++;
      const hard = hardNegatives(q, labels, list, byId, usable, problems, { n: hardN, from, to, level });
      for (const [docId, label] of labels) {
        if (label < level) continue;
        const pos = byId.get(docId);
        if (pos === undefined) {
          st.missingPositives++;
          continue;
        }
        const rng = createRng(seedFrom(seed, q.id, docId));
        const taken = new Set([q.anchorId, ...hard.passages.map((p) => p.id)]);
        const easy: RerankPassage[] = [];
        for (let tries = 0; easy.length < easyN && tries < easyN * 50 && task.corpus.length > 0; tries++) {
          const d = task.corpus[rng() % task.corpus.length];
          if (taken.has(d.id) || labels.has(d.id) || d.problemId === undefined || docProblems(d).some((p) => problems.has(p)) || !usable(d)) continue;
          taken.add(d.id);
          easy.push({ id: d.id, text: d.text });
        }
        records.push({
          queryId: q.id,
          task: RERANK_TASK_LABEL[name],
          subtask: q.subtask ?? '',
          query: q.text,
          pos: [{ id: pos.id, text: pos.text }],
          hardNeg: hard.passages,
          easyNeg: easy,
        });
        st.records++;
        st.hardFromQrels += hard.fromQrels;
        st.hardFromRun += hard.passages.length - hard.fromQrels;
        st.easy += easy.length;
        if (hard.passages.length < hardN) st.shortHard++;
        if (easy.length < easyN) st.shortEasy++;
      }
    }
    progress.done();
  }
  return { records, stats, overlap };
}

/** The query's own problem and the problems of every document its qrels judge. */
function queryProblems(q: Query, labels: ReadonlyMap<string, number>, byId: ReadonlyMap<string, Doc>): Set<string> {
  const out = new Set<string>();
  if (q.problemId !== undefined) out.add(q.problemId);
  for (const id of labels.keys()) {
    const d = byId.get(id);
    if (d !== undefined) for (const p of docProblems(d)) out.add(p);
  }
  return out;
}

function hardNegatives(
  q: Query,
  labels: ReadonlyMap<string, number>,
  list: RankedList | undefined,
  byId: ReadonlyMap<string, Doc>,
  usable: (d: Doc | undefined) => d is Doc,
  problems: ReadonlySet<string>,
  o: { n: number; from: number; to: number; level: number },
): { passages: RerankPassage[]; fromQrels: number } {
  const rank = new Map<string, number>();
  if (list !== undefined) list.docIds.forEach((id, i) => rank.set(id, i + 1));
  const judged = [...labels]
    .filter(([id, l]) => l >= 1 && l < o.level && id !== q.anchorId && usable(byId.get(id)))
    .map(([id]) => id)
    .sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
  const out: RerankPassage[] = [];
  for (const id of judged.slice(0, o.n)) out.push({ id, text: byId.get(id)!.text });
  const fromQrels = out.length;
  if (list !== undefined) {
    const taken = new Set(out.map((p) => p.id));
    for (let i = o.from - 1; i < Math.min(o.to, list.docIds.length) && out.length < o.n; i++) {
      const id = list.docIds[i];
      const d = byId.get(id);
      const label = labels.get(id);
      if (taken.has(id) || id === q.anchorId || !usable(d)) continue;
      if (label !== undefined && label >= 1) continue; // positives, and judged hard negatives already considered
      if (label === undefined && docProblems(d).some((p) => problems.has(p))) continue;
      taken.add(id);
      out.push({ id, text: d.text });
    }
  }
  return { passages: out, fromQrels };
}
