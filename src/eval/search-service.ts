/**
 * The pipeline a benchmark measured, as a service an agent can call: a corpus indexed once by a
 * retriever spec, optionally reranked, answering one query at a time with ranked chunks (path,
 * lines, symbol, score, text). `coreb serve` puts it behind an HTTP JSON endpoint and an MCP stdio
 * server; the answers are the ones `coreb eval` scores for the same specs.
 */
import type { Doc, Query, TaskName } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { Logger } from '../core/progress.js';
import type { RetrieverIndex } from '../core/retrieval.js';
import { createRetriever } from './create-retriever.js';
import { chunkLocation } from './file-level.js';
import { createRerankerFromSpec, rerankLists, type SpecReranker } from './rerank-stage.js';
import { parseRetrieverSpec } from './retriever-spec.js';

/** One search hit. */
export interface SearchHit {
  rank: number;
  id: string;
  score: number;
  /** `meta_path` of a repository chunk (else undefined). */
  path?: string;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  language?: string;
  text: string;
}

/** A corpus served by one pipeline. */
export interface SearchService {
  /** The retriever (and reranker) specs and the corpus size. */
  describe(): Record<string, unknown>;
  /** What a live index is doing (building, ready, updates); absent for a corpus indexed once. */
  status?(): { state: string; [key: string]: unknown };
  /** The top `k` (1 to 1000) hits of `query`, best first. */
  search(query: string, k: number, signal?: AbortSignal): Promise<SearchHit[]>;
  close(): void;
}

/** Options of {@link createSearchService}. */
export interface SearchServiceOptions {
  corpus: readonly Doc[];
  retriever: string;
  reranker?: string;
  /** Candidates reranked. Default 50. */
  rerankDepth?: number;
  /** The CoREB task queries are searched as (instructions, query expansion); default text2code. */
  task?: TaskName;
  baseDir: string;
  env: Record<string, string | undefined>;
  cacheDir?: string;
  logger?: Logger;
}

/** Indexes `corpus` with the retriever spec and returns the service. */
export async function createSearchService(o: SearchServiceOptions): Promise<SearchService> {
  const task = o.task ?? 'text2code';
  const closers: Array<() => void> = [];
  const retriever = await createRetriever(parseRetrieverSpec(o.retriever), {
    baseDir: o.baseDir,
    env: o.env,
    ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
    ...(o.logger !== undefined ? { logger: o.logger } : {}),
    onClose: (c) => closers.push(c),
  });
  const index: RetrieverIndex = await retriever.index(o.corpus, { task });
  let reranker: SpecReranker | undefined;
  if (o.reranker !== undefined) {
    reranker = await createRerankerFromSpec(o.reranker, {
      env: o.env,
      ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
      ...(o.logger !== undefined ? { logger: o.logger } : {}),
    });
    closers.push(() => reranker?.close());
  }
  const docs = new Map(o.corpus.map((d) => [d.id, d]));
  const depth = o.rerankDepth ?? 50;
  let n = 0;
  return {
    describe: () => ({
      retriever: retriever.describe(),
      ...(reranker !== undefined ? { reranker: reranker.describe(), rerankDepth: depth } : {}),
      docs: o.corpus.length,
      task,
    }),
    async search(text, k, signal) {
      if (typeof text !== 'string' || text.trim() === '') throw new CorebError('USAGE', 'the query must be a non-empty string');
      if (!Number.isInteger(k) || k < 1 || k > 1000) throw new CorebError('USAGE', `k must be an integer from 1 to 1000, got ${k}`);
      const q: Query = { id: `q${++n}`, text, task };
      const first = (
        await index.search([q], Math.max(k, reranker !== undefined ? depth : 0), { task, ...(signal !== undefined ? { signal } : {}) })
      ).get(q.id);
      let list = first ?? { docIds: [], scores: new Float32Array(0) };
      if (reranker !== undefined && list.docIds.length > 0) {
        const out = await rerankLists({
          reranker,
          queries: [q],
          docs,
          lists: new Map([[q.id, list]]),
          depth,
          fusion: { kind: 'none' },
          task,
          ...(signal !== undefined ? { signal } : {}),
        });
        list = out.get(q.id) ?? list;
      }
      return list.docIds.slice(0, k).map((id, i) => {
        const d = docs.get(id) as Doc;
        const { repo: _repo, ...where } = chunkLocation(d);
        return { rank: i + 1, id, score: list.scores[i], ...where, text: d.text };
      });
    },
    close() {
      for (const c of closers) c();
    },
  };
}
