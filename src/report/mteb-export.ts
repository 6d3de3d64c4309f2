/**
 * `coreb export mteb`: writes results computed under the `mteb` protocol preset in MTEB's results
 * format (`<out>/<org>__<name>/<revision>/CorebT2CRetrieval.json`, ..., `model_meta.json`,
 * `run_settings.jsonl`), including MTEB's abstention nAUCs computed from the run files.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { EvalResults, RetrieverResult } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import type { Run } from '../core/dataset.js';
import { loadTrecRunMap } from '../dataset/trec.js';
import { saveAtomic } from '../dataset/atomic-write.js';
import { roundHalfEven } from '../core/round.js';
import { findPreset, presetModelMeta } from '../providers/presets.js';
import type { ModelMeta } from '../core/model-meta.js';
import { MTEB_DATASET_REVISIONS, MTEB_K, MTEB_LANGUAGES, MTEB_TASK_NAMES } from '../core/mteb.js';

export { MTEB_DATASET_REVISIONS, MTEB_K, MTEB_LANGUAGES, MTEB_TASK_NAMES };

/** Decimal places MTEB's `TaskResult.to_disk` rounds every score to (Python's `round`). */
export const MTEB_SCORE_DIGITS = 6;

/** The MTEB version whose results format this writes (the format of the published CoREB results). */
export const MTEB_FORMAT_VERSION = '2.12.30';

/** Options of {@link exportMteb}. */
export interface MtebExportOptions {
  /** Output root; files go to `<outDir>/<org>__<name>/<revision>/`. */
  outDir: string;
  /** `ORG/NAME` as on the Hugging Face hub. */
  modelName: string;
  /** Model revision (commit hash). */
  revision: string;
  /** Retriever of the results to export. Default: the only one (an error when there are several). */
  retriever?: string;
  /** Where the results file lives (run files are relative to it). */
  resultsFile: string;
  /** `mteb_version` to write. Default {@link MTEB_FORMAT_VERSION}. */
  mtebVersion?: string;
  /**
   * Per task `dataset_revision` (MTEB's dataset commit), keyed by coreb task (`text2code`) or MTEB
   * task name. Default: {@link MTEB_DATASET_REVISIONS} for an official split MTEB hosts; for any
   * other dataset every exported task needs one (a USAGE error names the missing ones).
   */
  datasetRevisions?: Record<string, string>;
  /**
   * `model_meta.json` fields to set (MTEB's names: `n_parameters`, `license`, ...), over those
   * filled from coreb's model preset of `modelName` (see `findPreset`). Default: none.
   */
  modelMeta?: Record<string, unknown>;
  /** Replace the files of an earlier export in the same folder. Default false: a non-empty folder is refused. */
  overwrite?: boolean;
  /** Unix time written as `date`. Default now. */
  nowSeconds?: number;
}

/** What {@link exportMteb} wrote. */
export interface MtebExportOutput {
  dir: string;
  files: string[];
  /** What the files hold that a reader should know: nAUCs written as NaN for want of a run file, and why. */
  warnings: string[];
}

/** Result-file labels that may hold each MTEB family at cut-off k, in preference order. */
const FAMILY_LABELS: Readonly<Record<string, (k: number) => string[]>> = {
  ndcg: (k) => [`ndcg@${k}`],
  map: (k) => [`map@${k}`],
  recall: (k) => [`recall@${k}`],
  precision: (k) => [`p@${k}`, `precision@${k}`],
  mrr: (k) => [`mrr@${k}`],
  hit_rate: (k) => [`hit_rate@${k}`, `hit@${k}`, `success@${k}`],
};

/** Families MTEB computes nAUCs for (from per-query values). */
const NAUC_FAMILIES = ['ndcg', 'map', 'recall', 'precision', 'mrr'] as const;

function pick(metrics: Record<string, number>, family: string, k: number): number | undefined {
  for (const label of FAMILY_LABELS[family](k)) if (typeof metrics[label] === 'number') return metrics[label];
  return undefined;
}

/** Python's `round(x, digits)` (what MTEB writes), NaN and infinities as they are. */
function round(x: number, digits: number): number {
  return roundHalfEven(x, digits);
}

/** Every number of a scores block rounded as MTEB's `TaskResult.to_disk` does (recursively, lists too). */
export function roundMtebScores<T>(value: T, digits = MTEB_SCORE_DIGITS): T {
  if (typeof value === 'number') return round(value, digits) as T;
  if (Array.isArray(value)) return value.map((v) => roundMtebScores(v, digits)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundMtebScores(v, digits)])) as T;
  }
  return value;
}

/**
 * MTEB's confidence scores of one ranked list (`confidence_scores`): the top score, the population
 * standard deviation of all scores, and the gap between the two best (0 for a single score).
 */
