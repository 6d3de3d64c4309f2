/**
 * What every reranker provider shares: instruction lookup per task, the template, grouping pairs
 * into requests, and checking a reply's scores (count, indices, finite values).
 */
import type { TaskName } from '../../core/dataset.js';
import type { RerankOptions, RerankPair } from '../../core/rerank.js';
import { estimateTokens } from '../http/batching.js';
import type { HttpClient } from '../http/client.js';
import { abortReason } from '../../core/retry.js';
import { ResponseShapeError } from '../http/validate.js';
import type { RerankerConfig } from './config.js';
import { DEFAULT_INSTRUCTIONS, resolveTemplate, type PromptTemplate, type TemplateName } from './template.js';

/** The template and instruction table of a config (`plain` takes no instruction). */
export function resolvePrompting(
  cfg: RerankerConfig,
  defaultTemplate: TemplateName,
): {
  template: PromptTemplate;
  instructions: Record<TaskName | 'default', string>;
  instruction: (task?: TaskName) => string;
} {
  const template = resolveTemplate(cfg.template ?? defaultTemplate, cfg.system);
  const instructions = { ...DEFAULT_INSTRUCTIONS, ...(cfg.instructions ?? {}) };
  const instruction = (task?: TaskName): string => (template.name === 'plain' ? '' : task !== undefined ? instructions[task] : instructions.default);
  return { template, instructions, instruction };
}

/** The template fields recorded in identities and results. */
export function templateIdentity(t: PromptTemplate): Record<string, unknown> {
  return { template: t.name, system: t.system, prefix: t.prefix, suffix: t.suffix };
}

/** A request's share of the pairs: positions into the caller's array. */
export interface PairBatch {
  query: string;
  positions: number[];
}

/**
 * Groups pairs by query and cuts each group into batches of at most `maxCount` documents and
 * `maxTokens` estimated tokens (query counted once per request). Query order is first appearance.
 */
export function batchByQuery(pairs: readonly RerankPair[], maxCount: number, maxTokens: number): PairBatch[] {
  const groups = new Map<string, number[]>();
  pairs.forEach((p, i) => {
    const g = groups.get(p.query);
    if (g === undefined) groups.set(p.query, [i]);
    else g.push(i);
  });
  const out: PairBatch[] = [];
  for (const [query, positions] of groups) {
    const qt = estimateTokens(query);
    let cur: number[] = [];
    let tokens = qt;
    for (const i of positions) {
      const t = estimateTokens(pairs[i].doc);
      if (cur.length > 0 && (cur.length >= maxCount || tokens + t > maxTokens)) {
        out.push({ query, positions: cur });
        cur = [];
        tokens = qt;
      }
      cur.push(i);
      tokens += t;
    }
    if (cur.length > 0) out.push({ query, positions: cur });
  }
  return out;
}

/** Cuts positions into batches of at most `maxCount` items and `maxTokens` estimated tokens. */
export function batchPrompts(prompts: readonly string[], maxCount: number, maxTokens: number): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  let tokens = 0;
  prompts.forEach((p, i) => {
    const t = estimateTokens(p);
    if (cur.length > 0 && (cur.length >= maxCount || tokens + t > maxTokens)) {
      out.push(cur);
      cur = [];
      tokens = 0;
    }
    cur.push(i);
    tokens += t;
  });
  if (cur.length > 0) out.push(cur);
  return out;
}

/**
 * Reads `(index, score)` items into scores in input order: exactly `count` items, every index an
 * integer in 0..count-1 appearing once, every score a finite number. `what` names the array.
 * @throws ResponseShapeError naming the first bad item.
 */
export function scoresByIndex(items: unknown, count: number, scoreKey: string, what: string): Float64Array {
  if (!Array.isArray(items)) throw new ResponseShapeError(`${what} is ${items === null ? 'null' : typeof items}, not an array`);
  if (items.length !== count) throw new ResponseShapeError(`${what} has ${items.length} results for ${count} documents (send top_n = all documents)`);
  const out = new Float64Array(count);
  const seen = new Uint8Array(count);
  items.forEach((item: unknown, pos) => {
    const rec = item as Record<string, unknown> | null;
    if (rec === null || typeof rec !== 'object') throw new ResponseShapeError(`${what}[${pos}] is not an object`);
    const idx = rec.index;
    if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= count) {
      throw new ResponseShapeError(`${what}[${pos}].index is ${JSON.stringify(idx)}; expected an integer in 0..${count - 1}`);
    }
    if (seen[idx]) throw new ResponseShapeError(`${what}: index ${idx} appears twice`);
    seen[idx] = 1;
    const s = rec[scoreKey];
    if (typeof s !== 'number' || !Number.isFinite(s)) {
      throw new ResponseShapeError(`${what}[${pos}].${scoreKey} is ${JSON.stringify(s) ?? String(s)}, not a finite number`);
    }
    out[idx] = s;
  });
  return out;
}

/** One request of {@link requestAll}: path, JSON body, and the parser of its reply. */
export interface RerankJob<T> {
  path: string;
  body: unknown;
  /** Throws ResponseShapeError for a malformed reply (a PROVIDER error, not retried). */
  parse(json: unknown): T;
}

/**
 * Sends every job through the shared client (its `concurrency` bounds what is in flight, its
 * retries and failover apply per request) and hands each parsed reply to `onResult` as it
 * arrives. The first failure aborts the jobs still queued and is thrown.
 */
export async function requestAll<T>(
  client: HttpClient,
  jobs: readonly RerankJob<T>[],
  signal: AbortSignal | undefined,
  onResult: (index: number, value: T) => void,
): Promise<void> {
  if (signal?.aborted) throw abortReason(signal);
  const stop = new AbortController();
  const both = signal !== undefined ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let failure: unknown;
  await Promise.all(
    jobs.map(async (j, i) => {
      try {
        const v = await client.request(j.path, j.body, j.parse, { signal: both });
        if (failure === undefined) onResult(i, v);
      } catch (e) {
        if (failure === undefined) {
          failure = e;
          stop.abort(e);
        }
      }
    }),
  );
  if (signal?.aborted) throw abortReason(signal);
  if (failure !== undefined) throw failure;
}

/**
 * Scores `count` pairs through the batched requests of a reranker: sends every job with
 * {@link requestAll}, writes each reply's scores at its batch's pair positions, reports them to
 * `options.onScores` and `options.progress` as they arrive, and hands the whole reply to `onReply`
 * (for per-reply counters). `batches[i]` holds the pair positions job `i` scores, in its order.
 */
export async function scoreInBatches<T extends { scores: Float64Array }>(
  client: HttpClient,
  count: number,
  batches: readonly (readonly number[])[],
  jobs: readonly RerankJob<T>[],
  options: RerankOptions,
  label: string,
  onReply?: (reply: T) => void,
): Promise<Float64Array> {
  const out = new Float64Array(count);
  options.progress?.start(`reranking ${count} pairs with ${label}`, count);
  try {
    await requestAll(client, jobs, options.signal, (bi, reply) => {
      const pos = batches[bi];
      const { scores } = reply;
      onReply?.(reply);
      for (let k = 0; k < pos.length; k++) out[pos[k]] = scores[k];
      options.onScores?.(pos, scores);
      options.progress?.tick(pos.length);
    });
  } finally {
    options.progress?.done();
  }
  return out;
}
