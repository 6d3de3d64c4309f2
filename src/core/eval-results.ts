/**
 * The shape of a `coreb eval` results file, shared by bench (which produces it) and report (which
 * renders it). Documented field by field in docs/eval.md; the `schema` string versions it.
 */
import type { ModelMeta } from './model-meta.js';

/** Schema id written into every results file; bumped on incompatible changes. */
export const EVAL_RESULTS_SCHEMA = 'coreb.eval-results/2' as const;

/**
 * Evaluation protocols: CoREB's published protocol (paper §A.6, §B.9, the official runner), what
 * MTEB reports for its CoREB tasks (`mteb`), and what BEIR's evaluator reports (`beir`).
 */
export const PROTOCOLS = ['coreb', 'mteb', 'beir'] as const;
/** An evaluation protocol name. */
export type ProtocolName = (typeof PROTOCOLS)[number];

/** Everything that decides how a run becomes numbers; written into every results file. */
export interface ProtocolSemantics {
  name: ProtocolName;
  /** Labels >= this count as relevant for Recall, MAP, P and MRR (coreb 2, mteb and beir 1). */
  relevanceLevel: number;
  /** `strict`: labels below the level are zeroed before nDCG; `trec`: raw graded gains. */
  ndcg: 'strict' | 'trec';
  /** Scores are rounded to float32 before ranking (trec_eval 9.0.8 / pytrec_eval). */
  scores: 'float32';
  /** Tie order of the ranking. */
  ties: 'score-desc,docid-desc-utf8';
  /** Code-to-code anchors removed from each ranked list before any measure (coreb only). */
  anchorExclusion: boolean;
  /**
   * `as-is`: the release's graded qrels. `positives-only` (mteb): only documents labelled >= 2 are
   * kept, and a query left without any is dropped from the population (MTEB's CoREB datasets hold
   * rel-2 qrels only, and MTEB drops queries without relevant documents).
   */
  qrels: 'as-is' | 'positives-only';
  /** BEIR's `ignore_identical_ids`: documents whose id equals the query id are removed (beir only). */
  ignoreIdenticalIds: boolean;
  /**
   * c2t_match queries without any rel-2 document ("negative pairs"): counted with 0 in every mean
   * (`zero`, the published numbers), left out (`exclude`), or ordinary queries (`include`: beir).
   */
  c2tMatchNegatives: 'exclude' | 'zero' | 'include';
  /**
   * Queries averaged: those with qrels and a ranked list (run ∩ qrels). A ranked list may be empty
   * (a retriever found nothing): such a query scores 0, stays averaged and is listed in
   * `emptyQueries`. Queries with no list at all (absent from a `run:` file) are `missingQueries`.
   */
  population: 'run-and-qrels';
  /**
   * MRR@k: `trec` = 1/rank of the first relevant document if within k else 0, in trec tie order;
   * `beir` = BEIR's own `mrr`, `mteb` = MTEB's (both: label > 0 relevant, Python's stable sort of
   * double scores, so ties keep retrieval order; per query identical, BEIR divides by the qrels
   * queries, MTEB by the queries it retrieved for — here both by the population).
   */
  mrr: 'trec' | 'beir' | 'mteb';
  /**
   * The aggregate the leaderboard ranks by: `overall` (query-weighted, the paper and project page)
   * or `taskMean` (unweighted mean of the task means: the official README's Avg, MTEB's average).
   * Both are always reported.
   */
  rankBy: 'overall' | 'taskMean';
  /** Decimal places aggregates are rounded to (BEIR and MTEB round to 5), or null for full precision. */
  roundDigits: number | null;
  /** Measures whose means are not rounded even when {@link roundDigits} is set (MTEB's MRR). */
  unrounded: string[];
}

/** A metric table: label (`ndcg@10`, `recall@100`, `mrr@10`, `p@5`, ...) -> value. */
export type MetricValues = Record<string, number>;

/** Hard-negative diagnostics of one group of queries (coreb's graded qrels: 2 positive, 1 hard negative). */
export interface HardNegativeDiagnostics {
  /**
   * Among queries with at least one positive AND one hard negative in the top 10, the share whose
   * best-ranked hard negative is above the best-ranked positive; null when no query qualifies.
   */
  intrusionRate: number | null;
  /** How many queries qualified for {@link intrusionRate}. */
  intrusionEligible: number;
  /** Mean number of hard negatives (label 1) in the top 10 per query. */
  hardNegativesTop10: number;
  /** Mean nDCG@10 minus mean Recall@10 (negative when ranking quality lags coverage). */
  ndcgRecallGap10: number;
}

