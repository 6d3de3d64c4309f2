/**
 * Prompt templates for chat models: `{{name}}` values and `{{#if name}}…{{/if}}` blocks, the one
 * syntax of coreb's prompt files (the release build's and query expansion's). Pure.
 */
import { CorebError } from '../../core/errors.js';

/**
 * Renders `template`: `{{#if name}}body{{/if}}` keeps body when `vars[name]` is non-empty (no
 * nesting), then `{{name}}` is replaced by its value. Trailing whitespace of the result is trimmed.
 * @throws CorebError `CONFIG` for a name `vars` lacks (names the template).
 */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>, what: string): string {
  const value = (name: string): string => {
    if (!(name in vars)) {
      throw new CorebError('CONFIG', `prompt template ${what}: unknown variable \`${name}\`; known: ${Object.keys(vars).join(', ')}`);
    }
    return vars[name];
  };
  const withIfs = template.replace(/\{\{#if\s+(\w+)\s*\}\}\n?([\s\S]*?)\{\{\/if\}\}\n?/g, (_, name: string, body: string) =>
    value(name).trim() !== '' ? body : '',
  );
  return withIfs.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => value(name)).trimEnd();
}
