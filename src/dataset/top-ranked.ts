/**
 * MTEB v2 reranking candidates (`top_ranked`): one JSONL line per query, `{"query-id": ID,
 * "corpus-ids": [ID, ...]}`, the candidate list in first-stage order. Read beside a BEIR directory
 * (`top_ranked.jsonl`, `top_ranked/<split>.jsonl`, `.gz` too) or from any file.
 */
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { findJsonlFile, loadJsonlRecords } from './jsonl.js';

/** Query id -> candidate document ids, in the file's order. */
export type TopRanked = Map<string, string[]>;

/**
 * Finds a BEIR directory's candidate file: `top_ranked/<split>.jsonl[.gz]`, else `top_ranked.jsonl[.gz]`.
 * @returns its path, or undefined when there is none.
 */
export async function findTopRankedFile(dir: string, split = 'test'): Promise<string | undefined> {
  return (await findJsonlFile(join(dir, 'top_ranked'), split)) ?? (await findJsonlFile(dir, 'top_ranked'));
}

/**
 * Loads a `top_ranked` file. Each line needs a string (or number) `query-id` and an array of ids
 * `corpus-ids`; a query may appear once, an id once per list.
 * @throws CorebError `PARSE`/`VALIDATION` naming file, line and field.
 */
export async function loadTopRanked(file: string): Promise<TopRanked> {
  const out: TopRanked = new Map();
  for (const { line, value } of await loadJsonlRecords(file)) {
    const qid = value['query-id'];
    if ((typeof qid !== 'string' || qid === '') && typeof qid !== 'number') {
      throw new CorebError('VALIDATION', '`query-id` missing or not a string; a top_ranked line is {"query-id": ID, "corpus-ids": [ID, ...]}', {
        file,
        line,
        field: 'query-id',
      });
    }
    const ids = value['corpus-ids'];
    if (!Array.isArray(ids) || ids.some((d) => (typeof d !== 'string' || d === '') && typeof d !== 'number')) {
      throw new CorebError('VALIDATION', '`corpus-ids` must be an array of document ids', { file, line, field: 'corpus-ids' });
    }
    const q = String(qid);
    if (out.has(q)) throw new CorebError('VALIDATION', `query ${q} appears twice`, { file, line, field: 'query-id' });
    const list = ids.map(String);
    const seen = new Set<string>();
    for (const d of list) {
      if (seen.has(d))
        throw new CorebError('VALIDATION', `query ${q}: document ${d} appears twice in corpus-ids`, { file, line, field: 'corpus-ids' });
      seen.add(d);
    }
    out.set(q, list);
  }
  return out;
}
