/**
 * What `runEval` is asked (its options) and what it gives back: a leaf module the runner's
 * parts share, so none of them imports the runner.
 */
import type { EvalResults, ProtocolName } from '../core/eval-results.js';
import type { GivenModelMeta } from '../core/model-meta.js';
import type { Logger, Progress } from '../core/progress.js';
import type { EvalDataOptions } from './eval-data.js';
import type { RunFileFormat } from './run-files.js';

/** Where `runEval` keeps and finds rows (`coreb eval --results DIR`; see dataset/results-store.ts). */
export interface ResultsStoreOptions {
  dir: string;
  /** Score rows the store already has again (and replace their entries); default false: they are read from the store. */
  force?: boolean;
}

/** Options of `runEval` (`coreb eval`'s options as a library call). */
export interface EvalOptions extends EvalDataOptions {
  /** A CoREB release directory (JSONL or parquet) or a BEIR directory (`corpus.jsonl`, ...). */
  data: string;
  /** Retriever specs (see `parseRetrieverSpec`). Default `['bm25']`. */
  retrievers?: readonly string[];
  /** Documents kept per query (>= 1). Default 1000. */
  depth?: number;
  /**
   * Reranker specs (see docs/rerank.md). Each (retriever, reranker) pair becomes its own result row
   * named `<retriever> >> <reranker>`, with `firstStage` and a `rerank` block. Default: none.
   */
  rerankers?: readonly string[];
  /** Candidates reranked per query (the c2c anchor removed before the cut). Default 128; a `top-ranked` first stage: all its candidates. */
  rerankDepth?: number;
  /** `none` (default), `rrf` or `rrf:k=60,alpha=4`: fuse reranker and first-stage ranks. */
  rerankFusion?: string;
  /**
   * With `outDir`: also write each retriever's top N per query as MTEB `top_ranked` candidate lists
   * (`runs/<retriever>.<task>.top_ranked.jsonl`, lines `{"query-id", "corpus-ids"}`), so rerankers can
   * later be compared on identical candidates. Default: not written.
   */
  topRanked?: number;
  /** Protocol (`coreb`, `mteb`, `beir`). Default `coreb` for a release, `beir` for a BEIR directory. */
  protocol?: ProtocolName;
  /** coreb only: c2t_match negatives `zero` (default: counted as 0, the published numbers) or `exclude`. */
  c2tMatchNegatives?: 'exclude' | 'zero';
  /**
   * When set, TREC runs go to `<outDir>/runs/` and the results to `<outDir>/results.json`. The
   * directory must be empty or absent (temporary files left by a killed run are removed first)
   * unless {@link overwrite} is set.
   */
  outDir?: string;
  /**
   * Replace the results already in `outDir`: files are rewritten, and run files of the earlier
   * results that this run does not write are removed once the new results.json is saved. Default
   * false: a non-empty `outDir` is refused before any work.
   */
  overwrite?: boolean;
  /**
   * With `outDir`: how run files are written: `plain` (default) `runs/<name>.<task>.trec`, `gz`
   * gzip-compressed `.trec.gz` (about a fifth of the size; `run:` specs, `coreb metrics` and
   * trec_eval read them), `none` not at all (results.json and the leaderboard only).
   */
  runs?: RunFileFormat;
  /**
   * Documents per query in run files: a number, or `all` (every document retrieved, to `depth`).
   * Default: as deep as the measures reported read (the coreb and beir protocols: 100, mteb: 1000;
   * `--measures recall@1000` or an uncut measure such as `map`: all), plus the documents tied with
   * the last one written and, for code-to-code, one more (the anchor left out when scoring), so
   * `coreb metrics` and `run:` on the file give the reported values exactly.
   */
  runDepth?: number | 'all';
  /** Keep per-query values in the results. Default true. */
  perQuery?: boolean;
  /** Directory relative retriever files are resolved against. Default: the process's cwd. */
  baseDir?: string;
  /** coreb's version, written into the results. Default: this package's (`corebVersion()`). */
  corebVersion?: string;
  /** Environment for `dense:` providers (API keys by name). Default: empty. */
  env?: Record<string, string | undefined>;
  /** Embedding cache directory for `dense:` providers. */
  cacheDir?: string;
  /** On-disk BM25 index store folder (see `CreateRetrieverContext.indexCacheDir`). Default: none. */
  indexCacheDir?: string;
  /**
   * Record the release's descriptive statistics in `dataset.stats` (cl100k_base token lengths per
   * subtask and corpus, verified-correct programs per model x language; `coreb report` shows them).
   * Default true (a CoREB release only).
   */
  datasetStats?: boolean;
  /** Where the token statistics are cached by the texts they count (`<dir>/datasets/<digest>.tokens.json`, see cachedReleaseTokenStats); default: not cached. */
  statsCacheDir?: string;
  /** Stops the run when aborted (exit between queries and files; nothing half-written). Default: none. */
  signal?: AbortSignal;
  /** Told the phases and counts as the run goes (a progress bar). Default: silent. */
  progress?: Progress;
  /** Warnings and information lines (what was left out, what was read). Default: silent. */
  logger?: Logger;
  /**
   * Measures reported beside the protocol's own (`ndcg@100`, `recall@1000`, any one measure at one
   * cutoff that `coreb metrics` knows); recorded in `options.measures`. Default none.
   */
  measures?: readonly string[];
  /** Keep every scored row in a results store, and read the rows it already has instead of scoring them again. */
  resultsStore?: ResultsStoreOptions;
  /**
   * Model metadata by row name or model id (`--model-meta FILE`), over what coreb's presets know;
   * written into each row's `model`. Default: the presets only.
   */
  modelMeta?: GivenModelMeta;
}

/** Where `runEval` wrote its files (relative paths are inside `outDir`). */
export interface EvalOutput {
  results: EvalResults;
  /** Absolute path of results.json, when written. */
  resultsFile?: string;
  /** With a results store: entries written this run, and rows read from the store instead of scored (relative entry paths). */
  store?: { dir: string; added: string[]; reused: string[] };
}
