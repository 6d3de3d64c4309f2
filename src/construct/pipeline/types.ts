/**
 * The shapes of a `coreb build`: its options and result, the rows each stage writes to
 * `work/<stage>.jsonl`, and {@link BuildWork}, the one shape every stage reads and adds to.
 */
import type { ChatModel } from '../../core/chat.js';
import type { Embedder } from '../../core/embedding.js';
import type { ExecLanguage, TestCase } from '../../core/execution.js';
import type { Logger, Progress } from '../../core/progress.js';
import type { LcbProblem } from '../../dataset/lcb.js';
import type { JudgeBackend } from '../../sandbox/backend.js';
import type { JudgeRecord } from '../../sandbox/judge-run.js';
import type { AuthoredProblem } from '../mini-authored.js';
import type { PlannedRelease } from '../mini-release.js';
import type { ReleaseShape, ShapeRoles } from '../release-shape.js';
import type { PromptSet } from './prompts.js';
import type { DroppedProblem, ExcludedProblems } from '../problem-selection.js';
import type { ReviewState } from '../review/decisions.js';

/** The stages, in order. `tests` adapts the test cases a rewrite changed (part of rewriting). */
export const BUILD_STAGES = ['load', 'rewrite', 'tests', 'abbreviate', 'solve', 'execute', 'queries', 'negatives', 'qrels', 'release'] as const;

/** A stage name. */
export type BuildStage = (typeof BUILD_STAGES)[number];

/** The models of a build, by role. Omitted writers default to the rewriter. */
export interface BuildModels {
  rewriter: ChatModel;
  abbreviator?: ChatModel;
  solvers: ChatModel[];
  queryWriter?: ChatModel;
  negativeWriter?: ChatModel;
  /**
   * Ranks the "similar problems" shown to the query writer by cosine of its embeddings (the
   * official runner uses a sentence-transformer); default TF-IDF cosine over the build's problems.
   */
  similarityEmbedder?: Embedder;
}

/** Options of {@link runBuild} and {@link planBuild}. */
export interface BuildOptions {
  /** LiveCodeBench problems JSONL. */
  problemsFile: string;
  /** Release directory; `work/` inside holds the cache and stage outputs. */
  outDir: string;
  models: BuildModels;
  /** Languages solved; default all five. */
  languages?: readonly ExecLanguage[];
  /** Release name, also the id tag (`code_<name>_00001`); default `v` + the build's year and month (`v202612`). */
  releaseName?: string;
  /** Seed of every seeded choice (negative temperatures, anchors, search-query languages); default 42. */
  seed?: number;
  /**
   * Requests in flight per endpoint (base URL), shared by every model served from it; each endpoint
   * of a multi-endpoint model has its own bound. A model's own `concurrency=` (when configured) also
   * caps that model over all its endpoints. Default 4.
   */
  concurrency?: number;
  prompts: PromptSet;
  /** Stages to run; default all. Stages not run read their earlier output from `work/`. */
  stages?: readonly BuildStage[];
  /** Use only the first N problems (in file order, after the selection below); default all. */
  limit?: number;
  /**
   * Where chat replies (`chat-v1/`) and verdicts (`verdicts-v1/`) are cached, content-addressed,
   * for every build (the CLI passes `COREB_CACHE_DIR`, else the default cache root): a rebuild
   * into a new folder pays nothing again. Default: `<out>/work/llm-cache`, replies only (a cache
   * per build, as before). Replies an earlier build left in `<out>/work/llm-cache` are read too.
   */
  cacheDir?: string;
  /** Earliest contest date built from (ISO date, inclusive; `--from`). Default: no bound. */
  from?: string;
  /** Latest contest date built from (ISO date, inclusive; `--to`). Default: no bound. */
  to?: string;
  /** Earlier releases (CoREB release directories or builds) whose problems are left out, by id and by near-duplicate statement (`--exclude-release`). */
  excludeReleases?: readonly string[];
  /** Retries of a reply that breaks its contract (the parse error is quoted back); default 2 (abbreviate: 1). */
  contractRetries?: number;
  /** Search queries asked per problem, query type and variant (`any`, each passing language); default 2 (the official runner's). */
  queriesPerVariant?: number;
  /** Hard negatives per code query; default the shape's (3). */
  maxHardNegatives?: number;
  /** The release shape (docs/build.md, "Release shape"); default `coreb-v202603`, the official rules. */
  shape?: ReleaseShape;
  /**
   * The solver whose programs are model A of the shape's rules (the positives of every
   * code-to-code subtask, the preferred code-to-text anchor), by corpus label; default the first
   * solver. Model B (the anchors of `c2c_mono_lang` and `c2c_cross_model`) is the first other solver.
   */
  primarySolver?: string;
  /** Timestamp written to every `meta_created_at`; default the first run's time (kept in `work/state.json`). */
  createdAt?: string;
  /** Creates the judge when the execute stage runs. */
  judge?: () => Promise<JudgeBackend>;
  /** Versions of tools (compilers, coreb) for the manifest. */
  toolVersions?: Record<string, string>;
  /** The command line, for the manifest (secret-free: specs never carry keys). */
  command?: string;
  logger?: Logger;
  progress?: Progress;
  signal?: AbortSignal;
  /** Clock (tests). */
  now?: () => Date;
}

