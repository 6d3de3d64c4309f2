/**
 * Reads published MTEB results for the CoREB tasks (the results repository's layout
 * `ORG__MODEL/REVISION/Coreb*.json`, with `model_meta.json`) as coreb result rows under protocol
 * `mteb`, marked imported: task means only, no per-query values, so they stand in the mteb
 * leaderboard beside the rows coreb scored and take part in no significance test.
 */
import { corebVersion } from '../core/version.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { createHash } from 'node:crypto';
import {
  EVAL_RESULTS_SCHEMA,
  type EvalResults,
  type GroupResult,
  type MetricValues,
  type ProtocolSemantics,
  type RetrieverResult,
  type TaskResult,
} from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { emptyModelMeta, mergeModelMeta, parseModelMetaFields, type ModelMeta } from '../core/model-meta.js';
import { corebTaskOfMteb, MTEB_PINNED_REVISIONS, MTEB_TASK_NAMES, mtebPinnedRevision } from '../core/mteb.js';
import { presetModelMeta } from '../providers/presets.js';
import { roundMeasure } from './aggregate.js';
import { protocolMeasures, resolveProtocol } from './protocol.js';

/** MTEB score key prefixes and the coreb measure each is (`ndcg_at_10` -> `ndcg@10`). */
const MTEB_FAMILIES: ReadonlyArray<[string, string]> = [
  ['ndcg_at_', 'ndcg'],
  ['map_at_', 'map'],
  ['recall_at_', 'recall'],
  ['precision_at_', 'p'],
  ['mrr_at_', 'mrr'],
  ['hit_rate_at_', 'hit'],
];

/** One model revision read from MTEB results. */
export interface ImportedMteb {
  /** The revision folder, relative to the folder imported. */
  folder: string;
  /** A results file holding this model's row (or rows: retrieval, and reranking when present). */
  results: EvalResults;
  /** Files read. */
  files: string[];
  /** What was read but not imported, or imported with a caveat (an unknown task name, another subset). */
  warnings: string[];
}

/** What {@link readMtebResults} read. */
export interface MtebImport {
  /** The model revisions imported (some of their task files may have been left out: see their warnings). */
  imported: ImportedMteb[];
  /** Folders none of whose task files could be placed in a release, with why. */
  skipped: Array<{ folder: string; warnings: string[] }>;
}

/** Options of {@link readMtebResults}. */
export interface MtebImportOptions {
  /**
   * The coreb split the results score. Default: the split of the MTEB-pinned dataset revisions the
   * files carry (every revision MTEB has pinned for CoREB holds release_v2603); a task file on a
   * revision MTEB never pinned is then left out, with a warning, unless this is given.
   */
  split?: string;
  /** coreb's version, written into the results. Default: this package's. */
  corebVersion?: string;
}

/** Reads JSON as Python writes it (`NaN`, `Infinity` literals become null). */
function parsePythonJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '').replace(/(?<=[:[,]\s*)-?(?:NaN|Infinity)(?=\s*[,}\]])/g, 'null'));
  } catch (e) {
    throw new CorebError('PARSE', `not valid JSON (${(e as Error).message})`, { file });
  }
}

/** Folders under `root` (itself included) that hold `Coreb*.json` files, in path order. */
function revisionFolders(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, depth: number) => {
    const names = readdirSync(dir).sort();
    if (names.some((n) => /^Coreb.*\.json$/.test(n))) out.push(dir);
    if (depth >= 3) return;
    for (const n of names) {
      if (n.startsWith('.')) continue;
      const p = join(dir, n);
      if (statSync(p).isDirectory()) visit(p, depth + 1);
    }
  };
  visit(root, 0);
  return out;
}

