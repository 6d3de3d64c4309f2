/**
 * `onnx`: local models through transformers.js (`@huggingface/transformers`, an optional
 * dependency imported only here, only when this provider is chosen). Offline by default
 * (`allowRemoteModels=false`); pooling, normalisation, dtype and max tokens are configurable,
 * and truncated texts are counted and reported.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { TaskName } from '../../core/dataset.js';
import { normalizeRows, sharedFloat32, type EmbedOptions, type Embedder, type EmbedRole, type PreparedText } from '../../core/embedding.js';
import { CorebError } from '../../core/errors.js';
import { applyTemplate, resolveEmbedderConfig, selectTemplate } from '../config.js';
import { abortReason } from '../../core/retry.js';
import type { EmbedderConfig, ProviderContext } from '../types.js';
import { poolHidden } from './pooling.js';

/** Defaults of the onnx provider. */
export const ONNX_DEFAULTS = { batchSize: 16, pooling: 'mean', dtype: 'fp32', maxTokens: 512 } as const;

type Transformers = typeof import('@huggingface/transformers');

interface TensorLike {
  dims: number[];
  data: ArrayLike<number | bigint>;
  dispose?: () => void;
}

/** Imports the optional transformers.js package, or explains how to install it. */
export async function loadTransformers(): Promise<Transformers> {
  try {
    return await import('@huggingface/transformers');
  } catch (e) {
    throw new CorebError(
      'UNSUPPORTED',
      'the onnx provider needs the optional package @huggingface/transformers; install it with ' +
        '`npm install @huggingface/transformers` (set ONNXRUNTIME_NODE_INSTALL=skip to avoid the CUDA download)',
      { cause: e },
    );
  }
}

/**
 * Points transformers.js at a model: a local directory `model` is split into its parent (the
 * local model path) and its name; otherwise `model` is a hub id under `localModelPath`. Remote
 * downloads stay off unless `allowRemote`.
 */
export function configureModelSource(
  tf: Transformers,
  model: string,
  localModelPath: string | undefined,
  allowRemote: boolean,
): { modelId: string; localPath: string | undefined } {
  let modelId = model;
  let localPath = localModelPath;
  if (existsSync(model) && statSync(model).isDirectory()) {
    const abs = resolve(model);
    localPath = dirname(abs) + '/';
    modelId = basename(abs);
  }
  tf.env.allowRemoteModels = allowRemote;
  tf.env.allowLocalModels = true;
  if (localPath !== undefined) tf.env.localModelPath = localPath.endsWith('/') ? localPath : localPath + '/';
  return { modelId, localPath };
}

/** Counters of an onnx embedder. */
export interface OnnxStats {
  texts: number;
  /** Texts longer than maxTokens, truncated. */
  truncated: number;
}

