/**
 * LoRA "soups": several PEFT LoRA adapters of one base model averaged into one adapter, the way the
 * CoREB reranker was released (paper §4.3, §B.3: two runs, equal coefficients, averaged before
 * merging). Two readings, both offered and recorded in the output:
 *
 * - `linear`: A = Σ wᵢ·Aᵢ and B = Σ wᵢ·Bᵢ, rank and alpha kept. What "averaging adapter weights" says
 *   literally; the merged delta s·B·A then differs from Σ wᵢ·s·Bᵢ·Aᵢ by cross terms.
 * - `cat`: A = [A₁; …; Aₙ] (rows), B = [w₁s₁B₁, …, wₙsₙBₙ] (columns), rank Σ rᵢ, alpha = rank (scaling
 *   1), so s·B·A = Σ wᵢ·sᵢ·Bᵢ·Aᵢ exactly: the weighted average of the merged deltas (PEFT's `cat`).
 *
 * Adapters are read and the output written one tensor at a time (see tensors/safetensors).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { hashFile } from '../dataset/dataset-identity.js';
import { saveAtomic } from '../dataset/atomic-write.js';
import {
  decodeFloats,
  encodeFloats,
  FLOAT_DTYPES,
  openSafetensors,
  saveSafetensors,
  type FloatDtype,
  type SafetensorsReader,
  type TensorPlan,
} from '../tensors/safetensors.js';

/** Soup methods. */
export const SOUP_METHODS = ['linear', 'cat'] as const;
/** A soup method (see the module comment). */
export type SoupMethod = (typeof SOUP_METHODS)[number];

/** The two files of a PEFT adapter folder. */
export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
/** The weights file of a PEFT adapter folder (PEFT's default since 0.7). */
export const ADAPTER_MODEL_FILE = 'adapter_model.safetensors';

/** One PEFT LoRA adapter folder, opened (tensors are read on demand). */
export interface LoraAdapter {
  dir: string;
  /** `adapter_config.json` as read. */
  config: Record<string, unknown>;
  reader: SafetensorsReader;
  /** SHA-256 of the two files, recorded in the soup's provenance. */
  sha256: { config: string; model: string };
}

/**
 * Opens a PEFT adapter folder: `adapter_config.json` (must be `peft_type` LORA with integer `r` and
 * numeric `lora_alpha`) and `adapter_model.safetensors` (header parsed, tensors not yet read).
 * @throws CorebError `NOT_FOUND` for a missing file (an `adapter_model.bin` is named as unsupported),
 * `PARSE`/`VALIDATION` for a bad config.
 */
