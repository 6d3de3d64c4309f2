/**
 * Prompt templates of `coreb build`: a folder of `<stage>.md` (user message) and optional
 * `<stage>.system.md` files, rendered with `{{name}}` and `{{#if name}}…{{/if}}`. The default set
 * ships with the package (`prompts/build/`); the manifest records each file's SHA-256.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { packagePath } from '../../core/package-files.js';
import type { ChatMessage } from '../../core/chat.js';
import { CorebError } from '../../core/errors.js';
import { renderTemplate } from '../../providers/chat/template.js';

export { renderTemplate };

/** Stages that talk to a model, plus the contract-retry turn. */
export const PROMPT_NAMES = ['rewrite', 'tests', 'abbreviate', 'solve', 'queries', 'negatives', 'retry'] as const;
/** A template name. */
export type PromptName = (typeof PROMPT_NAMES)[number];

/** The folder of the default prompt set shipped with coreb. */
export function defaultPromptsDir(): string {
  return packagePath('prompts', 'build') + sep;
}

/** A loaded template set. */
export interface PromptSet {
  /** The folder read. */
  dir: string;
  /** True for the shipped default set. */
  isDefault: boolean;
  templates: Record<PromptName, { system?: string; user: string }>;
  /** File name -> SHA-256 hex of its bytes. */
  hashes: Record<string, string>;
}

/**
 * Loads `dir` (default: the shipped set). Every `<name>.md` of {@link PROMPT_NAMES} must exist.
 * @throws CorebError `NOT_FOUND` naming the missing file.
 */
export function loadPromptSet(dir?: string): PromptSet {
  const d = dir ?? defaultPromptsDir();
  const templates = {} as PromptSet['templates'];
  const hashes: Record<string, string> = {};
  const read = (file: string): string => {
    const text = readFileSync(join(d, file), 'utf8');
    hashes[file] = createHash('sha256').update(text).digest('hex');
    return text;
  };
  for (const name of PROMPT_NAMES) {
    const user = join(d, `${name}.md`);
    if (!existsSync(user)) {
      throw new CorebError(
        'NOT_FOUND',
        `prompt template \`${name}.md\` missing; a prompt set needs ${PROMPT_NAMES.map((n) => n + '.md').join(', ')}`,
        { file: user },
      );
    }
    templates[name] = { user: read(`${name}.md`) };
    if (existsSync(join(d, `${name}.system.md`))) templates[name].system = read(`${name}.system.md`);
  }
  return { dir: d, isDefault: dir === undefined, templates, hashes };
}

/** The messages of a stage's request. */
export function renderMessages(set: PromptSet, name: PromptName, vars: Readonly<Record<string, string>>): ChatMessage[] {
  const t = set.templates[name];
  const out: ChatMessage[] = [];
  if (t.system !== undefined) out.push({ role: 'system', content: renderTemplate(t.system, vars, `${name}.system.md`) });
  out.push({ role: 'user', content: renderTemplate(t.user, vars, `${name}.md`) });
  return out;
}
