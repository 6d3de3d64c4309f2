/**
 * The "similar problems" shown to the query writer (the official runner shows the target problem's
 * top-5 neighbours so queries avoid what they share). The official runner ranks by
 * sentence-transformer cosine; coreb ranks by TF-IDF cosine over the rewritten titles and
 * statements of the build's own problems (no model download), with the same cut-offs.
 */
import type { Embedder } from '../../core/embedding.js';
import { normalizeMatrix } from '../../core/embedding.js';
import { compareCodePoints } from '../../core/ids.js';
import { createTokenizer } from '../../search/tokenize.js';

/** Neighbours shown per problem: 5 (the official runner's). */
export const SIMILAR_PROBLEMS_K = 5;
/** Least cosine for a neighbour to be shown: 0.1 (the official runner's). */
export const SIMILAR_PROBLEMS_MIN_SCORE = 0.1;

/** A problem as the similarity ranking sees it. */
export interface SimilarityDoc {
  id: string;
  text: string;
}

/**
 * For each document, the ids of the `k` most similar others (cosine of sublinear TF × smoothed IDF
 * vectors, English stop words dropped, S-stemmed), those above `minScore` only, best first; ties
 * by id. Defaults: k = 5, minScore = 0.1 (the official runner's).
 */
export function similarProblems(
  docs: readonly SimilarityDoc[],
  k = SIMILAR_PROBLEMS_K,
  minScore = SIMILAR_PROBLEMS_MIN_SCORE,
): Map<string, string[]> {
  const tokenize = createTokenizer({ stopwords: 'english', stem: true });
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of tokenize(d.text)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const df = new Map<string, number>();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  const vectors = tfs.map((tf) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const [t, c] of tf) {
      const w = (1 + Math.log(c)) * (Math.log((1 + n) / (1 + (df.get(t) ?? 0))) + 1);
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
  return topNeighbours(docs, k, minScore, (i, j) => {
    const [a, b] = vectors[i].size <= vectors[j].size ? [vectors[i], vectors[j]] : [vectors[j], vectors[i]];
    let s = 0;
    for (const [t, w] of a) s += w * (b.get(t) ?? 0);
    return s;
  });
}

/**
 * The same neighbours ranked by the cosine of `embedder`'s vectors (each text embedded once as a
 * document; rows normalised here, whatever the provider does), with the same `k` and `minScore`.
 */
export async function similarProblemsByEmbedding(
  docs: readonly SimilarityDoc[],
  embedder: Embedder,
  signal?: AbortSignal,
  k = SIMILAR_PROBLEMS_K,
  minScore = SIMILAR_PROBLEMS_MIN_SCORE,
): Promise<Map<string, string[]>> {
  const m = normalizeMatrix(
    await embedder.embed(
      docs.map((d) => d.text),
      { role: 'document', ...(signal !== undefined ? { signal } : {}) },
    ),
  );
  return topNeighbours(docs, k, minScore, (i, j) => {
    let s = 0;
    for (let d = 0; d < m.dim; d++) s += m.data[i * m.dim + d] * m.data[j * m.dim + d];
    return s;
  });
}

/** For each document, the ids of the `k` best-scoring others above `minScore`, best first, ties by id. */
function topNeighbours(docs: readonly SimilarityDoc[], k: number, minScore: number, score: (i: number, j: number) => number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < docs.length; i++) {
    const scored: Array<{ id: string; s: number }> = [];
    for (let j = 0; j < docs.length; j++) {
      if (i === j) continue;
      const s = score(i, j);
      if (s > minScore) scored.push({ id: docs[j].id, s });
    }
    scored.sort((x, y) => y.s - x.s || compareCodePoints(x.id, y.id));
    out.set(
      docs[i].id,
      scored.slice(0, k).map((x) => x.id),
    );
  }
  return out;
}