export function confidenceScores(scores: readonly number[]): { max: number; std: number; diff1: number } {
  const sorted = [...scores].sort((a, b) => b - a);
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const std = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length);
  return { max: sorted[0], std, diff1: sorted.length > 1 ? sorted[0] - sorted[1] : 0 };
}

/**
 * MTEB's normalised area under the abstention curve (`nauc`, Gisserot-Boukhlef et al. 2024): at
 * abstention rates 0, 0.1, ..., 0.9 the mean metric over the instances kept after dropping the
 * lowest-confidence ones (stable sort), its trapezoid area, scaled between the flat curve (0) and
 * the oracle that drops the lowest metrics (1). NaN when the oracle is flat.
 */
export function nauc(conf: readonly number[], metrics: readonly number[]): number {
  const rates = Array.from({ length: 10 }, (_, i) => i / 10);
  const curve = (key: readonly number[]) => {
    const order = key
      .map((v, i) => [v, i] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([, i]) => i);
    return rates.map((rate) => {
      // Python's round(): half to even.
      const x = rate * order.length;
      const fl = Math.floor(x);
      const r = x - fl === 0.5 ? (fl % 2 === 0 ? fl : fl + 1) : Math.round(x);
      const drop = Math.min(r, metrics.length - 1);
      let s = 0;
      for (let i = drop; i < order.length; i++) s += metrics[order[i]];
      return s / (order.length - drop);
    });
  };
  const area = (ys: number[]) => {
    let a = 0;
    for (let i = 1; i < ys.length; i++) a += ((rates[i] - rates[i - 1]) * (ys[i] + ys[i - 1])) / 2;
    return a;
  };
  const abst = area(curve(conf));
  const oracleCurve = curve(metrics);
  const oracle = area(oracleCurve);
  const flat = oracleCurve[0] * (rates[rates.length - 1] - rates[0]);
  return oracle === flat ? NaN : (abst - flat) / (oracle - flat);
}

/** The scores block (`scores.test[0]`) of one task, in MTEB's key order. */
export function mtebScores(retriever: RetrieverResult, task: string, run: Run | null, main: 'ndcg_at_10' | 'map_at_10'): Record<string, unknown> {
  const agg = retriever.tasks[task].metrics;
  const missing: string[] = [];
  const value = (family: string, k: number) => {
    const v = pick(agg, family, k);
    if (v === undefined) missing.push(FAMILY_LABELS[family](k)[0]);
    return v ?? NaN;
  };
  const out: Record<string, unknown> = {};
  for (const k of MTEB_K) out[`ndcg_at_${k}`] = value('ndcg', k);
  for (const k of MTEB_K) out[`map_at_${k}`] = value('map', k);
  for (const k of MTEB_K) out[`recall_at_${k}`] = value('recall', k);
  out.accuracy = value('recall', 1);
  for (const k of MTEB_K) out[`precision_at_${k}`] = value('precision', k);
  for (const k of MTEB_K) out[`mrr_at_${k}`] = value('mrr', k);
  if (missing.length > 0) {
    throw new CorebError(
      'VALIDATION',
      `retriever \`${retriever.name}\` task ${task} lacks ${[...new Set(missing)].join(', ')}; the \`mteb\` preset computes them (coreb eval --protocol mteb)`,
    );
  }
  // nAUCs over the task's queries that have a ranked list.
  const perQuery = Object.entries(retriever.perQuery ?? {}).filter(([, q]) => q.task === task);
  const ids = run === null ? [] : perQuery.map(([id]) => id).filter((id) => (run.get(id)?.size ?? 0) > 0);
  const conf = ids.map((id) => confidenceScores([...run!.get(id)!.values()]));
  for (const family of NAUC_FAMILIES) {
    for (const k of MTEB_K) {
      const metrics = ids.map((id) => pick(retriever.perQuery![id].metrics, family, k) ?? NaN);
      for (const fct of ['max', 'std', 'diff1'] as const) {
        out[`nauc_${family}_at_${k}_${fct}`] =
          ids.length === 0 || metrics.some(Number.isNaN)
            ? NaN
            : round(
                nauc(
                  conf.map((c) => c[fct]),
                  metrics,
                ),
                6,
              );
      }
    }
  }
  for (const k of MTEB_K) out[`hit_rate_at_${k}`] = value('hit_rate', k);
  if (missing.length > 0) {
    throw new CorebError(
      'VALIDATION',
      `retriever \`${retriever.name}\` task ${task} lacks ${[...new Set(missing)].join(', ')}; the \`mteb\` preset computes them (coreb eval --protocol mteb)`,
    );
  }
  out.main_score = out[main];
  out.hf_subset = 'default';
  out.languages = [...MTEB_LANGUAGES];
  return out;
}

