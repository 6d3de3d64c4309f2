/**
 * `coreb build`: the resumable release-building pipeline. Fresh LiveCodeBench-format problems go
 * through counterfactual rewriting, abbreviation, multi-model solution generation, sandboxed
 * execution, query and hard-negative writing, then the v2 qrels rules and the 8 official tables.
 *
 * Every LLM call goes through the reply cache (keyed by the full request) in `<out>/work/llm-cache`,
 * and every stage writes its results to `<out>/work/<stage>.jsonl`, so a rerun sends nothing that
 * was answered before and a killed build resumes where it stopped. Execution resumes from its own
 * journal (`work/execute.jsonl`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatMessage, ChatModel, ChatReply, ChatRequest } from '../../core/chat.js';
import type { Embedder } from '../../core/embedding.js';
import { RELEASE_TABLES, type ReleaseTable } from '../../core/dataset.js';
import { createEndpointSlots, type EndpointSlots } from '../../core/endpoint-slots.js';
import { CorebError, isCorebError } from '../../core/errors.js';
import type { ExecLanguage, Program, TestCase } from '../../core/execution.js';
import { compareCodePoints } from '../../core/ids.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../../core/progress.js';
import { createCachedChatModel, type CachedChatModel } from '../../cache/chat-cache.js';
import { openJsonFileStore, VERDICT_CACHE_LAYOUT } from '../../cache/json-file-store.js';
import { saveAtomic, saveFileAtomic, saveLinesAtomic } from '../../dataset/atomic-write.js';
import { saveHubRelease } from '../../dataset/parquet-write.js';
import { loadLcbProblems, type LcbProblem } from '../../dataset/lcb.js';
import type { JudgeBackend } from '../../sandbox/backend.js';
import { judgeKey, runJudging, type JudgeRecord } from '../../sandbox/judge-run.js';
import { HARD_NEGATIVE_STRATEGIES, outcomeKey, type AuthoredProblem, type SolutionOutcome } from '../mini-authored.js';
import { planMiniRelease, type PlannedRelease } from '../mini-release.js';
import { resolveReleaseShape, type ReleaseShape, type ShapeRoles } from '../release-shape.js';
import { hash32 } from '../seeded-choice.js';
import { renderWireRow } from '../wire-row.js';
import {
  ContractError,
  extractProgram,
  isContextIndependent,
  parseAbbreviation,
  parseNegative,
  parseRewriteReply,
  parseSearchQueriesReply,
  parseTestsReply,
  searchVariantKey,
  wordCount,
} from './contracts.js';
import { renderMessages, renderTemplate, type PromptName, type PromptSet } from './prompts.js';
import { applyReviewInPlace, loadReviewState, REVIEW_FILE, reviewStatus, summarizeReview } from '../review/decisions.js';
import { similarProblems, similarProblemsByEmbedding, SIMILAR_PROBLEMS_K, SIMILAR_PROBLEMS_MIN_SCORE } from './similar.js';
import { loadExcludedProblems, NEAR_DUPLICATE_STATEMENTS, selectProblems, type DroppedProblem, type ExcludedProblems } from '../problem-selection.js';

/** The stages, in order. `tests` adapts the test cases a rewrite changed (part of rewriting). */
export const BUILD_STAGES = ['load', 'rewrite', 'tests', 'abbreviate', 'solve', 'execute', 'queries', 'negatives', 'qrels', 'release'] as const;
/** A stage name. */
export type BuildStage = (typeof BUILD_STAGES)[number];

/** Display names and fence tags per language. */
const LANGUAGE_INFO: Readonly<Record<ExecLanguage, { name: string; fence: string }>> = {
  python: { name: 'Python 3', fence: 'python' },
  cpp: { name: 'C++17', fence: 'cpp' },
  java: { name: 'Java 17 (class Main)', fence: 'java' },
  go: { name: 'Go', fence: 'go' },
  ruby: { name: 'Ruby', fence: 'ruby' },
};

/** What each hard-negative strategy asks for (paper §A.2), keyed like {@link HARD_NEGATIVE_STRATEGIES}. */
export const STRATEGY_DESCRIPTIONS: Readonly<Record<(typeof HARD_NEGATIVE_STRATEGIES)[number], string>> = {
  operation_type:
    'change the fundamental operation the algorithm performs (for example, a "remove/delete" goal becomes a "select/construct/merge" goal), so the core action differs, not just its name.',
  optimization_objective:
    'change what is optimised or counted (for example, maximise becomes minimise, or "find one" becomes "count distinct"), so the objective differs structurally.',
  algorithmic_approach:
    'change the algorithmic paradigm the problem needs (for example, subsequences become contiguous subarrays or a graph, greedy becomes dynamic programming, two pointers become binary search).',
  problem_domain:
    'change the input data types and the setting (for example, strings become graphs, arrays become trees), giving a structurally different problem with no obvious mapping to the original.',
};

/**
 * The search-query types of the official query generation, with what each asks the writer to
 * focus on. One request per problem and type covers every variant (`retro_any` and `retro_<lang>`
 * for each language with a passing program).
 */
export const SEARCH_QUERY_KINDS = {
  title_search: 'the core problem names and key concepts unique to the target problem',
  description_search: 'the requirements and functionality specific to the target problem',
  algorithm_search: "the algorithms, data structures and optimisation techniques specific to the target problem's solution",
} as const;
/** A search-query type. */
export type SearchQueryKind = keyof typeof SEARCH_QUERY_KINDS;

/** The released `sub_query_type` of each type, as in the official release (title searches are filed as `algorithm_search`). */
export const SEARCH_SUB_QUERY_TYPE: Readonly<Record<SearchQueryKind, string>> = {
  title_search: 'algorithm_search',
  description_search: 'description_search',
  algorithm_search: 'algorithm_search',
};

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

interface RewriteRow {
  id: string;
  title?: string;
  statement?: string;
  starter_code?: string;
  io_changed?: boolean;
  failed?: string;
}
interface WireTest {
  input: string;
  output: string;
  testtype: string;
}
interface TestsRow {
  id: string;
  public_tests?: WireTest[];
  private_tests?: WireTest[];
  rewritten?: number;
  failed?: string;
}
interface AbbrevRow {
  id: string;
  abbreviated: string;
  fallback: boolean;
  words: number;
  /** Why the reply was not used (the fallback summary was), when it was not. */
  failed?: string;
}
interface SolveRow {
  id: string;
  model: string;
  language: ExecLanguage;
  code?: string;
  failed?: string;
}
interface QueriesRow {
  id: string;
  /** The search queries of every type and variant, flat. */
  queries: string[];
  /** Per query (same index): the type asked and the variant's language (`any` or a language). */
  variants?: Array<{ type: SearchQueryKind; language: string }>;
  failed?: string;
}
interface NegativeRow {
  id: string;
  strategy: string;
  temperature: number;
  text?: string;
  failed?: string;
}

/** The corpus `model` label of a chat model: its model name's last path segment (`Qwen/Qwen2.5-7B` -> `Qwen2.5-7B`). */
export function modelLabel(model: ChatModel): string {
  const name = String(model.identity().model ?? model.id);
  return name.slice(name.lastIndexOf('/') + 1);
}

/** The temperature of one hard-negative request: seeded, uniform in [0.85, 1.0], two decimals (§A.2). */
export function negativeTemperature(seed: number, problemId: string, strategy: string): number {
  return Math.round((0.85 + (0.15 * hash32(`${seed}:neg:${problemId}:${strategy}`)) / 0xffffffff) * 100) / 100;
}

