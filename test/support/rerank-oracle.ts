/**
 * An independent second opinion on reranking for tests: reads TREC run files with a plain line
 * split, reorders each query's top candidates by a known score function, and computes strict
 * nDCG@k and Recall@k from scratch, without the toolkit's ranking or metrics code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Query id -> document ids in rank order, from a TREC run file (ranks taken from column 4). */
export function readTrecOrder(file: string): Map<string, string[]> {
  const rows = new Map<string, { doc: string; rank: number }[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const [qid, , doc, rank] = line.split(/\s+/);
    if (!rows.has(qid)) rows.set(qid, []);
    rows.get(qid)!.push({ doc, rank: Number(rank) });
  }
  return new Map([...rows].map(([q, r]) => [q, r.sort((a, b) => a.rank - b.rank).map((x) => x.doc)]));
}

/**
 * The expected reranked order: the first `depth` documents of `first` (after removing `drop`),
 * sorted by `score` rounded to float32 descending, ties by docid descending in byte order.
 */
export function expectedOrder(first: readonly string[], drop: string | undefined, depth: number, score: (doc: string) => number): string[] {
  const cands = first.filter((d) => d !== drop).slice(0, depth);
  const s = new Map(cands.map((d) => [d, Math.fround(score(d))]));
  return [...cands].sort((a, b) => s.get(b)! - s.get(a)! || Buffer.compare(Buffer.from(b), Buffer.from(a)));
}

/** Strict nDCG@k: gains are labels >= `level` (others 0), log2 discounts, ideal from the judged labels. */
export function strictNdcg(ranked: readonly string[], labels: ReadonlyMap<string, number>, k: number, level = 2): number {
  const gain = (l: number | undefined): number => (l !== undefined && l >= level ? l : 0);
  let dcg = 0;
  ranked.slice(0, k).forEach((d, i) => (dcg += gain(labels.get(d)) / Math.log2(i + 2)));
  const ideal = [...labels.values()]
    .map(gain)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Recall@k: share of documents labelled >= `level` found in the first k. */
export function recallAt(ranked: readonly string[], labels: ReadonlyMap<string, number>, k: number, level = 2): number {
  const rel = [...labels].filter(([, l]) => l >= level).map(([d]) => d);
  if (rel.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return rel.filter((d) => top.has(d)).length / rel.length;
}

/** Mean of `f` over `ids`. */
export function mean(ids: readonly string[], f: (id: string) => number): number {
  return ids.reduce((s, id) => s + f(id), 0) / ids.length;
}

/** What {@link verifyRerankedEval} needs of a results file's rows. */
interface RowLike {
  overall: { metrics: Record<string, number> };
  tasks: Record<string, { runFile?: string; metrics: Record<string, number> }>;
  rerank?: { depth: number; recallCeiling: Record<string, number | null>; delta: Record<string, Record<string, number>> };
}

/** A task as the oracle needs it: corpus texts, queries with anchors and subtasks, qrels. */
interface TaskLike {
  corpus: readonly { id: string; text: string }[];
  queries: readonly { id: string; text: string; anchorId?: string; subtask?: string }[];
  qrels: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/**
 * Checks a reranked row against an independent computation: for every task, each query's reranked
 * run equals the first-stage run's top `depth` (anchor removed for code2code) re-sorted by
 * `score(query text, document text)`; the row's nDCG@10 and Recall@10 deltas and its recall ceiling
 * equal strict nDCG / recall computed here over the coreb population (queries with qrels; c2t_match
 * queries without a positive stay in, scoring 0, as under coreb's default `zero`, unless
 * `c2tMatchNegatives` is `exclude`). Returns the number of queries checked.
 */
export function verifyRerankedEval(
  outDir: string,
  first: RowLike,
  reranked: RowLike,
  tasks: Readonly<Record<string, TaskLike>>,
  depth: number,
  score: (query: string, doc: string) => number,
  fail: (message: string) => never,
  c2tMatchNegatives: 'zero' | 'exclude' = 'zero',
): number {
  let checked = 0;
  const near = (a: number | null | undefined, b: number, what: string): void => {
    if (a === null || a === undefined || Math.abs(a - b) > 1e-9) fail(`${what}: reported ${a}, computed ${b}`);
  };
  for (const [name, task] of Object.entries(tasks)) {
    if (first.tasks[name] === undefined) continue;
    const text = new Map(task.corpus.map((d) => [d.id, d.text]));
    const firstRun = readTrecOrder(join(outDir, first.tasks[name].runFile!));
    const rer = readTrecOrder(join(outDir, reranked.tasks[name].runFile!));
    const population: string[] = [];
    for (const q of task.queries) {
      const want = expectedOrder(firstRun.get(q.id) ?? [], name === 'code2code' ? q.anchorId : undefined, depth, (d) => score(q.text, text.get(d)!));
      const got = rer.get(q.id) ?? [];
      if (got.length !== want.length || got.some((d, i) => d !== want[i]))
        fail(`${name} ${q.id}: reranked run ${got.slice(0, 5).join(',')}… differs from ${want.slice(0, 5).join(',')}…`);
      checked++;
      const labels = task.qrels.get(q.id);
      if (labels === undefined) continue;
      if (c2tMatchNegatives === 'exclude' && q.subtask === 'c2t_match' && ![...labels.values()].some((l) => l >= 2)) continue;
      population.push(q.id);
    }
    const labels = (id: string): ReadonlyMap<string, number> => task.qrels.get(id)!;
    near(
      reranked.rerank!.delta[name]['ndcg@10'],
      mean(population, (id) => strictNdcg(rer.get(id) ?? [], labels(id), 10) - strictNdcg(firstRun.get(id) ?? [], labels(id), 10)),
      `${name} delta ndcg@10`,
    );
    near(
      reranked.rerank!.delta[name]['recall@10'],
      mean(population, (id) => recallAt(rer.get(id) ?? [], labels(id), 10) - recallAt(firstRun.get(id) ?? [], labels(id), 10)),
      `${name} delta recall@10`,
    );
    near(
      reranked.rerank!.recallCeiling[name],
      mean(population, (id) => recallAt(firstRun.get(id) ?? [], labels(id), depth)),
      `${name} recall ceiling`,
    );
  }
  return checked;
}
