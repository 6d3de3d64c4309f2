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
    const n = occurrences(haystack, p);
    if (n > 0) {
      matched++;
      hits += n;
    }
  }
  return matched === 0 ? 0 : scoreOf(matched, hits);
}

/** Non-overlapping occurrences of `pattern` in `text`. */
function occurrences(text: string, pattern: string): number {
  let n = 0;
  for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + pattern.length)) n++;
  return n;
}

/** {@link grepScore}'s formula for `matched` patterns found `hits` times in all. */
function scoreOf(matched: number, hits: number): number {
  return matched + 1 - 1 / (1 + hits);
}

const WORD = /[\p{L}\p{N}_]+/gu;
const WORD_ONLY = /^[\p{L}\p{N}_]+$/u;

/**
 * The distinct words of the documents (runs of letters, digits and `_`) with the documents that
 * hold each. A pattern made of word characters can only occur inside a word, so the documents
 * holding it are those of the words that contain it: found by one scan of the vocabulary (a few
 * MB) instead of every document's text.
 */
function wordIndex(texts: readonly string[]): { docsContaining(pattern: string): number[] | undefined } {
  const postings = new Map<string, number[]>();
  for (let d = 0; d < texts.length; d++) {
    for (const m of texts[d].matchAll(WORD)) {
      const list = postings.get(m[0]);
      if (list === undefined) postings.set(m[0], [d]);
      else if (list[list.length - 1] !== d) list.push(d);
    }
  }
  const vocab = [...postings.keys()];
  const lists = vocab.map((w) => postings.get(w) as number[]);
  postings.clear();
  const starts = new Float64Array(vocab.length);
  let at = 0;
  for (let i = 0; i < vocab.length; i++) {
    starts[i] = at;
    at += vocab[i].length + 1;
  }
  const all = vocab.join('\n');
  const seen = new Int32Array(texts.length).fill(-1);
  let stamp = -1;
  return {
    docsContaining(pattern) {
      // a pattern with a character outside words (lower-casing can make one): every document
      if (!WORD_ONLY.test(pattern)) return undefined;
      const out: number[] = [];
      const mark = ++stamp;
      let w = 0;
      for (let pos = all.indexOf(pattern); pos >= 0; ) {
        let hi = vocab.length - 1;
        while (w < hi) {
          const mid = (w + hi + 1) >>> 1;
          if (starts[mid] <= pos) w = mid;
          else hi = mid - 1;
        }
        for (const d of lists[w])
          if (seen[d] !== mark) {
            seen[d] = mark;
            out.push(d);
          }
        // the next word: a word holding the pattern twice is listed once
        if (w + 1 >= vocab.length) break;
        pos = all.indexOf(pattern, starts[w + 1]);
      }
      return out;
    },
  };
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
      const words = wordIndex(texts);
      const matched = new Int32Array(docs.length);
      const hits = new Float64Array(docs.length);
      const touched: number[] = [];
      const all = Array.from({ length: docs.length }, (_, d) => d);
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
            // Each pattern is counted only in the documents holding a word that contains it (every
            // document for a pattern lower-casing gave a non-word character): the same matched
            // patterns and occurrences as grepScore over every document.
            for (const p of patterns) {
              for (const d of words.docsContaining(p) ?? all) {
                const n = occurrences(texts[d], p);
                if (n === 0) continue;
                if (matched[d] === 0) touched.push(d);
                matched[d]++;
                hits[d] += n;
              }
            }
            for (const d of touched) {
              if (!excluded.has(ids[d])) heap.push(d, scoreOf(matched[d], hits[d]));
              matched[d] = 0;
              hits[d] = 0;
            }
            touched.length = 0;
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
