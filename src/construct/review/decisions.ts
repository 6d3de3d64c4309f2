/**
 * Review decisions of a build (`BUILD_DIR/review.jsonl`): what `coreb review` appends when a
 * reviewer approves, rejects or edits an item, and what the build's release stage reads to leave
 * rejected problems out and use edited texts, without asking any model again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { CorebError } from '../../core/errors.js';

/** The decisions a reviewer can make. */
export const REVIEW_DECISIONS = ['approve', 'reject', 'edit'] as const;
/** A decision. */
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/** The decisions file of a build. */
export const REVIEW_FILE = 'review.jsonl';

/** Longest edited text accepted, in characters (default cap of one statement). */
export const MAX_EDIT_CHARS = 100_000;

/**
 * What a decision is about. Item ids: `PID` (the problem; an edit replaces its rewritten
 * statement), `PID/title`, `PID/abbreviation`, `PID/queries/N` (N from 1) and
 * `PID/negatives/STRATEGY`.
 */
export interface ReviewItemRef {
  problem: string;
  part: 'statement' | 'title' | 'abbreviation' | 'query' | 'negative';
  /** 0-based query index (`part` = `query`). */
  index?: number;
  /** Near-miss strategy (`part` = `negative`). */
  strategy?: string;
}

/** A decision as posted by the page: `{item, decision, text?}`. */
export interface ReviewDecisionInput {
  item: string;
  decision: ReviewDecision;
  /** The new text, required for `edit`. */
  text?: string;
}

/** One line of review.jsonl. */
export interface ReviewRecord {
  item: string;
  decision: ReviewDecision;
  /** The reviewer (`$USER` or `--reviewer`). */
  who: string;
  /** ISO 8601 time of the decision. */
  when: string;
  /** For edits: the text before (the build's, or the previous edit) and after. */
  before?: string;
  after?: string;
}

const PROBLEM_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Parses an item id (see {@link ReviewItemRef}).
 * @throws CorebError `VALIDATION` naming what a valid id looks like
 */
export function parseReviewItem(item: string): ReviewItemRef {
  const bad = (why: string): CorebError =>
    new CorebError(
      'VALIDATION',
      `item \`${item.length > 80 ? item.slice(0, 80) + '…' : item}\` ${why}; expected PID, PID/title, PID/abbreviation, PID/queries/N or PID/negatives/STRATEGY`,
      { field: 'item' },
    );
  const parts = item.split('/');
  if (!PROBLEM_ID.test(parts[0])) throw bad('does not start with a problem id (letters, digits, _ . -)');
  const problem = parts[0];
  if (parts.length === 1) return { problem, part: 'statement' };
  if (parts.length === 2 && parts[1] === 'title') return { problem, part: 'title' };
  if (parts.length === 2 && parts[1] === 'abbreviation') return { problem, part: 'abbreviation' };
  if (parts.length === 3 && parts[1] === 'queries' && /^[1-9]\d{0,3}$/.test(parts[2])) return { problem, part: 'query', index: Number(parts[2]) - 1 };
  if (parts.length === 3 && parts[1] === 'negatives' && /^[a-z_]{1,64}$/.test(parts[2])) return { problem, part: 'negative', strategy: parts[2] };
  throw bad('is not a known item');
}

/**
 * Checks a posted decision body: an object with `item` (string), `decision` (approve, reject or
 * edit) and, for edits only, `text` (non-empty, at most {@link MAX_EDIT_CHARS} characters).
 * Only the problem and its queries can be rejected (a problem needs its abbreviation and four
 * near-miss texts: reject the problem instead).
 * @throws CorebError `VALIDATION` with a message naming the field and what is expected
 */
