/**
 * Writing TREC text: runs (`qid Q0 docid rank score tag`) and qrels (`qid 0 docid rel`), rendered
 * to a string or saved atomically (gzip for a `.gz` name).
 */
import type { Qrels, Run } from '../core/dataset.js';
import { saveFileAtomic } from './atomic-write.js';

/**
 * Renders a run as TREC text: per query, docs by descending score with 1-based ranks
 * (`qid Q0 docid rank score tag`). Scores are written with full precision (shortest round-trip).
 * @param tag - run tag, default `coreb`.
 */
export function renderTrecRun(run: Run, tag = 'coreb'): string {
  const parts: string[] = [];
  for (const [qid, m] of run) {
    const entries = [...m].sort((a, b) => b[1] - a[1]);
    let rank = 1;
    for (const [doc, score] of entries) parts.push(`${qid} Q0 ${doc} ${rank++} ${score} ${tag}\n`);
  }
  return parts.join('');
}

/** Renders qrels as TREC text (`qid 0 docid rel`). */
export function renderTrecQrels(qrels: Qrels): string {
  const parts: string[] = [];
  for (const [qid, m] of qrels) for (const [doc, rel] of m) parts.push(`${qid} 0 ${doc} ${rel}\n`);
  return parts.join('');
}

/** Writes a run atomically as TREC text (gzip when `path` ends in `.gz`). */
export async function saveTrecRun(path: string, run: Run, tag = 'coreb'): Promise<void> {
  await saveFileAtomic(path, renderTrecRun(run, tag));
}

/** Writes qrels atomically as TREC text; gzip when `path` ends in `.gz`. */
export async function saveTrecQrels(path: string, qrels: Qrels): Promise<void> {
  await saveFileAtomic(path, renderTrecQrels(qrels));
}
