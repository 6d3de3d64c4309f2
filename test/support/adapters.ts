/**
 * Random PEFT LoRA adapter folders for soup tests: adapter_config.json and
 * adapter_model.safetensors with lora_A [r, in] / lora_B [out, r] pairs (plus one full tensor),
 * values drawn from a seeded generator and stored as F32 or BF16.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFloats, encodeFloats, saveSafetensors, type FloatDtype } from '../../src/tensors/index.js';

/** A module of the toy model: name prefix and [out, in]. */
export interface ToyModule {
  name: string;
  out: number;
  in: number;
}

/** Default modules: two layers, attention and MLP projections of different shapes. */
export const TOY_MODULES: ToyModule[] = [0, 1].flatMap((l) => [
  { name: `base_model.model.model.layers.${l}.self_attn.q_proj`, out: 12, in: 10 },
  { name: `base_model.model.model.layers.${l}.mlp.down_proj`, out: 10, in: 14 },
]);

/** Options of {@link writeToyAdapter}. */
export interface ToyAdapterOptions {
  seed: number;
  dtype?: FloatDtype;
  r?: number;
  alpha?: number;
  modules?: ToyModule[];
  /** Extra config fields (override defaults). */
  config?: Record<string, unknown>;
  /** Add a full (non-LoRA) tensor, as modules_to_save produces. Default true. */
  fullTensor?: boolean;
}

/** The values written, per tensor name, as stored (already rounded to the dtype). */
export type ToyTensors = Map<string, { shape: number[]; values: Float64Array }>;

/** Writes an adapter folder and returns the stored tensor values. */
export async function writeToyAdapter(dir: string, o: ToyAdapterOptions): Promise<ToyTensors> {
  const dtype = o.dtype ?? 'F32';
  const r = o.r ?? 4;
  const modules = o.modules ?? TOY_MODULES;
  let s = o.seed >>> 0 || 1;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32 - 0.5;
  };
  const tensors: ToyTensors = new Map();
  const add = (name: string, shape: number[]) => {
    const raw = new Float64Array(shape.reduce((a, b) => a * b, 1)).map(() => rand());
    tensors.set(name, { shape, values: decodeFloats(encodeFloats(raw, dtype), dtype) });
  };
  for (const m of modules) {
    add(`${m.name}.lora_A.weight`, [r, m.in]);
    add(`${m.name}.lora_B.weight`, [m.out, r]);
  }
  if (o.fullTensor ?? true) add('base_model.model.score.weight', [2, 6]);
  mkdirSync(dir, { recursive: true });
  const config = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: 'toy/base-model',
    r,
    lora_alpha: o.alpha ?? 8,
    lora_dropout: 0.05,
    target_modules: ['q_proj', 'down_proj'],
    use_rslora: false,
    bias: 'none',
    ...o.config,
  };
  writeFileSync(join(dir, 'adapter_config.json'), JSON.stringify(config, null, 2));
  await saveSafetensors(
    join(dir, 'adapter_model.safetensors'),
    [...tensors].map(([name, t]) => ({ name, dtype, shape: t.shape })),
    (t) => encodeFloats(tensors.get(t.name)!.values, dtype),
    { metadata: { format: 'pt' } },
  );
  return tensors;
}

/** B·A (row-major [out, r] × [r, in]) in doubles. */
export function matmul(B: Float64Array, A: Float64Array, out: number, r: number, inDim: number): Float64Array {
  const d = new Float64Array(out * inDim);
  for (let i = 0; i < out; i++) for (let t = 0; t < r; t++) for (let k = 0; k < inDim; k++) d[i * inDim + k] += B[i * r + t] * A[t * inDim + k];
  return d;
}