/** JSON with Python's `NaN` literal for non-finite numbers, as MTEB writes its results. */
export function stringifyMtebJson(value: unknown): string {
  const marker = '__coreb_non_finite__';
  const text = JSON.stringify(value, (_, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? marker : v), 2);
  return text.replace(new RegExp(`"${marker}"`, 'g'), 'NaN') + '\n';
}

/** `ORG/NAME` -> `ORG__NAME`, checking the shape. */
export function mtebModelDir(modelName: string): string {
  if (!/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(modelName)) {
    throw new CorebError('USAGE', `--model-name must be ORG/NAME as on the Hugging Face hub, got \`${modelName}\``);
  }
  return modelName.replace('/', '__');
}

/** The exported tasks' MTEB task names: `Coreb*Retrieval`, or `Coreb*Reranking` for a reranked entry. */
function mtebTaskName(task: string, rerank: boolean): string {
  const retrievalName = MTEB_TASK_NAMES[task];
  if (retrievalName === undefined)
    throw new CorebError('USAGE', `task \`${task}\` has no MTEB CoREB task; MTEB hosts ${Object.keys(MTEB_TASK_NAMES).join(', ')}`);
  return rerank ? retrievalName.replace(/Retrieval$/, 'Reranking') : retrievalName;
}

/**
 * The `dataset_revision` of each exported task: the user's (by coreb task or MTEB task name), else
 * MTEB's pinned revision for an official split it hosts.
 * @throws CorebError `USAGE` naming the tasks without one (a coreb dataset hash is not MTEB's revision).
 */
export function resolveDatasetRevisions(
  results: EvalResults,
  retriever: RetrieverResult,
  given: Readonly<Record<string, string>>,
): Record<string, string> {
  const rerank = (retriever as RetrieverResult & { rerank?: unknown }).rerank !== undefined;
  const known = MTEB_DATASET_REVISIONS[results.dataset.split] ?? {};
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const task of Object.keys(retriever.tasks)) {
    const name = mtebTaskName(task, rerank);
    const rev = given[task] ?? given[name] ?? known[name];
    if (rev === undefined) missing.push(`${task} (${name})`);
    else out[task] = rev;
  }
  if (missing.length > 0) {
    throw new CorebError(
      'USAGE',
      `no MTEB dataset revision for ${missing.join(', ')}: coreb knows MTEB's pinned revisions for ${Object.keys(MTEB_DATASET_REVISIONS).join(', ')} only, and these results are on split \`${results.dataset.split}\`; pass --dataset-revision TASK=REV for each (MTEB's dataset commit)`,
    );
  }
  return out;
}

/**
 * `model_meta.json` as MTEB's `ModelMeta` writes it: filled from the row's own metadata (`row`:
 * what `coreb eval` recorded from presets and `--model-meta`) when given, else from coreb's model
 * preset of `modelName` (parameters, embedding dimension, max tokens, open weights, license,
 * reference, release date), then the `overrides` (MTEB field names) on top. Unknown values are null.
 */
export function mtebModelMeta(
  modelName: string,
  revision: string,
  overrides: Readonly<Record<string, unknown>>,
  row?: ModelMeta,
): Record<string, unknown> {
  const preset = findPreset(modelName);
  const m = row ?? presetModelMeta(modelName);
  const meta: Record<string, unknown> = {
    name: modelName,
    revision,
    release_date: m?.releaseDate ?? null,
    languages: null,
    n_parameters: m?.parameters ?? null,
    memory_usage_mb: null,
    max_tokens: m?.maxTokens ?? null,
    embed_dim: m?.embedDim ?? null,
    license: m?.license ?? null,
    open_weights: m?.openWeights ?? null,
    public_training_code: null,
    public_training_data: null,
    framework: [],
    reference: m?.reference ?? null,
    similarity_fn_name: preset === undefined ? null : 'cosine',
    use_instructions: preset === undefined ? null : Object.keys(preset.templates).length > 0,
    training_datasets: null,
    adapted_from: null,
    superseded_by: null,
    modalities: ['text'],
    loader: null,
  };
  return { ...meta, ...overrides, name: modelName, revision };
}

/**
 * Writes MTEB result files for one retriever of a results file computed with the `mteb` preset.
 * @throws CorebError `USAGE` when the results were computed under another preset (naming it and
 *   the one to use), or the retriever is ambiguous; `VALIDATION` when a required measure is missing.
 */
