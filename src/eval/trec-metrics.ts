/**
 * `coreb metrics` on TREC files of any size: the qrels in memory, the run streamed query by query
 * into the metrics kernel ({@link QueryEvaluator}), so memory follows the largest query, not the
 * file. A run that is not grouped by query is split by qid hash into temporary partitions that are
 * each evaluated in memory; the numbers are the same either way (trec_eval order and sums).
 */
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import {
  IdTable,
  loadTrecQrelsColumns,
  loadTrecRunColumns,
  partitionOrigin,
  partitionTrecRun,
  streamTrecRunGroups,
  type TrecRunPartition,
} from '../dataset/index.js';
import { isGzip } from '../dataset/text-file.js';
import { QueryEvaluator, type ColumnarEvaluation, type ColumnarOptions } from '../metrics/index.js';

/** Options of {@link evaluateTrecFiles}. */
export interface TrecFileMetricsOptions extends ColumnarOptions {
  /** TREC qrels file (plain or `.gz`). */
  qrels: string;
  /** TREC run file (plain or `.gz`; a pipe works when it is grouped by query). */
  run: string;
  /** Checked between chunks and queries: an aborted signal stops the work with its reason. */
  signal?: AbortSignal;
  /** Directory for the partitions of a run not grouped by query (removed afterwards). Default the OS temp dir. */
  tmpDir?: string;
  /** Target size of one partition, uncompressed bytes. Default 64 MiB (about 100 MB of memory while evaluated). */
  partitionBytes?: number;
  /** Bytes read per chunk of the run. Default 4 MiB. */
  chunkBytes?: number;
  /** Told when the run is not grouped by query, before it is partitioned into `parts` files. */
  onUngrouped?: (parts: number) => void;
}

/** Result of {@link evaluateTrecFiles}. */
export interface TrecFileMetrics {
  result: ColumnarEvaluation;
  /** The tag of the run's last line (trec_eval's `runid`). */
  runTag: string;
  /** `grouped`: streamed query by query; `partitioned`: split by qid hash first (not grouped). */
  mode: 'grouped' | 'partitioned';
  /** Partitions used (0 when grouped). */
  partitions: number;
}

/** Resolves on the next turn of the event loop (signals get handled), then checks `signal`. */
async function breathe(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((r) => setImmediate(r));
  signal?.throwIfAborted();
}

function emptyRun(file: string): CorebError {
  // trec_eval refuses an empty results file; all-zero measures would look like a real score.
  return new CorebError('VALIDATION', 'the run has no result lines; expected `qid Q0 docid rank score tag` lines', { file });
}

/**
 * Evaluates a TREC run file against a TREC qrels file with trec_eval 9.0.8 semantics (see
 * {@link QueryEvaluator}), streaming the run. Memory: the qrels, one result row per query and the
 * largest query's entries (plus one 4 MiB chunk); an ungrouped run adds one partition in memory.
 * @throws CorebError `PARSE`/`VALIDATION` for a malformed line (file and line), a duplicate
 * (qid, docid) (both lines) or an empty run; `INTERRUPTED` (the signal's reason) when aborted.
 */
export async function evaluateTrecFiles(options: TrecFileMetricsOptions): Promise<TrecFileMetrics> {
  const { signal, anchors } = options;
  const docs = new IdTable();
  const qrels = await loadTrecQrelsColumns(options.qrels, { docs, signal });
  if (anchors !== undefined) for (const a of anchors.values()) docs.intern(a);
  const evaluator = new QueryEvaluator(qrels, options);
  let entries = 0;
  let due = 0;
  const stream = await streamTrecRunGroups(options.run, { docs, judged: qrels, anchors, signal, chunkBytes: options.chunkBytes }, (g) => {
    evaluator.add(g.qid, g.docs, g.scores, g.start, g.end, g.compareEntries);
    entries += g.end - g.start;
  });
  if (stream.grouped) {
    if (stream.queryIds.length === 0) throw emptyRun(options.run);
    const inRun = new Set(stream.queryIds);
    return { result: evaluator.finish((q) => inRun.has(q)), runTag: stream.runTag, mode: 'grouped', partitions: 0 };
  }

  evaluator.reset();
  const parts = await partitionCount(options.run, options.partitionBytes ?? 1 << 26);
  options.onUngrouped?.(parts);
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'coreb-metrics-'));
  try {
    const partitions = await partitionTrecRun(options.run, dir, parts, signal);
    const inRun = new Set<string>();
    let last: TrecRunPartition | undefined;
    let runTag = '';
    for (const part of partitions) {
      if (part.count === 0) continue;
      const run = await loadTrecRunColumns(part.run, {
        docs,
        knownDocsOnly: true,
        judged: qrels,
        anchors,
        signal,
        origin: partitionOrigin(options.run, part),
      });
      if (last === undefined || part.lastLine > last.lastLine) {
        last = part;
        runTag = run.runTag;
      }
      for (let q = 0; q < run.queryIds.length; q++) {
        inRun.add(run.queryIds[q]);
        evaluator.add(run.queryIds[q], run.docs, run.scores, run.offsets[q], run.offsets[q + 1], run.compareEntries);
        entries += run.offsets[q + 1] - run.offsets[q];
        if (entries >= due) {
          due = entries + 200_000;
          await breathe(signal);
        }
      }
    }
    if (inRun.size === 0) throw emptyRun(options.run);
    return { result: evaluator.finish((q) => inRun.has(q)), runTag, mode: 'partitioned', partitions: parts };
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
