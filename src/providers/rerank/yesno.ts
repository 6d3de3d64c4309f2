/**
 * Yes/no rerankers: a causal LLM reads the formatted pair and the score is how much it prefers the
 * answer "yes" over "no" at the next position, log P(yes) − log P(no) (rank-identical to
 * P(yes | yes,no), without the ties a saturated probability has).
 * - `yesno:openai`: an OpenAI-compatible `POST /completions` (vLLM, SGLang, llama.cpp) with
 *   `max_tokens: 1` and `logprobs`, prompts batched as an array, choices mapped back by `index`.
 * - `yesno:ollama`: Ollama's native `POST /api/generate` (raw prompt, `logprobs`, `top_logprobs`),
 *   one prompt per request.
 * When only one of the two tokens is among the returned top log-probs, the smallest returned value
 * stands in for it (an upper bound; counted as `floored`); when neither is, the call fails.
 */
import { CorebError } from '../../core/errors.js';
import type { RerankOptions, RerankPair, Reranker } from '../../core/rerank.js';
import { HTTP_DEFAULTS, createHttpAccess, type HttpAccessSpec } from '../http/embedder.js';
import { ResponseShapeError } from '../http/validate.js';
import type { ProviderContext } from '../types.js';
import { batchPrompts, resolvePrompting, scoreInBatches, templateIdentity, type RerankJob } from './common.js';
import type { RerankerConfig } from './config.js';
import { formatPrompt } from './template.js';

/** Defaults of the yes/no rerankers. */
export const YESNO_DEFAULTS = { maxTokens: 4096, topLogprobs: 20, yesToken: 'yes', noToken: 'no' } as const;

/** Counters of a yes/no reranker. */
export interface YesNoStats {
  pairs: number;
  /** Pairs cut to `maxTokens`. */
  truncated: number;
  /** Pairs where one answer token was outside the top log-probs (its value floored). */
  floored: number;
}

/** One position's top log-probs, token -> log-prob. */
type TopLogprobs = Map<string, number>;

/** Reads `[{token, logprob}]` or `{token: logprob}` into a map (first occurrence of a token wins). */
function readTop(raw: unknown, where: string): TopLogprobs {
  const m: TopLogprobs = new Map();
  const put = (tok: unknown, lp: unknown): void => {
    if (typeof tok !== 'string') throw new ResponseShapeError(`${where}: a top log-prob has token ${JSON.stringify(tok)}, not a string`);
    if (typeof lp !== 'number' || Number.isNaN(lp))
      throw new ResponseShapeError(`${where}: log-prob of ${JSON.stringify(tok)} is ${JSON.stringify(lp) ?? String(lp)}, not a number`);
    if (!m.has(tok)) m.set(tok, lp);
  };
  if (Array.isArray(raw)) {
    for (const e of raw) {
      const r = e as Record<string, unknown> | null;
      if (r === null || typeof r !== 'object') throw new ResponseShapeError(`${where}: top_logprobs item is not an object`);
      put(r.token, r.logprob);
    }
  } else if (raw !== null && typeof raw === 'object') {
    for (const [tok, lp] of Object.entries(raw as Record<string, unknown>)) put(tok, lp);
  } else throw new ResponseShapeError(`${where}: no top log-probs (got ${JSON.stringify(raw) ?? String(raw)}); does the server support logprobs?`);
  if (m.size === 0) throw new ResponseShapeError(`${where}: the top log-probs are empty`);
  return m;
}

/**
 * log P(yes) − log P(no) from one position's top log-probs. -9999 (OpenAI's "not in the top 20"
 * marker) and -Infinity count as absent.
 */