export async function loadLoraAdapter(dir: string): Promise<LoraAdapter> {
  const configFile = join(dir, ADAPTER_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch (e) {
    throw new CorebError(
      'NOT_FOUND',
      `not a PEFT adapter folder: ${ADAPTER_CONFIG_FILE} missing (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      { file: configFile, cause: e },
    );
  }
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new CorebError('PARSE', `malformed JSON (${(e as Error).message}); expected the PEFT adapter config object`, {
      file: configFile,
      cause: e,
    });
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new CorebError('PARSE', 'expected a JSON object', { file: configFile });
  if (config.peft_type !== undefined && config.peft_type !== 'LORA') {
    throw new CorebError('VALIDATION', `peft_type is ${JSON.stringify(config.peft_type)}; only LORA adapters can be souped`, {
      file: configFile,
      field: 'peft_type',
    });
  }
  if (!Number.isInteger(config.r) || (config.r as number) < 1)
    throw new CorebError('VALIDATION', `r must be a positive integer, got ${JSON.stringify(config.r)}`, { file: configFile, field: 'r' });
  if (typeof config.lora_alpha !== 'number' || !Number.isFinite(config.lora_alpha)) {
    throw new CorebError('VALIDATION', `lora_alpha must be a number, got ${JSON.stringify(config.lora_alpha)}`, {
      file: configFile,
      field: 'lora_alpha',
    });
  }
  if (config.use_dora === true) {
    throw new CorebError('UNSUPPORTED', 'DoRA adapters (use_dora: true) cannot be souped: their magnitude vectors do not combine linearly', {
      file: configFile,
      field: 'use_dora',
    });
  }
  const modelFile = join(dir, ADAPTER_MODEL_FILE);
  let reader: SafetensorsReader;
  try {
    reader = await openSafetensors(modelFile);
  } catch (e) {
    if (e instanceof CorebError && e.code === 'NOT_FOUND') {
      throw new CorebError(
        'NOT_FOUND',
        `${ADAPTER_MODEL_FILE} missing (a pickled adapter_model.bin is not read; save with safe_serialization=True)`,
        { file: modelFile, cause: e },
      );
    }
    throw e;
  }
  return { dir, config, reader, sha256: { config: await hashFile(configFile), model: await hashFile(modelFile) } };
}

/** LoRA scaling s = lora_alpha / r, or lora_alpha / √r with rsLoRA (`use_rslora`). */
export function loraScaling(config: Record<string, unknown>): number {
  const r = config.r as number;
  const alpha = config.lora_alpha as number;
  return config.use_rslora === true ? alpha / Math.sqrt(r) : alpha / r;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return JSON.stringify([...v].map((x) => JSON.stringify(x)).sort());
  if (v !== null && typeof v === 'object') {
    return JSON.stringify(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return JSON.stringify(v ?? null);
}

/** Config fields that must agree between souped adapters (lists compared as sets). */
export const SOUP_AGREEING_FIELDS = [
  'base_model_name_or_path',
  'target_modules',
  'r',
  'lora_alpha',
  'use_rslora',
  'rank_pattern',
  'alpha_pattern',
  'fan_in_fan_out',
  'modules_to_save',
  'layers_to_transform',
] as const;

/**
 * Checks that adapters can be souped: the {@link SOUP_AGREEING_FIELDS} agree, and the tensor names,
 * shapes and kinds (float dtypes only) are the same in every file.
 * @throws CorebError `VALIDATION` listing every mismatch, each naming the field or tensor and the
 * value per adapter folder.
 */
export function checkAdaptersAgree(adapters: readonly LoraAdapter[]): void {
  const problems: string[] = [];
  const first = adapters[0];
  for (const field of SOUP_AGREEING_FIELDS) {
    const values = adapters.map((a) => canonical(a.config[field]));
    if (values.some((v) => v !== values[0])) {
      problems.push(`${field} differs: ${adapters.map((a) => `${a.dir}: ${JSON.stringify(a.config[field] ?? null)}`).join('; ')}`);
    }
  }
  const names = (a: LoraAdapter) => new Set(a.reader.header.tensors.map((t) => t.name));
  const base = names(first);
  for (const a of adapters.slice(1)) {
    const other = names(a);
    const missing = [...base].filter((n) => !other.has(n));
    const extra = [...other].filter((n) => !base.has(n));
    if (missing.length + extra.length > 0) {
      problems.push(
        `tensor names differ between ${first.dir} and ${a.dir}: ` +
          [
            missing.length ? `only in the first: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` (+${missing.length - 5} more)` : ''}` : '',
            extra.length ? `only in ${a.dir}: ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ` (+${extra.length - 5} more)` : ''}` : '',
          ]
            .filter(Boolean)
            .join('; '),
      );
    }
  }
  for (const t of first.reader.header.tensors) {
    if (!(FLOAT_DTYPES as readonly string[]).includes(t.dtype))
      problems.push(`tensor ${t.name} is ${t.dtype} in ${first.dir}; only ${FLOAT_DTYPES.join(', ')} tensors can be averaged`);
    for (const a of adapters.slice(1)) {
      const o = a.reader.info(t.name);
      if (o !== undefined && o.shape.join('x') !== t.shape.join('x'))
        problems.push(`tensor ${t.name} has shape [${t.shape}] in ${first.dir} but [${o.shape}] in ${a.dir}`);
    }
  }
  if (problems.length > 0) {
    throw new CorebError('VALIDATION', `adapters cannot be souped (${problems.length} mismatch(es)):\n  ${problems.join('\n  ')}`, {
      details: { problems },
    });
  }
}

/** Which LoRA factor a tensor is, from its name's segments (`…q_proj.lora_A.weight`, `…lora_embedding_B`). */
export function loraFactor(name: string): 'A' | 'B' | null {
  const seg = name.split('.');
  if (seg.includes('lora_A') || seg.includes('lora_embedding_A')) return 'A';
  if (seg.includes('lora_B') || seg.includes('lora_embedding_B')) return 'B';
  return null;
}

/** The B tensor name paired with an A tensor name (and vice versa). */
export function loraPartner(name: string): string {
  const swap: Record<string, string> = {
    lora_A: 'lora_B',
    lora_B: 'lora_A',
    lora_embedding_A: 'lora_embedding_B',
    lora_embedding_B: 'lora_embedding_A',
  };
  return name
    .split('.')
    .map((s) => swap[s] ?? s)
    .join('.');
}

/** Resolved weights: default 1/n each; must be n finite numbers. */
export function resolveSoupWeights(n: number, weights?: readonly number[]): number[] {
  if (weights === undefined) return Array.from({ length: n }, () => 1 / n);
  if (weights.length !== n || !weights.every(Number.isFinite)) {
    throw new CorebError('USAGE', `weights must be ${n} finite numbers (one per adapter), got ${JSON.stringify(weights)}`);
  }
  return [...weights];
}

/** Σ wᵢ·xᵢ elementwise (the linear soup of one tensor). */
export function weightedSum(parts: readonly Float64Array[], weights: readonly number[]): Float64Array {
  const out = new Float64Array(parts[0].length);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const w = weights[i];
    for (let k = 0; k < out.length; k++) out[k] += w * p[k];
  }
  return out;
}

/**
 * Concatenates row-major tensors along `axis` 0 or 1, scaling part i by `scales[i]`: with shapes
 * [d0, rᵢ, …rest] along axis 1, output row j is [s₀·P₀[j], s₁·P₁[j], …].
 */
export function concatScaled(parts: readonly Float64Array[], shapes: readonly number[][], axis: 0 | 1, scales: readonly number[]): Float64Array {
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Float64Array(total);
  if (axis === 0) {
    let at = 0;
    parts.forEach((p, i) => {
      for (let k = 0; k < p.length; k++) out[at + k] = scales[i] * p[k];
      at += p.length;
    });
    return out;
  }
  const d0 = shapes[0][0];
  const inner = shapes.map((s) => s.slice(1).reduce((a, b) => a * b, 1));
  let at = 0;
  for (let j = 0; j < d0; j++) {
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      const s = scales[i];
      const from = j * inner[i];
      for (let k = 0; k < inner[i]; k++) out[at++] = s * p[from + k];
    }
  }
  return out;
}

/** A planned soup: the output tensors and config, and a function computing each tensor (as doubles). */
export interface SoupPlan {
  method: SoupMethod;
  weights: number[];
  dtype: FloatDtype;
  tensors: TensorPlan[];
  config: Record<string, unknown>;
  /** Computes one output tensor from the inputs (reads only the tensors it needs). */
  compute(name: string): Promise<Float64Array>;
  /** Largest number of bytes of decoded tensors held at once by one compute() so far. */
  readonly peakBytes: number;
}

/**
 * The output dtype: `same` keeps the inputs' dtype when every tensor of every input has one dtype,
 * else F32.
 */
export function resolveSoupDtype(adapters: readonly LoraAdapter[], dtype: FloatDtype | 'same'): FloatDtype {
  if (dtype !== 'same') return dtype;
  const all = new Set(adapters.flatMap((a) => a.reader.header.tensors.map((t) => t.dtype)));
  return all.size === 1 ? ([...all][0] as FloatDtype) : 'F32';
}

/**
 * Plans a soup of opened adapters (call {@link checkAdaptersAgree} first). `cat` requires no
 * `rank_pattern`/`alpha_pattern` (ranks must be uniform to concatenate).
 */
export function planSoup(adapters: readonly LoraAdapter[], method: SoupMethod, weights: readonly number[], dtype: FloatDtype): SoupPlan {
  const first = adapters[0].config;
  const scaling = adapters.map((a) => loraScaling(a.config));
  const tensors: TensorPlan[] = [];
  for (const t of adapters[0].reader.header.tensors) {
    const factor = loraFactor(t.name);
    if (method === 'cat' && factor !== null) {
      const shapes = adapters.map((a) => a.reader.info(t.name)!.shape);
      const axis = factor === 'A' ? 0 : 1;
      if (shapes[0].length < 2 && axis === 1)
        throw new CorebError('VALIDATION', `LoRA B tensor ${t.name} has shape [${shapes[0]}]; expected [out, r, ...]`);
      const shape = [...shapes[0]];
      shape[axis] = shapes.reduce((s, sh) => s + sh[axis], 0);
      tensors.push({ name: t.name, dtype, shape });
    } else {
      tensors.push({ name: t.name, dtype, shape: [...t.shape] });
    }
  }
  const config: Record<string, unknown> = { ...first };
  if (method === 'cat') {
    const hasPattern = (v: unknown) => v !== undefined && v !== null && typeof v === 'object' && Object.keys(v).length > 0;
    if (hasPattern(first.rank_pattern) || hasPattern(first.alpha_pattern)) {
      throw new CorebError(
        'UNSUPPORTED',
        '`cat` needs one rank for every module; these adapters set rank_pattern/alpha_pattern (use --method linear)',
      );
    }
    const r = adapters.reduce((s, a) => s + (a.config.r as number), 0);
    config.r = r;
    config.lora_alpha = r;
    config.use_rslora = false;
  }
  let peakBytes = 0;
  return {
    method,
    weights: [...weights],
    dtype,
    tensors,
    config,
    get peakBytes() {
      return peakBytes;
    },
    async compute(name) {
      const parts: Float64Array[] = [];
      for (const a of adapters) parts.push(await a.reader.readFloats(name));
      const factor = loraFactor(name);
      let out: Float64Array;
      if (method === 'cat' && factor !== null) {
        const shapes = adapters.map((a) => a.reader.info(name)!.shape);
        out =
          factor === 'A'
            ? concatScaled(
                parts,
                shapes,
                0,
                parts.map(() => 1),
              )
            : concatScaled(
                parts,
                shapes,
                1,
                weights.map((w, i) => w * scaling[i]),
              );
      } else {
        out = weightedSum(parts, weights);
      }
      peakBytes = Math.max(peakBytes, (parts.reduce((s, p) => s + p.length, 0) + out.length) * 8);
      return out;
    },
  };
}

/** Options of {@link soupAdapters}. */
export interface SoupOptions {
  /** Adapter folders (two or more). */
  adapters: readonly string[];
  /** Output folder (created); receives adapter_config.json and adapter_model.safetensors. */
  outDir: string;
  /** Default `linear`. */
  method?: SoupMethod;
  /** One weight per adapter; default 1/n each. */
  weights?: readonly number[];
  /** Output dtype; default `same` (the inputs' dtype, F32 when they mix). */
  dtype?: FloatDtype | 'same';
  /** Recorded in the provenance. */
  corebVersion?: string;
  signal?: AbortSignal;
  progress?: Progress;
}

/** What {@link soupAdapters} wrote. */
export interface SoupResult {
  outDir: string;
  method: SoupMethod;
  weights: number[];
  dtype: FloatDtype;
  /** Output rank. */
  r: number;
  tensors: number;
  /** Provenance written to the config (`coreb_soup`) and the safetensors `__metadata__`. */
  provenance: SoupProvenance;
  /** Largest decoded-tensor memory held at once, bytes (bounded by the largest tensor, not the file). */
  peakBytes: number;
}

/** Provenance of a soup, as recorded in its outputs. */
export interface SoupProvenance {
  tool: string;
  method: SoupMethod;
  weights: number[];
  dtype: FloatDtype;
  inputs: Array<{ dir: string; adapter_config_sha256: string; adapter_model_sha256: string; r: number; lora_alpha: number }>;
}

/** Opens adapters, closing the opened ones when a later one fails. */
export async function openAdapters(dirs: readonly string[]): Promise<LoraAdapter[]> {
  if (dirs.length < 2) throw new CorebError('USAGE', `a soup needs at least two adapter folders, got ${dirs.length}`);
  const out: LoraAdapter[] = [];
  try {
    for (const d of dirs) out.push(await loadLoraAdapter(d));
  } catch (e) {
    await closeAdapters(out);
    throw e;
  }
  return out;
}

/** Closes every adapter's file. */
export async function closeAdapters(adapters: readonly LoraAdapter[]): Promise<void> {
  for (const a of adapters) await a.reader.close();
}

/**
 * Averages LoRA adapters into one and writes it as a PEFT adapter folder. The output's
 * `adapter_config.json` carries `coreb_soup` (method, weights, dtype, input hashes; PEFT ≥ 0.14
 * ignores unknown config keys with a warning) and the safetensors `__metadata__` carries
 * `format: pt` and the same record as a JSON string.
 */
export async function soupAdapters(options: SoupOptions): Promise<SoupResult> {
  const method = options.method ?? 'linear';
  const adapters = await openAdapters(options.adapters);
  try {
    checkAdaptersAgree(adapters);
    const weights = resolveSoupWeights(adapters.length, options.weights);
    const dtype = resolveSoupDtype(adapters, options.dtype ?? 'same');
    const plan = planSoup(adapters, method, weights, dtype);
    const provenance: SoupProvenance = {
      tool: `coreb${options.corebVersion ? ' ' + options.corebVersion : ''}`,
      method,
      weights,
      dtype,
      inputs: adapters.map((a) => ({
        dir: a.dir,
        adapter_config_sha256: a.sha256.config,
        adapter_model_sha256: a.sha256.model,
        r: a.config.r as number,
        lora_alpha: a.config.lora_alpha as number,
      })),
    };
    try {
      await mkdir(options.outDir, { recursive: true });
    } catch (e) {
      throw new CorebError('IO', `cannot create directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
        file: options.outDir,
        cause: e,
      });
    }
    const progress = options.progress ?? silentProgress;
    progress.start(`soup (${method})`, plan.tensors.length);
    await saveSafetensors(
      join(options.outDir, ADAPTER_MODEL_FILE),
      plan.tensors,
      async (t) => {
        const bytes = encodeFloats(await plan.compute(t.name), dtype);
        progress.tick();
        return bytes;
      },
      { metadata: { format: 'pt', coreb_soup: JSON.stringify(provenance) }, ...(options.signal ? { signal: options.signal } : {}) },
    );
    progress.done();
    await saveAtomic(join(options.outDir, ADAPTER_CONFIG_FILE), JSON.stringify({ ...plan.config, coreb_soup: provenance }, null, 2) + '\n');
    return {
      outDir: options.outDir,
      method,
      weights,
      dtype,
      r: plan.config.r as number,
      tensors: plan.tensors.length,
      provenance,
      peakBytes: plan.peakBytes,
    };
  } finally {
    await closeAdapters(adapters);
  }
}