/** Aggregated values of one group of queries (a task, a subtask, a language, ...). */
export interface GroupResult {
  /** Queries averaged. */
  queries: number;
  metrics: MetricValues;
  diagnostics: HardNegativeDiagnostics;
}

/** One task's result for one retriever. */
export interface TaskResult extends GroupResult {
  /** Queries of the task with qrels but no ranked list (only `run:` files can miss queries). */
  missingQueries: number;
  /** Queries left out by the protocol (c2t_match negatives under `exclude`; queries without a rel-2 document under mteb). */
  excludedQueries: number;
  /** c2t_match negative pairs counted in the population with 0 (under `zero`). */
  zeroedQueries: number;
  /**
   * Ids of averaged queries whose ranked list was empty (scored 0). They have no line in the TREC
   * run file (a run cannot hold a query without documents): `trec_eval` over that file averages
   * over fewer queries unless given `-c` (see docs/eval.md).
   */
  emptyQueries: string[];
  /** Ids of the {@link missingQueries} (first 100). */
  missingQueryIds: string[];
  /** TREC run file written for this task, relative to the output directory (if written). */
  runFile?: string;
}

/** One evaluated query. */
export interface QueryResult {
  task: string;
  subtask?: string;
  language?: string;
  subQueryType?: string;
  metrics: MetricValues;
  /** 1 if a hard negative beat every positive in the top 10, 0 if not, null if not eligible. */
  hnIntrusion: number | null;
  /** Hard negatives (label 1) in the top 10. */
  hardNegativesTop10: number;
}

/** Wall-clock timings of one retriever, in milliseconds. */
export interface RetrieverTimings {
  indexMs: number;
  searchMs: number;
  /** Reranked rows: time spent scoring pairs. */
  rerankMs?: number;
  evaluateMs: number;
  totalMs: number;
}

/** How a reranked row was made and what it changed against its first stage. */
export interface RerankSummary {
  /** Candidates reranked per query (the anchor removed before the cut). */
  depth: number;
  /** The reranker spec as given. */
  spec: string;
  /** Secret-free description: provider, model, template, instructions, endpoints. */
  reranker: Record<string, unknown>;
  /** `none`, or reciprocal-rank fusion `1/(k + r_rerank) + alpha/(k + r_first)`. */
  fusion: { kind: 'none' } | { kind: 'rrf'; k: number; alpha: number };
  /** Task -> the first stage's Recall@depth: what no reranker of this depth can exceed. */
  recallCeiling: Record<string, number | null>;
  /** Task (and `overall`) -> measure -> reranked minus first stage. */
  delta: Record<string, MetricValues>;
  /** Task (and `overall`) -> measure -> (reranked − first stage) / first stage; null where the first stage is 0. */
  deltaRelative: Record<string, Record<string, number | null>>;
  /** Pairs scored: asked for, answered from the score cache, repeats of another pair (scored once), sent to the reranker. */
  pairs: { requested: number; cached: number; duplicates: number; sent: number };
  /**
   * Rerankers that run programs (`exec`): queries executed and passed through (by reason), sample
   * runs requested / read from the run journal / executed, judge calls, CPU and compile seconds,
   * verdicts. Absent for text rerankers.
   */
  execution?: Record<string, unknown>;
}

/**
 * File-level figures of a repository benchmark row: the protocol's measures plus localization
 * accuracy (`acc@k`: every gold file in the top k) and `hit@k` (one gold file in the top k), over
 * every query, per task and per query type (`subject`, `message`, `issue`); `nonTest` is the same
 * with test files taken out of the gold set and of the ranking (a query left without a gold file
 * is dropped and counted), the view published localization figures use.
 */
export interface FileLevelResult {
  overall: GroupResult;
  tasks: Record<string, GroupResult>;
  /** Query type (`meta_query_type`) -> group; absent when the queries carry no type. */
  queryTypes?: Record<string, GroupResult>;
  nonTest?: {
    overall: GroupResult;
    tasks: Record<string, GroupResult>;
    queryTypes?: Record<string, GroupResult>;
    /** Queries whose every gold file is a test file. */
    droppedQueries: number;
  };
}

