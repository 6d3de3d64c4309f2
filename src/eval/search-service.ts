/**
 * The pipeline a benchmark measured, as a service an agent can call: a corpus indexed once by a
 * retriever spec, optionally reranked, answering one query at a time with ranked chunks (path,
 * lines, symbol, score, text). `coreb serve` puts it behind an HTTP JSON endpoint and an MCP stdio
 * server; the answers are the ones `coreb eval` scores for the same specs.
 */
import type { Doc, Query, TaskName } from '../core/dataset.js';
import type { Logger } from '../core/progress.js';
import type { RetrieverIndex } from '../core/retrieval.js';
import { createRetriever } from './create-retriever.js';
import { createRerankerFromSpec, rerankLists, type SpecReranker } from './rerank-stage.js';
import { parseRetrieverSpec } from './retriever-spec.js';
import { answerSearch, type SearchAnswer, type SearchRequest } from './search-request.js';

export type { FileHit, SearchAnswer, SearchHit, SearchRequest } from './search-request.js';

/** A corpus served by one pipeline. */
export interface SearchService {
  /** The retriever (and reranker) specs and the corpus size. */
  describe(): Record<string, unknown>;
  /** What a live index is doing (building, ready, updates); absent for a corpus indexed once. */
  status?(): { state: string; [key: string]: unknown };
  /**
   * The top `k` (1 to 1000) hits of `query`, best first, or `k` files with `groupByFile`; `request`
   * filters by path and language (see {@link SearchRequest}); a `symbol:NAME` query looks a symbol up.
   */
  search(query: string, k: number, request?: SearchRequest, signal?: AbortSignal): Promise<SearchAnswer>;
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
    search(text, k, request, signal) {
      return answerSearch(
        {
          size: o.corpus.length,
          documents: () => o.corpus,
          async rank(query, want, sig) {
            const q: Query = { id: `q${++n}`, text: query, task };
            const first = (
              await index.search([q], Math.max(want, reranker !== undefined ? depth : 0), { task, ...(sig !== undefined ? { signal: sig } : {}) })
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
                ...(sig !== undefined ? { signal: sig } : {}),
              });
              list = out.get(q.id) ?? list;
            }
            const ids = list.docIds.slice(0, want);
            return { docs: ids.map((id) => docs.get(id) as Doc), scores: list.scores };
          },
        },
        text,
        k,
        request,
        signal,
      );
    },
    close() {
      for (const c of closers) c();
    },
  };
}