export async function exportMteb(results: EvalResults, options: MtebExportOptions): Promise<MtebExportOutput> {
  if ((results.protocol.name as string) !== 'mteb') {
    throw new CorebError(
      'USAGE',
      `${options.resultsFile} was computed with the \`${results.protocol.name}\` preset; MTEB's numbers need the \`mteb\` preset: re-run \`coreb eval --protocol mteb\` and export that results file`,
    );
  }
  if (!/^[\w.-]+$/.test(options.revision))
    throw new CorebError('USAGE', `--revision must be a commit hash or name without slashes, got \`${options.revision}\``);
  const names = results.retrievers.map((r) => r.name);
  let retriever: RetrieverResult | undefined;
  if (options.retriever !== undefined) retriever = results.retrievers.find((r) => r.name === options.retriever);
  else if (results.retrievers.length === 1) retriever = results.retrievers[0];
  if (retriever === undefined) {
    throw new CorebError(
      'USAGE',
      options.retriever === undefined
        ? `the results hold ${names.length} retrievers; choose one with --retriever (${names.join(', ')})`
        : `--retriever \`${options.retriever}\` is not in the results (${names.join(', ')})`,
    );
  }
  const dir = join(resolve(options.outDir), mtebModelDir(options.modelName), options.revision);
  const held = await readdir(dir).catch(() => [] as string[]);
  if (held.length > 0 && options.overwrite !== true) {
    throw new CorebError(
      'USAGE',
      `${dir} already holds ${held.length} file(s) (${held.slice(0, 3).join(', ')}): an earlier export is never replaced silently; pass --overwrite to replace it, or choose another --out`,
    );
  }
  const revisions = resolveDatasetRevisions(results, retriever, options.datasetRevisions ?? {});
  const files: string[] = [];
  const base = dirname(resolve(options.resultsFile));
  const settings: string[] = [];
  const rerank = (retriever as RetrieverResult & { rerank?: unknown }).rerank !== undefined;
  const warnings: string[] = [];
  const withoutRun: string[] = [];
  let nanNaucs = 0;
  for (const task of Object.keys(retriever.tasks)) {
    const taskName = mtebTaskName(task, rerank);
    const runFile = retriever.tasks[task].runFile;
    const run = runFile === undefined ? null : await loadTrecRunMap(join(base, runFile));
    const doc = {
      dataset_revision: revisions[task],
      task_name: taskName,
      mteb_version: options.mtebVersion ?? MTEB_FORMAT_VERSION,
      scores: roundMtebScores({ test: [mtebScores(retriever, task, run, rerank ? 'map_at_10' : 'ndcg_at_10')] }),
      evaluation_time: round((retriever.timings.totalMs ?? 0) / 1000, 3),
      kg_co2_emissions: null,
      date: options.nowSeconds ?? Date.now() / 1000,
    };
    const test0 = (doc.scores as { test: Array<Record<string, unknown>> }).test[0];
    const nans = Object.entries(test0).filter(([k, v]) => k.startsWith('nauc_') && typeof v === 'number' && Number.isNaN(v)).length;
    nanNaucs += nans;
    if (run === null && nans > 0) withoutRun.push(task);
    const file = join(dir, `${taskName}.json`);
    await saveAtomic(file, stringifyMtebJson(doc));
    files.push(file);
    settings.push(
      JSON.stringify({
        task_name: taskName,
        coreb_version: results.coreb.version,
        protocol: results.protocol,
        retriever: { name: retriever.name, spec: retriever.spec, description: retriever.description },
        depth: results.options.depth,
        dataset: { kind: results.dataset.kind, split: results.dataset.split, sha256: results.dataset.sha256 },
        results_created_at: results.createdAt,
        run_file: runFile ?? null,
      }),
    );
  }
  const meta = mtebModelMeta(options.modelName, options.revision, options.modelMeta ?? {}, retriever.model);
  files.push(join(dir, 'model_meta.json'));
  await saveAtomic(files[files.length - 1], JSON.stringify(meta, null, 2) + '\n');
  files.push(join(dir, 'run_settings.jsonl'));
  await saveAtomic(files[files.length - 1], settings.join('\n') + '\n');
  if (withoutRun.length > 0) {
    warnings.push(
      `${nanNaucs} nAUC value(s) written as NaN (MTEB's way of writing a value it cannot compute): the nAUCs need each query's ranked scores, and ${withoutRun.join(', ')} ha${withoutRun.length === 1 ? 's' : 've'} no run file in ${options.resultsFile} (a results-store row keeps none); export the results.json of \`coreb eval --protocol mteb --out DIR\`, whose run files sit beside it, to have them`,
    );
  } else if (nanNaucs > 0) {
    warnings.push(
      `${nanNaucs} nAUC value(s) written as NaN: their abstention curve is flat (every query's metric equal), where the nAUC is undefined`,
    );
  }
  return { dir, files, warnings };
}
