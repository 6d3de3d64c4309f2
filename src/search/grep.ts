/**
 * The `grep` retriever: what a coding agent does with ripgrep before it has an index. The query's
 * words become case-insensitive literal patterns and a document ranks by how many of them it
 * contains (in its path/title or text), then by how often. No index, no IDF, no tokeniser beyond
 * splitting words: the baseline that answers "grep or embeddings?" with numbers.
 */
import type { Doc, Query } from '../core/dataset.js';
import type { IndexOptions, RankedList, Retriever, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { validateDepth } from './common.js';
import { ENGLISH_STOP_WORDS } from './tokenize.js';
import { createTieRanks, TopK } from './top-k.js';

/** Options of {@link createGrepRetriever}. */
export interface GrepOptions {
  /** Shortest pattern, characters. Default 3. */
  minLength?: number;
}

const STOP = new Set(ENGLISH_STOP_WORDS);

/** The patterns of a query: its distinct words (letters, digits, `_`) of at least `minLength` characters that are not English stop words, lower-cased. */
export function grepPatterns(query: string, minLength = 3): string[] {
  const out = new Set<string>();
  for (const m of query.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const w = m[0].toLowerCase();
    if (w.length >= minLength && !STOP.has(w)) out.add(w);
  }
  return [...out];
}

/**
 * Score of a document for patterns: m + 1 - 1/(1 + n), m the patterns it contains, n their
 * occurrences (non-overlapping, all patterns); 0 when it contains none (not returned).
 */
export function grepScore(haystack: string, patterns: readonly string[]): number {
  let matched = 0;
  let hits = 0;
  for (const p of patterns) {
    let at = haystack.indexOf(p);
    if (at < 0) continue;
    matched++;
    while (at >= 0) {
      hits++;
      at = haystack.indexOf(p, at + p.length);
    }
  }
  return matched === 0 ? 0 : matched + 1 - 1 / (1 + hits);
}

/** The `grep` retriever ({@link grepScore} over `title text`, lower-cased once at index time). */
export function createGrepRetriever(options: GrepOptions = {}): Retriever {
  const minLength = options.minLength ?? 3;
  return {
    name: 'grep',
    describe: () => ({
      kind: 'grep',
      patterns: `query words of >= ${minLength} characters, English stop words dropped, case-insensitive literals`,
      score: 'matched patterns + 1 - 1/(1 + occurrences)',
      minLength,
    }),
    async index(docs: readonly Doc[], _options: IndexOptions = {}): Promise<RetrieverIndex> {
      const texts = docs.map((d) => (d.title ? `${d.title}\n${d.text}` : d.text).toLowerCase());
      const ids = docs.map((d) => d.id);
      const tieRanks = createTieRanks(ids);
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, opts: SearchOptions = {}): Promise<Map<string, RankedList>> {
          validateDepth(depth);
          const out = new Map<string, RankedList>();
          opts.progress?.start('grep', queries.length);
          for (const q of queries) {
            const patterns = grepPatterns(q.text, minLength);
            const excluded = new Set(opts.exclude?.get(q.id) ?? []);
            const heap = new TopK(Math.min(depth, Math.max(1, docs.length)), tieRanks);
            if (patterns.length > 0) {
              for (let d = 0; d < texts.length; d++) {
                const s = grepScore(texts[d], patterns);
                if (s > 0 && !excluded.has(ids[d])) heap.push(d, s);
              }
            }
            const outDocs = new Int32Array(heap.capacity);
            const outScores = new Float32Array(heap.capacity);
            const m = heap.drainInto(outDocs, outScores);
            out.set(q.id, { docIds: Array.from(outDocs.subarray(0, m), (d) => ids[d]), scores: outScores.slice(0, m) });
            opts.progress?.tick();
            if (opts.signal?.aborted) break;
          }
          opts.progress?.done();
          return out;
        },
      };
    },
  };
}