/** Tolerance of the `cat` check, relative to the largest |ΔW| entry, per output dtype. */
export const SOUP_CHECK_TOLERANCE: Readonly<Record<FloatDtype, number>> = { F64: 1e-12, F32: 1e-6, F16: 2 ** -10, BF16: 2 ** -7 };

/** How far one candidate's merged delta is from the exact average, over the checked modules. */
export interface DeltaError {
  /** max |Δ_candidate − Δ_exact| over all checked entries. */
  maxAbsError: number;
  /** maxAbsError / max |Δ_exact|. */
  maxRelError: number;
  /** ‖Δ_candidate − Δ_exact‖_F / ‖Δ_exact‖_F over the checked modules. */
  relFrobeniusError: number;
}

/** Report of {@link checkSoup}. */
export interface SoupCheckReport {
  weights: number[];
  dtype: FloatDtype;
  /** Checked modules (the A tensor names), with their ΔW shape [out, in] and how many rows were compared. */
  modules: Array<{ name: string; shape: [number, number]; rowsChecked: number; maxAbsDelta: number; errors: Record<string, DeltaError> }>;
  /** Over all checked modules, per candidate (`cat`, `linear`, and `written` when an output was given). */
  overall: Record<string, DeltaError>;
  tolerance: number;
  /** True when `cat` (and `written`, if its method is cat) are within tolerance. */
  ok: boolean;
}

