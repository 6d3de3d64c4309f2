/**
 * The `run:FILE` retriever: a TREC run produced elsewhere (e.g. by a Python toolkit) served through
 * the same interface as coreb's own retrievers, so it is scored under exactly the same protocol.
 */
import type { Doc, Query, Run } from '../core/dataset.js';
import type { RankedList, Retriever, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { rankTrec } from './rank.js';

/**
 * A retriever that returns, for each query present in `run`, its documents in trec_eval order
 * (float32 score descending, docid descending), minus the excluded ones, cut to `depth`. Queries
 * absent from the run get NO entry (the evaluation reports them as missing). Scores keep the file's
 * double values; the metrics round them to float32 as trec_eval does. `sha256` (of the file) goes
 * into the description.
 */
export function createRunRetriever(file: string, run: Run, name = `run:${file}`, sha256?: string): Retriever {
  let docsInRun = 0;
  for (const m of run.values()) docsInRun += m.size;
  return {
    name,
    describe: () => ({ kind: 'run', file, ...(sha256 !== undefined ? { sha256 } : {}), queries: run.size, documents: docsInRun }),
    async index(docs: readonly Doc[]): Promise<RetrieverIndex> {
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, options: SearchOptions = {}): Promise<Map<string, RankedList>> {
          const out = new Map<string, RankedList>();
          for (const q of queries) {
            const scores = run.get(q.id);
            if (scores === undefined) continue;
            const ex = options.exclude?.get(q.id);
            const ranked = rankTrec(scores, ex && ex.length > 0 ? new Set(ex) : undefined).slice(0, depth);
            const s = new Float64Array(ranked.length);
            for (let i = 0; i < ranked.length; i++) s[i] = scores.get(ranked[i])!;
            out.set(q.id, { docIds: ranked, scores: s });
          }
          return out;
        },
      };
    },
  };
}