export function yesNoScore(top: TopLogprobs, yes: string, no: string, where: string): { score: number; floored: boolean } {
  const present = (t: string): number | undefined => {
    const v = top.get(t);
    return v === undefined || !Number.isFinite(v) || v <= -9999 ? undefined : v;
  };
  const y = present(yes);
  const n = present(no);
  if (y === undefined && n === undefined) {
    const seen = [...top.keys()]
      .slice(0, 8)
      .map((t) => JSON.stringify(t))
      .join(', ');
    throw new ResponseShapeError(
      `${where}: neither ${JSON.stringify(yes)} nor ${JSON.stringify(no)} is among the ${top.size} top log-probs (got ${seen}); ` +
        'is this a yes/no reranker, with the template it was trained on (template=qwen3|qwen3-nothink)?',
    );
  }
  let floor = Infinity;
  for (const v of top.values()) if (Number.isFinite(v) && v > -9999) floor = Math.min(floor, v);
  return { score: (y ?? floor) - (n ?? floor), floored: y === undefined || n === undefined };
}

/** The top log-probs of the first generated token of a completions choice (legacy or chat-style logprobs). */
function choiceTop(choice: Record<string, unknown>, where: string): TopLogprobs {
  const lp = choice.logprobs as Record<string, unknown> | null | undefined;
  if (lp === null || typeof lp !== 'object')
    throw new ResponseShapeError(`${where}: no \`logprobs\`; the server must return log-probs (send logprobs > 0)`);
  if (Array.isArray(lp.top_logprobs)) return readTop(lp.top_logprobs[0], where);
  if (Array.isArray(lp.content)) return readTop((lp.content[0] as Record<string, unknown> | undefined)?.top_logprobs, where);
  throw new ResponseShapeError(`${where}: \`logprobs\` has neither top_logprobs nor content`);
}

interface Variant extends HttpAccessSpec {
  path: string;
  /** One request for the prompts; `parse` returns one top-log-prob map per prompt. */
  job(model: string, prompts: string[], topLogprobs: number): RerankJob<TopLogprobs[]>;
}

const OPENAI: Variant = {
  name: 'yesno:openai',
  path: '/completions',
  defaultApiKeyEnv: 'OPENAI_API_KEY',
  keyRequired: false,
  batchSize: 32,
  maxBatchTokens: 200_000,
  job: (model, prompts, topLogprobs) => ({
    path: '/completions',
    body: { model, prompt: prompts, max_tokens: 1, temperature: 0, logprobs: topLogprobs },
    parse: (json) => {
      const choices = (json as Record<string, unknown> | null)?.choices;
      if (!Array.isArray(choices)) throw new ResponseShapeError('`choices` is not an array');
      if (choices.length !== prompts.length) throw new ResponseShapeError(`\`choices\` has ${choices.length} items for ${prompts.length} prompts`);
      const out: TopLogprobs[] = new Array(prompts.length);
      choices.forEach((c: unknown, pos) => {
        const ch = c as Record<string, unknown>;
        const idx = ch?.index ?? pos;
        if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= prompts.length || out[idx] !== undefined) {
          throw new ResponseShapeError(`choices[${pos}].index is ${JSON.stringify(idx)}; expected a distinct integer in 0..${prompts.length - 1}`);
        }
        out[idx] = choiceTop(ch, `choices[${pos}] (prompt ${idx})`);
      });
      return out;
    },
  }),
};

const OLLAMA: Variant = {
  name: 'yesno:ollama',
  path: '/api/generate',
  defaultBaseUrl: 'http://127.0.0.1:11434',
  keyRequired: false,
  batchSize: 1,
  maxBatchTokens: 1_000_000,
  job: (model, prompts, topLogprobs) => ({
    path: '/api/generate',
    body: {
      model,
      prompt: prompts[0],
      raw: true,
      stream: false,
      logprobs: true,
      top_logprobs: topLogprobs,
      options: { num_predict: 1, temperature: 0 },
    },
    parse: (json) => {
      const lps = (json as Record<string, unknown> | null)?.logprobs;
      if (!Array.isArray(lps) || lps.length === 0) {
        throw new ResponseShapeError('no `logprobs` in the reply; Ollama returns them from v0.12.11 on (update the server)');
      }
      return [readTop((lps[0] as Record<string, unknown>).top_logprobs, 'logprobs[0]')];
    },
  }),
};

