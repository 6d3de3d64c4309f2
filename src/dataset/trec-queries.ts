/**
 * A TREC run of any size read query by query, whatever its line order: streamed when it is grouped
 * by query (memory for one chunk plus one query), else split by qid hash into temporary partitions
 * that are read one at a time. `coreb metrics` and eval's `run:` retriever both read runs this way.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { turnAndCheck } from '../core/event-loop-turns.js';
import { IdTable } from './id-table.js';
import { isGzip } from './text-file.js';
import { loadTrecRunColumns, streamTrecRunGroups, type TrecLoadOptions, type TrecRunGroup } from './trec.js';
import { partitionOrigin, partitionTrecRun, type TrecRunPartition } from './trec-partition.js';

/** Options of {@link forEachTrecRunQuery}. */
export interface TrecRunQueriesOptions extends Pick<TrecLoadOptions, 'docs' | 'judged' | 'anchors' | 'signal' | 'chunkBytes' | 'onBytes'> {
  /** Directory for the partitions of a run not grouped by query (removed afterwards). Default the OS temp dir. */
  tmpDir?: string;
  /** Name prefix of the partitions' temporary directory. Default `coreb-run-`. */
  tmpPrefix?: string;
  /** Target size of one partition, uncompressed bytes. Default 64 MiB (about 100 MB of memory while read). */
  partitionBytes?: number;
  /**
   * Told when the run is not grouped by query, before it is partitioned into `parts` files: the
   * queries handed out so far were an incomplete first pass; forget them, each comes again.
   */
  onUngrouped?: (parts: number) => void;
  /** Also compute the sha256 of the file's bytes (compressed bytes for gzip), in the same pass. Default false. */
  sha256?: boolean;
}

/** What {@link forEachTrecRunQuery} read. */
export interface TrecRunQueries {
  /** Every query id of the run (first-seen order when grouped, partition order when not). */
  queryIds: string[];
  /** Result lines of the run. */
  entries: number;
  /** The tag of the run's last line (trec_eval's `runid`). */
  runTag: string;
  /** `grouped`: streamed query by query; `partitioned`: split by qid hash first (not grouped). */
  mode: 'grouped' | 'partitioned';
  /** Partitions used (0 when grouped). */
  partitions: number;
  /** With the `sha256` option: the hex sha256 of the file. */
  sha256?: string;
}

/**
 * Hands every query of the TREC run at `path` (plain or `.gz`) to `onQuery`, each query once with
 * all its lines, reading the run once when it is grouped by query (trec_eval's and every engine's
 * output) and twice more when not (partitioned by qid hash under `tmpDir`, then each partition read
 * in memory). Only judged and anchor docs get ids in `group.docs` (see `streamTrecRunGroups`);
 * `group.entryDocId` decodes any. `group` is reused and valid only during its call. Memory: one
 * 4 MiB chunk and the largest query (a partition when not grouped), never the file.
 * @throws CorebError `PARSE`/`VALIDATION` for a malformed line or a duplicate (qid, docid), naming
 * the file and line(s) at any offset; the signal's reason when aborted; `UNSUPPORTED` for an
 * ungrouped run from a pipe.
 */
export async function forEachTrecRunQuery(
  path: string,
  options: TrecRunQueriesOptions,
  onQuery: (group: TrecRunGroup) => void,
): Promise<TrecRunQueries> {
  const { signal, anchors, judged } = options;
  const docs = options.docs ?? new IdTable();
  let hash = options.sha256 === true ? createHash('sha256') : undefined;
  const onBytes =
    hash === undefined && options.onBytes === undefined
      ? undefined
      : (b: Uint8Array): void => {
          hash?.update(b);
          options.onBytes?.(b);
        };
  let entries = 0;
  const stream = await streamTrecRunGroups(path, { docs, judged, anchors, signal, chunkBytes: options.chunkBytes, onBytes }, (g) => {
    onQuery(g);
    entries += g.end - g.start;
  });
  if (stream.grouped) {
    return {
      queryIds: [...stream.queryIds],
      entries,
      runTag: stream.runTag,
      mode: 'grouped',
      partitions: 0,
      ...(hash !== undefined ? { sha256: hash.digest('hex') } : {}),
    };
  }

  const parts = await partitionCount(path, options.partitionBytes ?? 1 << 26);
  options.onUngrouped?.(parts);
  if (hash !== undefined) hash = createHash('sha256');
  entries = 0;
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), options.tmpPrefix ?? 'coreb-run-'));
  try {
    const partitions = await partitionTrecRun(path, dir, parts, signal, onBytes);
    const queryIds: string[] = [];
    let last: TrecRunPartition | undefined;
    let runTag = '';
    let due = 0;
    for (const part of partitions) {
      if (part.count === 0) continue;
      const run = await loadTrecRunColumns(part.run, { docs, knownDocsOnly: true, judged, anchors, signal, origin: partitionOrigin(path, part) });
      if (last === undefined || part.lastLine > last.lastLine) {
        last = part;
        runTag = run.runTag;
      }
      const group: TrecRunGroup = {
        qid: '',
        docs: run.docs,
        scores: run.scores,
        start: 0,
        end: 0,
        compareEntries: run.compareEntries as (a: number, b: number) => number,
        entryDocId: run.entryDocId as (p: number) => string,
      };
      for (let q = 0; q < run.queryIds.length; q++) {
        queryIds.push(run.queryIds[q]);
        group.qid = run.queryIds[q];
        group.start = run.offsets[q];
        group.end = run.offsets[q + 1];
        onQuery(group);
        entries += group.end - group.start;
        if (entries >= due) {
          due = entries + 200_000;
          await turnAndCheck(signal);
        }
      }
    }
    return {
      queryIds,
      entries,
      runTag,
      mode: 'partitioned',
      partitions: parts,
      ...(hash !== undefined ? { sha256: hash.digest('hex') } : {}),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Partitions for `file`: its uncompressed size (gzip estimated at 5x) over `target`, 2 to 1024. */
async function partitionCount(file: string, target: number): Promise<number> {
  const st = await stat(file);
  if (!st.isFile()) {
    throw new CorebError(
      'UNSUPPORTED',
      "the run is not grouped by query (a query's lines resume after another's) and comes from a pipe, which cannot be read twice; give the file, or group it first (`sort -s -k1,1`)",
      { file },
    );
  }
  const head = Buffer.alloc(2);
  const fh = await open(file, 'r');
  try {
    await fh.read(head, 0, 2, 0);
  } finally {
    await fh.close();
  }
  const bytes = isGzip(head) ? st.size * 5 : st.size;
  return Math.max(2, Math.min(1024, Math.ceil(bytes / target)));
}