/** The fallback abbreviation (upstream heuristic): `Title: … | Goal: first sentence | Constraints: …`, at most 600 chars. */
export function fallbackAbbreviation(title: string, statement: string): string {
  const flat = statement.replace(/\s+/g, ' ').trim();
  const goal = (/^(.*?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat).slice(0, 300);
  const cons = /constraints?\s*:?\s*(.*)$/i.exec(flat)?.[1] ?? '';
  const s = `Title: ${title} | Goal: ${goal}${cons ? ` | Constraints: ${cons}` : ''}`;
  return s.length > 600 ? s.slice(0, 599) + '…' : s;
}

function testsToWire(tests: readonly TestCase[]): WireTest[] {
  return tests.map((t) => ({ input: t.input, output: t.outputs[0] ?? '', testtype: t.kind }));
}
function wireToTests(tests: readonly WireTest[], funcName: string | undefined): TestCase[] {
  return tests.map((t) => {
    const kind = t.testtype === 'functional' ? 'functional' : 'stdin';
    const tc: TestCase = { kind, input: t.input, outputs: [t.output] };
    if (kind === 'functional' && funcName !== undefined) tc.funcName = funcName;
    return tc;
  });
}

/** Work-file helpers. */
function workFile(outDir: string, stage: string): string {
  return join(outDir, 'work', `${stage}.jsonl`);
}
function readWork<T>(outDir: string, stage: BuildStage): T[] {
  const file = workFile(outDir, stage);
  if (!existsSync(file)) {
    throw new CorebError('NOT_FOUND', `stage \`${stage}\` has no output yet; run it first (add it to --stages, or use --until)`, { file });
  }
  const text = readFileSync(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as T;
      } catch (e) {
        throw new CorebError('PARSE', `malformed stage output (${(e as Error).message}); rerun stage \`${stage}\``, { file, line: i + 1, cause: e });
      }
    });
}
async function writeWork(outDir: string, stage: string, rows: readonly unknown[], signal?: AbortSignal): Promise<void> {
  await saveLinesAtomic(
    workFile(outDir, stage),
    rows.map((r) => JSON.stringify(r)),
    signal,
  );
}

/** Runs `fn` over `items` with `width` in flight; stops starting new items once `signal` aborts. */
export async function pool<T, R>(items: readonly T[], width: number, fn: (item: T, i: number) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length && !signal?.aborted) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker));
  if (failure !== undefined) throw failure;
  if (signal?.aborted) throw new CorebError('INTERRUPTED', 'build interrupted; rerun the same command to resume (answered calls are cached)');
  return out;
}

/** Settings of a resolved build (also used by `coreb contamination`, which asks solvers the same way). */
export interface Ctx {
  o: BuildOptions;
  outDir: string;
  seed: number;
  languages: readonly ExecLanguage[];
  concurrency: number;
  contractRetries: number;
  prompts: PromptSet;
  logger: Logger;
  progress: Progress;
  signal?: AbortSignal;
  usage: Partial<Record<BuildStage, StageUsage>>;
  failures: BuildFailure[];
  cached: Map<ChatModel, CachedChatModel>;
  /** The per-endpoint bound of every request of the run. */
  slots: EndpointSlots;
  /** What the execute stage judged (set when it ran). */
  judging?: BuildResult['judging'];
  /** Keep the cached replies of an item that broke its contract on every attempt (the contamination study); default false: they are removed, so a rerun asks again. */
  keepBrokenReplies?: boolean;
}

/**
 * Items in flight for a stage served by `models`: enough to fill every endpoint's slots (each
 * request waits for a slot of its endpoint, so a wider pool never exceeds the bound).
 */
export function stageWidth(ctx: Ctx, models: readonly ChatModel[]): number {
  const endpoints = new Set(models.flatMap((m) => (m.endpoints !== undefined && m.endpoints.length > 0 ? m.endpoints : [m.id])));
  return ctx.concurrency * Math.max(1, endpoints.size);
}

/** True for a provider failure that persisted after the client's retries (recorded per item, not fatal). */
function isItemProviderError(e: unknown): e is CorebError {
  if (!isCorebError(e, 'HTTP') && !isCorebError(e, 'PROVIDER')) return false;
  // A rejected key fails every item alike: stop and say so instead of recording each one.
  const status = (e as CorebError).details?.status;
  return status !== 401 && status !== 403;
}

function stageUsage(ctx: Ctx, stage: BuildStage): StageUsage {
  return (ctx.usage[stage] ??= { replies: 0, calls: 0, inputTokens: 0, outputTokens: 0, contractRetries: 0, failed: 0 });
}

function cachedModel(ctx: Ctx, model: ChatModel): CachedChatModel {
  let m = ctx.cached.get(model);
  if (m === undefined) {
    const local = join(ctx.outDir, 'work', 'llm-cache');
    m = ctx.o.cacheDir === undefined ? createCachedChatModel(model, local) : createCachedChatModel(model, ctx.o.cacheDir, { readAlso: [local] });
    ctx.cached.set(model, m);
  }
  return m;
}

/** The folder of a build's Hub layout (`DIR/hub/`): what `hf upload` publishes. */
export const HUB_DIR = 'hub';

/** One line restating each contract (quoted in retries). */
const CONTRACTS: Readonly<Record<string, string>> = {
  rewrite: 'Answer with one JSON object {"title": string, "statement": string, "starterCode": string, "ioChanged": boolean}.',
  tests: 'Answer with one JSON object {"tests": [{"input": string, "output": string}, ...]} holding every test case sent, in order.',
  abbreviate: 'Answer with the summary only, as plain text of 50 to 150 words.',
  solve: 'Put the whole program in one fenced code block.',
  queries: 'Answer with one JSON object {"queries": [string, ...]}.',
  negatives: 'Answer with the new problem description only, as plain text.',
};

/**
 * Asks `model` and reads the reply with `parse`; a {@link ContractError} is quoted back (as a
 * follow-up turn) up to `retries` times, then the item is recorded as failed (`{error}` returned).
 * A provider error that persists after the client's retries (5xx, 4xx other than 401/403,
 * connection refused, timeouts) is recorded the same way; nothing failed is cached (the replies of
 * an item that broke its contract on every attempt are removed from the cache), so a rerun asks
 * only the failed items again.
 */
export async function ask<T>(
  ctx: Ctx,
  stage: BuildStage & PromptName,
  item: string,
  model: ChatModel,
  messages: ChatMessage[],
  parse: (text: string) => T,
  options: {
    temperature?: number;
    seed?: number;
    retries?: number;
    /** A provider error persisting after the client's retries: recorded as a failed item (default) or thrown. */
    providerErrors?: 'record' | 'throw';
  } = {},
): Promise<{ value: T } | { error: string }> {
  const cm = cachedModel(ctx, model);
  const u = stageUsage(ctx, stage);
  const retries = options.retries ?? ctx.contractRetries;
  let msgs = messages;
  const asked: ChatRequest[] = [];
  for (let attempt = 0; ; attempt++) {
    const request: ChatRequest = { messages: msgs, temperature: options.temperature };
    if (options.seed !== undefined) request.seed = options.seed;
    asked.push(request);
    let reply: ChatReply;
    try {
      reply = await cm.complete(request, { trace: { stage, item }, signal: ctx.signal, endpointSlots: ctx.slots });
    } catch (e) {
      if (!isItemProviderError(e) || options.providerErrors === 'throw' || ctx.signal?.aborted === true) throw e;
      const error = `provider error: ${e.message}`;
      u.failed++;
      ctx.failures.push({ stage, item, error });
      ctx.logger.warn(`${stage} ${item}: ${e.message}; recorded as failed (a rerun retries it)`);
      return { error };
    }
    u.replies++;
    if (reply.cached !== true) u.calls++;
    u.inputTokens += reply.usage.inputTokens;
    u.outputTokens += reply.usage.outputTokens;
    try {
      return { value: parse(reply.text) };
    } catch (e) {
      if (!(e instanceof ContractError)) throw e;
      const error = e.message.length > 500 ? e.message.slice(0, 500) + '…' : e.message;
      if (attempt >= retries) {
        u.failed++;
        ctx.failures.push({ stage, item, error: `${error} (after ${attempt + 1} replies)` });
        // Replies that broke the contract are not kept: a rerun asks this item again.
        if (ctx.keepBrokenReplies !== true) for (const r of asked) cm.evict(r);
        return { error };
      }
      u.contractRetries++;
      msgs = [
        ...msgs,
        { role: 'assistant', content: reply.text },
        { role: 'user', content: renderTemplate(ctx.prompts.templates.retry.user, { error, contract: CONTRACTS[stage] ?? '' }, 'retry.md') },
      ];
    }
  }
}