/** All results of one retriever. */
export interface RetrieverResult {
  /** Display name (e.g. `bm25`). */
  name: string;
  /** The spec as given on the command line. */
  spec: string;
  /** Secret-free description (kind, variant, parameters). */
  description: Record<string, unknown>;
  /** Query-weighted: every measure averaged over the pooled queries of all tasks. */
  overall: GroupResult;
  /**
   * Unweighted mean of the task means (each task counts once, whatever its size); `queries` is the
   * pooled count. Under a rounding protocol the task means are rounded first, then their mean.
   */
  taskMean: GroupResult;
  /**
   * Task -> result, for the tasks this retriever was scored on. A task evaluated but never scored
   * (not one of its queries has a ranked list, e.g. a `run:` file for other tasks only) is absent
   * here and from every mean, and listed in {@link unscoredTasks}: empty, never a row of zeros.
   */
  tasks: Record<string, TaskResult>;
  /** Tasks evaluated but unscored for this retriever (see {@link tasks}); absent when none. */
  unscoredTasks?: string[];
  subtasks: Record<string, GroupResult & { task: string }>;
  /** Task -> language -> group (t2c: language constraint or `any`; c2t/c2c: anchor language). */
  languages: Record<string, Record<string, GroupResult>>;
  /** Task -> sub_query_type (t2c) or text type (c2t) -> group. */
  subQueryTypes: Record<string, Record<string, GroupResult>>;
  /**
   * Problems with how the numbers were obtained, e.g. a BM25 spec that indexes a label-proxy field
   * (present on one label class only); absent when there are none.
   */
  warnings?: string[];
  /** What the retriever spent beyond ranking (query expansion: queries expanded, model calls, cached replies, tokens). */
  usage?: Record<string, unknown>;
  /**
   * Repository benchmarks (every chunk names its file in `meta.path`): the same measures at file
   * level — a file ranked at its best chunk's place, labelled with its best chunk's label.
   */
  fileLevel?: FileLevelResult;
  /** Query id -> values; omitted when per-query output was turned off. */
  perQuery?: Record<string, QueryResult>;
  timings: RetrieverTimings;
  /** A reranked row: the name of the first-stage row it reranks. */
  firstStage?: string;
  /** A reranked row: depth, reranker, recall ceiling and deltas against {@link firstStage}. */
  rerank?: RerankSummary;
  /**
   * The model's metadata (parameters, dimension, licence, ...), from coreb's presets and
   * `--model-meta`; absent when nothing is known.
   */
  model?: ModelMeta;
  /**
   * A row read from published results (MTEB's results files), not scored here: only task means,
   * no per-query values, so it takes part in no significance test. Absent for rows coreb scored.
   */
  imported?: ImportedRow;
}

/** Where an imported row comes from. */
export interface ImportedRow {
  /** The results format (`mteb`). */
  format: 'mteb';
  /** The model as the results name it (`ORG/NAME`). */
  model: string;
  /** The model revision. */
  revision: string;
  /** The folder imported, as given. */
  from: string;
  /** The results' `mteb_version`, when they say. */
  mtebVersion?: string;
  /** Task -> the MTEB `dataset_revision` scored. */
  datasetRevisions: Record<string, string>;
}

/** A retriever (or reranked row) that failed; the other rows of the run are complete. */
export interface FailedRetriever {
  /** Display name (the spec's `name=`, else the spec). */
  name: string;
  /** The spec as given. */
  spec: string;
  /** The error code (`HTTP`, `PROVIDER`, `NOT_FOUND`, ..., `INTERNAL` for an unexpected error). */
  code: string;
  /** The error message. */
  error: string;
}

/** One data file of the evaluated dataset. */
export interface DatasetFile {
  /** Path relative to the dataset directory, `/`-separated. */
  path: string;
  bytes: number;
  sha256: string;
}

/** What was evaluated: enough to tell two datasets apart and to find the files again. */
export interface DatasetIdentity {
  kind: 'coreb-release' | 'beir';
  /** Absolute directory. */
  dir: string;
  /** Split name of a CoREB release (e.g. `release_v2602`) or the qrels split of a BEIR directory. */
  split: string;
  /** When the release was made (its manifest's `release_date` or `created_at`), when it says. */
  releaseDate?: string;
  files: DatasetFile[];
  /** SHA-256 over every file's path, size and SHA-256 in path order (see docs/eval.md). */
  sha256: string;
  /** Documents and queries per task. */
  counts: Record<string, { corpus: number; queries: number }>;
  /** A CoREB release's descriptive statistics (the whole release, not only the tasks scored). */
  stats?: DatasetStats;
}

