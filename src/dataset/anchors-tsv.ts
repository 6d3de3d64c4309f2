/**
 * The anchors TSV of `coreb metrics --anchors`: one `qid<TAB>anchor_docid` per line, the code-to-code
 * anchor that a query's own ranking must leave out.
 */
import { CorebError } from '../core/errors.js';
import { loadTextFile, splitLines } from './text-file.js';

/**
 * Parses an anchors TSV: one `qid<TAB>anchor_docid` per line (blank lines and a `qid`/`query_id`
 * header skipped; `\r` tolerated).
 * @throws CorebError `PARSE` for a line without two fields, `VALIDATION` for a repeated qid.
 */
export function parseAnchorsTsv(text: string, file = '<input>'): Map<string, string> {
  const out = new Map<string, string>();
  const lines = splitLines(text.replace(/^\uFEFF/, ''));
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '') continue;
    const f = l.split('\t');
    if (f.length < 2 || f[0] === '' || f[1] === '') {
      throw new CorebError('PARSE', 'expected `qid<TAB>anchor_docid`', { file, line: i + 1 });
    }
    if (i === 0 && /^(qid|query_id|query-id)$/i.test(f[0])) continue;
    if (out.has(f[0])) {
      throw new CorebError('VALIDATION', `query \`${f[0]}\` has a second anchor; give one anchor per query`, { file, line: i + 1 });
    }
    out.set(f[0], f[1]);
  }
  return out;
}

/** Reads an anchors TSV file (plain or `.gz`). See {@link parseAnchorsTsv}. */
export async function loadAnchorsTsv(path: string): Promise<Map<string, string>> {
  return parseAnchorsTsv((await loadTextFile(path)).text, path);
}
