/**
 * The `run:FILE` retriever: a TREC run produced elsewhere (e.g. by a Python toolkit) served through
 * the same interface as coreb's own retrievers, so it is scored under exactly the same protocol.
 * The file is streamed once and only the rankings eval will search are kept, cut to the depth it
 * will search them to, so a multi-GB run costs memory for queries x depth, not for the file.
 */
import { stat } from 'node:fs/promises';
import type { Doc, Query, Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { silentProgress, type Progress } from '../core/progress.js';
import type { RankedList, Retriever, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { forEachTrecRunQuery } from '../dataset/trec-queries.js';
import type { TrecRunGroup } from '../dataset/trec.js';
import { rankTrec } from './rank.js';

/** What an evaluation will ask a `run:` retriever for, so that reading the file keeps only that. */
export interface RunSearchPlan {
  /** The largest depth `search` will be called with (documents per query, >= 1). */
  depth: number;
  /**
   * Every query id that will be searched -> how many documents may be excluded from its list
   * (anchors, its own id): each one may take a place in the file's top, so that many more are kept.
   */
  queries: ReadonlyMap<string, number>;
  /**
   * The order of each kept list. `trec` (default): trec_eval's (float32 score descending, ties by
   * docid descending). `file`: the file's double scores descending, ties in the file's own order,
   * as MTEB's and BEIR's MRR read a run (Python's stable sort); the documents kept are the same.
   */
  order?: 'trec' | 'file';
}

const MIB = 1 << 20;

/** One query's kept documents, in trec_eval order (or the file's: {@link RunSearchPlan.order}). */
export interface RunRanking {
  docIds: string[];
  /** The file's double scores, aligned with `docIds`. */
  scores: Float64Array;
  /** The query's result lines in the file (more than `docIds.length` when the list was cut). */
  total: number;
}

/** The rankings of a run, as kept by {@link loadRunRankings}. */
export interface RunRankings {
  /** Query ids of the file (all of them, kept or not). */
  queryIds: ReadonlySet<string>;
  /** Result lines of the file. */
  documents: number;
  /** Query id -> its kept ranking (planned queries only, when there is a plan). */
  lists: Map<string, RunRanking>;
  /** Documents kept over all lists: at most the sum over planned queries of depth + excluded. */
  kept: number;
  /** sha256 of the file (compressed bytes for gzip), computed while it was read. */
  sha256?: string;
}

/** Options of {@link loadRunRankings}. */
export interface LoadRunRankingsOptions {
  /** Keep only these queries, each to this depth. Default: every query, whole. */
  plan?: RunSearchPlan;
  signal?: AbortSignal;
  /** Directory for the partitions of a run not grouped by query. Default the OS temp dir. */
  tmpDir?: string;
  /** Told when the run is not grouped by query, before it is partitioned into `parts` files. */
  onUngrouped?: (parts: number) => void;
  /** Bytes read per chunk. Default 4 MiB. */
  chunkBytes?: number;
  /** Told the MiB of the file read (a step `read FILE (MiB)`; again while an ungrouped run is split). */
  progress?: Progress;
}

/**
 * The top `keep` entries of one query's lines in trec_eval 9.0.8 order (score rounded to float32
 * descending, ties by docid descending in UTF-8 byte order), file doubles kept as scores.
 */
function rankGroup(g: TrecRunGroup, keep: number, ids: Map<string, string>, order: 'trec' | 'file' = 'trec'): RunRanking {
  const n = g.end - g.start;
  const key = new Float64Array(n);
  const rank = new Int32Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    key[i] = Math.fround(g.scores[g.start + i]);
    rank[i] = i;
    if (i > 0 && sorted && (key[i] > key[i - 1] || (key[i] === key[i - 1] && g.compareEntries(g.start + i, g.start + i - 1) > 0))) sorted = false;
  }
  // Runs are usually written best first: then the file order is the trec order already.
  if (!sorted) rank.sort((a, b) => (key[a] > key[b] ? -1 : key[a] < key[b] ? 1 : g.compareEntries(g.start + b, g.start + a)));
  const m = Math.min(n, keep);
  // The same documents in the file's order of scores: doubles descending, ties by line.
  const kept = order === 'file' ? rank.subarray(0, m).sort((a, b) => g.scores[g.start + b] - g.scores[g.start + a] || a - b) : rank;
  const docIds = new Array<string>(m);
  const scores = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    // One string per distinct docid, shared by every query's list (runs repeat documents).
    const id = g.entryDocId(g.start + kept[i]);
    let shared = ids.get(id);
    if (shared === undefined) ids.set(id, (shared = id));
    docIds[i] = shared;
    scores[i] = g.scores[g.start + kept[i]];
  }
  return { docIds, scores, total: n };
}

/**
 * Reads a TREC run (plain or `.gz`, grouped by query or not) in one streaming pass (two more when
 * not grouped; see `forEachTrecRunQuery`) and keeps, per query of `plan`, its top `depth` plus
 * excluded documents in trec_eval order; other queries are only counted. The file's sha256 is
 * computed in the same pass. Memory: the kept rankings plus one chunk and one query's lines.
 * @throws CorebError `PARSE`/`VALIDATION` for a malformed line or a duplicate (qid, docid), naming
 * the file and line(s) at any offset; the signal's reason when aborted.
 */
