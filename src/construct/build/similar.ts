/**
 * The "similar problems" shown to the query writer (the official runner shows the target problem's
 * top-5 neighbours so queries avoid what they share). The official runner ranks by
 * sentence-transformer cosine; coreb ranks by TF-IDF cosine over the rewritten titles and
 * statements of the build's own problems (no model download), with the same cut-offs.
 */
import { compareCodePoints } from '../../core/ids.js';
import { createTokenizer } from '../../search/tokenize.js';

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
export function similarProblems(docs: readonly SimilarityDoc[], k = 5, minScore = 0.1): Map<string, string[]> {
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
  const out = new Map<string, string[]>();
  for (let i = 0; i < n; i++) {
    const scored: Array<{ id: string; s: number }> = [];
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const [a, b] = vectors[i].size <= vectors[j].size ? [vectors[i], vectors[j]] : [vectors[j], vectors[i]];
      let s = 0;
      for (const [t, w] of a) s += w * (b.get(t) ?? 0);
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
