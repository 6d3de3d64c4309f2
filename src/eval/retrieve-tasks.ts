/**
 * Runs one retriever spec over several tasks and returns the ranked lists, without scoring: what
 * consumers of rankings other than the evaluator need (hard-negative mining for reranker training).
 * Tasks sharing a corpus share one index; the code-to-code anchor is excluded at search time.
 */
import type { RetrievalTask } from '../core/dataset.js';
import { silentProgress, type Logger, type Progress } from '../core/progress.js';
import type { RankedList, RetrieverDescription, RetrieverIndex } from '../core/retrieval.js';
import { createRetriever } from './create-retriever.js';
import { parseRetrieverSpec } from './retriever-spec.js';

/** Options of {@link retrieveTasks}. */
export interface RetrieveTasksOptions {
  /** A retriever spec (`bm25`, `run:FILE`, `embeddings:FILE`, `rrf:…`, `dense:…`). */
  spec: string;
  /** Task name -> task. Tasks whose `corpus` arrays are the same object share one index. */
  tasks: ReadonlyMap<string, RetrievalTask>;
  /** Documents kept per query (>= 1). */
  depth: number;
  /** Exclude each query's `anchorId` from its list (CoREB code-to-code). Default true. */
  excludeAnchors?: boolean;
  /** Directory relative files in the spec are resolved against. */
  baseDir: string;
  /** Environment for `dense:` providers. */
  env?: Record<string, string | undefined>;
  cacheDir?: string;
  /** On-disk BM25 index store folder (see `CreateRetrieverContext.indexCacheDir`). Default: none. */
  indexCacheDir?: string;
  signal?: AbortSignal;
  progress?: Progress;
  logger?: Logger;
}

/** Ranked lists per task (query id -> list; a `run:` file may lack queries) and the retriever's description. */
export interface RetrievedTasks {
  description: RetrieverDescription;
  lists: Map<string, Map<string, RankedList>>;
}

/** Indexes each distinct corpus once and searches every task's queries to `depth`. */
export async function retrieveTasks(o: RetrieveTasksOptions): Promise<RetrievedTasks> {
  const closers: Array<() => void> = [];
  const progress = o.progress ?? silentProgress;
  try {
    const excludeAnchors = o.excludeAnchors ?? true;
    const planQueries = new Map<string, number>();
    for (const task of o.tasks.values()) {
      for (const q of task.queries) planQueries.set(q.id, (planQueries.get(q.id) ?? 0) + (excludeAnchors && q.anchorId !== undefined ? 1 : 0));
    }
    const retriever = await createRetriever(parseRetrieverSpec(o.spec), {
      plan: { depth: o.depth, queries: planQueries },
      baseDir: o.baseDir,
      env: o.env ?? {},
      ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
      ...(o.indexCacheDir !== undefined ? { indexCacheDir: o.indexCacheDir } : {}),
      ...(o.logger !== undefined ? { logger: o.logger } : {}),
      progress,
      onClose: (c) => closers.push(c),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
    });
    const indexes = new Map<readonly unknown[], RetrieverIndex>();
    const lists = new Map<string, Map<string, RankedList>>();
    for (const [name, task] of o.tasks) {
      if (o.signal?.aborted) throw o.signal.reason;
      const common = { ...(task.task ? { task: task.task } : {}), progress, ...(o.signal ? { signal: o.signal } : {}) };
      let index = indexes.get(task.corpus);
      if (index === undefined) {
        index = await retriever.index(task.corpus, common);
        indexes.set(task.corpus, index);
      }
      const exclude = new Map<string, string[]>();
      if (excludeAnchors) for (const q of task.queries) if (q.anchorId !== undefined) exclude.set(q.id, [q.anchorId]);
      lists.set(name, await index.search(task.queries, o.depth, { ...common, exclude }));
    }
    return { description: retriever.describe(), lists };
  } finally {
    for (const c of closers) c();
  }
}