export function validateReviewDecision(body: unknown): ReviewDecisionInput & { ref: ReviewItemRef } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new CorebError('VALIDATION', 'the body must be a JSON object {"item", "decision", "text"?}');
  }
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !['item', 'decision', 'text'].includes(k));
  if (unknown.length > 0)
    throw new CorebError('VALIDATION', `unknown key \`${unknown[0]}\`; valid keys: item, decision, text`, { field: unknown[0] });
  if (typeof b.item !== 'string' || b.item === '')
    throw new CorebError('VALIDATION', 'must be a non-empty string (a problem id such as abc387_a)', { field: 'item' });
  if (typeof b.decision !== 'string' || !(REVIEW_DECISIONS as readonly string[]).includes(b.decision)) {
    throw new CorebError('VALIDATION', `must be one of ${REVIEW_DECISIONS.join(', ')}`, { field: 'decision' });
  }
  const decision = b.decision as ReviewDecision;
  const ref = parseReviewItem(b.item);
  if (decision === 'edit') {
    if (typeof b.text !== 'string' || b.text.trim() === '')
      throw new CorebError('VALIDATION', 'an edit needs the new text (a non-empty string)', { field: 'text' });
    if (b.text.length > MAX_EDIT_CHARS)
      throw new CorebError('VALIDATION', `is ${b.text.length} characters; at most ${MAX_EDIT_CHARS}`, { field: 'text' });
    if (ref.part === 'title' && b.text.includes('\n')) throw new CorebError('VALIDATION', 'a title is one line', { field: 'text' });
  } else if (b.text !== undefined) {
    throw new CorebError('VALIDATION', `only an edit carries a text (decision is ${decision})`, { field: 'text' });
  }
  if (decision === 'reject' && ref.part !== 'statement' && ref.part !== 'query') {
    throw new CorebError(
      'VALIDATION',
      `a ${ref.part} cannot be rejected on its own (the release needs it); reject the problem \`${ref.problem}\` instead`,
      {
        field: 'decision',
      },
    );
  }
  const out: ReviewDecisionInput & { ref: ReviewItemRef } = { item: b.item, decision, ref };
  if (decision === 'edit') out.text = (b.text as string).replace(/\r\n/g, '\n');
  return out;
}

/**
 * Reads review.jsonl. A last line without its newline (a write cut by a crash) is ignored; any
 * other malformed line is an error naming the file and line.
 * @returns the records in file order; none when the file does not exist
 */
export function loadReviewDecisions(file: string): ReviewRecord[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const complete = text.endsWith('\n') ? lines.slice(0, -1) : lines.slice(0, -1);
  const out: ReviewRecord[] = [];
  complete.forEach((l, i) => {
    if (l.trim() === '') return;
    let r: unknown;
    try {
      r = JSON.parse(l);
    } catch (e) {
      throw new CorebError('PARSE', `not JSON (${(e as Error).message}); every line is one decision object`, { file, line: i + 1, cause: e });
    }
    const o = r as Record<string, unknown>;
    if (
      typeof o !== 'object' ||
      o === null ||
      typeof o.item !== 'string' ||
      !(REVIEW_DECISIONS as readonly string[]).includes(o.decision as string)
    ) {
      throw new CorebError('VALIDATION', 'expected {"item": string, "decision": "approve"|"reject"|"edit", ...}', { file, line: i + 1 });
    }
    if (o.decision === 'edit' && typeof o.after !== 'string')
      throw new CorebError('VALIDATION', 'an edit needs `after` (the new text)', { file, line: i + 1, field: 'after' });
    out.push(o as unknown as ReviewRecord);
  });
  return out;
}

/**
 * Appends one decision to review.jsonl as one complete line: a single `write` on a file opened
 * with O_APPEND, then `fsync`, so concurrent or crashed writers never interleave or leave half a
 * decision before a later one. A torn last line left by a crash is cut off first.
 */
export async function appendReviewDecision(file: string, record: ReviewRecord): Promise<void> {
  const line = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(file, 'a+');
    const { size } = await fh.stat();
    if (size > 0) {
      const tailLen = Math.min(size, 1 << 20);
      const tail = Buffer.alloc(tailLen);
      await fh.read(tail, 0, tailLen, size - tailLen);
      if (tail[tailLen - 1] !== 0x0a) {
        const nl = tail.lastIndexOf(0x0a);
        await fh.truncate(nl < 0 ? size - tailLen : size - tailLen + nl + 1);
      }
    }
    const { bytesWritten } = await fh.write(line, 0, line.length);
    if (bytesWritten !== line.length) throw new Error(`short write (${bytesWritten} of ${line.length} bytes)`);
    await fh.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new CorebError('IO', `cannot append the decision (${code}${code === 'ENOSPC' ? ': no space left on the device' : ''})`, { file, cause: e });
  } finally {
    await fh?.close();
  }
}

/** The review of one problem after folding its decisions (the last decision per item wins). */
export interface ProblemReview {
  /** The problem's own status: its last approve/reject/edit, or none. */
  decision?: ReviewDecision;
  title?: string;
  statement?: string;
  abbreviation?: string;
  /** Edited (string) or rejected (null) queries by 0-based index. */
  queries: Map<number, string | null>;
  /** Edited near-miss texts by strategy. */
  negatives: Map<string, string>;
  /** Items of this problem with a decision (for the page's progress). */
  items: Map<string, ReviewRecord>;
}

/** The review state of a build. */
export interface ReviewState {
  problems: Map<string, ProblemReview>;
  decisions: number;
}