/** Creates a yes/no reranker for `variant`. No I/O until `score`. */
function createYesNo(variant: Variant, cfg: RerankerConfig, context: ProviderContext): Reranker & { stats(): YesNoStats } {
  const access = createHttpAccess(variant, cfg, context, '');
  const { template, instructions, instruction } = resolvePrompting(cfg, 'qwen3');
  const maxTokens = cfg.maxTokens ?? YESNO_DEFAULTS.maxTokens;
  const topLogprobs = cfg.topLogprobs ?? YESNO_DEFAULTS.topLogprobs;
  const yes = cfg.yesToken ?? YESNO_DEFAULTS.yesToken;
  const no = cfg.noToken ?? YESNO_DEFAULTS.noToken;
  const batchSize = variant.batchSize === 1 ? 1 : (cfg.batchSize ?? variant.batchSize);
  const stats: YesNoStats = { pairs: 0, truncated: 0, floored: 0 };
  const identity = (): Record<string, unknown> => ({
    provider: variant.name,
    model: cfg.model,
    revision: cfg.revision ?? null,
    ...templateIdentity(template),
    maxTokens,
    score: `logprob(${JSON.stringify(yes)}) - logprob(${JSON.stringify(no)})`,
  });
  const id = `${variant.name}:${cfg.model}`;
  return {
    id,
    identity,
    instruction,
    stats: () => ({ ...stats }),
    describe: () => ({
      ...identity(),
      instructions: template.name === 'plain' ? null : instructions,
      topLogprobs,
      endpoints: access.publicEndpoints,
      apiKeyEnv: access.keyEnv ?? null,
      batchSize,
      concurrency: cfg.concurrency ?? HTTP_DEFAULTS.concurrency,
    }),
    async score(pairs: readonly RerankPair[], options: RerankOptions = {}): Promise<Float64Array> {
      const inst = instruction(options.task);
      const prompts = pairs.map((p) => {
        const f = formatPrompt(template, inst, p.query, p.doc, maxTokens);
        if (f.truncated) stats.truncated++;
        return f.prompt;
      });
      const batches = batchPrompts(prompts, batchSize, cfg.maxBatchTokens ?? variant.maxBatchTokens);
      // Scores are computed in `parse`, so a reply without the answer tokens is a PROVIDER error naming the endpoint.
      const jobs = batches.map((b): RerankJob<{ scores: Float64Array; floored: number }> => {
        const j = variant.job(
          cfg.model,
          b.map((i) => prompts[i]),
          topLogprobs,
        );
        return {
          path: j.path,
          body: j.body,
          parse: (json) => {
            const tops = j.parse(json);
            const scores = new Float64Array(tops.length);
            let floored = 0;
            tops.forEach((top, k) => {
              const r = yesNoScore(top, yes, no, `prompt ${k} of the request`);
              if (r.floored) floored++;
              scores[k] = r.score;
            });
            return { scores, floored };
          },
        };
      });
      const out = await scoreInBatches(access.client, pairs.length, batches, jobs, options, id, (reply) => {
        stats.floored += reply.floored;
      });
      stats.pairs += pairs.length;
      if (stats.floored > 0)
        context.logger?.debug(`${id}: ${stats.floored} pairs had only one of ${yes}/${no} in the top ${topLogprobs} log-probs (floored)`);
      return out;
    },
  };
}

/** Registry entry point: `yesno:openai`, `yesno:ollama`. */
export function create(cfg: RerankerConfig, context: ProviderContext): Reranker {
  if (cfg.provider === 'yesno:openai') return createYesNo(OPENAI, cfg, context);
  if (cfg.provider === 'yesno:ollama') return createYesNo(OLLAMA, cfg, context);
  throw new CorebError('NOT_FOUND', `unknown yes/no backend \`${cfg.provider}\`; valid: yesno:openai, yesno:ollama`);
}
