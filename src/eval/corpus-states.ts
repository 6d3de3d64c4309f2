/**
 * Searching a corpus that changes over time, one state per query: a repository benchmark built with
 * `coreb repo build --corpus-at parent` holds every version of the code its queries were asked
 * against, each chunk valid over a range of states (`meta_valid_from` inclusive, `meta_valid_until`
 * exclusive; the snapshot is state 0) and each query naming its state (`meta_base_seq`). A query sees
 * its own repository at its state and every other repository of the corpus at its snapshot.
 *
 * Two ways to search such a corpus, both ranking only what a query sees:
 * - {@link replayBm25}: BM25 with the statistics of the query's own state (document count, document
 *   frequencies, mean length), exactly as a BM25 index built at that state: a live index moved from
 *   state to state in order, the queries of each state searched there;
 * - {@link searchVisible}: any retriever over every version at once, each list then cut to what the
 *   query sees (searched deeper until `depth` visible documents are found or none are left): exact for
 *   retrievers whose score of a document does not depend on the rest of the corpus (dense, grep, a
 *   reranker, a run file), the union's statistics for the rest (a BM25 variant the live index does not
 *   take, rank fusion).
 */
import type { Doc, Query, RetrievalTask } from '../core/dataset.js';
import type { Progress } from '../core/progress.js';
import { silentProgress } from '../core/progress.js';
import type { RankedList, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import type { Bm25Options } from '../search/bm25.js';
import { LiveBm25Index } from '../search/bm25-live.js';

/** A document's validity: its repository and the states `[from, until)` it belongs to. */
export interface DocSpan {
  repo: string | undefined;
  from: number;
  until: number;
}

/** Where a query is searched: its repository's state `seq`. */
export interface QueryState {
  repo: string | undefined;
  seq: number;
}

/** The states of a versioned corpus (see the module comment). */
export interface CorpusStates {
  /** Validity of each document, parallel to the task's corpus. */
  spans: DocSpan[];
  /** Each query's state (state 0 of no repository when it names none). */
  queries: Map<string, QueryState>;
  /** The largest state number of any document or query. */
  lastState: number;
  /** Documents beyond those of state 0 (later versions). */
  versions: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The states of `task`'s corpus, or undefined when no document carries a validity
 * (`meta_valid_from` / `meta_valid_until`: every corpus but a `--corpus-at parent` build).
 */
export function corpusStates(task: Pick<RetrievalTask, 'corpus' | 'queries'>): CorpusStates | undefined {
  if (!task.corpus.some((d) => d.meta?.metaValidFrom !== undefined || d.meta?.metaValidUntil !== undefined)) return undefined;
  let lastState = 0;
  let versions = 0;
  const spans = task.corpus.map((d): DocSpan => {
    const m = d.meta ?? {};
    const from = num(m.metaValidFrom) ?? 0;
    const until = num(m.metaValidUntil) ?? Number.POSITIVE_INFINITY;
    lastState = Math.max(lastState, from, Number.isFinite(until) ? until : 0);
    if (from > 0) versions++;
    return { repo: str(m.metaRepo ?? m.repo), from, until };
  });
  const queries = new Map<string, QueryState>();
  for (const q of task.queries) {
    const m = q.meta ?? {};
    const seq = num(m.metaBaseSeq) ?? 0;
    lastState = Math.max(lastState, seq);
    queries.set(q.id, { repo: str(m.metaRepo ?? m.repo), seq });
  }
  return { spans, queries, lastState, versions };
}

/** True when a document of span `d` is in the corpus a query at `q` searches. */
export function visibleAt(d: DocSpan, q: QueryState): boolean {
  const seq = d.repo === q.repo ? q.seq : 0;
  return d.from <= seq && seq < d.until;
}

/**
 * `index.search` with each list cut to the documents its query sees ({@link visibleAt}), searched
 * again deeper (x4 each round) for the queries left short while the index may hold more.
 */
export async function searchVisible(
  index: RetrieverIndex,
  corpus: readonly Doc[],
  states: CorpusStates,
  queries: readonly Query[],
  depth: number,
  options: SearchOptions = {},
): Promise<Map<string, RankedList>> {
  const span = new Map(corpus.map((d, i) => [d.id, states.spans[i]]));
  const out = new Map<string, RankedList>();
  let pending = queries;
  // Each version of a chunk is a near copy of the others: a list holds about one per state of it.
  let ask = Math.min(Math.max(depth * 4, depth + 64), corpus.length);
  for (;;) {
    const lists = await index.search(pending, ask, options);
    const short: Query[] = [];
    for (const q of pending) {
      const l = lists.get(q.id) ?? { docIds: [], scores: new Float32Array(0) };
      const at = states.queries.get(q.id) ?? { repo: undefined, seq: 0 };
      const keep: number[] = [];
      for (let i = 0; i < l.docIds.length && keep.length < depth; i++) {
        const s = span.get(l.docIds[i]);
        if (s === undefined || visibleAt(s, at)) keep.push(i);
      }
      if (keep.length < depth && l.docIds.length >= ask && ask < corpus.length) {
        short.push(q);
        continue;
      }
      out.set(q.id, { docIds: keep.map((i) => l.docIds[i]), scores: Float32Array.from(keep, (i) => l.scores[i]) });
    }
    if (short.length === 0) return out;
    pending = short;
    ask = Math.min(ask * 4, corpus.length);
  }
}

/** Options of {@link replayBm25}. */
export interface ReplayOptions {
  /** Per query, document ids left out of its list (anchors, the query's own id). */
  exclude?: ReadonlyMap<string, readonly string[]>;
  progress?: Progress;
  signal?: AbortSignal;
}

/**
 * BM25 of every query in its own state, exactly as an index built over the documents it sees: per
 * repository, a live index of state 0 moved state by state (each state's removed versions out, its
 * new ones in) with that repository's queries searched at their states, in order.
 * @throws CorebError `USAGE` for options a live index does not take (RM3 feedback): {@link searchVisible} serves those.
 */
export async function replayBm25(
  corpus: readonly Doc[],
  states: CorpusStates,
  queries: readonly Query[],
  params: Bm25Options,
  depth: number,
  options: ReplayOptions = {},
): Promise<Map<string, RankedList>> {
  const progress = options.progress ?? silentProgress;
  const out = new Map<string, RankedList>();
  const byRepo = new Map<string | undefined, Query[]>();
  for (const q of queries) {
    const r = states.queries.get(q.id)?.repo;
    const list = byRepo.get(r);
    if (list === undefined) byRepo.set(r, [q]);
    else list.push(q);
  }
  progress.start('searching each query in its own state (bm25 replayed)', queries.length);
  for (const [repo, qs] of byRepo) {
    const index = new LiveBm25Index(params);
    index.beginStaging();
    const added = new Map<number, Doc[]>();
    const removed = new Map<number, string[]>();
    const at0: QueryState = { repo, seq: 0 };
    for (let i = 0; i < corpus.length; i++) {
      const s = states.spans[i];
      if (visibleAt(s, at0)) index.add(corpus[i]);
      if (s.repo !== repo) continue;
      if (s.from > 0) push(added, s.from, corpus[i]);
      if (Number.isFinite(s.until) && s.until > 0) push(removed, s.until, corpus[i].id);
    }
    await index.compact(options.signal);
    const ordered = qs.map((q, i) => ({ q, i, seq: states.queries.get(q.id)?.seq ?? 0 })).sort((a, b) => a.seq - b.seq || a.i - b.i);
    let seq = 0;
    for (const { q, seq: want } of ordered) {
      if (options.signal?.aborted) throw options.signal.reason;
      for (; seq < want; ) {
        seq++;
        for (const id of removed.get(seq) ?? []) index.remove(id);
        for (const d of added.get(seq) ?? []) index.add(d);
      }
      // the delta is searched document by document: folded into the base once it grows
      const st = index.stats();
      if (st.delta + st.removed > 4096 && st.delta + st.removed > st.base / 8) await index.compact(options.signal);
      const ex = options.exclude?.get(q.id);
      out.set(q.id, index.search(q.text, depth, ex !== undefined && ex.length > 0 ? new Set(ex) : undefined));
      progress.tick();
    }
  }
  progress.done();
  return out;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, [v]);
  else l.push(v);
}
