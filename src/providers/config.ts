/**
 * Embedder specs and configuration: parses `dense:<provider>:<model>[?key=value&...]`, checks
 * every value, fills defaults from the model's preset, and applies instruction templates. Pure (no
 * I/O); config files are read by `config-file.ts`.
 */
import type { TaskName } from '../core/dataset.js';
import { TASKS } from '../core/dataset.js';
import type { EmbedRole, PreparedText } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import { findPreset, MODEL_PRESETS, type ModelPreset } from './presets.js';
import { BALANCES, POOLINGS, type EmbedderConfig, type InputTypes, type TaskTemplates } from './types.js';

/** The spec prefix the evaluation runner uses for dense retrievers. */
export const DENSE_PREFIX = 'dense:';

/** The value kinds of spec parameters (shared with reranker specs). */
export type ParamKind = 'string' | 'int' | 'bool' | 'urls' | 'pooling' | 'balance' | 'side';

/** Query parameters a spec may carry, with their types (documented on {@link EmbedderConfig}). */
export const SPEC_PARAMS: Readonly<Record<string, ParamKind>> = {
  revision: 'string',
  baseUrl: 'urls',
  apiKeyEnv: 'string',
  dimensions: 'int',
  normalize: 'bool',
  pooling: 'pooling',
  paddingSide: 'side',
  maxTokens: 'int',
  preset: 'string',
  batchSize: 'int',
  maxBatchTokens: 'int',
  concurrency: 'int',
  requestsPerMinute: 'int',
  balance: 'balance',
  timeoutMs: 'int',
  maxRetries: 'int',
  backoffMs: 'int',
  maxBackoffMs: 'int',
  dtype: 'string',
  localModelPath: 'string',
  allowRemoteModels: 'bool',
  queryTemplate: 'string',
  documentTemplate: 'string',
  queryInputType: 'string',
  documentInputType: 'string',
};

const MIN_INT: Readonly<Record<string, number>> = { maxRetries: 0, backoffMs: 0, maxBackoffMs: 0 };

/** Keys of a task/role table: every task, plus `default` for calls that name none. */
const TABLE_TASKS: readonly string[] = [...TASKS, 'default'];

/**
 * One or more base URLs (repeated, or comma-separated): each http(s), without credentials (the key
 * is named by apiKeyEnv) or a query string; trailing slashes dropped.
 * @throws CorebError `USAGE` naming `where` and what is wrong (`bad` words a value error).
 */
export function parseBaseUrls(values: readonly string[], where: string, bad: (valid: string) => CorebError): string[] {
  const urls = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const u of urls) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw bad('one or more http(s) URLs (repeat the parameter or separate with commas)');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw bad('an http(s) URL');
    if (parsed.search) {
      throw new CorebError('USAGE', `${where}: \`baseUrl\` must not have a query string; name the key's environment variable with apiKeyEnv`);
    }
    if (parsed.username || parsed.password) {
      throw new CorebError(
        'USAGE',
        `${where}: \`baseUrl\` must not contain credentials; put the key in an environment variable and name it with apiKeyEnv`,
      );
    }
  }
  if (urls.length === 0) throw bad('at least one URL');
  return urls.map((u) => u.replace(/\/+$/, ''));
}

/**
 * Checks and converts one spec parameter: `urls` (repeatable, comma-separated, no query string or
 * credentials), `int` (>= 1, or >= 0 for retry/backoff keys), `bool`, enums. `where` prefixes errors.
 * @throws CorebError `USAGE` naming the parameter and what is valid.
 */
export function parseValue(key: string, kind: ParamKind, values: string[], where: string): unknown {
  const bad = (valid: string): CorebError => new CorebError('USAGE', `${where}: parameter \`${key}\` must be ${valid}, got \`${values.join(',')}\``);
  if (kind === 'urls') return parseBaseUrls(values, where, bad);
  if (values.length > 1) throw new CorebError('USAGE', `${where}: parameter \`${key}\` given ${values.length} times; give it once`);
  const v = values[0];
  switch (kind) {
    case 'string':
      return v;
    case 'int': {
      const n = Number(v);
      const min = MIN_INT[key] ?? 1;
      if (!Number.isInteger(n) || n < min) throw bad(`an integer >= ${min}`);
      return n;
    }
    case 'bool':
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      throw bad('true or false');
    case 'pooling':
      if (!(POOLINGS as readonly string[]).includes(v)) throw bad(`one of ${POOLINGS.join(', ')}`);
      return v;
    case 'balance':
      if (!(BALANCES as readonly string[]).includes(v)) throw bad(`one of ${BALANCES.join(', ')}`);
      return v;
    case 'side':
      if (v !== 'left' && v !== 'right') throw bad('left or right');
      return v;
  }
}