/** Options of {@link checkSoup}. */
export interface SoupCheckOptions {
  adapters: readonly string[];
  weights?: readonly number[];
  dtype?: FloatDtype | 'same';
  /** A soup output folder to check too (its method read from its `coreb_soup` record). */
  written?: string;
  /** Modules checked, evenly spaced over the sorted names. Default 8. */
  sample?: number;
  /** Rows of each module's ΔW checked, evenly spaced (0 = all). Default 512. */
  rows?: number;
  signal?: AbortSignal;
  progress?: Progress;
}

/** Rounds doubles through a dtype (what writing and reading back does). */
function roundThrough(values: Float64Array, dtype: FloatDtype): Float64Array {
  return dtype === 'F64' ? values : decodeFloats(encodeFloats(values, dtype), dtype);
}

/** Evenly spaced picks of `k` items (all when k ≥ n). */
export function evenSample<T>(items: readonly T[], k: number): T[] {
  if (k >= items.length) return [...items];
  if (k <= 1) return items.length > 0 ? [items[0]] : [];
  const out: T[] = [];
  for (let i = 0; i < k; i++) out.push(items[Math.round((i * (items.length - 1)) / (k - 1))]);
  return out;
}

/**
 * Verifies, on a sample of 2-D LoRA modules (and of rows of each, every entry of a checked row), that
 * the `cat` soup's merged delta s·B·A equals the weighted mean of the inputs' merged deltas
 * Σ wᵢ·sᵢ·Bᵢ·Aᵢ (computed in doubles, row by row, so memory is one row of ΔW), and reports how far
 * `linear` is from it. Both candidates are rounded to
 * the output dtype first, as written files are.
 */
