/**
 * `coreb build --config build.json`: the settings file read into a typed value with every problem
 * found at once (unknown keys with the closest valid one, wrong types naming the field and what was
 * expected, a stage or language the build does not know), outside the CLI so a library user gets
 * the same checks. The CLI's own options win over the file's; paths in the file are relative to it.
 */
import { readFileSync } from 'node:fs';
import { CorebError } from '../core/errors.js';
import { EXEC_LANGUAGES, isExecLanguage, type ExecLanguage } from '../core/execution.js';
import { renderIssue, type ValidationIssue } from '../core/issues.js';
import { didYouMean } from '../core/suggest.js';
import { BUILD_STAGES, type BuildStage } from './pipeline/types.js';

/** A build.json as read: each setting typed; model settings are spec strings or objects, read later by the chat registry. */
export interface BuildFileConfig {
  problems?: string;
  out?: string;
  rewriter?: unknown;
  abbreviator?: unknown;
  solvers?: unknown[];
  queryWriter?: unknown;
  negativeWriter?: unknown;
  /** A list or one comma-separated string in the file. */
  languages?: ExecLanguage[];
  releaseName?: string;
  seed?: number;
  concurrency?: number;
  limit?: number;
  prompts?: string;
  stages?: BuildStage[];
  until?: BuildStage;
  createdAt?: string;
  from?: string;
  to?: string;
  excludeReleases?: string[];
  shape?: string;
  searchCap?: number | 'all';
  c2cSubtasks?: string[];
  primarySolver?: string;
  similarEmbedder?: string;
}

type Kind = 'string' | 'model' | 'models' | 'list' | 'strings' | 'int' | 'cap';

/** Every key a build.json may hold, with what its value must be. */
const KEYS: Readonly<Record<keyof BuildFileConfig, Kind>> = {
  problems: 'string',
  out: 'string',
  rewriter: 'model',
  abbreviator: 'model',
  solvers: 'models',
  queryWriter: 'model',
  negativeWriter: 'model',
  languages: 'list',
  releaseName: 'string',
  seed: 'int',
  concurrency: 'int',
  limit: 'int',
  prompts: 'string',
  stages: 'list',
  until: 'string',
  createdAt: 'string',
  from: 'string',
  to: 'string',
  excludeReleases: 'strings',
  shape: 'string',
  searchCap: 'cap',
  c2cSubtasks: 'list',
  primarySolver: 'string',
  similarEmbedder: 'string',
};

/** The keys a build.json may hold, in the order the docs list them. */
export const BUILD_CONFIG_KEYS: readonly string[] = Object.keys(KEYS);

const EXPECTED: Readonly<Record<Kind, string>> = {
  string: 'a string',
  model: 'a spec string PROVIDER:MODEL[?...] or an object {provider, model, ...}',
  models: 'a list of specs (strings or {provider, model, ...} objects)',
  list: 'a list of strings or one comma-separated string',
  strings: 'a list of strings',
  int: 'an integer',
  cap: 'an integer >= 0 or "all"',
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isModel = (v: unknown): boolean => typeof v === 'string' || isObject(v);

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'model':
      return isModel(v);
    case 'models':
      return Array.isArray(v) && v.every(isModel);
    case 'list':
      return typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'int':
      return Number.isInteger(v);
    case 'cap':
      return v === 'all' || (Number.isInteger(v) && (v as number) >= 0);
  }
}

/** A list setting as a list: one comma-separated string is split, blanks dropped. */
export function settingList(v: string | readonly string[]): string[] {
  return (typeof v === 'string' ? v.split(',') : [...v]).map((s) => s.trim()).filter(Boolean);
}

/**
 * Reads a parsed build.json: the typed settings, and every issue found (errors: an unknown key, a
 * value of the wrong type, a language or stage the build does not know). Keys in error are left out
 * of `config`.
 * @param file named in every issue.
 */
export function parseBuildConfig(raw: unknown, file: string): { config: BuildFileConfig; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const config: Record<string, unknown> = {};
  const error = (field: string | undefined, kind: string, message: string): void => {
    issues.push({ severity: 'error', kind, message, file, ...(field !== undefined ? { field } : {}) });
  };
  if (!isObject(raw)) {
    error(undefined, 'config-shape', 'must be a JSON object of build settings');
    return { config: {}, issues };
  }
  for (const [key, value] of Object.entries(raw)) {
    const kind = (KEYS as Record<string, Kind | undefined>)[key];
    if (kind === undefined) {
      error(key, 'config-key', `unknown key; valid keys: ${BUILD_CONFIG_KEYS.join(', ')}${didYouMean(key, BUILD_CONFIG_KEYS)}`);
      continue;
    }
    if (!fits(kind, value)) {
      error(key, 'config-type', `expected ${EXPECTED[kind]}, got ${JSON.stringify(value)}`);
      continue;
    }
    config[key] = kind === 'list' ? settingList(value as string | string[]) : value;
  }
  // Lists of known names: an unknown one is an error and the setting is left out.
  const known = <T extends string>(field: string, valid: (x: string) => x is T, what: (x: string) => string): T[] | undefined => {
    const v = config[field];
    if (v === undefined) return undefined;
    const items = typeof v === 'string' ? [v] : (v as string[]);
    const bad = items.filter((x) => !valid(x));
    for (const x of bad) error(field, 'config-value', what(x));
    delete config[field];
    return bad.length > 0 ? undefined : items.filter(valid);
  };
  const isStage = (x: string): x is BuildStage => (BUILD_STAGES as readonly string[]).includes(x);
  const stageError = (x: string): string => `unknown stage \`${x}\`; stages: ${BUILD_STAGES.join(', ')}`;
  const languages = known('languages', isExecLanguage, (x) => `\`${x}\` is not one of ${EXEC_LANGUAGES.join(', ')}`);
  const stages = known('stages', isStage, stageError);
  const until = known('until', isStage, stageError)?.[0];
  const out: BuildFileConfig = {
    ...(config as Omit<BuildFileConfig, 'languages' | 'stages' | 'until'>),
    ...(languages !== undefined ? { languages } : {}),
    ...(stages !== undefined ? { stages } : {}),
    ...(until !== undefined ? { until } : {}),
  };
  return { config: out, issues };
}

/**
 * Reads the build.json at `file`.
 * @throws CorebError `NOT_FOUND` when it does not exist, `PARSE` when it is not JSON, `CONFIG` listing
 * every issue of {@link parseBuildConfig} (the first one's field named in the error's location).
 */
export function loadBuildConfig(file: string): BuildFileConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorebError(
      code === 'ENOENT' ? 'NOT_FOUND' : 'PARSE',
      code === 'ENOENT' ? 'config file does not exist' : `not valid JSON: ${(e as Error).message}`,
      { file, cause: e },
    );
  }
  const { config, issues } = parseBuildConfig(raw, file);
  if (issues.length === 0) return config;
  const [first, ...rest] = issues;
  const more = rest.length === 0 ? '' : `\n${rest.map(renderIssue).join('\n')}`;
  throw new CorebError('CONFIG', `${first.message}${more}`, { file, ...(first.field !== undefined ? { field: first.field } : {}) });
}