/** The parts of an embedder spec, unchecked (see {@link splitEmbedderSpec}). */
export interface EmbedderSpecParts {
  /** The text before `?`, without the `dense:` prefix: `<provider>:<model>` or a config entry name. */
  head: string;
  /** `head` up to its first `:`; '' when `head` has no `:`. */
  provider: string;
  /** `head` after its first `:`; '' when `head` has no `:`. */
  model: string;
  /** URL-decoded query parameters; a repeated key keeps all its values, in order. */
  params: Record<string, string | string[]>;
}

/** Splits `dense:<head>[?key=value&...]` (the `dense:` prefix is optional) into its parts; no checks. */
export function splitEmbedderSpec(spec: string): EmbedderSpecParts {
  const body = spec.startsWith(DENSE_PREFIX) ? spec.slice(DENSE_PREFIX.length) : spec;
  const q = body.indexOf('?');
  const head = q < 0 ? body : body.slice(0, q);
  const colon = head.indexOf(':');
  const grouped = new Map<string, string[]>();
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(body.slice(q + 1))) {
      grouped.set(k, [...(grouped.get(k) ?? []), v]);
    }
  }
  const params: Record<string, string | string[]> = {};
  for (const [k, values] of grouped) params[k] = values.length === 1 ? values[0] : values;
  return {
    head,
    provider: colon < 0 ? '' : head.slice(0, colon),
    model: colon < 0 ? '' : head.slice(colon + 1),
    params,
  };
}

/**
 * Parses `dense:<provider>:<model>[?key=value&...]` (the `dense:` prefix is optional). The model
 * may itself contain `:` and `/` (`qwen3-embedding:0.6b`, `Qwen/Qwen3-Embedding-0.6B`). Values
 * are URL-decoded; `baseUrl` may repeat. Unknown keys and malformed values are USAGE errors.
 */
export function parseEmbedderSpec(spec: string): EmbedderConfig {
  const { provider, model, params } = splitEmbedderSpec(spec);
  if (!provider || !model) {
    throw new CorebError(
      'USAGE',
      `embedder spec \`${spec}\` must look like dense:<provider>:<model>[?key=value&...], e.g. ` +
        '`dense:openai:text-embedding-3-small?dimensions=512`',
    );
  }
  return normalizeEmbedderConfig({ provider, model, ...params }, `embedder spec \`${dense(provider, model)}\``);
}

function dense(provider: string, model: string): string {
  return `${DENSE_PREFIX}${provider}:${model}`;
}

/**
 * Checks a loosely typed config (a spec's parameters, a config file entry) and converts it to an
 * {@link EmbedderConfig}. Strings are accepted for numbers and booleans; `queryTemplate` /
 * `documentTemplate` / `queryInputType` / `documentInputType` set every task's value for that role.
 * `where` prefixes error messages (e.g. `coreb.config.json: embedders.mine`).
 */
export function normalizeEmbedderConfig(input: Record<string, unknown>, where: string): EmbedderConfig {
  const { provider, model, templates, inputTypes, ...rest } = input;
  if (typeof provider !== 'string' || !provider) throw new CorebError('CONFIG', `${where}: \`provider\` must be a non-empty string`);
  if (typeof model !== 'string' || !model) throw new CorebError('CONFIG', `${where}: \`model\` must be a non-empty string`);
  const out: EmbedderConfig = { provider, model };
  const o = out as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const kind = SPEC_PARAMS[key];
    if (kind === undefined) {
      throw new CorebError(
        'USAGE',
        `${where}: unknown parameter \`${key}\`; valid parameters: ${[...Object.keys(SPEC_PARAMS), 'templates', 'inputTypes'].join(', ')}`,
      );
    }
    const values = (Array.isArray(value) ? value : [value]).map((v) => String(v));
    o[key] = parseValue(key, kind, values, where);
  }
  if (templates !== undefined) out.templates = checkRoleTable(templates, 'templates', where) as TaskTemplates;
  if (inputTypes !== undefined) out.inputTypes = checkRoleTable(inputTypes, 'inputTypes', where) as InputTypes;
  const roleDefault = (qKey: string, dKey: string, field: 'templates' | 'inputTypes'): void => {
    const qv = o[qKey] as string | undefined;
    const dv = o[dKey] as string | undefined;
    delete o[qKey];
    delete o[dKey];
    if (qv === undefined && dv === undefined) return;
    const table = { ...(out[field] ?? {}) } as Record<string, Record<string, string>>;
    for (const task of TABLE_TASKS) {
      table[task] = { ...(table[task] ?? {}) };
      if (qv !== undefined) table[task].query = qv;
      if (dv !== undefined) table[task].document = dv;
    }
    o[field] = table;
  };
  roleDefault('queryTemplate', 'documentTemplate', 'templates');
  roleDefault('queryInputType', 'documentInputType', 'inputTypes');
  return out;
}