export async function checkSoup(options: SoupCheckOptions): Promise<SoupCheckReport> {
  const adapters = await openAdapters(options.adapters);
  let written: LoraAdapter | undefined;
  try {
    checkAdaptersAgree(adapters);
    const weights = resolveSoupWeights(adapters.length, options.weights);
    const dtype = resolveSoupDtype(adapters, options.dtype ?? 'same');
    const scaling = adapters.map((a) => loraScaling(a.config));
    const plans: Record<string, SoupPlan> = { cat: planSoup(adapters, 'cat', weights, dtype), linear: planSoup(adapters, 'linear', weights, dtype) };
    let writtenMethod: SoupMethod | undefined;
    if (options.written !== undefined) {
      written = await loadLoraAdapter(options.written);
      writtenMethod = (written.config.coreb_soup as { method?: SoupMethod } | undefined)?.method;
    }
    const names = adapters[0].reader.header.tensors
      .filter((t) => loraFactor(t.name) === 'A' && t.shape.length === 2 && adapters[0].reader.info(loraPartner(t.name))?.shape.length === 2)
      .map((t) => t.name)
      .sort();
    if (names.length === 0) throw new CorebError('VALIDATION', `no 2-D lora_A/lora_B pairs found in ${adapters[0].reader.file}`);
    const picked = evenSample(names, options.sample ?? 8);
    const labels = ['cat', 'linear', ...(written ? ['written'] : [])];
    const acc = Object.fromEntries(labels.map((l) => [l, { maxAbs: 0, sq: 0 }]));
    let exactMax = 0;
    let exactSq = 0;
    const modules: SoupCheckReport['modules'] = [];
    const progress = options.progress ?? silentProgress;
    progress.start('soup check', picked.length);
    for (const aName of picked) {
      if (options.signal?.aborted) throw options.signal.reason;
      const bName = loraPartner(aName);
      const inputs = [];
      for (const a of adapters)
        inputs.push({ A: await a.reader.readFloats(aName), B: await a.reader.readFloats(bName), r: a.reader.info(aName)!.shape[0] });
      const [rows, inDim] = [adapters[0].reader.info(bName)!.shape[0], adapters[0].reader.info(aName)!.shape[1]];
      const cands: Array<{ label: string; A: Float64Array; B: Float64Array; r: number; s: number }> = [];
      for (const label of ['cat', 'linear']) {
        const p = plans[label];
        const A = roundThrough(await p.compute(aName), dtype);
        const B = roundThrough(await p.compute(bName), dtype);
        cands.push({ label, A, B, r: A.length / inDim, s: loraScaling(p.config) });
      }
      if (written) {
        const A = await written.reader.readFloats(aName);
        const B = await written.reader.readFloats(bName);
        cands.push({ label: 'written', A, B, r: A.length / inDim, s: loraScaling(written.config) });
      }
      const exact = new Float64Array(inDim);
      const cand = new Float64Array(inDim);
      const modAcc = Object.fromEntries(labels.map((l) => [l, { maxAbs: 0, sq: 0 }]));
      let modMax = 0;
      let modSq = 0;
      const rowIds = options.rows === 0 ? [...Array(rows).keys()] : evenSample([...Array(rows).keys()], options.rows ?? 512);
      for (const j of rowIds) {
        exact.fill(0);
        for (let i = 0; i < inputs.length; i++) addDeltaRow(exact, inputs[i].A, inputs[i].B, inputs[i].r, j, inDim, weights[i] * scaling[i]);
        for (let k = 0; k < inDim; k++) {
          const e = exact[k];
          if (Math.abs(e) > modMax) modMax = Math.abs(e);
          modSq += e * e;
        }
        for (const c of cands) {
          cand.fill(0);
          addDeltaRow(cand, c.A, c.B, c.r, j, inDim, c.s);
          const m = modAcc[c.label];
          let maxAbs = m.maxAbs;
          let sq = 0;
          for (let k = 0; k < inDim; k++) {
            const d = cand[k] - exact[k];
            if (Math.abs(d) > maxAbs) maxAbs = Math.abs(d);
            sq += d * d;
          }
          m.maxAbs = maxAbs;
          m.sq += sq;
        }
      }
      const errors: Record<string, DeltaError> = {};
      for (const l of labels) {
        errors[l] = deltaError(modAcc[l].maxAbs, modAcc[l].sq, modMax, modSq);
        acc[l].maxAbs = Math.max(acc[l].maxAbs, modAcc[l].maxAbs);
        acc[l].sq += modAcc[l].sq;
      }
      exactMax = Math.max(exactMax, modMax);
      exactSq += modSq;
      modules.push({ name: aName, shape: [rows, inDim], rowsChecked: rowIds.length, maxAbsDelta: modMax, errors });
      progress.tick();
    }
    progress.done();
    const overall = Object.fromEntries(labels.map((l) => [l, deltaError(acc[l].maxAbs, acc[l].sq, exactMax, exactSq)]));
    const tolerance = SOUP_CHECK_TOLERANCE[dtype];
    const within = (l: string) => overall[l].maxRelError <= tolerance;
    const ok = within('cat') && (written === undefined || writtenMethod !== 'cat' || within('written'));
    return { weights, dtype, modules, overall, tolerance, ok };
  } finally {
    await closeAdapters(adapters);
    if (written) await written.reader.close();
  }
}

/** out += scale · (row j of B) · A, for B [rows, r] and A [r, inDim] row-major (one row of s·B·A). */
function addDeltaRow(out: Float64Array, A: Float64Array, B: Float64Array, r: number, j: number, inDim: number, scale: number): void {
  for (let t = 0; t < r; t++) {
    const b = scale * B[j * r + t];
    if (b === 0) continue;
    const off = t * inDim;
    for (let k = 0; k < inDim; k++) out[k] += b * A[off + k];
  }
}

function deltaError(maxAbs: number, sq: number, refMax: number, refSq: number): DeltaError {
  return {
    maxAbsError: maxAbs,
    maxRelError: refMax > 0 ? maxAbs / refMax : maxAbs,
    relFrobeniusError: refSq > 0 ? Math.sqrt(sq / refSq) : Math.sqrt(sq),
  };
}