/** The `scores.test` entry of subset `default` (or the only one) of one MTEB task file. */
function testScores(doc: Record<string, unknown>, file: string, warnings: string[]): Record<string, unknown> {
  const scores = doc.scores as Record<string, unknown> | undefined;
  const test = scores?.test;
  if (!Array.isArray(test) || test.length === 0) {
    throw new CorebError('VALIDATION', 'scores.test must be a non-empty list of score objects (MTEB results format)', { file, field: 'scores.test' });
  }
  const entries = test as Array<Record<string, unknown>>;
  const def = entries.find((e) => e.hf_subset === 'default') ?? entries[0];
  if (entries.length > 1) warnings.push(`${basename(file)}: ${entries.length} subsets; imported \`${String(def.hf_subset)}\``);
  return def;
}

/** coreb measures of an MTEB scores object (only those the protocol reports). */
function metricsOf(scores: Record<string, unknown>, measures: ReadonlySet<string>): MetricValues {
  const out: MetricValues = {};
  for (const [key, v] of Object.entries(scores)) {
    if (typeof v !== 'number') continue;
    for (const [prefix, family] of MTEB_FAMILIES) {
      if (!key.startsWith(prefix)) continue;
      const k = key.slice(prefix.length);
      if (!/^\d+$/.test(k)) continue;
      const label = `${family}@${k}`;
      if (measures.has(label)) out[label] = v;
    }
  }
  return out;
}

const NO_DIAGNOSTICS = { intrusionRate: null, intrusionEligible: 0, hardNegativesTop10: Number.NaN, ndcgRecallGap10: Number.NaN };

function taskResult(metrics: MetricValues): TaskResult {
  return {
    queries: 0,
    metrics,
    diagnostics: { ...NO_DIAGNOSTICS },
    missingQueries: 0,
    excludedQueries: 0,
    zeroedQueries: 0,
    emptyQueries: [],
    missingQueryIds: [],
  };
}

/** The unweighted mean over tasks of every measure all of them have, rounded per the protocol (task values first). */
function taskMeanOf(tasks: readonly TaskResult[], protocol: ProtocolSemantics): GroupResult {
  const metrics: MetricValues = {};
  const round = (x: number, label: string) => roundMeasure(x, label, protocol);
  for (const label of protocolMeasures(protocol)) {
    if (tasks.length === 0 || !tasks.every((t) => typeof t.metrics[label] === 'number')) continue;
    metrics[label] = round(tasks.reduce((s, t) => s + round(t.metrics[label], label), 0) / tasks.length, label);
  }
  return { queries: 0, metrics, diagnostics: { ...NO_DIAGNOSTICS } };
}

/**
 * Reads every model revision under `root` (a results repository, one model's folder, or one
 * revision folder). Retrieval tasks make one row named after the model; MTEB's `Coreb*Reranking`
 * tasks (fixed candidate lists) a second row `MODEL (reranking)`. A task name coreb does not know
 * is imported under its MTEB name, with a warning.
 * The release a folder scores is `options.split`, else the one a coreb export names, else the one
 * of the MTEB-pinned dataset revisions its files carry ({@link MTEB_PINNED_REVISIONS}); a task file
 * on a revision MTEB never pinned is then left out with a warning naming it and what `--split`
 * would do, and the folder's other tasks are imported.
 * @throws CorebError `NOT_FOUND` when no `Coreb*.json` is found; `VALIDATION` naming file and
 *   field for a file not in MTEB's format; `USAGE` when nothing could be imported (every file on
 *   an unknown revision and no `split`), or a folder's pinned revisions name two releases.
 */