function checkRoleTable(value: unknown, field: string, where: string): Record<string, Record<string, string>> {
  const fail = (msg: string): never => {
    throw new CorebError('CONFIG', `${where}: \`${field}\` ${msg}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('must be an object keyed by task');
  const out: Record<string, Record<string, string>> = {};
  for (const [task, roles] of Object.entries(value as Record<string, unknown>)) {
    if (!TABLE_TASKS.includes(task)) fail(`has unknown task \`${task}\`; valid: ${TABLE_TASKS.join(', ')}`);
    if (typeof roles !== 'object' || roles === null) fail(`.${task} must be an object {query, document}`);
    out[task] = {};
    for (const [role, v] of Object.entries(roles as Record<string, unknown>)) {
      if (role !== 'query' && role !== 'document') fail(`.${task} has unknown role \`${role}\`; valid: query, document`);
      if (typeof v !== 'string') fail(`.${task}.${role} must be a string`);
      out[task][role] = v as string;
    }
  }
  return out;
}

/** An {@link EmbedderConfig} with the preset merged in (user values win). */
export interface ResolvedEmbedderConfig extends EmbedderConfig {
  templates: TaskTemplates;
  inputTypes: InputTypes;
  /** The preset applied, if any. */
  presetId?: string;
}

/** Merges two task/role tables; entries of `over` win per task and role. */
export function mergeTables<T extends object>(base: T | undefined, over: T | undefined): T {
  const out: Record<string, Record<string, string>> = {};
  for (const src of [base, over] as (Record<string, Record<string, string> | undefined> | undefined)[]) {
    for (const [task, roles] of Object.entries(src ?? {})) out[task] = { ...(out[task] ?? {}), ...(roles ?? {}) };
  }
  return out as T;
}

/**
 * Merges the model's preset into `config` (explicit fields win; `preset=none` disables presets;
 * an unknown `preset` id is a USAGE error). Provider-native input types of the preset are taken
 * for `config.provider` only.
 */
export function resolveEmbedderConfig(config: EmbedderConfig): ResolvedEmbedderConfig {
  let preset: ModelPreset | undefined;
  if (config.preset === 'none') preset = undefined;
  else if (config.preset !== undefined) {
    preset = MODEL_PRESETS.find((p) => p.id === config.preset) ?? findPreset(config.preset);
    if (preset === undefined) {
      throw new CorebError('USAGE', `unknown preset \`${config.preset}\`; run \`coreb providers\` to list presets, or use preset=none`);
    }
  } else preset = findPreset(config.model);
  const out: ResolvedEmbedderConfig = {
    ...config,
    templates: mergeTables(preset?.templates, config.templates),
    inputTypes: mergeTables(preset?.inputTypes?.[config.provider], config.inputTypes),
  };
  if (preset !== undefined) {
    out.presetId = preset.id;
    out.pooling ??= preset.pooling;
    out.paddingSide ??= preset.paddingSide;
    out.maxTokens ??= preset.maxTokens;
    if (config.provider === 'onnx') out.normalize ??= preset.normalize;
  }
  return out;
}

/** The template for `role` in `task` (falls back to the `default` entry, then to `{text}`). */
export function selectTemplate(templates: TaskTemplates, role: EmbedRole, task: TaskName | undefined): string {
  return (task !== undefined ? templates[task]?.[role] : undefined) ?? templates.default?.[role] ?? '{text}';
}

/** The provider-native input type for `role` in `task`, or undefined. */
export function selectInputType(types: InputTypes, role: EmbedRole, task: TaskName | undefined): string | undefined {
  return (task !== undefined ? types[task]?.[role] : undefined) ?? types.default?.[role];
}

/**
 * What a text of `role` becomes in `task`: its instruction template and provider input type, as
 * one comparable key. Two tasks with equal keys embed a text identically (the one rule every
 * embedding call follows, through {@link selectTemplate} and {@link selectInputType}).
 */
export function embedInputKey(cfg: Pick<ResolvedEmbedderConfig, 'templates' | 'inputTypes'>, role: EmbedRole, task: TaskName | undefined): string {
  return JSON.stringify([selectTemplate(cfg.templates, role, task), selectInputType(cfg.inputTypes, role, task) ?? null]);
}

/**
 * The tasks whose `role` texts are embedded otherwise than by a call that names no task (a model
 * with task instructions, such as Qwen3-Embedding or jina-code-embeddings); empty when the
 * instruction does not depend on the task.
 */
export function taskDependentTasks(cfg: Pick<ResolvedEmbedderConfig, 'templates' | 'inputTypes'>, role: EmbedRole): TaskName[] {
  const none = embedInputKey(cfg, role, undefined);
  return TASKS.filter((t) => embedInputKey(cfg, role, t) !== none);
}

/** Applies a template: replaces the first `{text}` with `text`, or appends `text` when absent. */
export function applyTemplate(template: string, text: string): PreparedText {
  const i = template.indexOf('{text}');
  return { template, text: i < 0 ? template + text : template.slice(0, i) + text + template.slice(i + 6) };
}
