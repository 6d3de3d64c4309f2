/**
 * `coreb metrics` on TREC files of any size: the qrels in memory, the run streamed query by query
 * into the metrics kernel ({@link QueryEvaluator}), so memory follows the largest query, not the
 * file. A run that is not grouped by query is split by qid hash into temporary partitions that are
 * each evaluated in memory; the numbers are the same either way (trec_eval order and sums).
 */
import { CorebError } from '../core/errors.js';
import { forEachTrecRunQuery } from '../dataset/trec-queries.js';
import { IdTable } from '../dataset/id-table.js';
import { loadTrecQrelsColumns } from '../dataset/trec.js';
import { QueryEvaluator, type ColumnarEvaluation, type ColumnarOptions } from '../metrics/evaluate.js';

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

function emptyRun(file: string): CorebError {
  // trec_eval refuses an empty results file; all-zero measures would look like a real score.
  return new CorebError('VALIDATION', 'the run has no result lines; expected `qid Q0 docid rank score tag` lines', { file });
}

/**
 * Evaluates a TREC run file against a TREC qrels file with trec_eval 9.0.8 semantics (see
 * {@link QueryEvaluator}), streaming the run. Memory: the qrels, one result row per query and the
 * largest query's entries (plus one 4 MiB chunk); an ungrouped run adds one partition in memory.
 * @throws CorebError `PARSE`/`VALIDATION` for a malformed line (file and line), a duplicate
 * (qid, docid) (both lines), an empty run or empty qrels; `INTERRUPTED` (the signal's reason) when aborted.
 */
export async function evaluateTrecFiles(options: TrecFileMetricsOptions): Promise<TrecFileMetrics> {
  const { signal, anchors } = options;
  const docs = new IdTable();
  const qrels = await loadTrecQrelsColumns(options.qrels, { docs, signal });
  // trec_eval refuses empty qrels too; all-zero measures would look like a real (bad) score.
  if (qrels.queryIds.length === 0) {
    throw new CorebError('VALIDATION', 'the qrels file has no judgement lines; expected `qid 0 docid relevance` lines', { file: options.qrels });
  }
  if (anchors !== undefined) for (const a of anchors.values()) docs.intern(a);
  const evaluator = new QueryEvaluator(qrels, options);
  const read = await forEachTrecRunQuery(
    options.run,
    {
      docs,
      judged: qrels,
      anchors,
      signal,
      chunkBytes: options.chunkBytes,
      tmpPrefix: 'coreb-metrics-',
      ...(options.tmpDir !== undefined ? { tmpDir: options.tmpDir } : {}),
      ...(options.partitionBytes !== undefined ? { partitionBytes: options.partitionBytes } : {}),
      onUngrouped: (parts) => {
        evaluator.reset();
        options.onUngrouped?.(parts);
      },
    },
    (g) => evaluator.add(g.qid, g.docs, g.scores, g.start, g.end, g.compareEntries),
  );
  if (read.queryIds.length === 0) throw emptyRun(options.run);
  const inRun = new Set(read.queryIds);
  return { result: evaluator.finish((q) => inRun.has(q)), runTag: read.runTag, mode: read.mode, partitions: read.partitions };
}