export async function readMtebResults(root: string, options: MtebImportOptions): Promise<MtebImport> {
  if (!existsSync(root)) throw new CorebError('NOT_FOUND', 'no such folder of MTEB results', { file: root });
  const folders = revisionFolders(root);
  if (folders.length === 0) {
    throw new CorebError('NOT_FOUND', 'no Coreb*.json results file here (expected MTEB results: ORG__MODEL/REVISION/CorebT2CRetrieval.json, ...)', {
      file: root,
    });
  }
  const protocol = resolveProtocol('mteb');
  const measures = protocolMeasures(protocol);
  const known = new Set(measures);
  const out: ImportedMteb[] = [];
  const skipped: Array<{ folder: string; warnings: string[] }> = [];
  for (const folder of folders) {
    const warnings: string[] = [];
    const files: string[] = [];
    const rel = relative(root, folder).split(sep).join('/') || '.';
    // The model and revision: model_meta.json, else the folder names (ORG__MODEL/REVISION).
    const metaFile = join(folder, 'model_meta.json');
    let metaDoc: Record<string, unknown> = {};
    if (existsSync(metaFile)) {
      const v = parsePythonJson(await readFile(metaFile, 'utf8'), metaFile);
      if (v === null || typeof v !== 'object' || Array.isArray(v))
        throw new CorebError('VALIDATION', 'model_meta.json must be a JSON object', { file: metaFile });
      metaDoc = v as Record<string, unknown>;
      files.push(metaFile);
    }
    const parts = folder.split(sep);
    const revision = typeof metaDoc.revision === 'string' ? metaDoc.revision : (parts[parts.length - 1] ?? 'unknown');
    const model = typeof metaDoc.name === 'string' ? metaDoc.name : (parts[parts.length - 2] ?? basename(folder)).replace('__', '/');
    const rows = new Map<'retrieval' | 'reranking', { tasks: Record<string, TaskResult>; revisions: Record<string, string>; seconds: number }>();
    // Each task file's MTEB task name and dataset revision, to place it in a release below.
    const taskFiles: MtebTaskFile[] = [];
    let mtebVersion: string | undefined;
    // Tasks in MTEB's order (T2C, C2T, C2C), then any other name.
    const rank = (n: string) => {
      const i = Object.values(MTEB_TASK_NAMES).findIndex((t) => n.startsWith(t.replace(/Retrieval$/, '')));
      return i < 0 ? 99 : i;
    };
    for (const name of readdirSync(folder).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))) {
      if (!/^Coreb.*\.json$/.test(name)) continue;
      const file = join(folder, name);
      const doc = parsePythonJson(await readFile(file, 'utf8'), file) as Record<string, unknown>;
      if (doc === null || typeof doc !== 'object') throw new CorebError('VALIDATION', 'an MTEB results file must hold a JSON object', { file });
      files.push(file);
      const taskName = typeof doc.task_name === 'string' ? doc.task_name : name.replace(/\.json$/, '');
      const kind = /Reranking$/.test(taskName) ? 'reranking' : 'retrieval';
      const task = corebTaskOfMteb(taskName) ?? taskName;
      if (corebTaskOfMteb(taskName) === undefined)
        warnings.push(`${name}: task \`${taskName}\` is not one of MTEB's CoREB tasks coreb knows; imported as task \`${taskName}\``);
      if (typeof doc.mteb_version === 'string') mtebVersion = doc.mteb_version;
      const metrics = metricsOf(testScores(doc, file, warnings), known);
      if (typeof metrics['ndcg@10'] !== 'number') {
        throw new CorebError('VALIDATION', 'the test scores lack ndcg_at_10 (MTEB results format)', { file, field: 'scores.test[0].ndcg_at_10' });
      }
      const row = rows.get(kind) ?? { tasks: {}, revisions: {}, seconds: 0 };
      row.tasks[task] = taskResult(metrics);
      if (typeof doc.dataset_revision === 'string') row.revisions[task] = doc.dataset_revision;
      if (typeof doc.evaluation_time === 'number') row.seconds += doc.evaluation_time;
      rows.set(kind, row);
      taskFiles.push({
        kind,
        task,
        mtebTask: taskName,
        file: name,
        revision: typeof doc.dataset_revision === 'string' ? doc.dataset_revision : undefined,
      });
    }
    // A coreb export (run_settings.jsonl) names the dataset it scored: the rows then join it exactly.
    const scored = await exportedDataset(folder);
    if (scored !== undefined) files.push(join(folder, 'run_settings.jsonl'));
    const split = options.split ?? scored?.split ?? placeByRevisions(rel, folder, taskFiles, rows, warnings);
    if (split === undefined) {
      skipped.push({ folder: rel, warnings });
      continue;
    }
    warnings.push(...pinWarnings(taskFiles, rows, options.split));
    const revisions = Object.assign({}, ...[...rows.values()].map((r) => r.revisions)) as Record<string, string>;
    const meta = mergeModelMeta(
      presetModelMeta(model) ?? emptyModelMeta(`${rel}/model_meta.json`),
      parseModelMetaFields(metaDoc, { file: metaFile, field: 'model_meta' }),
      `${rel}/model_meta.json`,
    );
    const retrievers: RetrieverResult[] = [];
    for (const [kind, r] of rows) {
      const tasks = Object.values(r.tasks);
      const name = kind === 'retrieval' ? model : `${model} (reranking)`;
      retrievers.push({
        name,
        spec: `mteb:${model}@${revision}${kind === 'reranking' ? '#reranking' : ''}`,
        description: { kind: 'imported', format: 'mteb', model, revision, tasks: kind },
        overall: { queries: 0, metrics: {}, diagnostics: { ...NO_DIAGNOSTICS } },
        taskMean: taskMeanOf(tasks, protocol),
        tasks: r.tasks,
        subtasks: {},
        languages: {},
        subQueryTypes: {},
        timings: { indexMs: 0, searchMs: 0, evaluateMs: 0, totalMs: r.seconds * 1000 },
        ...(meta.source !== '' ? { model: meta as ModelMeta } : {}),
        imported: {
          format: 'mteb',
          model,
          revision,
          from: rel,
          ...(mtebVersion !== undefined ? { mtebVersion } : {}),
          datasetRevisions: r.revisions,
        },
      });
    }
    const digest = createHash('sha256')
      .update(JSON.stringify(Object.entries(revisions).sort()))
      .digest('hex');
    const results: EvalResults = {
      schema: EVAL_RESULTS_SCHEMA,
      coreb: { version: options.corebVersion ?? corebVersion() },
      createdAt: new Date().toISOString(),
      dataset: {
        kind: 'coreb-release',
        dir: `mteb:${rel}`,
        split,
        files: [],
        sha256: scored !== undefined && scored.split === split ? scored.sha256 : `mteb-${digest}`,
        counts: {},
      },
      protocol,
      measures: [...measures],
      options: { depth: 1000, tasks: [...new Set(retrievers.flatMap((r) => Object.keys(r.tasks)))], subtasks: null },
      retrievers,
      timings: { loadMs: 0, totalMs: 0 },
    };
    out.push({ folder: rel, results, files, warnings });
  }
  if (out.length === 0) {
    throw new CorebError('USAGE', `nothing imported: ${skipped.map((x) => `${x.folder}: ${x.warnings.join('; ')}`).join(' | ')}`, { file: root });
  }
  return { imported: out, skipped };
}