/** The full text of a problem as it appears in the text corpus: title, blank line, statement. */
function fullText(title: string, statement: string): string {
  return `${title}\n\n${statement.trim()}`;
}

function sampleTests(p: LcbProblem): string {
  return p.publicTests
    .slice(0, 3)
    .map((t, i) => `Example ${i + 1}\nInput:\n${t.input.replace(/\n$/, '')}\nOutput:\n${(t.outputs[0] ?? '').replace(/\n$/, '')}`)
    .join('\n\n');
}

/** A started stage: progress and a log line. */
function begin(ctx: Ctx, stage: BuildStage, total: number): void {
  ctx.progress.start(`${stage}`, total);
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

/**
 * Loads the build's problems: file order, the selection (contest-date window, earlier releases),
 * then `limit`, then sorted by id.
 * @throws CorebError `USAGE` when the selection leaves no problem (naming how many were dropped and why).
 */
async function loadProblems(o: BuildOptions): Promise<{ problems: LcbProblem[]; selection: BuildSelection }> {
  const all = [...(await loadLcbProblems(o.problemsFile)).values()];
  const exclude = o.excludeReleases !== undefined && o.excludeReleases.length > 0 ? await loadExcludedProblems(o.excludeReleases) : undefined;
  const { kept, dropped } = selectProblems(all, {
    ...(o.from !== undefined ? { from: o.from } : {}),
    ...(o.to !== undefined ? { to: o.to } : {}),
    ...(exclude !== undefined ? { exclude } : {}),
  });
  const selection: BuildSelection = { from: o.from ?? null, to: o.to ?? null, excluded: exclude?.sources ?? [], offered: all.length, dropped };
  if (kept.length === 0 && all.length > 0) {
    const why = new Map<string, number>();
    for (const d of dropped) {
      const k = d.reason.replace(/ of \S+ in /, ' in ').replace(/contest \S+ /, 'contest ');
      why.set(k, (why.get(k) ?? 0) + 1);
    }
    throw new CorebError(
      'USAGE',
      `nothing to build: all ${all.length} problem(s) of ${o.problemsFile} were left out by the selection (${[...why].map(([k, n]) => `${n} ${k}`).join('; ')})`,
    );
  }
  const chosen = o.limit !== undefined ? kept.slice(0, o.limit) : kept;
  return { problems: chosen.sort((a, b) => compareCodePoints(a.questionId, b.questionId)), selection };
}

export function resolveCtx(o: BuildOptions, usage: Ctx['usage'] = {}): Ctx {
  return {
    o,
    outDir: o.outDir,
    seed: o.seed ?? 42,
    languages: o.languages ?? ['python', 'cpp', 'java', 'go', 'ruby'],
    concurrency: o.concurrency ?? 4,
    contractRetries: o.contractRetries ?? 2,
    prompts: o.prompts,
    logger: o.logger ?? silentLogger,
    progress: o.progress ?? silentProgress,
    signal: o.signal,
    usage,
    failures: [],
    cached: new Map(),
    slots: createEndpointSlots(o.concurrency ?? 4),
  };
}

/** Checks solver labels are distinct (they become the corpus `model` column and solution keys). */
export function checkModels(models: BuildModels): void {
  if (models.solvers.length === 0) throw new CorebError('USAGE', 'coreb build needs at least one --solver');
  const seen = new Map<string, string>();
  for (const s of models.solvers) {
    const label = modelLabel(s);
    if (seen.has(label)) {
      throw new CorebError('USAGE', `two solvers have the model name \`${label}\` (${seen.get(label)} and ${s.id}); solvers must be distinct models`);
    }
    seen.set(label, s.id);
  }
}

// ---------------------------------------------------------------------------------------------
// Stages

async function stageRewrite(ctx: Ctx, problems: LcbProblem[]): Promise<RewriteRow[]> {
  const model = ctx.o.models.rewriter;
  begin(ctx, 'rewrite', problems.length);
  try {
    return await pool(
      problems,
      stageWidth(ctx, [model]),
      async (p) => {
        const messages = renderMessages(ctx.prompts, 'rewrite', {
          title: p.title,
          statement: p.content,
          starterCode: p.starterCode ?? '',
          funcName: p.funcName ?? '',
          sampleTests: sampleTests(p),
        });
        const r = await ask(ctx, 'rewrite', p.questionId, model, messages, (t) => parseRewriteReply(t, (p.starterCode ?? '').trim() !== ''));
        ctx.progress.tick();
        if ('error' in r) return { id: p.questionId, failed: r.error };
        return {
          id: p.questionId,
          title: r.value.title,
          statement: r.value.statement,
          starter_code: r.value.starterCode,
          io_changed: r.value.ioChanged,
        };
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }
}

const TESTS_BATCH = 10;

async function stageTests(ctx: Ctx, problems: LcbProblem[], rewrites: Map<string, RewriteRow>): Promise<TestsRow[]> {
  const model = ctx.o.models.rewriter;
  begin(ctx, 'tests', problems.length);
  try {
    return await pool(
      problems,
      stageWidth(ctx, [model]),
      async (p): Promise<TestsRow> => {
        const rw = rewrites.get(p.questionId);
        const pub = testsToWire(p.publicTests);
        const priv = testsToWire(p.privateTests);
        try {
          if (rw === undefined || rw.failed !== undefined) return { id: p.questionId, failed: 'rewrite failed' };
          if (rw.io_changed !== true) return { id: p.questionId, public_tests: pub, private_tests: priv, rewritten: 0 };
          const all = [...pub, ...priv];
          const todo = all.map((t, i) => ({ t, i })).filter(({ t }) => !isContextIndependent(t.input, t.output));
          for (let b = 0; b < todo.length; b += TESTS_BATCH) {
            const batch = todo.slice(b, b + TESTS_BATCH);
            const messages = renderMessages(ctx.prompts, 'tests', {
              originalTitle: p.title,
              title: rw.title ?? '',
              statement: rw.statement ?? '',
              tests: JSON.stringify(
                batch.map(({ t }) => ({ input: t.input, output: t.output })),
                null,
                1,
              ),
              count: String(batch.length),
            });
            const r = await ask(ctx, 'tests', p.questionId, model, messages, (t) => parseTestsReply(t, batch.length));
            if ('error' in r) return { id: p.questionId, failed: r.error };
            r.value.forEach((nt, k) => {
              const { i } = batch[k];
              all[i] = { ...all[i], input: nt.input, output: nt.output };
            });
          }
          return { id: p.questionId, public_tests: all.slice(0, pub.length), private_tests: all.slice(pub.length), rewritten: todo.length };
        } finally {
          ctx.progress.tick();
        }
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }
}

async function stageAbbreviate(ctx: Ctx, ready: Array<{ p: LcbProblem; rw: RewriteRow }>): Promise<AbbrevRow[]> {
  const model = ctx.o.models.abbreviator ?? ctx.o.models.rewriter;
  begin(ctx, 'abbreviate', ready.length);
  try {
    return await pool(
      ready,
      stageWidth(ctx, [model]),
      async ({ p, rw }) => {
        const title = rw.title ?? '';
        const statement = rw.statement ?? '';
        const messages = renderMessages(ctx.prompts, 'abbreviate', { title, statement });
        const r = await ask(ctx, 'abbreviate', p.questionId, model, messages, (t) => parseAbbreviation(t), {
          retries: Math.min(1, ctx.contractRetries),
        });
        ctx.progress.tick();
        const abbreviated = 'value' in r ? r.value : fallbackAbbreviation(title, statement);
        return {
          id: p.questionId,
          abbreviated,
          fallback: !('value' in r),
          words: wordCount(abbreviated),
          ...('error' in r ? { failed: `${r.error}; the fallback summary is used` } : {}),
        };
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }
}

/**
 * What a solver writes for a functional (LeetCode-style) problem per language: the method the judge's
 * driver calls (sandbox/functional.ts), no input reading, no printing.
 */
const FUNCTIONAL_IO_RULES: Readonly<Record<ExecLanguage, string>> = {
  python: "Complete the starter code's `class Solution` method; do not read input or print.",
  cpp: "Write `class Solution` with the starter code's method as a public member function (same name and parameters in C++ types); do not read input or print, and write no `main`.",
  java: "Write `class Solution` with the starter code's method as a public method (same name and parameters in Java types); do not read input or print, and write no `main`.",
  go: "Write the starter code's method as a top-level Go function (same name and parameters in Go types); do not read input or print, and write no `main`.",
  ruby: "Write `class Solution` with the starter code's method (same name and parameters); do not read input or print.",
};

/**
 * The solve request for one problem text and language (the solve stage's, and `coreb contamination`'s
 * for the original and the rewritten text). `functional`: the problem's tests call a method.
 */
export function solveMessages(
  prompts: PromptSet,
  problem: { title: string; statement: string; starterCode: string; functional: boolean },
  language: ExecLanguage,
): ChatMessage[] {
  const info = LANGUAGE_INFO[language];
  return renderMessages(prompts, 'solve', {
    languageName: info.name,
    fence: info.fence,
    ioRule: problem.functional ? FUNCTIONAL_IO_RULES[language] : 'Read all input from standard input and write the answer to standard output.',
    // functional: the (Python) starter code gives every language the method's name and parameters
    starterCode: language === 'python' || problem.functional ? problem.starterCode : '',
    title: problem.title,
    statement: problem.statement,
  });
}

async function stageSolve(ctx: Ctx, ready: Array<{ p: LcbProblem; rw: RewriteRow }>): Promise<SolveRow[]> {
  const jobs = ready.flatMap(({ p, rw }) => ctx.o.models.solvers.flatMap((solver) => ctx.languages.map((language) => ({ p, rw, solver, language }))));
  begin(ctx, 'solve', jobs.length);
  try {
    return await pool(
      jobs,
      stageWidth(ctx, ctx.o.models.solvers),
      async ({ p, rw, solver, language }): Promise<SolveRow> => {
        const functional = p.publicTests.some((t) => t.kind === 'functional');
        const messages = solveMessages(
          ctx.prompts,
          { title: rw.title ?? '', statement: rw.statement ?? '', starterCode: rw.starter_code ?? '', functional },
          language,
        );
        const r = await ask(ctx, 'solve', `${p.questionId}/${language}`, solver, messages, (t) => extractProgram(t, language));
        ctx.progress.tick();
        const base = { id: p.questionId, model: modelLabel(solver), language };
        return 'value' in r ? { ...base, code: r.value } : { ...base, failed: r.error };
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }
}

/** The program id of a solution: `<problem>/<model>/<language>`. */
export function programId(row: { id: string; model: string; language: string }): string {
  return `${row.id}/${row.model}/${row.language}`;
}

async function stageExecute(ctx: Ctx, solutions: SolveRow[], testsOf: Map<string, TestCase[]>): Promise<Map<string, JudgeRecord>> {
  if (ctx.o.judge === undefined) throw new CorebError('USAGE', 'the execute stage needs a judge');
  const judge = await ctx.o.judge();
  try {
    const programs: Program[] = solutions
      .filter((s) => s.code !== undefined)
      .map((s) => ({ id: programId(s), problemId: s.id, language: s.language, code: s.code as string }));
    const outFile = join(ctx.outDir, 'work', 'execute.jsonl');
    const cache =
      ctx.o.cacheDir === undefined
        ? undefined
        : openJsonFileStore<JudgeRecord>(ctx.o.cacheDir, VERDICT_CACHE_LAYOUT, (v, key) => (v as JudgeRecord | null)?.key === key);
    const summary = await runJudging({
      judge,
      testsOf: (id) => testsOf.get(id),
      programs,
      outFile,
      concurrency: ctx.concurrency * 2,
      progress: ctx.progress,
      logger: ctx.logger,
      signal: ctx.signal,
      ...(cache !== undefined ? { store: { get: (key: string) => cache.get(key), put: (rec: JudgeRecord) => cache.put(rec.key, rec) } } : {}),
    });
    ctx.judging = { judged: summary.judged, fromCache: summary.fromStore, resumed: summary.resumed };
    return executeRecords(ctx.outDir, programs, testsOf, judge.describe());
  } finally {
    await judge.close();
  }
}

/** The judge's records of `programs`, matched by their resume key (code, tests, judge settings). */
export function executeRecords(
  outDir: string,
  programs: Program[],
  testsOf: Map<string, TestCase[]>,
  settings: Record<string, unknown>,
): Map<string, JudgeRecord> {
  const { jobs: _jobs, ...keySettings } = settings;
  const byKey = new Map<string, JudgeRecord>();
  const file = join(outDir, 'work', 'execute.jsonl');
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const rec = JSON.parse(line) as JudgeRecord;
      byKey.set(rec.key, rec);
    }
  }
  const out = new Map<string, JudgeRecord>();
  for (const p of programs) {
    const rec = byKey.get(judgeKey(p, testsOf.get(p.problemId) ?? [], keySettings));
    if (rec !== undefined) out.set(p.id, rec);
  }
  return out;
}

/** The problem block of the queries prompt (the official runner's layout). */
function queryProblemBlock(
  id: string,
  title: string,
  statement: string,
  difficulty: string,
  languages: readonly string[],
  maxChars?: number,
): string {
  const text = maxChars !== undefined && statement.length > maxChars ? statement.slice(0, maxChars) + '…' : statement;
  return [
    '**Problem:**',
    `ID: ${id}`,
    `Title: ${title}`,
    `Description: ${text.trim()}`,
    `Difficulty: ${difficulty || 'unknown'}`,
    `Available Languages: ${languages.map((l) => LANGUAGE_INFO[l as ExecLanguage]?.name ?? l).join(', ') || 'none'}`,
  ].join('\n');
}

async function stageQueries(
  ctx: Ctx,
  ready: Array<{ p: LcbProblem; rw: RewriteRow }>,
  passing: ReadonlyMap<string, readonly ExecLanguage[]>,
): Promise<QueriesRow[]> {
  const model = ctx.o.models.queryWriter ?? ctx.o.models.rewriter;
  const count = ctx.o.queriesPerVariant ?? 2;
  const kinds = Object.keys(SEARCH_QUERY_KINDS) as SearchQueryKind[];
  const docs = ready.map(({ p, rw }) => ({ id: p.questionId, text: `${rw.title ?? ''}\n${rw.statement ?? ''}` }));
  const embedder = ctx.o.models.similarityEmbedder;
  const similar = embedder !== undefined ? await similarProblemsByEmbedding(docs, embedder, ctx.signal) : similarProblems(docs);
  const byId = new Map(ready.map((r) => [r.p.questionId, r]));
  const block = (id: string, maxChars?: number): string => {
    const r = byId.get(id) as { p: LcbProblem; rw: RewriteRow };
    return queryProblemBlock(id, r.rw.title ?? '', r.rw.statement ?? '', r.p.difficulty ?? '', passing.get(id) ?? [], maxChars);
  };
  // One job per problem and query type; a problem without a passing program gets no search query (it could have no positive).
  const jobs = ready.flatMap(({ p }) => ((passing.get(p.questionId) ?? []).length === 0 ? [] : kinds.map((kind) => ({ p, kind }))));
  begin(ctx, 'queries', jobs.length);
  let answers: Array<{ id: string; kind: SearchQueryKind; value?: Record<string, string[]>; error?: string }>;
  try {
    answers = await pool(
      jobs,
      stageWidth(ctx, [model]),
      async ({ p, kind }) => {
        const languages = ['any', ...(passing.get(p.questionId) ?? [])];
        const keys = languages.map(searchVariantKey);
        const messages = renderMessages(ctx.prompts, 'queries', {
          count: String(count),
          queryType: kind,
          queryTypeFocus: SEARCH_QUERY_KINDS[kind],
          target: block(p.questionId),
          similarProblems: (similar.get(p.questionId) ?? []).map((id) => block(id, 500)).join('\n\n'),
          variants: languages
            .map((l) =>
              l === 'any'
                ? `- ${searchVariantKey(l)}: language-agnostic queries (no programming language named)`
                : `- ${searchVariantKey(l)}: queries for a ${LANGUAGE_INFO[l as ExecLanguage].name.replace(/ \(.*\)$/, '')} solution (name the language)`,
            )
            .join('\n'),
          example: JSON.stringify({ queries: Object.fromEntries(keys.map((k) => [k, Array.from({ length: count }, () => '...')])) }),
          title: byId.get(p.questionId)?.rw.title ?? '',
          statement: byId.get(p.questionId)?.rw.statement ?? '',
        });
        const r = await ask(ctx, 'queries', `${p.questionId}/${kind}`, model, messages, (t) => parseSearchQueriesReply(t, keys, count));
        ctx.progress.tick();
        return 'value' in r ? { id: p.questionId, kind, value: r.value } : { id: p.questionId, kind, error: r.error };
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }
  return ready.map(({ p }) => {
    const row: QueriesRow = { id: p.questionId, queries: [], variants: [] };
    const errors: string[] = [];
    for (const a of answers.filter((x) => x.id === p.questionId)) {
      if (a.value === undefined) {
        errors.push(`${a.kind}: ${a.error}`);
        continue;
      }
      for (const language of ['any', ...(passing.get(p.questionId) ?? [])]) {
        for (const q of a.value[searchVariantKey(language)] ?? []) {
          row.queries.push(q);
          row.variants?.push({ type: a.kind, language });
        }
      }
    }
    if (errors.length > 0) row.failed = errors.join('; ');
    return row;
  });
}

/** The search queries of a queries row for the release (query, type, released sub type, language). */
function searchQueriesOf(row: QueriesRow | undefined): AuthoredProblem['searchQueries'] {
  if (row === undefined) return [];
  const variants = row.variants ?? [];
  if (variants.length !== row.queries.length) {
    throw new CorebError(
      'VALIDATION',
      `work/queries.jsonl: problem ${row.id} has ${row.queries.length} queries but ${variants.length} variants; an edit must keep both lists aligned (rerun the queries stage to rebuild them)`,
    );
  }
  return row.queries.map((text, i) => ({
    type: variants[i].type,
    text,
    language: variants[i].language,
    subQueryType: SEARCH_SUB_QUERY_TYPE[variants[i].type] ?? variants[i].type,
  }));
}

async function stageNegatives(ctx: Ctx, ready: Array<{ p: LcbProblem; rw: RewriteRow }>): Promise<NegativeRow[]> {
  const model = ctx.o.models.negativeWriter ?? ctx.o.models.rewriter;
  const jobs = ready.flatMap(({ p, rw }) => HARD_NEGATIVE_STRATEGIES.map((strategy) => ({ p, rw, strategy })));
  begin(ctx, 'negatives', jobs.length);
  try {
    return await pool(
      jobs,
      stageWidth(ctx, [model]),
      async ({ p, rw, strategy }): Promise<NegativeRow> => {
        const temperature = negativeTemperature(ctx.seed, p.questionId, strategy);
        const messages = renderMessages(ctx.prompts, 'negatives', {
          strategy,
          strategyDescription: STRATEGY_DESCRIPTIONS[strategy],
          title: rw.title ?? '',
          statement: fullText(rw.title ?? '', rw.statement ?? ''),
        });
        const r = await ask(ctx, 'negatives', `${p.questionId}/${strategy}`, model, messages, parseNegative, { temperature });
        ctx.progress.tick();
        return 'value' in r
          ? { id: p.questionId, strategy, temperature, text: r.value }
          : { id: p.questionId, strategy, temperature, failed: r.error };
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }
}

// ---------------------------------------------------------------------------------------------
// Release

interface BuildState {
  created_at: string;
}

function readState(outDir: string): BuildState | undefined {
  const f = join(outDir, 'work', 'state.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as BuildState) : undefined;
}

/** The problems.jsonl row of a rewritten problem (LiveCodeBench layout, tests as JSON strings). */
function problemRow(p: LcbProblem, rw: RewriteRow, tests: TestsRow): Record<string, unknown> {
  return {
    question_id: p.questionId,
    question_title: rw.title,
    question_content: rw.statement,
    platform: p.platform,
    contest_id: p.contestId ?? '',
    contest_date: p.contestDate ?? '',
    difficulty: p.difficulty ?? '',
    starter_code: rw.starter_code ?? '',
    public_test_cases: JSON.stringify(tests.public_tests),
    private_test_cases: JSON.stringify(tests.private_tests),
    metadata: JSON.stringify(p.metadata),
    original_title: p.title,
  };
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Counts of the release in the shapes of the paper's tables. */
function paperCounts(plan: PlannedRelease, problems: number, models: string[], languages: readonly ExecLanguage[]): Record<string, unknown> {
  const code = plan.tables.code_corpus;
  const text = plan.tables.text_corpus;
  const rel = (table: ReleaseTable): Record<string, number> => {
    const out: Record<string, number> = { '2': 0, '1': 0 };
    for (const r of plan.tables[table]) out[String(r.relevance)] = (out[String(r.relevance)] ?? 0) + 1;
    return out;
  };
  const composition: Record<string, Record<string, { total: number; passed: number }>> = {};
  for (const m of models) {
    composition[m] = {};
    for (const l of languages) {
      const rows = code.filter((r) => r.model === m && r.language === l);
      composition[m][l] = { total: rows.length, passed: rows.filter((r) => r.meta_passed === true).length };
    }
  }
  const passed = code.filter((r) => r.meta_passed === true).length;
  return {
    table2_release: {
      problems,
      code_corpus: code.length,
      text_corpus: text.length,
      text_originals: text.filter((r) => r.meta_is_noise_sample !== true).length,
      text_hard_negatives: text.filter((r) => r.meta_is_noise_sample === true).length,
      queries: {
        text2code: plan.tables.text2code_queries.length,
        code2code: plan.tables.code2code_queries.length,
        code2text: plan.tables.code2text_queries.length,
      },
    },
    table5_judgments: { text2code: rel('text2code_qrels'), code2code: rel('code2code_qrels'), code2text: rel('code2text_qrels') },
    table11_subtasks: plan.counts.subtasks,
    table12_code_composition: composition,
    a8_verified_correct: { passed, total: code.length, rate: code.length === 0 ? 0 : Math.round((10000 * passed) / code.length) / 10000 },
  };
}

// ---------------------------------------------------------------------------------------------

/** What {@link planBuild} returns for `--dry-run`. */
export interface BuildPlan {
  problems: number;
  stages: Array<{ stage: BuildStage; model: string; calls: number; inputTokens: number; outputTokens: number; note?: string }>;
  /** What the selection kept and left out. */
  selection: BuildSelection;
}

/**
 * The plan of a build without any call: per stage and model the number of requests and an
 * estimate of tokens (prompt text / 4; replies estimated from the problem texts). `tests` counts
 * the worst case (every problem's rewrite changes its I/O).
 */
export async function planBuild(o: BuildOptions): Promise<BuildPlan> {
  checkModels(o.models);
  shapeRoles(o);
  const { problems, selection } = await loadProblems(o);
  const languages = o.languages ?? ['python', 'cpp', 'java', 'go', 'ruby'];
  const tok = (s: string): number => Math.ceil(s.length / 4);
  const rows: BuildPlan['stages'] = [];
  const add = (stage: BuildStage, model: ChatModel, calls: number, inputTokens: number, outputTokens: number, note?: string): void => {
    const row: BuildPlan['stages'][number] = { stage, model: model.id, calls, inputTokens, outputTokens };
    if (note !== undefined) row.note = note;
    rows.push(row);
  };
  const t = (name: PromptName): string => (o.prompts.templates[name].system ?? '') + o.prompts.templates[name].user;
  const stmt = problems.reduce((s, p) => s + tok(p.title + p.content), 0);
  const rewriter = o.models.rewriter;
  add('rewrite', rewriter, problems.length, problems.length * tok(t('rewrite')) + stmt * 2, stmt + 50 * problems.length);
  const batches = problems.reduce((s, p) => {
    const n = [...p.publicTests, ...p.privateTests].filter((x) => !isContextIndependent(x.input, x.outputs[0] ?? '')).length;
    return s + Math.ceil(n / TESTS_BATCH);
  }, 0);
  const testChars = problems.reduce(
    (s, p) =>
      s +
      [...p.publicTests, ...p.privateTests]
        .filter((x) => !isContextIndependent(x.input, x.outputs[0] ?? ''))
        .reduce((a, x) => a + tok(x.input + (x.outputs[0] ?? '')), 0),
    0,
  );
  add('tests', rewriter, batches, batches * tok(t('tests')) + stmt + testChars, testChars, 'at most: only problems whose rewrite changes I/O');
  add('abbreviate', o.models.abbreviator ?? rewriter, problems.length, problems.length * tok(t('abbreviate')) + stmt, 150 * problems.length);
  for (const s of o.models.solvers) {
    const n = problems.length * languages.length;
    add('solve', s, n, n * tok(t('solve')) + stmt * languages.length, 600 * n);
  }
  const kinds = Object.keys(SEARCH_QUERY_KINDS).length;
  const perVariant = o.queriesPerVariant ?? 2;
  add(
    'queries',
    o.models.queryWriter ?? rewriter,
    problems.length * kinds,
    problems.length * kinds * tok(t('queries')) + stmt * kinds * 6,
    problems.length * kinds * (1 + languages.length) * perVariant * 30,
    'at most: problems with a passing program; target + 5 similar problems per call',
  );
  const negCalls = problems.length * HARD_NEGATIVE_STRATEGIES.length;
  add('negatives', o.models.negativeWriter ?? rewriter, negCalls, negCalls * tok(t('negatives')) + stmt * 4, stmt * 4);
  return { problems: problems.length, stages: rows, selection };
}

/**
 * Runs the build (the stages in `options.stages`, default all) and, when the release stage runs,
 * writes `<out>/<table>.jsonl` (8 tables), `<out>/problems.jsonl` and `<out>/manifest.json`.
 * @throws CorebError `INTERRUPTED` when `signal` aborts (a rerun resumes), `NOT_FOUND` when a stage
 * needs output of a stage not run yet, provider errors after the client's retries.
 */
export async function runBuild(o: BuildOptions): Promise<BuildResult> {
  checkModels(o.models);
  shapeRoles(o);
  const ctx = resolveCtx(o);
  const run = new Set<BuildStage>(o.stages ?? BUILD_STAGES);
  const now = o.now ?? (() => new Date());
  const started = now().toISOString();
  const stateFile = join(o.outDir, 'work', 'state.json');
  try {
    await mkdir(join(o.outDir, 'work'), { recursive: true });
  } catch (e) {
    throw new CorebError('IO', `cannot create the output directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      file: o.outDir,
      cause: e,
    });
  }
  let state = readState(o.outDir);
  if (state === undefined || (o.createdAt !== undefined && state.created_at !== o.createdAt)) {
    state = { created_at: o.createdAt ?? started.replace(/\.\d{3}Z$/, 'Z') };
    await saveFileAtomic(stateFile, JSON.stringify(state, null, 2) + '\n');
  }
  const createdAt = state.created_at;
  const releaseName = o.releaseName ?? `v${createdAt.slice(0, 4)}${createdAt.slice(5, 7)}`;

  // load
  const { problems, selection } = await loadProblems(o);
  if (problems.length === 0) throw new CorebError('VALIDATION', 'no problems to build from', { file: o.problemsFile });
  await writeWork(
    o.outDir,
    'load',
    problems.map((p) => ({
      id: p.questionId,
      title: p.title,
      platform: p.platform,
      public_tests: p.publicTests.length,
      private_tests: p.privateTests.length,
      // The originals, for `coreb review` (which reads only this folder).
      statement: p.content,
      starter_code: p.starterCode ?? '',
      samples: p.publicTests.map((t) => ({ input: t.input, output: t.outputs[0] ?? '' })),
    })),
  );
  ctx.logger.info(`load: ${problems.length} problem(s) from ${o.problemsFile}`);

  const step = async <T>(stage: BuildStage, compute: () => Promise<T[]>): Promise<T[]> => {
    if (!run.has(stage)) return readWork<T>(o.outDir, stage);
    const rows = await compute();
    await writeWork(o.outDir, stage, rows, o.signal);
    const u = ctx.usage[stage];
    if (u !== undefined) {
      ctx.logger.info(
        `${stage}: ${u.replies} repl${u.replies === 1 ? 'y' : 'ies'} (${u.calls} new call${u.calls === 1 ? '' : 's'}), ${u.inputTokens}+${u.outputTokens} tokens, ${u.failed} failed`,
      );
    }
    return rows;
  };
  const last = BUILD_STAGES.filter((s) => run.has(s)).at(-1) ?? 'load';
  const upTo = (s: BuildStage): boolean => BUILD_STAGES.indexOf(last) >= BUILD_STAGES.indexOf(s);
  const result = (): BuildResult => ({
    usage: ctx.usage,
    failures: ctx.failures,
    calls: Object.values(ctx.usage).reduce((s, u) => s + (u?.calls ?? 0), 0),
    ...(ctx.judging !== undefined ? { judging: ctx.judging } : {}),
  });

  if (!upTo('rewrite')) return result();
  const rewrites = new Map((await step('rewrite', () => stageRewrite(ctx, problems))).map((r) => [r.id, r]));
  if (!upTo('tests')) return result();
  const tests = new Map((await step('tests', () => stageTests(ctx, problems, rewrites))).map((r) => [r.id, r]));
  const ready = problems
    .filter((p) => rewrites.get(p.questionId)?.failed === undefined && tests.get(p.questionId)?.failed === undefined)
    .map((p) => ({ p, rw: rewrites.get(p.questionId) as RewriteRow }));
  if (!upTo('abbreviate')) return result();
  const abbrevs = new Map((await step('abbreviate', () => stageAbbreviate(ctx, ready))).map((r) => [r.id, r]));
  if (!upTo('solve')) return result();
  const solutions = await step('solve', () => stageSolve(ctx, ready));
  const testsOf = new Map<string, TestCase[]>();
  for (const { p } of ready) {
    const t = tests.get(p.questionId) as TestsRow;
    testsOf.set(p.questionId, wireToTests([...(t.public_tests ?? []), ...(t.private_tests ?? [])], p.funcName));
  }
  if (!upTo('execute')) return result();
  let records: Map<string, JudgeRecord>;
  const programs: Program[] = solutions
    .filter((s) => s.code !== undefined)
    .map((s) => ({ id: programId(s), problemId: s.id, language: s.language, code: s.code as string }));
  if (run.has('execute')) {
    records = await stageExecute(ctx, solutions, testsOf);
  } else {
    if (o.judge === undefined) throw new CorebError('USAGE', 'reading execution results needs the judge settings');
    const judge = await o.judge();
    records = executeRecords(o.outDir, programs, testsOf, judge.describe());
    await judge.close();
  }
  const unjudged = programs.filter((p) => !records.has(p.id));
  if (unjudged.length > 0) {
    throw new CorebError('NOT_FOUND', `${unjudged.length} program(s) have no execution result (e.g. ${unjudged[0].id}); run the execute stage`);
  }
  if (!upTo('queries')) return result();
  const passing = new Map<string, ExecLanguage[]>();
  for (const { p } of ready) {
    const langs = new Set(
      solutions.filter((s) => s.id === p.questionId && s.code !== undefined && records.get(programId(s))?.passed === true).map((s) => s.language),
    );
    passing.set(
      p.questionId,
      ctx.languages.filter((l) => langs.has(l)),
    );
  }
  const queries = new Map((await step('queries', () => stageQueries(ctx, ready, passing))).map((r) => [r.id, r]));
  if (!upTo('negatives')) return result();
  const negatives = await step('negatives', () => stageNegatives(ctx, ready));
  if (!upTo('qrels')) return result();
  // The reviewer's decisions (`coreb review`): edits replace the texts, rejected problems are left out.
  const review = loadReviewState(o.outDir);
  applyReviewInPlace(review, { rewrites, abbreviations: abbrevs, queries, negatives });

  // qrels: the problems with everything needed, through the shared v2 rules.
  const authored: AuthoredProblem[] = [];
  const outcomes = new Map<string, SolutionOutcome>();
  const dropped: Array<{ id: string; reason: string }> = [];
  for (const p of problems) {
    const rw = rewrites.get(p.questionId);
    const tr = tests.get(p.questionId);
    if (rw?.failed !== undefined) {
      dropped.push({ id: p.questionId, reason: 'rewrite failed' });
      continue;
    }
    if (tr?.failed !== undefined) {
      dropped.push({ id: p.questionId, reason: 'test adaptation failed' });
      continue;
    }
    if (reviewStatus(review, p.questionId) === 'rejected') {
      dropped.push({ id: p.questionId, reason: 'rejected in review' });
      continue;
    }
    const negs = negatives.filter((n) => n.id === p.questionId);
    const missing = HARD_NEGATIVE_STRATEGIES.filter((s) => negs.find((n) => n.strategy === s)?.text === undefined);
    if (missing.length > 0) {
      dropped.push({ id: p.questionId, reason: `no hard negative for ${missing.join(', ')}` });
      continue;
    }
    const pid = `lcb_${p.questionId}`;
    const sols = solutions.filter((s) => s.id === p.questionId && s.code !== undefined);
    for (const s of sols) {
      const rec = records.get(programId(s)) as JudgeRecord;
      outcomes.set(outcomeKey(pid, `${s.model}_${s.language}`), { passed: rec.passed, testsPassed: rec.tests_passed, testsTotal: rec.tests_total });
    }
    authored.push({
      id: pid,
      title: rw?.title ?? '',
      statement: fullText(rw?.title ?? '', rw?.statement ?? ''),
      abbreviated: abbrevs.get(p.questionId)?.abbreviated ?? '',
      tests: [],
      hardNegatives: negs.map((n) => ({ strategy: n.strategy, text: n.text as string })),
      searchQueries: searchQueriesOf(queries.get(p.questionId)),
      solutions: sols.map((s) => ({
        file: `${s.model}_${s.language}`,
        language: s.language,
        author: s.model,
        intent: 'correct',
        code: s.code as string,
      })),
    });
  }
  const shape = o.shape ?? resolveReleaseShape();
  const roles = shapeRoles(o);
  const needsSecond = shape.rules === 'official' && shape.code2code.some((s) => s !== 'cross_lang');
  if (needsSecond && roles.secondary === undefined) {
    ctx.logger.warn(`qrels: c2c_mono_lang and c2c_cross_model need a second solver; with one (${roles.primary}) they have no query`);
  }
  const plan = planMiniRelease(authored, outcomes, {
    idTag: releaseName,
    createdAt,
    version: releaseName,
    seed: ctx.seed,
    maxHardNegatives: o.maxHardNegatives,
    shape,
    roles,
  });
  // The official solution key is `{model}_{language}` (one solution per model and language).
  for (const row of plan.tables.code_corpus) row.meta_solution_key = `${String(row.model)}_${String(row.language)}`;
  await saveFileAtomic(join(o.outDir, 'work', 'qrels.json'), JSON.stringify({ counts: plan.counts, dropped }, null, 2) + '\n');
  if (!upTo('release')) return { ...result(), counts: plan.counts, problemsReleased: authored.length, dropped };

  // release
  for (const t of RELEASE_TABLES) {
    await saveLinesAtomic(join(o.outDir, `${t}.jsonl`), plan.tables[t].map(renderWireRow), o.signal);
  }
  // The same tables in the Hub's layout (one config per table, one split per release), ready for `hf upload`.
  const split = `release_${releaseName}`;
  await saveHubRelease(join(o.outDir, HUB_DIR), split, plan.tables as unknown as Record<ReleaseTable, Record<string, unknown>[]>, {
    title: `CoREB ${split}`,
    license: 'apache-2.0',
    body: [
      `A CoREB release built by coreb (${o.command ?? 'coreb build'}): ${authored.length} problem(s), ${plan.counts.tables.code_corpus} programs, ${plan.counts.tables.text_corpus} texts.`,
      '',
      `Read it with \`coreb eval --data . --split ${split}\` (or \`datasets.load_dataset(REPO, CONFIG, split="${split}")\`). The build's manifest, with models, prompts, seeds and counts, is \`manifest/${split}.json\`.`,
      '',
      'Check the licence of the source problems before publishing derived texts.',
    ].join('\n'),
  });
  const released = new Set(authored.map((a) => a.id.slice(4)));
  await saveLinesAtomic(
    join(o.outDir, 'problems.jsonl'),
    problems
      .filter((p) => released.has(p.questionId))
      .map((p) => JSON.stringify(problemRow(p, rewrites.get(p.questionId) as RewriteRow, tests.get(p.questionId) as TestsRow))),
  );
  const labels = o.models.solvers.map(modelLabel);
  const describe = (m: ChatModel | undefined): Record<string, unknown> | null => (m === undefined ? null : m.describe());
  const judgeSettings =
    o.judge !== undefined
      ? await (async () => {
          const j = await o.judge!();
          const d = j.describe();
          await j.close();
          return d;
        })()
      : null;
  const manifest = {
    name: releaseName,
    split,
    hub: { dir: HUB_DIR, split, layout: '<table>/<split>-00000-of-00001.parquet, README.md (dataset card), manifest/<split>.json' },
    description:
      'A CoREB-format release built by `coreb build` from LiveCodeBench-format problems: counterfactual rewrites, LLM solutions judged in the sandbox, LLM queries and hard-negative descriptions, v2 qrels.',
    created_at: createdAt,
    generated_by: o.command ?? 'coreb build',
    dates: { first_run: createdAt, this_run_started: started, this_run_finished: now().toISOString() },
    source: {
      problems_file: o.problemsFile,
      problems_sha256: sha256(readFileSync(o.problemsFile, 'utf8')),
      problems_read: problems.length,
      limit: o.limit ?? null,
      selection: {
        from: selection.from,
        to: selection.to,
        exclude_releases: selection.excluded,
        problems_offered: selection.offered,
        dropped: selection.dropped,
        near_duplicate_rule: NEAR_DUPLICATE_STATEMENTS,
      },
    },
    models: {
      rewriter: describe(o.models.rewriter),
      abbreviator: describe(o.models.abbreviator ?? o.models.rewriter),
      solvers: o.models.solvers.map((s) => ({ label: modelLabel(s), ...s.describe() })),
      query_writer: describe(o.models.queryWriter ?? o.models.rewriter),
      negative_writer: describe(o.models.negativeWriter ?? o.models.rewriter),
    },
    prompts: { dir: o.prompts.isDefault ? 'default (coreb prompts/build)' : o.prompts.dir, sha256: o.prompts.hashes },
    shape: shape.name,
    shape_rules: {
      rules: shape.rules,
      search_cap_per_subtask: shape.searchCap,
      code2code_subtasks: shape.code2code.map((s) => `c2c_${s}`),
      anchor_language: shape.anchorLanguage,
      c2t_near_miss_texts: shape.c2tHardTexts,
      c2t_match: shape.c2tMatch,
      hard_negatives_per_code_query: o.maxHardNegatives ?? shape.maxHardNegatives,
      hard_negative_pick: shape.rules === 'official' ? 'seeded sample from tiers (official)' : 'id order (coreb-mini)',
      source: 'hq-bench/coreb coreb_runner/runners/query_corpus_dataset_maker.py (docs/build.md, "Release shape")',
    },
    roles: { primary_model: roles.primary, second_model: roles.secondary ?? null },
    seeds: { build: ctx.seed, negative_temperature_range: [0.85, 1.0] },
    languages: ctx.languages,
    settings: {
      contract_retries: ctx.contractRetries,
      concurrency_per_endpoint: ctx.concurrency,
      queries_per_variant: o.queriesPerVariant ?? 2,
      search_query_types: Object.keys(SEARCH_QUERY_KINDS),
      similar_problems: {
        ranking:
          o.models.similarityEmbedder !== undefined
            ? 'embedding cosine'
            : 'TF-IDF cosine (sublinear tf, smoothed idf, English stop words, s-stemming)',
        embedder: o.models.similarityEmbedder?.describe() ?? null,
        top_k: SIMILAR_PROBLEMS_K,
        min_score: SIMILAR_PROBLEMS_MIN_SCORE,
        chars_each: 500,
      },
      tests_batch: TESTS_BATCH,
    },
    judge: judgeSettings,
    tools: { node: process.version, ...(o.toolVersions ?? {}) },
    stages: Object.fromEntries(
      BUILD_STAGES.filter((s) => ctx.usage[s] !== undefined).map((s) => {
        const u = ctx.usage[s] as StageUsage;
        return [
          s,
          {
            replies: u.replies,
            calls_this_run: u.calls,
            input_tokens: u.inputTokens,
            output_tokens: u.outputTokens,
            contract_retries: u.contractRetries,
            failed: u.failed,
          },
        ];
      }),
    ),
    counts: paperCounts(plan, authored.length, labels, ctx.languages),
    tables: plan.counts.tables,
    review: {
      file: REVIEW_FILE,
      ...summarizeReview(
        review,
        problems.map((p) => p.questionId),
      ),
    },
    abbreviation_fallbacks: [...abbrevs.values()].filter((a) => a.fallback).map((a) => a.id),
    dropped_problems: dropped,
    failures: [
      ...[...rewrites.values()].filter((r) => r.failed !== undefined).map((r) => ({ stage: 'rewrite', item: r.id, error: r.failed })),
      ...[...tests.values()]
        .filter((r) => r.failed !== undefined && r.failed !== 'rewrite failed')
        .map((r) => ({ stage: 'tests', item: r.id, error: r.failed })),
      ...[...abbrevs.values()].filter((r) => r.failed !== undefined).map((r) => ({ stage: 'abbreviate', item: r.id, error: r.failed })),
      ...solutions
        .filter((r) => r.failed !== undefined)
        .map((r) => ({ stage: 'solve', item: `${r.id}/${r.language}`, model: r.model, error: r.failed })),
      ...[...queries.values()].filter((r) => r.failed !== undefined).map((r) => ({ stage: 'queries', item: r.id, error: r.failed })),
      ...negatives.filter((r) => r.failed !== undefined).map((r) => ({ stage: 'negatives', item: `${r.id}/${r.strategy}`, error: r.failed })),
    ],
    problems: authored.map((a) => a.id),
  };
  await saveFileAtomic(join(o.outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  await saveAtomic(join(o.outDir, HUB_DIR, 'manifest', `${split}.json`), JSON.stringify(manifest, null, 2) + '\n');
  return { ...result(), counts: plan.counts, problemsReleased: authored.length, dropped };
}

/**
 * Model A and model B of the shape's rules, by corpus label: `primarySolver` (default the first
 * solver) and the first other solver.
 * @throws CorebError `USAGE` when `primarySolver` names no solver.
 */
export function shapeRoles(o: Pick<BuildOptions, 'models' | 'primarySolver'>): ShapeRoles {
  const labels = o.models.solvers.map(modelLabel);
  const primary = o.primarySolver ?? labels[0];
  if (!labels.includes(primary)) {
    throw new CorebError('USAGE', `--primary-solver ${primary} is not a solver of this build; solvers: ${labels.join(', ')}`);
  }
  const secondary = labels.find((l) => l !== primary);
  return { primary, ...(secondary !== undefined ? { secondary } : {}) };
}

/** True when `e` is an interruption (the CLI exits 130 and says how to resume). */
export function isInterrupted(e: unknown): boolean {
  return isCorebError(e, 'INTERRUPTED');
}
