/**
 * The table of judged languages: one module per language (python.ts, cpp.ts, java.ts, go.ts,
 * ruby.ts) behind {@link JudgeLanguage}, looked up by id. A sixth language is one new module and
 * one row here (or {@link registerJudgeLanguage} from outside the package).
 */
import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { CorebError } from '../../core/errors.js';
import type { ExecLanguage } from '../../core/execution.js';
import { cpp } from './cpp.js';
import { go } from './go.js';
import { java } from './java.js';
import type { JudgeLanguage } from './language.js';
import { python } from './python.js';
import { ruby } from './ruby.js';
import { findTool, toolOf, type RunLimits, type ToolRef } from './tools.js';

export type { BuildContext, DirectCompile, JudgeLanguage, LanguageSource, LanguageState, LanguageStateContext } from './language.js';
import type { LanguagePrompt } from './language.js';

/** The built-in languages, by id. */
export const BUILT_IN_LANGUAGES: Readonly<Record<ExecLanguage, JudgeLanguage>> = { python, cpp, java, go, ruby };

/** One field of every built-in language module, by language. */
function builtInField<K extends keyof JudgeLanguage>(key: K): Readonly<Record<ExecLanguage, JudgeLanguage[K]>> {
  const out = {} as Record<ExecLanguage, JudgeLanguage[K]>;
  for (const [id, lang] of Object.entries(BUILT_IN_LANGUAGES) as Array<[ExecLanguage, JudgeLanguage]>) out[id] = lang[key];
  return out;
}

/** Every language the judge knows: the built-in ones and those registered. */
const table = new Map<string, JudgeLanguage>(Object.entries(BUILT_IN_LANGUAGES));

/**
 * Adds a judged language (or replaces one with the same id) for every judge created afterwards in
 * this process.
 * @throws CorebError `USAGE` when the id is not a lowercase word.
 */
export function registerJudgeLanguage(language: JudgeLanguage): void {
  if (!/^[a-z][a-z0-9_+-]*$/.test(language.id)) {
    throw new CorebError('USAGE', `a judged language's id must be a lowercase word, got \`${language.id}\``);
  }
  table.set(language.id, language);
}

/** The ids of every judged language, built-in first. */
export function judgeLanguageIds(): string[] {
  return [...table.keys()];
}

/** The language `id`, or undefined when the judge does not know it. */
export function findJudgeLanguage(id: string): JudgeLanguage | undefined {
  return table.get(id);
}

/**
 * The language `id`.
 * @throws CorebError `VALIDATION` naming the known ids when the judge does not know it.
 */
export function judgeLanguage(id: string): JudgeLanguage {
  const l = table.get(id);
  if (l === undefined) throw new CorebError('VALIDATION', `the judge has no language \`${id}\` (it knows ${judgeLanguageIds().join(', ')})`);
  return l;
}

/**
 * Default run limits per built-in language: 6 s of CPU time (LiveCodeBench's per-test timeout),
 * 512 MiB of memory; the address space is 1 GiB, except Go (2 GiB: its runtime reserves ~700 MB) and
 * Java (4 GiB with the judge's JVM flags); Go and Java get 256 threads. (Each module's `limits`.)
 */
export const DEFAULT_LIMITS = builtInField('limits') satisfies Readonly<Record<ExecLanguage, RunLimits>>;

/** Tools each built-in language needs (each module's `tools`). */
export const LANGUAGE_TOOLS = builtInField('tools') satisfies Readonly<Record<ExecLanguage, readonly ToolRef[]>>;

/** Debian packages missing for `languages` (plus the sandbox's bubblewrap when `sandbox`). */
export function missingPackages(languages: readonly string[], sandbox: boolean): string[] {
  const need: ToolRef[] = sandbox ? ['bwrap'] : [];
  for (const l of languages) need.push(...judgeLanguage(l).tools);
  const pk = new Set<string>();
  for (const t of need) if (findTool(t) === undefined) pk.add(toolOf(t).package);
  return [...pk];
}

/**
 * The versions of the toolchains of `languages` and of the sandbox (bubblewrap), by tool: the first
 * line each installed tool prints when asked its version (each tool's `version` arguments, default
 * `--version`; 20 s at most each). A tool not installed is left out. What a build records with its
 * verdicts.
 */
export function toolchainVersions(languages: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const tools = new Set<ToolRef>(['bwrap', ...languages.flatMap((l) => judgeLanguage(l).tools)]);
  for (const t of tools) {
    const path = findTool(t);
    if (path === undefined) continue;
    const r = spawnSync(path, [...(toolOf(t).version ?? ['--version'])], { encoding: 'utf8', timeout: 20000 });
    const line = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.split('\n').find((l) => l.trim() !== '');
    if (line !== undefined) out[typeof t === 'string' ? t : basename(path)] = line.trim();
  }
  return out;
}

/** What build prompts say of a language (its module's `prompt`; default its label, its id and a generic method rule). */
export function languagePrompt(id: string): LanguagePrompt {
  const l = findJudgeLanguage(id);
  return (
    l?.prompt ?? {
      name: l?.label ?? id,
      fence: id,
      functionalRule: "Write the starter code's method (same name and parameters); do not read input or print.",
    }
  );
}
