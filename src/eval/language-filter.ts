/**
 * `filter=language` on any retriever: a user searching "in Python" keeps only Python programs. The
 * corpus is ranked as it is (the same index, the same scores), then each query's list is cut to the
 * documents in its own languages: a text-to-code query's `language_constraint` (none for `any`), a
 * code-to-code query's target languages. The published CoREB baselines did not filter, so a result
 * that did says so in its description and every row.
 */
import type { Doc, Query, TaskName } from '../core/dataset.js';
import type { RankedList, Retriever, RetrieverIndex, SearchOptions } from '../core/retrieval.js';

/** The warning every row of a language-filtered retriever carries. */
export const LANGUAGE_FILTER_WARNING =
  "filter=language: each query's list is cut to its own language (text-to-code language_constraint, code-to-code target languages) after ranking; the published CoREB baselines did not filter, so its numbers are not comparable with theirs";

/**
 * The languages a query asks for, or undefined when it asks for none (a text-to-code `any` query,
 * code-to-text, a query without the field). Reads `Query.language` (t2c) and
 * `Query.meta.targetLanguages` (c2c).
 */
export function queryLanguages(query: Query, task: TaskName | undefined): ReadonlySet<string> | undefined {
  if (task === 'text2code') {
    const l = query.language;
    return l === undefined || l === '' || l === 'any' ? undefined : new Set([l]);
  }
  if (task === 'code2code') {
    const t = query.meta?.targetLanguages;
    return Array.isArray(t) && t.length > 0 && t.every((x) => typeof x === 'string') ? new Set(t as string[]) : undefined;
  }
  return undefined;
}

/**
 * `inner` with every query's list cut to its languages ({@link queryLanguages}). Exact: a query
 * whose cut list is shorter than `depth` while the inner list was full is searched again four
 * times deeper, until it has `depth` documents or the corpus is exhausted. Scores are the inner
 * retriever's.
 */
export function createLanguageFilteredRetriever(inner: Retriever, name: string): Retriever {
  return {
    name,
    describe: () => ({ ...inner.describe(), filter: 'language' }),
    ...(inner.report !== undefined ? { report: () => (inner.report as () => Record<string, unknown>)() } : {}),
    async index(docs: readonly Doc[], options): Promise<RetrieverIndex> {
      const index = await inner.index(docs, options);
      const languageOf = new Map(docs.map((d) => [d.id, d.language]));
      return {
        size: index.size,
        async search(queries: readonly Query[], depth: number, opts: SearchOptions = {}): Promise<Map<string, RankedList>> {
          const out = new Map<string, RankedList>();
          let pending = [...queries];
          let want = depth;
          while (pending.length > 0) {
            const lists = await index.search(pending, Math.min(want, Math.max(1, index.size)), opts);
            const again: Query[] = [];
            for (const q of pending) {
              const list = lists.get(q.id) ?? { docIds: [], scores: new Float32Array(0) };
              const allowed = queryLanguages(q, opts.task);
              if (allowed === undefined) {
                out.set(q.id, cut(list, depth));
                continue;
              }
              const keep: number[] = [];
              list.docIds.forEach((id, i) => {
                const l = languageOf.get(id);
                if (l !== undefined && allowed.has(l) && keep.length < depth) keep.push(i);
              });
              const exhausted = list.docIds.length < want || want >= index.size;
              if (keep.length < depth && !exhausted) {
                again.push(q);
                continue;
              }
              const scores = list.scores instanceof Float32Array ? new Float32Array(keep.length) : new Float64Array(keep.length);
              keep.forEach((i, j) => (scores[j] = list.scores[i]));
              out.set(q.id, { docIds: keep.map((i) => list.docIds[i]), scores });
            }
            pending = again;
            want *= 4;
          }
          return out;
        },
      };
    },
  };
}

function cut(list: RankedList, depth: number): RankedList {
  return list.docIds.length <= depth ? list : { docIds: list.docIds.slice(0, depth), scores: list.scores.slice(0, depth) };
}
