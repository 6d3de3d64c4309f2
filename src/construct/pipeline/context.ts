/**
 * The resolved settings of a build ({@link Ctx}) and what every stage shares: asking a model under
 * the reply cache with contract retries, the stage pool, work files, progress, model labels and roles.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, ChatModel, ChatReply, ChatRequest } from '../../core/chat.js';
import { mapBounded } from '../../core/bounded-work.js';
import { createEndpointSlots, type EndpointSlots } from '../../core/endpoint-slots.js';
import { CorebError, isCorebError } from '../../core/errors.js';
import type { ExecLanguage, TestCase } from '../../core/execution.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../../core/progress.js';
import { createCachedChatModel, type CachedChatModel } from '../../cache/chat-cache.js';
import { saveLinesAtomic } from '../../dataset/atomic-write.js';
import type { LcbProblem } from '../../dataset/lcb.js';
import type { ShapeRoles } from '../release-shape.js';
import { ContractError } from './contracts.js';
import { renderTemplate, type PromptName, type PromptSet } from './prompts.js';
import type { BuildWork, BuildStage, BuildModels, BuildOptions, StageUsage, BuildFailure, BuildResult, WireTest } from './types.js';

/** The corpus `model` label of a chat model: its model name's last path segment (`Qwen/Qwen2.5-7B` -> `Qwen2.5-7B`). */
export function modelLabel(model: ChatModel): string {
  const name = String(model.identity().model ?? model.id);
  return name.slice(name.lastIndexOf('/') + 1);
}

/** Tests as `work/tests.jsonl` keeps them (first accepted output only). */
export function testsToWire(tests: readonly TestCase[]): WireTest[] {
  return tests.map((t) => ({ input: t.input, output: t.outputs[0] ?? '', testtype: t.kind }));
}

/** Tests from `work/tests.jsonl` as the judge takes them (functional ones call `funcName`). */
export function wireToTests(tests: readonly WireTest[], funcName: string | undefined): TestCase[] {
  return tests.map((t) => {
    const kind = t.testtype === 'functional' ? 'functional' : 'stdin';
    const tc: TestCase = { kind, input: t.input, outputs: [t.output] };
    if (kind === 'functional' && funcName !== undefined) tc.funcName = funcName;
    return tc;
  });
}

/** Work-file helpers. */
export function workFile(outDir: string, stage: string): string {
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

/** Writes a stage's rows to `work/<stage>.jsonl` atomically (one JSON object per line). */
export async function writeWork(outDir: string, stage: string, rows: readonly unknown[], signal?: AbortSignal): Promise<void> {
  await saveLinesAtomic(
    workFile(outDir, stage),
    rows.map((r) => JSON.stringify(r)),
    signal,
  );
}

/**
 * Runs `fn` over `items` with `width` in flight ({@link mapBounded}); an abort stops new items and
 * is an `INTERRUPTED` error saying how to resume.
 */
export async function pool<T, R>(items: readonly T[], width: number, fn: (item: T, i: number) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const out = await mapBounded(items, width, fn, signal);
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
export function isItemProviderError(e: unknown): e is CorebError {
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

/** One line restating each contract (quoted in retries). */
export const CONTRACTS: Readonly<Record<string, string>> = {
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
export function fullText(title: string, statement: string): string {
  return `${title}\n\n${statement.trim()}`;
}

/** Up to 3 public examples of a problem as the rewrite prompt shows them. */
export function sampleTests(p: LcbProblem): string {
  return p.publicTests
    .slice(0, 3)
    .map((t, i) => `Example ${i + 1}\nInput:\n${t.input.replace(/\n$/, '')}\nOutput:\n${(t.outputs[0] ?? '').replace(/\n$/, '')}`)
    .join('\n\n');
}

/** A started stage: progress and a log line. */
export function begin(ctx: Ctx, stage: BuildStage, total: number): void {
  ctx.progress.start(`${stage}`, total);
}

/**
 * One model stage's items through {@link pool}: progress started for `items`, as many in flight as
 * `models`' endpoints take ({@link stageWidth}), progress closed however it ends.
 */
export async function poolStage<T, R>(
  ctx: Ctx,
  stage: BuildStage,
  items: readonly T[],
  models: readonly ChatModel[],
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  begin(ctx, stage, items.length);
  try {
    return await pool(items, stageWidth(ctx, models), fn, ctx.signal);
  } finally {
    ctx.progress.done();
  }
}

/** The resolved settings of a build; defaults: seed 42, all five languages, 4 requests per endpoint, 2 contract retries. */
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

/**
 * A model stage as a {@link BuildStageModule}: `compute` asks the models and returns the rows of
 * `work/<name>.jsonl` (written atomically, usage logged), `record` adds rows (fresh or read back) to
 * the work.
 */
export function modelStage<R>(
  name: BuildStage,
  compute: (ctx: Ctx, work: BuildWork) => Promise<R[]>,
  record: (work: BuildWork, rows: R[]) => void,
): BuildStageModule {
  return {
    name,
    async run(ctx, work) {
      const rows = await compute(ctx, work);
      await writeWork(ctx.outDir, name, rows, ctx.signal);
      const u = ctx.usage[name];
      if (u !== undefined) {
        ctx.logger.info(
          `${name}: ${u.replies} repl${u.replies === 1 ? 'y' : 'ies'} (${u.calls} new call${u.calls === 1 ? '' : 's'}), ${u.inputTokens}+${u.outputTokens} tokens, ${u.failed} failed`,
        );
      }
      record(work, rows);
    },
    async resume(ctx, work) {
      record(work, readWork<R>(ctx.outDir, name));
    },
  };
}

/** The part of the work a stage needs; a missing part is a bug in the stage order. */
export function need<K extends keyof BuildWork>(work: BuildWork, key: K, stage: BuildStage): NonNullable<BuildWork[K]> {
  const v = work[key];
  if (v === undefined) throw new CorebError('INTERNAL', `stage ${stage} needs ${String(key)}, which no earlier stage produced`);
  return v as NonNullable<BuildWork[K]>;
}

/**
 * One stage of the build: `run` computes its output from the work so far and adds it; `resume`
 * adds the output an earlier run left in `work/` (when the stage is not run this time).
 */
export interface BuildStageModule {
  readonly name: BuildStage;
  run(ctx: Ctx, work: BuildWork): Promise<void>;
  resume(ctx: Ctx, work: BuildWork): Promise<void>;
}
