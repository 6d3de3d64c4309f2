/**
 * File-level scoring of chunk rankings (repository benchmarks: a code search tool often answers
 * with files): a file's rank is its best chunk's, its score that chunk's score, and its label the
 * best label of its chunks (2 when it holds a relevant chunk). Chunks name their file by
 * `meta_path` (and `meta_repo` when several repositories share a corpus), as `coreb repo build` writes them.
 */
import type { Doc, Qrels } from '../core/dataset.js';
import type { RankedList } from '../core/retrieval.js';

/** Document id -> file key (`repo:path`, or `path`), for corpora whose every document names its file; undefined otherwise. */
export function fileKeys(docs: readonly Doc[]): Map<string, string> | undefined {
  if (docs.length === 0) return undefined;
  const out = new Map<string, string>();
  for (const d of docs) {
    // `meta_path` reads as meta.path in a CoREB release and as meta.metaPath in a BEIR corpus row.
    const path = d.meta?.path ?? d.meta?.metaPath;
    if (typeof path !== 'string' || path === '') return undefined;
    const repo = d.meta?.repo ?? d.meta?.metaRepo;
    out.set(d.id, typeof repo === 'string' && repo !== '' ? `${repo}:${path}` : path);
  }
  return out;
}

/** A chunk ranking as a file ranking: each file at its best chunk's place, with that chunk's score. */
export function fileList(list: RankedList, fileOf: ReadonlyMap<string, string>): RankedList {
  const seen = new Set<string>();
  const ids: string[] = [];
  const scores: number[] = [];
  list.docIds.forEach((id, i) => {
    const f = fileOf.get(id) ?? id;
    if (seen.has(f)) return;
    seen.add(f);
    ids.push(f);
    scores.push(list.scores[i]);
  });
  return { docIds: ids, scores: list.scores instanceof Float32Array ? Float32Array.from(scores) : Float64Array.from(scores) };
}

/** Chunk qrels as file qrels: a file's label is the best label of its judged chunks. */
export function fileQrels(qrels: Qrels, fileOf: ReadonlyMap<string, string>): Qrels {
  const out: Qrels = new Map();
  for (const [q, judged] of qrels) {
    const m = new Map<string, number>();
    for (const [d, label] of judged) {
      const f = fileOf.get(d) ?? d;
      m.set(f, Math.max(m.get(f) ?? Number.NEGATIVE_INFINITY, label));
    }
    out.set(q, m);
  }
  return out;
}
