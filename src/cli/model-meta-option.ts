/**
 * `--model-meta FILE` of `coreb eval` and `coreb leaderboard`: model metadata by row name or model
 * id (see core/model-meta.ts for the format).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CorebError } from '../core/errors.js';
import { parseModelMetaFile, type GivenModelMeta } from '../core/model-meta.js';

/**
 * Reads a `--model-meta FILE` relative to `cwd`.
 * @throws CorebError `NOT_FOUND` / `IO` for an unreadable file, `PARSE` / `VALIDATION` naming the field.
 */
export async function readModelMetaOption(cwd: string, path: string, warn: (message: string) => void = () => {}): Promise<GivenModelMeta> {
  const file = resolve(cwd, path);
  return { file: path, entries: parseModelMetaFile(await readOptionFile(file, '--model-meta'), file, (m) => warn(`--model-meta ${m}`)) };
}

/**
 * The text of a file an option names.
 * @throws CorebError `NOT_FOUND` (no such file) or `IO`, naming the option and the file.
 */
export async function readOptionFile(file: string, option: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new CorebError((e as NodeJS.ErrnoException).code === 'ENOENT' ? 'NOT_FOUND' : 'IO', `cannot read ${option}: ${(e as Error).message}`, {
      file,
    });
  }
}