/** Mean and count of one group's token lengths. */
export interface TokenMean {
  /** Items counted. */
  items: number;
  /** Mean cl100k_base tokens per item (special-token text such as `<|endoftext|>` counted as ordinary text, like tiktoken's `encode_ordinary`). */
  meanTokens: number;
}

/** Token statistics of a release (cl100k_base; paper Tables 1, 9, 16). */
export interface ReleaseTokenStats {
  encoding: 'cl100k_base';
  /** Per subtask: the queries' mean length. */
  querySubtasks: Record<string, TokenMean>;
  /** Per main task: the queries' mean length. */
  queryTasks: Record<string, TokenMean>;
  /** Per subtask family, all its languages pooled (`t2c_search`, `t2c_full_retro`, `c2t_match`): the paper's Table 1 rows. */
  queryVariants: Record<string, TokenMean>;
  /** Code corpus per language, and `all`. */
  codeCorpus: Record<string, TokenMean>;
  /** Text corpus: `all`, `originals` (texts with an `abbreviated_text`), `near-miss` (the rest), `abbreviated` (the abbreviated texts). */
  textCorpus: Record<string, TokenMean>;
}

/** model -> language -> programs and verified-correct programs (`meta.passed`) of a code corpus (paper §A.8). */
export type VerifiedByModelLanguage = Record<string, Record<string, { programs: number; passed: number }>>;

/** A release's descriptive statistics, as `coreb validate` prints them and `coreb report` shows them. */
export interface DatasetStats {
  tokens: ReleaseTokenStats;
  verified: VerifiedByModelLanguage;
}

/** A complete `coreb eval` results file. */
export interface EvalResults {
  schema: typeof EVAL_RESULTS_SCHEMA;
  coreb: { version: string };
  /** ISO 8601 time the evaluation finished. */
  createdAt: string;
  dataset: DatasetIdentity;
  protocol: ProtocolSemantics;
  /** Metric labels in display order. */
  measures: string[];
  /** How it was run; `measures`: the measures asked for beside the protocol's own (`--measures`), absent when none. */
  options: {
    depth: number;
    tasks: string[];
    subtasks: string | null;
    rerankDepth?: number;
    rerankers?: string[];
    measures?: string[];
    /** Documents per query in the run files written (see `EvalOptions.runDepth`; code-to-code one more, ties kept), or `all`. */
    runDepth?: number | 'all';
  };
  retrievers: RetrieverResult[];
  /**
   * Retrievers that failed (a provider down, a file missing): absent when every one finished. The
   * finished ones are in {@link retrievers}; `coreb eval` exits non-zero when this is present.
   */
  failed?: FailedRetriever[];
  timings: { loadMs: number; totalMs: number };
}

/** What a row's task is: ranking a whole corpus, or reordering a fixed candidate list per query. */
export type TaskFamily = 'retrieval' | 'reranking';

/**
 * The measure a family's leaderboard ranks by unless told otherwise: nDCG@10 for retrieval (the
 * paper's and MTEB's main score), MAP@10 for reranking (MTEB's main score of its `Coreb*Reranking`
 * tasks, `main_score="map_at_10"`).
 */
export const FAMILY_MEASURE: Readonly<Record<TaskFamily, string>> = { retrieval: 'ndcg@10', reranking: 'map@10' };

/**
 * The task family of a row: `reranking` for MTEB's `Coreb*Reranking` tasks imported (fixed
 * candidate lists, MTEB's main score MAP@10) and for rows whose first stage is a fixed candidate
 * list (`top-ranked`), else `retrieval`. Rows of different families never share a leaderboard.
 */
export function taskFamily(r: Pick<RetrieverResult, 'description'>): TaskFamily {
  const d = (r.description ?? {}) as { kind?: unknown; tasks?: unknown; firstStage?: { kind?: unknown } };
  if (d.kind === 'imported') return d.tasks === 'reranking' ? 'reranking' : 'retrieval';
  if (d.kind === 'top-ranked' || (d.kind === 'rerank' && d.firstStage?.kind === 'top-ranked')) return 'reranking';
  return 'retrieval';
}

/**
 * A stable fingerprint of everything in a protocol that changes what a number means (relevance
 * level, nDCG variant, anchor exclusion, qrels, c2t_match handling, MRR flavour, rounding, ranking
 * aggregate, ...): its fields as sorted JSON. Results of schema 1 lack some fields; they compare as
 * written.
 */
export function protocolFingerprint(p: ProtocolSemantics): string {
  const rec = p as unknown as Record<string, unknown>;
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(rec)
        .sort()
        .map((k) => [k, rec[k]]),
    ),
  );
}
