/**
 * Named embedder entries in a config file (`coreb.config.json`, or an ES module `.js` / `.mjs`
 * / `.ts` exporting the same object as default): `{ "embedders": { "<name>": { "provider": ...,
 * "model": ..., ... } } }`. A spec that names an entry resolves to its config.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CorebError } from '../core/errors.js';
import { normalizeEmbedderConfig } from './config.js';
import type { EmbedderConfig } from './types.js';

/** File names looked for in the working directory, in order, when none is given. */
export const CONFIG_FILE_NAMES = ['coreb.config.json', 'coreb.config.mjs', 'coreb.config.js', 'coreb.config.ts'] as const;

/** Finds the config file: `file` if given (must exist), else the first of {@link CONFIG_FILE_NAMES} in `cwd`. */
export function findConfigFile(cwd: string, file?: string): string | undefined {
  if (file !== undefined) {
    const p = resolve(cwd, file);
    if (!existsSync(p)) {
      throw new CorebError(
        'NOT_FOUND',
        `config file ${file} does not exist; give an existing file, or omit it to use ${CONFIG_FILE_NAMES.join(' / ')} from ${cwd} when present`,
      );
    }
    return p;
  }
  return CONFIG_FILE_NAMES.map((n) => resolve(cwd, n)).find((p) => existsSync(p));
}

/** Loads every embedder entry of a config file, checked. */
export async function loadEmbedderConfigs(path: string): Promise<Map<string, EmbedderConfig>> {
  let raw: unknown;
  if (path.endsWith('.json')) {
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new CorebError('PARSE', `not valid JSON: ${(e as Error).message}`, { file: path, cause: e });
    }
  } else {
    try {
      raw = ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
    } catch (e) {
      throw new CorebError(
        'CONFIG',
        `cannot import: ${(e as Error).message}` +
          (path.endsWith('.ts') ? '; Node 20 cannot import .ts directly: use coreb.config.json or .mjs, or run under tsx' : ''),
        { file: path, cause: e },
      );
    }
  }
  const embedders = (raw as { embedders?: unknown } | null)?.embedders;
  const out = new Map<string, EmbedderConfig>();
  if (embedders === undefined) return out;
  if (typeof embedders !== 'object' || embedders === null || Array.isArray(embedders)) {
    throw new CorebError('CONFIG', 'must be an object of named entries ({ "<name>": { "provider": ..., "model": ... } })', {
      file: path,
      field: 'embedders',
    });
  }
  for (const [name, entry] of Object.entries(embedders as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new CorebError('CONFIG', 'must be an object with at least `provider` and `model`', { file: path, field: `embedders.${name}` });
    }
    out.set(name, normalizeEmbedderConfig(entry as Record<string, unknown>, `${path}: embedders.${name}`));
  }
  return out;
}
