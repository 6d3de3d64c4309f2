/**
 * A local export of a repository's issues (GitHub's API, `gh issue list --json number,title`): issue
 * number -> title, for repository benchmarks whose commit messages reference issues (`#N`).
 */
import { CorebError } from '../core/errors.js';
import { parseJsonl } from './jsonl.js';
import { loadTextFile } from './text-file.js';

/**
 * Issue number -> title from a JSON array or a JSONL file of objects with `number` and `title`.
 * @throws CorebError `PARSE` naming the file and the line (record) that is malformed or lacks them.
 */
export async function loadIssueTitles(file: string): Promise<Map<number, string>> {
  const text = (await loadTextFile(file)).text.trim();
  let records: Array<{ line: number; value: unknown }>;
  if (text.startsWith('[')) {
    let all: unknown;
    try {
      all = JSON.parse(text);
    } catch (e) {
      throw new CorebError('PARSE', `not JSON (${(e as Error).message})`, { file, cause: e });
    }
    records = (all as unknown[]).map((value, i) => ({ line: i + 1, value }));
  } else {
    const parsed = parseJsonl(text, file);
    const bad = parsed.issues.find((i) => i.severity === 'error');
    if (bad !== undefined) throw new CorebError('PARSE', bad.message, { file, ...(bad.line !== undefined ? { line: bad.line } : {}) });
    records = parsed.records;
  }
  const out = new Map<number, string>();
  for (const { line, value } of records) {
    const r = value as { number?: unknown; title?: unknown };
    if (typeof r?.number !== 'number' || typeof r.title !== 'string') {
      throw new CorebError('PARSE', `record ${line}: needs a number "number" and a string "title"`, {
        file,
        line,
        field: typeof r?.number !== 'number' ? 'number' : 'title',
      });
    }
    out.set(r.number, r.title);
  }
  return out;
}
