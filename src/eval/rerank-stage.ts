/**
 * The second stage: a reranker re-scores each query's top `depth` first-stage candidates (the
 * code-to-code anchor removed before the cut, so it never takes a slot) and the list is re-sorted
 * by the new score, optionally fused with the first-stage rank by reciprocal ranks
 * (`1/(k + r_rerank) + alpha/(k + r_first)`). Also: the reranker factory with the score cache,
 * and the deltas a reranked result reports against its first stage.
 */
import { createCachedReranker, openRerankStore } from '../cache/cached-reranker.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import type { Doc, Query, TaskName } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { MetricValues } from '../core/eval-results.js';
import type { Logger, Progress } from '../core/progress.js';
import type { Reranker, RerankPair } from '../core/rerank.js';
import type { RankedList } from '../core/retrieval.js';
import { createReranker } from '../providers/rerank/registry.js';
import { parseRerankerSpec } from '../providers/rerank/config.js';
import { rankTrec } from './rank.js';
import type { SpecReranker } from './spec-reranker.js';

export type { SpecReranker };

/** How reranker and first stage combine: the reranker alone, or reciprocal-rank fusion of both. */
export type RerankFusion = { kind: 'none' } | { kind: 'rrf'; k: number; alpha: number };

/** Default candidates reranked per query (the paper's top 128). */
export const RERANK_DEFAULT_DEPTH = 128;
/** Default RRF constants (k = 60, first-stage weight alpha = 4). */
export const RERANK_RRF_DEFAULTS = { k: 60, alpha: 4 } as const;

/**
 * Parses `none`, `rrf` or `rrf:k=60,alpha=4` (either key may be left out).
 * @throws CorebError `USAGE` naming the bad part.
 */
export function parseRerankFusion(text: string | undefined): RerankFusion {
  const s = (text ?? 'none').trim();
  if (s === 'none') return { kind: 'none' };
  if (s !== 'rrf' && !s.startsWith('rrf:')) throw new CorebError('USAGE', `--rerank-fusion must be none, rrf or rrf:k=60,alpha=4, got \`${s}\``);
  const out = { kind: 'rrf' as const, k: RERANK_RRF_DEFAULTS.k as number, alpha: RERANK_RRF_DEFAULTS.alpha as number };
  for (const part of s
    .slice(4)
    .split(',')
    .filter((p) => p.trim() !== '')) {
    const [key, value] = part.split('=').map((x) => x.trim());
    const v = Number(value);
    if ((key !== 'k' && key !== 'alpha') || value === undefined || value === '' || !Number.isFinite(v) || v < 0) {
      throw new CorebError('USAGE', `--rerank-fusion: \`${part}\` must be k=NUMBER or alpha=NUMBER (>= 0)`);
    }
    out[key] = v;
  }
  return out;
}

/** The text a reranker reads for a document: BEIR's `title text` when there is a title. */
export function rerankDocText(doc: Doc): string {
  return doc.title ? `${doc.title} ${doc.text}` : doc.text;
}

/** Input of {@link rerankLists}. */
export interface RerankListsInput {
  reranker: Reranker;
  queries: readonly Query[];
  /** Document id -> document. */
  docs: ReadonlyMap<string, Doc>;
  /** First-stage lists by query id, best first. */
  lists: ReadonlyMap<string, RankedList>;
  /** Candidates per query. */
  depth: number;
  fusion: RerankFusion;
  task?: TaskName;
  /** Per query id, documents removed before the cut (the code-to-code anchor). */
  exclude?: ReadonlyMap<string, readonly string[]>;
  signal?: AbortSignal;
  progress?: Progress;
}

/**
 * Reranks every query's top `depth` candidates in one reranker call (so requests of many queries
 * run concurrently). The new list holds exactly those candidates, in trec order of the reranker's
 * score (float32 descending, docid descending), or of the fused score under `rrf`; its scores are
 * the reranker's (or fused) values. Queries without a first-stage list get none.
 * @throws CorebError `VALIDATION` when a candidate id is not in `docs`.
 */
