/**
 * `onnx:DIR`: a local cross-encoder (a sequence-classification model) through transformers.js, the
 * optional package the onnx embedder uses. Query and document are tokenised as a pair, the model
 * is run directly and the score taken from its logits: sigmoid of the single logit (one-label
 * heads, the usual cross-encoder), or sigmoid(l1 − l0) for two-label heads. Never through the
 * `text-classification` pipeline, which softmaxes a single logit into 1.0 for every pair.
 */
import { CorebError } from '../../core/errors.js';
import type { RerankOptions, RerankPair, Reranker } from '../../core/rerank.js';
import { abortReason } from '../../core/retry.js';
import { configureModelSource, loadTransformers } from '../local/onnx.js';
import type { ProviderContext } from '../types.js';
import type { RerankerConfig } from './config.js';

/** Defaults of the onnx cross-encoder. */
export const ONNX_RERANK_DEFAULTS = { batchSize: 16, dtype: 'fp32', maxTokens: 512 } as const;

interface TensorLike {
  dims: number[];
  data: ArrayLike<number | bigint>;
  dispose?: () => void;
}

/** Counters of an onnx reranker. */
export interface OnnxRerankStats {
  pairs: number;
  /** Pairs longer than maxTokens, truncated by the tokenizer. */
  truncated: number;
}

/** The logistic function, stable for large |x|. */
export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** Creates the reranker; loads tokenizer and model now (NOT_FOUND when missing). */
export async function create(cfg: RerankerConfig, context: ProviderContext): Promise<Reranker & { stats(): OnnxRerankStats }> {
  if (cfg.template !== undefined && cfg.template !== 'plain') {
    throw new CorebError('USAGE', `reranker onnx:${cfg.model}: a cross-encoder reads the raw pair; template must be plain (got ${cfg.template})`);
  }
  const tf = await loadTransformers();
  const { modelId, localPath } = configureModelSource(tf, cfg.model, undefined, false);
  const dtype = cfg.dtype ?? ONNX_RERANK_DEFAULTS.dtype;
  let tokenizer: Awaited<ReturnType<(typeof tf)['AutoTokenizer']['from_pretrained']>>;
  let model: Awaited<ReturnType<(typeof tf)['AutoModelForSequenceClassification']['from_pretrained']>>;
  try {
    tokenizer = await tf.AutoTokenizer.from_pretrained(modelId, { revision: cfg.revision });
    model = await tf.AutoModelForSequenceClassification.from_pretrained(modelId, { revision: cfg.revision, dtype: dtype as 'fp32' });
  } catch (e) {
    throw new CorebError(
      'NOT_FOUND',
      `cannot load onnx cross-encoder \`${cfg.model}\`${localPath ? ` from ${localPath}` : ''}: ${(e as Error).message}; ` +
        'give a local model directory with onnx/model.onnx, tokenizer.json and config.json',
      { cause: e },
    );
  }
  const maxTokens = cfg.maxTokens ?? Math.min(ONNX_RERANK_DEFAULTS.maxTokens, Number(tokenizer.model_max_length) || ONNX_RERANK_DEFAULTS.maxTokens);
  const batchSize = cfg.batchSize ?? ONNX_RERANK_DEFAULTS.batchSize;
  const stats: OnnxRerankStats = { pairs: 0, truncated: 0 };
  const id = `onnx:${cfg.model}`;
  const identity = (): Record<string, unknown> => ({
    provider: 'onnx',
    model: cfg.model,
    revision: cfg.revision ?? null,
    template: 'plain',
    dtype,
    maxTokens,
    score: 'sigmoid(logit)',
  });
  return {
    id,
    identity,
    instruction: () => '',
    stats: () => ({ ...stats }),
    describe: () => ({ ...identity(), batchSize }),
    async score(pairs: readonly RerankPair[], options: RerankOptions = {}): Promise<Float64Array> {
      const out = new Float64Array(pairs.length);
      // Longest first, so each batch pads to similar lengths; scores go back by position.
      const order = pairs
        .map((_, i) => i)
        .sort((a, b) => pairs[b].query.length + pairs[b].doc.length - pairs[a].query.length - pairs[a].doc.length || a - b);
      options.progress?.start(`reranking ${pairs.length} pairs with ${id}`, pairs.length);
      try {
        for (let s = 0; s < order.length; s += batchSize) {
          if (options.signal?.aborted) throw abortReason(options.signal);
          const idx = order.slice(s, s + batchSize);
          const queries = idx.map((i) => pairs[i].query);
          const docs = idx.map((i) => pairs[i].doc);
          for (let k = 0; k < idx.length; k++) {
            if (tokenizer.encode(queries[k], { text_pair: docs[k] }).length > maxTokens) stats.truncated++;
          }
          const inputs = tokenizer(queries, { text_pair: docs, padding: true, truncation: true, max_length: maxTokens }) as unknown as Record<
            string,
            TensorLike
          >;
          const result = (await model(inputs)) as Record<string, TensorLike>;
          const logits = result.logits;
          try {
            if (logits === undefined || logits.dims.length !== 2 || logits.dims[0] !== idx.length) {
              throw new CorebError(
                'PROVIDER',
                `onnx cross-encoder \`${cfg.model}\` has no [batch, labels] logits output (outputs: ${Object.keys(result).join(', ')})`,
              );
            }
            const labels = logits.dims[1];
            if (labels !== 1 && labels !== 2) {
              throw new CorebError(
                'PROVIDER',
                `onnx cross-encoder \`${cfg.model}\` has ${labels} labels; a reranker has 1 (relevance logit) or 2 (not relevant, relevant)`,
              );
            }
            const scores = new Float64Array(idx.length);
            for (let k = 0; k < idx.length; k++) {
              const l = Number(logits.data[k * labels + labels - 1]) - (labels === 2 ? Number(logits.data[k * labels]) : 0);
              if (!Number.isFinite(l))
                throw new CorebError('PROVIDER', `onnx cross-encoder \`${cfg.model}\` gave a non-finite logit for pair ${idx[k]}`);
              scores[k] = sigmoid(l);
              out[idx[k]] = scores[k];
            }
            options.onScores?.(idx, scores);
            options.progress?.tick(idx.length);
          } finally {
            for (const t of [...Object.values(inputs), ...Object.values(result)]) t.dispose?.();
          }
        }
      } finally {
        options.progress?.done();
      }
      stats.pairs += pairs.length;
      if (stats.truncated > 0) context.logger?.warn(`${id}: ${stats.truncated} pairs truncated to ${maxTokens} tokens so far`);
      return out;
    },
  };
}