const short = (rev: string): string => rev.slice(0, 12);

/** A task file of an imported folder: its coreb task, MTEB task name, file name and dataset revision. */
interface MtebTaskFile {
  kind: 'retrieval' | 'reranking';
  task: string;
  mtebTask: string;
  file: string;
  revision: string | undefined;
}

/**
 * What a folder's dataset revisions say against where it is imported: a revision MTEB pinned for
 * another release than `--split` names, and a revision MTEB has since replaced (scores may differ
 * from runs on the current pin).
 */
function pinWarnings(
  taskFiles: readonly MtebTaskFile[],
  rows: ReadonlyMap<string, { tasks: Record<string, TaskResult> }>,
  split: string | undefined,
): string[] {
  const warnings: string[] = [];
  for (const t of taskFiles) {
    const p = t.revision !== undefined ? mtebPinnedRevision(t.mtebTask, t.revision) : undefined;
    if (split !== undefined && p !== undefined && p.split !== split)
      warnings.push(`${t.file}: dataset revision ${short(p.revision)} is MTEB's pin of ${p.split}; imported as ${split}, as --split says`);
  }
  for (const t of taskFiles) {
    const p = t.revision !== undefined ? mtebPinnedRevision(t.mtebTask, t.revision) : undefined;
    if (p?.replaced !== undefined && rows.get(t.kind)?.tasks[t.task] !== undefined)
      warnings.push(
        `${t.file}: dataset revision ${short(p.revision)} (${p.dataset}) was MTEB's pin from ${p.pinned} to ${p.replaced}; scores on it may differ from runs on the current pin (${currentPin(t.mtebTask)})`,
      );
  }
  return warnings;
}

