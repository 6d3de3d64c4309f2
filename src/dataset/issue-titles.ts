/**
 * A local export of a repository's issues, for repository benchmarks whose commits close issues
 * (`Fixes #N`): what `gh issue list --state closed --json number,title,body,closedAt` and GitHub's
 * REST API (`GET /repos/OWNER/REPO/issues?state=closed`, every page) write. Pull requests, which
 * the REST API lists among issues (they carry `pull_request`), are left out.
 */
import { CorebError } from '../core/errors.js';
import { parseJsonl } from './jsonl.js';
import { loadTextFile } from './text-file.js';

/** One issue of an export. */
export interface IssueRecord {
  number: number;
  title: string;
  /** The description (empty when the export has none). */
  body: string;
  /** When it was closed (ISO 8601), when the export says (`closedAt` of gh, `closed_at` of the REST API). */
  closedAt?: string;
}

/**
 * Issue number -> issue from a JSON array (or several concatenated REST pages: an array of arrays)
 * or a JSONL file of objects with `number` and `title` (and optionally `body`, `closedAt` /
 * `closed_at`); pull requests are skipped.
 * @throws CorebError `PARSE` naming the file and the record that is malformed or lacks them.
 */
export async function loadIssues(file: string): Promise<Map<number, IssueRecord>> {
  const text = (await loadTextFile(file)).text.trim();
  let records: Array<{ line: number; value: unknown }>;
  if (text.startsWith('[')) {
    let all: unknown;
    try {
      all = JSON.parse(text);
    } catch (e) {
      throw new CorebError('PARSE', `not JSON (${(e as Error).message})`, { file, cause: e });
    }
    const flat = (all as unknown[]).flatMap((x) => (Array.isArray(x) ? x : [x]));
    records = flat.map((value, i) => ({ line: i + 1, value }));
  } else {
    const parsed = parseJsonl(text, file);
    const bad = parsed.issues.find((i) => i.severity === 'error');
    if (bad !== undefined) throw new CorebError('PARSE', bad.message, { file, ...(bad.line !== undefined ? { line: bad.line } : {}) });
    records = parsed.records;
  }
  const out = new Map<number, IssueRecord>();
  for (const { line, value } of records) {
    const r = value as { number?: unknown; title?: unknown; body?: unknown; closedAt?: unknown; closed_at?: unknown; pull_request?: unknown };
    if (typeof r?.number !== 'number' || typeof r.title !== 'string') {
      throw new CorebError('PARSE', `record ${line}: needs a number "number" and a string "title"`, {
        file,
        line,
        field: typeof r?.number !== 'number' ? 'number' : 'title',
      });
    }
    if (r.pull_request !== undefined && r.pull_request !== null) continue;
    const closedAt = typeof r.closedAt === 'string' ? r.closedAt : typeof r.closed_at === 'string' ? r.closed_at : undefined;
    out.set(r.number, {
      number: r.number,
      title: r.title,
      body: typeof r.body === 'string' ? r.body : '',
      ...(closedAt !== undefined ? { closedAt } : {}),
    });
  }
  return out;
}