export async function rerankLists(input: RerankListsInput): Promise<Map<string, RankedList>> {
  const { depth, fusion } = input;
  const pairs: RerankPair[] = [];
  const spans: { qid: string; ids: string[]; start: number }[] = [];
  for (const q of input.queries) {
    const list = input.lists.get(q.id);
    if (list === undefined) continue;
    const drop = new Set(input.exclude?.get(q.id) ?? []);
    const ids: string[] = [];
    for (const id of list.docIds) {
      if (ids.length >= depth) break;
      if (!drop.has(id)) ids.push(id);
    }
    const start = pairs.length;
    spans.push({ qid: q.id, ids, start });
    for (const id of ids) {
      const doc = input.docs.get(id);
      if (doc === undefined) throw new CorebError('VALIDATION', `query ${q.id}: candidate \`${id}\` is not in the corpus`, { field: 'docid' });
      pairs.push({ query: q.text, doc: rerankDocText(doc), records: { query: q, doc, firstRank: pairs.length - start } });
    }
  }
  const scores = await input.reranker.score(pairs, {
    ...(input.task !== undefined ? { task: input.task } : {}),
    ...(input.signal !== undefined ? { signal: input.signal } : {}),
    ...(input.progress !== undefined ? { progress: input.progress } : {}),
  });
  const out = new Map<string, RankedList>();
  for (const { qid, ids, start } of spans) {
    const byRerank = new Map<string, number>();
    ids.forEach((id, i) => byRerank.set(id, scores[start + i]));
    let final = byRerank;
    if (fusion.kind === 'rrf') {
      const order = rankTrec(byRerank);
      final = new Map();
      const firstRank = new Map(ids.map((id, i) => [id, i + 1]));
      order.forEach((id, i) => final.set(id, 1 / (fusion.k + i + 1) + fusion.alpha / (fusion.k + firstRank.get(id)!)));
    }
    const ranked = rankTrec(final);
    out.set(qid, { docIds: ranked, scores: Float64Array.from(ranked, (id) => final.get(id)!) });
  }
  return out;
}

/** `reranked − first` per measure, and relative `(reranked − first) / first` (null where first is 0). */
export function metricDeltas(first: MetricValues, reranked: MetricValues): { delta: MetricValues; relative: Record<string, number | null> } {
  const delta: MetricValues = {};
  const relative: Record<string, number | null> = {};
  for (const [m, v] of Object.entries(reranked)) {
    const f = first[m];
    if (f === undefined) continue;
    delta[m] = v - f;
    relative[m] = f === 0 ? null : (v - f) / f;
  }
  return { delta, relative };
}

/** Options of {@link createRerankerFromSpec}. */
export interface RerankerFactoryOptions {
  env: Record<string, string | undefined>;
  /** Cache root; default from `env` (see resolveCacheDir). `false` disables the score cache. */
  cacheDir?: string | false;
  logger?: Logger;
}

/**
 * Resolves a reranker spec (`PROVIDER:MODEL[?...]`, see docs/rerank.md) to a reranker whose scores
 * are cached: a second identical run sends nothing, an interrupted one resumes.
 */
export async function createRerankerFromSpec(spec: string, options: RerankerFactoryOptions): Promise<SpecReranker> {
  if (spec.trim() === 'exec' || spec.trim().startsWith('exec?')) {
    // Runs programs, so loaded only when chosen; its own run journal replaces the score cache.
    const { createExecRerankerFromSpec } = await import('./exec-reranker.js');
    return createExecRerankerFromSpec(spec, {
      env: options.env,
      ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    });
  }
  const inner = await createReranker(parseRerankerSpec(spec), { env: options.env, ...(options.logger ? { logger: options.logger } : {}) });
  if (options.cacheDir === false) {
    return { ...inner, score: inner.score.bind(inner), counters: () => ({ requested: 0, hits: 0, duplicates: 0, sent: 0 }), close() {} };
  }
  const store = openRerankStore(options.cacheDir ?? resolveCacheDir(options.env));
  const cached = createCachedReranker(inner, store);
  return { ...cached, close: () => store.close() };
}

/**
 * `after − before` for every number of a nested counter object (keys only in `after` count from 0);
 * the part of a reranker's running totals one reranked row used.
 */
export function diffCounters(after: Record<string, unknown>, before: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) {
    const b = before?.[k];
    if (typeof v === 'number') out[k] = typeof b === 'number' ? Math.round((v - b) * 1e6) / 1e6 : v;
    else if (v !== null && typeof v === 'object' && !Array.isArray(v))
      out[k] = diffCounters(v as Record<string, unknown>, b !== null && typeof b === 'object' ? (b as Record<string, unknown>) : undefined);
    else out[k] = v;
  }
  return out;
}