/** The current pin of an MTEB task, as `dataset@revision`. */
function currentPin(task: string): string {
  const p = MTEB_PINNED_REVISIONS.find((x) => x.task === task && x.replaced === undefined);
  return p !== undefined ? `${p.dataset}@${short(p.revision)}` : 'none';
}

/**
 * The release of a folder from its task files' MTEB-pinned revisions. Tasks on a revision MTEB
 * never pinned are removed from `rows` with a warning naming the file, the revision and what
 * `--split NAME` would do; undefined when no task is left.
 * @throws CorebError `USAGE` when the pinned revisions name two releases.
 */
function placeByRevisions(
  rel: string,
  folder: string,
  taskFiles: ReadonlyArray<{ kind: 'retrieval' | 'reranking'; task: string; mtebTask: string; file: string; revision: string | undefined }>,
  rows: Map<'retrieval' | 'reranking', { tasks: Record<string, TaskResult>; revisions: Record<string, string> }>,
  warnings: string[],
): string | undefined {
  const splits = new Set<string>();
  for (const t of taskFiles) {
    const p = t.revision !== undefined ? mtebPinnedRevision(t.mtebTask, t.revision) : undefined;
    if (p !== undefined) {
      splits.add(p.split);
      continue;
    }
    const known = MTEB_PINNED_REVISIONS.filter((x) => x.task === t.mtebTask).map((x) => `${short(x.revision)} (${x.pinned})`);
    warnings.push(
      `${t.file}: dataset revision ${t.revision !== undefined ? short(t.revision) : '(none)'} is not one MTEB has pinned for ${t.mtebTask}${known.length > 0 ? ` (its pins: ${known.join(', ')})` : ''}; not imported. \`--split NAME\` imports it as a score on release NAME, which coreb then takes on trust`,
    );
    const row = rows.get(t.kind);
    if (row !== undefined) {
      delete row.tasks[t.task];
      delete row.revisions[t.task];
      if (Object.keys(row.tasks).length === 0) rows.delete(t.kind);
    }
  }
  if (splits.size > 1) {
    throw new CorebError(
      'USAGE',
      `${rel}: the dataset revisions are MTEB's pins of ${[...splits].join(' and ')}: one folder scores one release; pass --split NAME`,
      {
        file: folder,
      },
    );
  }
  return rows.size > 0 ? [...splits][0] : undefined;
}

/** The dataset a coreb export scored, from its `run_settings.jsonl` (absent in MTEB's own results). */
async function exportedDataset(folder: string): Promise<{ split: string; sha256: string } | undefined> {
  const file = join(folder, 'run_settings.jsonl');
  if (!existsSync(file)) return undefined;
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    try {
      const d = (JSON.parse(line) as { dataset?: { split?: unknown; sha256?: unknown } }).dataset;
      if (typeof d?.split === 'string' && typeof d.sha256 === 'string' && /^[0-9a-f]{64}$/.test(d.sha256))
        return { split: d.split, sha256: d.sha256 };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