export async function loadRunRankings(file: string, options: LoadRunRankingsOptions = {}): Promise<RunRankings> {
  const { plan } = options;
  const progress = options.progress ?? silentProgress;
  const lists = new Map<string, RunRanking>();
  const ids = new Map<string, string>();
  let kept = 0;
  let mib = 0;
  try {
    mib = Math.ceil((await stat(file)).size / MIB);
  } catch {
    // unknown size (the read reports what is wrong with the path)
  }
  progress.start(`read ${file} (MiB)`, mib);
  let bytes = 0;
  let ticked = 0;
  const onBytes = (b: Uint8Array): void => {
    bytes += b.length;
    const now = Math.floor(bytes / MIB);
    if (now > ticked) {
      progress.tick(now - ticked);
      ticked = now;
    }
  };
  const reading = forEachTrecRunQuery(
    file,
    {
      sha256: true,
      onBytes,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.tmpDir !== undefined ? { tmpDir: options.tmpDir } : {}),
      ...(options.chunkBytes !== undefined ? { chunkBytes: options.chunkBytes } : {}),
      onUngrouped: (parts) => {
        lists.clear();
        ids.clear();
        kept = 0;
        options.onUngrouped?.(parts);
        progress.done();
        progress.start(`split ${file} by query into ${parts} files (MiB)`, mib);
        bytes = 0;
        ticked = 0;
      },
    },
    (g) => {
      let keep = Number.POSITIVE_INFINITY;
      if (plan !== undefined) {
        const excluded = plan.queries.get(g.qid);
        if (excluded === undefined) return;
        keep = plan.depth + excluded;
      }
      const ranking = rankGroup(g, keep, ids, plan?.order);
      lists.set(g.qid, ranking);
      kept += ranking.docIds.length;
    },
  );
  const read = await reading.finally(() => progress.done());
  return { queryIds: new Set(read.queryIds), documents: read.entries, lists, kept, ...(read.sha256 !== undefined ? { sha256: read.sha256 } : {}) };
}

/** {@link RunRankings} of a run held in memory (every query whole, in trec order). */
export function runRankingsOf(run: Run): RunRankings {
  const lists = new Map<string, RunRanking>();
  let documents = 0;
  for (const [qid, scores] of run) {
    const docIds = rankTrec(scores);
    const s = new Float64Array(docIds.length);
    for (let i = 0; i < docIds.length; i++) s[i] = scores.get(docIds[i]) as number;
    lists.set(qid, { docIds, scores: s, total: scores.size });
    documents += scores.size;
  }
  return { queryIds: new Set(run.keys()), documents, lists, kept: documents };
}

/**
 * A retriever that returns, for each query present in `run`, its documents in trec_eval order
 * (float32 score descending, docid descending), minus the excluded ones, cut to `depth`. Queries
 * absent from the run get NO entry (the evaluation reports them as missing). Scores keep the file's
 * double values; the metrics round them to float32 as trec_eval does. `sha256` (of the file;
 * default the one `run` was read with) goes into the description. Given rankings kept for a plan,
 * a search outside it (another query of the file, a deeper list) is an `INTERNAL` error, never a
 * silently shorter list.
 */
export function createRunRetriever(file: string, run: Run | RunRankings, name = `run:${file}`, sha256?: string): Retriever {
  const rankings = run instanceof Map ? runRankingsOf(run) : run;
  const hash = sha256 ?? rankings.sha256;
  const beyondPlan = (qid: string, depth: number): CorebError =>
    new CorebError(
      'INTERNAL',
      `query \`${qid}\` searched to depth ${depth}, but the run was read for a plan that keeps fewer of its documents; the plan given to loadRunRankings / createRetriever must cover every search`,
      { file },
    );
  return {
    name,
    describe: () => ({
      kind: 'run',
      file,
      ...(hash !== undefined ? { sha256: hash } : {}),
      queries: rankings.queryIds.size,
      documents: rankings.documents,
    }),
    async index(docs: readonly Doc[]): Promise<RetrieverIndex> {
      return {
        size: docs.length,
        async search(queries: readonly Query[], depth: number, options: SearchOptions = {}): Promise<Map<string, RankedList>> {
          const out = new Map<string, RankedList>();
          for (const q of queries) {
            const kept = rankings.lists.get(q.id);
            if (kept === undefined) {
              if (rankings.queryIds.has(q.id)) throw beyondPlan(q.id, depth);
              continue;
            }
            const ex = options.exclude?.get(q.id);
            const drop = ex !== undefined && ex.length > 0 ? new Set(ex) : undefined;
            const docIds: string[] = [];
            const picked: number[] = [];
            for (let i = 0; i < kept.docIds.length && docIds.length < depth; i++) {
              if (drop?.has(kept.docIds[i])) continue;
              docIds.push(kept.docIds[i]);
              picked.push(i);
            }
            if (docIds.length < depth && kept.total > kept.docIds.length) throw beyondPlan(q.id, depth);
            const scores = new Float64Array(picked.length);
            for (let i = 0; i < picked.length; i++) scores[i] = kept.scores[picked[i]];
            out.set(q.id, { docIds, scores });
          }
          return out;
        },
      };
    },
  };
}