/** Creates an onnx embedder; loads tokenizer and model now (throws NOT_FOUND when missing). */
export async function create(config: EmbedderConfig, context: ProviderContext): Promise<Embedder & { stats(): OnnxStats }> {
  const cfg = resolveEmbedderConfig(config);
  const tf = await loadTransformers();
  const { modelId, localPath } = configureModelSource(tf, cfg.model, cfg.localModelPath, cfg.allowRemoteModels ?? false);
  const dtype = cfg.dtype ?? ONNX_DEFAULTS.dtype;
  let tokenizer: Awaited<ReturnType<Transformers['AutoTokenizer']['from_pretrained']>>;
  let model: Awaited<ReturnType<Transformers['AutoModel']['from_pretrained']>>;
  try {
    tokenizer = await tf.AutoTokenizer.from_pretrained(modelId, { revision: cfg.revision });
    model = await tf.AutoModel.from_pretrained(modelId, {
      revision: cfg.revision,
      dtype: dtype as 'fp32',
    });
  } catch (e) {
    throw new CorebError(
      'NOT_FOUND',
      `cannot load onnx model \`${cfg.model}\`${localPath ? ` from ${localPath}` : ''}: ${(e as Error).message}; ` +
        'give a local model directory (with onnx/model.onnx, tokenizer.json, config.json) or set allowRemoteModels=true',
      { cause: e },
    );
  }
  if (cfg.paddingSide !== undefined) (tokenizer as unknown as { padding_side: string }).padding_side = cfg.paddingSide;
  const pooling = cfg.pooling ?? ONNX_DEFAULTS.pooling;
  const normalize = cfg.normalize ?? true;
  const maxTokens = cfg.maxTokens ?? Math.min(ONNX_DEFAULTS.maxTokens, Number(tokenizer.model_max_length) || ONNX_DEFAULTS.maxTokens);
  const batchSize = cfg.batchSize ?? ONNX_DEFAULTS.batchSize;
  const stats: OnnxStats = { texts: 0, truncated: 0 };
  const identity = (): Record<string, unknown> => ({
    provider: 'onnx',
    model: cfg.model,
    revision: cfg.revision ?? null,
    dtype,
    pooling,
    paddingSide: (tokenizer as unknown as { padding_side?: string }).padding_side ?? null,
    normalize,
    maxTokens,
  });
  const prepare = (text: string, o: { role: EmbedRole; task?: TaskName }): PreparedText =>
    applyTemplate(selectTemplate(cfg.templates, o.role, o.task), text);
  return {
    id: `onnx:${cfg.model}`,
    identity,
    prepare,
    stats: () => ({ ...stats }),
    describe: () => ({ ...identity(), preset: cfg.presetId ?? null, templates: cfg.templates, batchSize }),
    async embed(texts: readonly string[], options: EmbedOptions) {
      const sent = texts.map((t) => prepare(t, options).text);
      // Longest first, so each batch pads to similar lengths; results are scattered back by index.
      const order = sent.map((_, i) => i).sort((a, b) => sent[b].length - sent[a].length || a - b);
      let dim = 0;
      let data: Float32Array = new Float32Array(0);
      let truncated = 0;
      options.progress?.start(`embedding ${texts.length} texts with onnx:${cfg.model}`, texts.length);
      try {
        for (let s = 0; s < order.length; s += batchSize) {
          if (options.signal?.aborted) throw abortReason(options.signal);
          const idx = order.slice(s, s + batchSize);
          const batchTexts = idx.map((i) => sent[i]);
          for (const t of batchTexts) if (tokenizer.encode(t).length > maxTokens) truncated++;
          const inputs = tokenizer(batchTexts, { padding: true, truncation: true, max_length: maxTokens }) as Record<string, TensorLike>;
          const out = (await model(inputs)) as Record<string, TensorLike>;
          const hidden = out.last_hidden_state ?? out.token_embeddings;
          if (hidden === undefined) {
            throw new CorebError('PROVIDER', `onnx model \`${cfg.model}\` has no last_hidden_state output (outputs: ${Object.keys(out).join(', ')})`);
          }
          const [b, seq, h] = hidden.dims;
          const pooled = poolHidden(hidden.data as Float32Array, inputs.attention_mask.data, b, seq, h, pooling);
          for (const t of [...Object.values(inputs), ...Object.values(out)]) t.dispose?.();
          if (normalize) normalizeRows(pooled, h);
          if (dim === 0) {
            dim = h;
            data = sharedFloat32(texts.length * dim);
          }
          for (let r = 0; r < idx.length; r++) data.set(pooled.subarray(r * h, (r + 1) * h), idx[r] * dim);
          options.onRows?.(idx, { rows: idx.length, dim: h, data: pooled });
          options.progress?.tick(idx.length);
        }
      } finally {
        options.progress?.done();
      }
      stats.texts += texts.length;
      stats.truncated += truncated;
      if (truncated > 0) context.logger?.warn(`onnx:${cfg.model}: ${truncated} of ${texts.length} texts truncated to ${maxTokens} tokens`);
      return { rows: texts.length, dim, data };
    },
  };
}