/** Calls and tokens of one stage. */
export interface StageUsage {
  /** Replies used (from the cache or a call). */
  replies: number;
  /** Requests sent in this run (cache misses). */
  calls: number;
  /** Tokens over all replies used, as the servers reported them. */
  inputTokens: number;
  outputTokens: number;
  /** Replies that broke their contract and were asked again. */
  contractRetries: number;
  /** Items recorded as failed (reply contract broken after retries, or a provider error after the client's retries). */
  failed: number;
}

/** An item that could not be produced. */
export interface BuildFailure {
  stage: BuildStage;
  item: string;
  error: string;
}

/** What {@link runBuild} returns. */
export interface BuildResult {
  usage: Partial<Record<BuildStage, StageUsage>>;
  failures: BuildFailure[];
  /** Requests sent in this run over all stages. */
  calls: number;
  /** Present when the release stage ran. */
  counts?: PlannedRelease['counts'];
  /** Problems in the release (after dropping those with a failed rewrite, test adaptation or negative). */
  problemsReleased?: number;
  /** Problems left out of the release and why (present when the qrels stage ran). */
  dropped?: Array<{ id: string; reason: string }>;
  /** Programs run in the sandbox this run, and taken from the verdict cache (present when the execute stage ran). */
  judging?: { judged: number; fromCache: number; resumed: number };
}

/** A row of `work/rewrite.jsonl`. */
export interface RewriteRow {
  id: string;
  title?: string;
  statement?: string;
  starter_code?: string;
  io_changed?: boolean;
  failed?: string;
}

/** One test case as the work files keep it. */
export interface WireTest {
  input: string;
  output: string;
  testtype: string;
}

/** A row of `work/tests.jsonl`: the problem's tests after adaptation (`rewritten` of them changed). */
export interface TestsRow {
  id: string;
  public_tests?: WireTest[];
  private_tests?: WireTest[];
  rewritten?: number;
  failed?: string;
}

/** A row of `work/abbreviate.jsonl`. */
export interface AbbrevRow {
  id: string;
  abbreviated: string;
  fallback: boolean;
  words: number;
  /** Why the reply was not used (the fallback summary was), when it was not. */
  failed?: string;
}

/** A row of `work/solve.jsonl`: one solver's program for one problem and language. */
export interface SolveRow {
  id: string;
  model: string;
  language: ExecLanguage;
  code?: string;
  failed?: string;
}

/** A row of `work/queries.jsonl`. */
export interface QueriesRow {
  id: string;
  /** The search queries of every type and variant, flat. */
  queries: string[];
  /** Per query (same index): the type asked and the variant's language (`any` or a language). */
  variants?: Array<{ type: SearchQueryKind; language: string }>;
  failed?: string;
}

/** A row of `work/negatives.jsonl`: one near-miss text, its strategy and seeded temperature. */
export interface NegativeRow {
  id: string;
  strategy: string;
  temperature: number;
  text?: string;
  failed?: string;
}

/** The problems a build selected, and what it left out (see problem-selection.ts). */
export interface BuildSelection {
  from: string | null;
  to: string | null;
  excluded: ExcludedProblems['sources'];
  /** Problems in the file. */
  offered: number;
  dropped: DroppedProblem[];
}

/** A problem with its rewrite (the stages after `tests` work on these). */
export interface ReadyProblem {
  p: LcbProblem;
  rw: RewriteRow;
}

/**
 * What a build has produced so far: the one shape every stage reads and adds to. A stage that runs
 * computes its part; a stage left out (`--stages`) reads it back from `work/<stage>.jsonl`.
 */
export interface BuildWork {
  /** The build's timestamp of every row (`meta_created_at`), kept in `work/state.json`. */
  createdAt: string;
  /** When this run started (ISO). */
  started: string;
  releaseName: string;
  problems: LcbProblem[];
  selection: BuildSelection;
  rewrites?: Map<string, RewriteRow>;
  tests?: Map<string, TestsRow>;
  /** Problems whose rewrite and tests succeeded. */
  ready?: ReadyProblem[];
  abbrevs?: Map<string, AbbrevRow>;
  solutions?: SolveRow[];
  /** The judge's tests per problem id (public then private). */
  testsOf?: Map<string, TestCase[]>;
  /** Verdicts per program id. */
  records?: Map<string, JudgeRecord>;
  /** Languages with a passing program, per problem id (build language order). */
  passing?: Map<string, ExecLanguage[]>;
  queries?: Map<string, QueriesRow>;
  negatives?: NegativeRow[];
  /** The planned release (stage `qrels`). */
  release?: AssembledRelease;
}

/** What stage `qrels` hands to stage `release`. */
export interface AssembledRelease {
  plan: PlannedRelease;
  authored: AuthoredProblem[];
  dropped: Array<{ id: string; reason: string }>;
  review: ReviewState;
  shape: ReleaseShape;
  roles: ShapeRoles;
}

/** A search-query type (the prompts' wording per type: `SEARCH_QUERY_KINDS` in stages/queries.ts). */
export type SearchQueryKind = 'title_search' | 'description_search' | 'algorithm_search';