/** Folds decisions in order into a {@link ReviewState}; records with unknown item ids are skipped. */
export function createReviewState(records: readonly ReviewRecord[]): ReviewState {
  const problems = new Map<string, ProblemReview>();
  for (const r of records) {
    let ref: ReviewItemRef;
    try {
      ref = parseReviewItem(r.item);
    } catch {
      continue;
    }
    let p = problems.get(ref.problem);
    if (p === undefined) {
      p = { queries: new Map(), negatives: new Map(), items: new Map() };
      problems.set(ref.problem, p);
    }
    p.items.set(r.item, r);
    const text = r.decision === 'edit' ? r.after : undefined;
    switch (ref.part) {
      case 'statement':
        p.decision = r.decision;
        if (text !== undefined) p.statement = text;
        break;
      case 'title':
        if (text !== undefined) p.title = text;
        break;
      case 'abbreviation':
        if (text !== undefined) p.abbreviation = text;
        break;
      case 'query':
        if (r.decision === 'reject') p.queries.set(ref.index as number, null);
        else if (text !== undefined) p.queries.set(ref.index as number, text);
        else if (p.queries.get(ref.index as number) === null) p.queries.delete(ref.index as number);
        break;
      case 'negative':
        if (text !== undefined) p.negatives.set(ref.strategy as string, text);
        break;
    }
  }
  return { problems, decisions: records.length };
}

/** Reads `BUILD_DIR/review.jsonl` into a state (empty when the file does not exist). */
export function loadReviewState(buildDir: string): ReviewState {
  return createReviewState(loadReviewDecisions(join(buildDir, REVIEW_FILE)));
}

/** A problem's review status: rejected, edited (any text edited), approved, or unreviewed. */
export type ReviewStatus = 'approved' | 'rejected' | 'edited' | 'unreviewed';

/** The status of one problem (see {@link ReviewStatus}; a rejection wins over edits). */
export function reviewStatus(state: ReviewState, problem: string): ReviewStatus {
  const p = state.problems.get(problem);
  if (p === undefined) return 'unreviewed';
  if (p.decision === 'reject') return 'rejected';
  const edited = p.title !== undefined || p.statement !== undefined || p.abbreviation !== undefined || p.queries.size > 0 || p.negatives.size > 0;
  if (edited || p.decision === 'edit') return 'edited';
  return p.decision === 'approve' ? 'approved' : 'unreviewed';
}

/** Counts of problem statuses over `problems` (the manifest's `review` block). */
export function summarizeReview(state: ReviewState, problems: readonly string[]): Record<ReviewStatus, number> & { decisions: number } {
  const out = { approved: 0, rejected: 0, edited: 0, unreviewed: 0, decisions: state.decisions };
  for (const p of problems) out[reviewStatus(state, p)]++;
  return out;
}

/**
 * Applies the edits of `state` to a build's stage rows, in place (the release stage calls it after
 * reading them): titles and statements of rewrites, abbreviations, queries (rejected ones removed),
 * near-miss texts. Rows are keyed by problem id; rejections are read with {@link reviewStatus}.
 */
export function applyReviewInPlace(
  state: ReviewState,
  rows: {
    rewrites: ReadonlyMap<string, { title?: string; statement?: string }>;
    abbreviations: ReadonlyMap<string, { abbreviated: string }>;
    /** `variants` (the build's per-query type and language), when present, stays aligned with `queries`. */
    queries: ReadonlyMap<string, { queries: string[]; variants?: unknown[] }>;
    negatives: ReadonlyArray<{ id: string; strategy: string; text?: string }>;
  },
): void {
  for (const [pid, p] of state.problems) {
    const rw = rows.rewrites.get(pid);
    if (rw !== undefined) {
      if (p.title !== undefined) rw.title = p.title;
      if (p.statement !== undefined) rw.statement = p.statement;
    }
    const ab = rows.abbreviations.get(pid);
    if (ab !== undefined && p.abbreviation !== undefined) ab.abbreviated = p.abbreviation;
    const q = rows.queries.get(pid);
    if (q !== undefined && p.queries.size > 0) {
      const kept = q.queries.map((_, i) => p.queries.get(i) !== null);
      if (q.variants !== undefined && q.variants.length === q.queries.length) q.variants = q.variants.filter((_, i) => kept[i]);
      q.queries = q.queries.map((text, i) => (p.queries.has(i) ? p.queries.get(i) : text)).filter((t): t is string => t !== null && t !== undefined);
    }
    for (const n of rows.negatives) {
      if (n.id === pid && n.text !== undefined && p.negatives.has(n.strategy)) n.text = p.negatives.get(n.strategy);
    }
  }
}
