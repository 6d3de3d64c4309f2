/**
 * Query expansion by a chat model, for the queries lexical and dense retrievers miss (the paper's
 * §4.4: short search queries): HyDE (Gao et al. 2023, "Precise Zero-Shot Dense Retrieval without
 * Relevance Labels") searches with a hypothetical document the model writes for the query (a program
 * for a text query, a statement for a program); Query2doc (Wang et al. 2023) appends a pseudo
 * document to the query (the query repeated, for sparse retrieval, as that paper does). Either
 * ranking is fused with the plain query's by RRF. Every request is cached by its full content.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { packagePath } from '../core/package-files.js';
import { createCachedChatModel, type CachedChatModel } from '../cache/chat-cache.js';
import { forEachBounded } from '../core/bounded-work.js';
import type { ChatModel } from '../core/chat.js';
import type { Doc, Query } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import type { RankedList, Retriever, RetrieverIndex, SearchOptions } from '../core/retrieval.js';
import { renderTemplate } from '../providers/chat/template.js';
import { fuseRrf, RRF_DEFAULT_K, rrfInputDepth } from '../search/rrf.js';

/** The two expansion methods. */
export const EXPANSION_KINDS = ['hyde', 'q2d'] as const;
/** An expansion method. */
export type ExpansionKind = (typeof EXPANSION_KINDS)[number];

/** Settings of an expansion retriever. */
export interface ExpansionSettings {
  kind: ExpansionKind;
  /** RRF weights of [plain query, expanded query]. Default [1, 1]. */
  weights: [number, number];
  /** RRF constant. Default 60. */
  k: number;
  /** Prompt template file; default coreb's `prompts/expansion/<kind>.md`. */
  prompt?: string;
  /** Query2doc: times the query is repeated before the pseudo document. Default 5 (the paper's, for BM25). */
  repeat: number;
  /** Requests in flight at once. Default 4. */
  concurrency: number;
  /** Most tokens generated per query. Default 512. */
  maxTokens: number;
  /** Sampling temperature. Default 0 (a cached reply is the reply). */
  temperature: number;
}

/** Defaults of {@link ExpansionSettings} (without `kind`). */
export const EXPANSION_DEFAULTS = {
  weights: [1, 1] as [number, number],
  k: RRF_DEFAULT_K,
  repeat: 5,
  concurrency: 4,
  maxTokens: 512,
  temperature: 0,
} as const;

/** The default prompt file of a method. */
export function defaultExpansionPrompt(kind: ExpansionKind): string {
  return packagePath('prompts', 'expansion', `${kind}.md`);
}

/** Tokens and calls an expansion retriever used (the `usage` of its results). */
export interface ExpansionUsage {
  /** Queries expanded (text-to-code and code-to-text; others take the plain ranking). */
  expanded: number;
  /** Requests sent to the model, and answered from the cache. */
  calls: number;
  cached: number;
  /** Tokens of the requests sent now, as the server reported them (replies from the cache cost none). */
  inputTokens: number;
  outputTokens: number;
}

/** The program in a reply: the first fenced block's body, else the whole reply. */
function unfence(text: string): string {
  const m = /```[^\n]*\n([\s\S]*?)```/.exec(text);
  return (m === null ? text : m[1]).trim();
}

/**
 * Wraps `inner` with query expansion by `model` (cached under `cacheDir`). Text-to-code queries get
 * a program written for them (HyDE) or a passage appended (Query2doc); code-to-text queries a
 * problem statement; code-to-code queries are searched as they are. The expanded ranking is fused
 * with the plain one: score(d) = w_plain/(k + r_plain(d)) + w_expanded/(k + r_expanded(d)), both
 * searched to max(depth, 100).
 */
export function createExpansionRetriever(
  inner: Retriever,
  model: ChatModel,
  settings: ExpansionSettings,
  cacheDir: string,
  name: string,
): Retriever & { report(): ExpansionUsage } {
  const promptFile = settings.prompt ?? defaultExpansionPrompt(settings.kind);
  let template: string;
  try {
    template = readFileSync(promptFile, 'utf8');
  } catch (e) {
    throw new CorebError('NOT_FOUND', `prompt template not readable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      file: promptFile,
      cause: e,
    });
  }
  const promptSha256 = createHash('sha256').update(template).digest('hex');
  const chat: CachedChatModel = createCachedChatModel(model, cacheDir);
  const usage: ExpansionUsage = { expanded: 0, calls: 0, cached: 0, inputTokens: 0, outputTokens: 0 };
  const generate = async (q: Query, target: 'program' | 'statement', signal: AbortSignal | undefined): Promise<string> => {
    const content = renderTemplate(
      template,
      { query: q.text, program: target === 'program' ? 'yes' : '', statement: target === 'statement' ? 'yes' : '' },
      promptFile,
    );
    const reply = await chat.complete(
      { messages: [{ role: 'user', content }], maxTokens: settings.maxTokens, temperature: settings.temperature },
      { ...(signal !== undefined ? { signal } : {}), trace: { stage: settings.kind, item: q.id } },
    );
    usage.expanded++;
    if (reply.cached === true) usage.cached++;
    else {
      usage.calls++;
      usage.inputTokens += reply.usage.inputTokens;
      usage.outputTokens += reply.usage.outputTokens;
    }
    return settings.kind === 'hyde' ? unfence(reply.text) : reply.text.trim();
  };
  return {
    name,
    report: () => ({ ...usage }),
    describe: () => ({
      kind: settings.kind,
      method: settings.kind === 'hyde' ? 'HyDE: search with a hypothetical document' : 'Query2doc: the query repeated, then a pseudo document',
      model: model.identity(),
      prompt: { file: settings.prompt ?? `coreb prompts/expansion/${settings.kind}.md`, sha256: promptSha256 },
      fusion: { kind: 'rrf', k: settings.k, weights: settings.weights },
      ...(settings.kind === 'q2d' ? { repeat: settings.repeat } : {}),
      maxTokens: settings.maxTokens,
      temperature: settings.temperature,
      search: inner.describe(),
    }),
    async index(docs: readonly Doc[], options): Promise<RetrieverIndex> {
      const index = await inner.index(docs, options);
      return {
        size: index.size,
        async search(queries: readonly Query[], depth: number, opts: SearchOptions = {}): Promise<Map<string, RankedList>> {
          const target = opts.task === 'text2code' ? 'program' : opts.task === 'code2text' ? 'statement' : undefined;
          if (target === undefined) return index.search(queries, depth, opts);
          const inputDepth = rrfInputDepth(depth);
          const plain = await index.search(queries, inputDepth, opts);
          const expanded: Query[] = queries.map((q) => ({ ...q }));
          opts.progress?.start(`${settings.kind} generation`, queries.length);
          await forEachBounded(
            queries,
            settings.concurrency,
            async (q, i) => {
              const doc = await generate(q, target, opts.signal);
              expanded[i].text = settings.kind === 'hyde' ? doc : `${Array.from({ length: settings.repeat }, () => q.text).join(' ')} ${doc}`;
              opts.progress?.tick();
            },
            opts.signal,
          );
          opts.progress?.done();
          if (opts.signal?.aborted) throw new CorebError('INTERRUPTED', `${settings.kind} generation interrupted; the replies so far are cached`);
          const second = await index.search(expanded, inputDepth, opts);
          const out = new Map<string, RankedList>();
          for (const q of queries) {
            out.set(
              q.id,
              fuseRrf([plain.get(q.id) as RankedList, second.get(q.id) as RankedList], depth, { k: settings.k, weights: settings.weights }),
            );
          }
          return out;
        },
      };
    },
  };
}
