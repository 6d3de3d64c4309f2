/**
 * Reads a TREC run file (`qid Q0 docid rank score tag`, plain or gzip) for `run:FILE` retrievers:
 * rank and tag columns are ignored as trec_eval ignores them; duplicates and NaN are errors.
 */
import type { Run } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { loadTextFile, splitLines } from '../dataset/index.js';

/**
 * Loads a TREC run. Blank lines are skipped; scores are read like C `atof` (leading number,
 * trailing garbage dropped; `inf` accepted).
 * @throws CorebError `PARSE` for a line with fewer than 5 columns or no numeric score,
 *   `VALIDATION` for NaN scores and duplicate (qid, docid) pairs, each with file:line.
 */
export async function loadTrecRun(file: string): Promise<Run> {
  const tf = await loadTextFile(file);
  const run: Run = new Map();
  const lines = splitLines(tf.text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const cols = line.split(/\s+/);
    if (cols.length < 5) {
      throw new CorebError('PARSE', `expected \`qid Q0 docid rank score [tag]\`, got ${cols.length} column(s)`, { file, line: i + 1 });
    }
    const [qid, , docid, , scoreText] = cols;
    const score = parseAtof(scoreText);
    if (score === undefined) throw new CorebError('PARSE', `score \`${scoreText}\` is not a number`, { file, line: i + 1, field: 'score' });
    if (Number.isNaN(score)) throw new CorebError('VALIDATION', 'NaN score; scores must be numbers', { file, line: i + 1, field: 'score' });
    let m = run.get(qid);
    if (m === undefined) run.set(qid, (m = new Map()));
    if (m.has(docid)) throw new CorebError('VALIDATION', `duplicate document ${docid} for query ${qid}`, { file, line: i + 1 });
    m.set(docid, score);
  }
  return run;
}

const ATOF = /^[+-]?(?:inf(?:inity)?|nan|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/i;

/** C `atof` on one token: the longest numeric prefix, or undefined when there is none. */
export function parseAtof(token: string): number | undefined {
  const m = ATOF.exec(token);
  if (m === null) return undefined;
  const t = m[0].toLowerCase().replace(/^\+/, '');
  if (t.endsWith('inf') || t.endsWith('infinity')) return t.startsWith('-') ? -Infinity : Infinity;
  if (t.endsWith('nan')) return NaN;
  return Number(t);
}
