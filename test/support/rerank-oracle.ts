/**
 * An independent second opinion on reranking for tests: reads TREC run files with a plain line
 * split, reorders each query's top candidates by a known score function, and computes strict
 * nDCG@k and Recall@k from scratch, without the toolkit's ranking or metrics code.
 */
import { readFileSync } from 'node:fs';

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
  const ideal = [...labels.values()].map(gain).sort((a, b) => b - a).slice(0, k);
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
