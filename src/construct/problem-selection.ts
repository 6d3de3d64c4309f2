/**
 * Which problems a new release is built from: a contest-date window, and none a release before it
 * already holds, by id or by a near-duplicate statement. A release series stays contamination
 * limited only if no problem is published twice.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';
import { loadRelease } from '../dataset/release.js';
import { owningProblemId } from '../dataset/release-tasks.js';
import type { LcbProblem } from '../dataset/lcb.js';
import { jaccardSorted, shingleHashes } from '../search/shingles.js';

/**
 * When two statements are taken for the same problem (coreb's rule, measured on v202602: each
 * LiveCodeBench v5 original against the release's counterfactual rewrites). A rewrite renames every
 * entity but keeps the numbers of the constraints and samples, so the numbers decide: the Jaccard of
 * the statements' number 3-shingles at least {@link numberJaccard} (over at least
 * {@link minNumberShingles} of them), and some wording kept, the Jaccard of word 3-shingles at least
 * {@link wordJaccard}. On v202602 it pairs 134 of the 167 originals with their own rewrite and none
 * of the 27,722 other pairs. The Jaccard is computed exactly (no MinHash estimate: a few hundred
 * statements against a few hundred is cheap).
 */
export const NEAR_DUPLICATE_STATEMENTS = { shingle: 3, numberJaccard: 0.6, minNumberShingles: 6, wordJaccard: 0.1 } as const;

/** A statement's shingle sets (see {@link NEAR_DUPLICATE_STATEMENTS}). */
export interface StatementFingerprint {
  numbers: Uint32Array;
  words: Uint32Array;
}

/** The number and word 3-shingles of a statement. */
export function statementFingerprint(text: string): StatementFingerprint {
  const k = NEAR_DUPLICATE_STATEMENTS.shingle;
  return { numbers: shingleHashes(text, k, /\d+/g), words: shingleHashes(text, k) };
}

/** True when two statements are the same problem by {@link NEAR_DUPLICATE_STATEMENTS}. */
export function sameStatement(a: StatementFingerprint, b: StatementFingerprint): boolean {
  const r = NEAR_DUPLICATE_STATEMENTS;
  if (a.numbers.length < r.minNumberShingles || b.numbers.length < r.minNumberShingles) return false;
  return jaccardSorted(a.numbers, b.numbers) >= r.numberJaccard && jaccardSorted(a.words, b.words) >= r.wordJaccard;
}

/** The problems of earlier releases (`--exclude-release`). */
export interface ExcludedProblems {
  /** Per directory given: how many problem ids and statements it holds. */
  sources: Array<{ dir: string; split: string; problems: number; statements: number }>;
  /** Problem ids (`lcb_<question_id>`) -> the first directory that holds it. */
  ids: Map<string, string>;
  /** The statements they were published with, for near-duplicates. */
  statements: Array<{ id: string; dir: string; fingerprint: StatementFingerprint }>;
}

/** `abc387_a` and `lcb_abc387_a` name the same problem. */
function problemKey(id: string): string {
  return id.startsWith('lcb_') ? id : `lcb_${id}`;
}

/**
 * Reads the problems of earlier releases: every CoREB release directory (or `coreb build` output)
 * given; ids from the corpora and queries (`meta.source_problem_id`; a near-miss text counts for
 * the problem it was written from), statements from the text corpus's problem descriptions (the
 * rows with an `abbreviated_text`) and, for a build, its `problems.jsonl` (the rewrites) and
 * `work/load.jsonl` (the originals).
 * @throws CorebError `VALIDATION` when a directory has none of the 8 tables or names no problem.
 */
export async function loadExcludedProblems(dirs: readonly string[]): Promise<ExcludedProblems> {
  const out: ExcludedProblems = { sources: [], ids: new Map(), statements: [] };
  for (const dir of dirs) {
    const { release, issues } = await loadRelease(dir);
    const missing = issues.find((i) => i.severity === 'error' && i.kind === 'missing-table');
    if (missing !== undefined)
      throw new CorebError('VALIDATION', `--exclude-release ${dir}: not a CoREB release (${missing.message})`, { file: dir });
    const ids = new Set<string>();
    const add = (meta: Record<string, unknown>): void => {
      const id = owningProblemId(meta.sourceProblemId, meta.originalProblemId);
      if (id !== undefined) ids.add(problemKey(id));
    };
    for (const c of release.codeCorpus) add(c.meta);
    for (const t of release.textCorpus) add(t.meta);
    for (const task of Object.values(release.tasks)) for (const q of task.queries) add(q.meta);
    let statements = 0;
    for (const t of release.textCorpus) {
      const id = t.meta.sourceProblemId;
      if (t.abbreviatedText == null || typeof id !== 'string') continue;
      out.statements.push({ id: problemKey(id), dir, fingerprint: statementFingerprint(t.text) });
      statements++;
    }
    const built = await readFile(join(dir, 'problems.jsonl'), 'utf8').catch(() => undefined);
    for (const line of built?.split('\n') ?? []) {
      if (line.trim() === '') continue;
      const p = JSON.parse(line) as { question_id?: unknown; question_content?: unknown };
      if (typeof p.question_id !== 'string' || typeof p.question_content !== 'string') continue;
      ids.add(problemKey(p.question_id));
      out.statements.push({ id: problemKey(p.question_id), dir, fingerprint: statementFingerprint(p.question_content) });
      statements++;
    }
    // A build keeps the originals it was made from (work/load.jsonl): the closest statements there are.
    const originals = await readFile(join(dir, 'work', 'load.jsonl'), 'utf8').catch(() => undefined);
    for (const line of originals?.split('\n') ?? []) {
      if (line.trim() === '') continue;
      const p = JSON.parse(line) as { id?: unknown; statement?: unknown };
      if (typeof p.id !== 'string' || typeof p.statement !== 'string') continue;
      out.statements.push({ id: problemKey(p.id), dir, fingerprint: statementFingerprint(p.statement) });
      statements++;
    }
    if (ids.size === 0) {
      throw new CorebError('VALIDATION', `--exclude-release ${dir}: the release names no problems (meta.source_problem_id)`, { file: dir });
    }
    for (const id of ids) if (!out.ids.has(id)) out.ids.set(id, dir);
    out.sources.push({ dir, split: release.split, problems: ids.size, statements });
  }
  return out;
}

/** What to build from: a contest-date window and earlier releases to leave out. */
export interface ProblemSelection {
  /** Earliest contest date kept (ISO date; inclusive). Default: no bound. */
  from?: string;
  /** Latest contest date kept (ISO date; inclusive, the whole day). Default: no bound. */
  to?: string;
  /** Problems of earlier releases (see {@link loadExcludedProblems}). */
  exclude?: ExcludedProblems;
}

/** A problem left out, and why. */
export interface DroppedProblem {
  id: string;
  /** `before --from`, `after --to`, `no contest_date`, `in <dir>`, `near-duplicate of <id> in <dir>`. */
  reason: string;
}

/** A day as `YYYY-MM-DD` from an ISO date or date-time. */
function day(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().slice(0, 10);
}

/** Checks a `--from` / `--to` value. @throws CorebError `USAGE` when it is not a date. */
export function parseSelectionDate(option: string, value: string): string {
  if (Number.isNaN(Date.parse(value))) throw new CorebError('USAGE', `${option} must be an ISO date (YYYY-MM-DD), got \`${value}\``);
  return day(value);
}

/**
 * Applies a selection to problems (in their order): the contest-date window first, then the ids and
 * statements of earlier releases. Pure.
 */
export function selectProblems(problems: readonly LcbProblem[], selection: ProblemSelection): { kept: LcbProblem[]; dropped: DroppedProblem[] } {
  const kept: LcbProblem[] = [];
  const dropped: DroppedProblem[] = [];
  const from = selection.from === undefined ? undefined : day(selection.from);
  const to = selection.to === undefined ? undefined : day(selection.to);
  const ex = selection.exclude;
  for (const p of problems) {
    const id = problemKey(p.questionId);
    if (from !== undefined || to !== undefined) {
      if (p.contestDate === undefined || Number.isNaN(Date.parse(p.contestDate))) {
        dropped.push({ id, reason: 'no contest_date (a date window was asked for)' });
        continue;
      }
      const d = day(p.contestDate);
      if (from !== undefined && d < from) {
        dropped.push({ id, reason: `contest ${d} before --from ${from}` });
        continue;
      }
      if (to !== undefined && d > to) {
        dropped.push({ id, reason: `contest ${d} after --to ${to}` });
        continue;
      }
    }
    if (ex !== undefined) {
      const holder = ex.ids.get(id);
      if (holder !== undefined) {
        dropped.push({ id, reason: `already in ${holder}` });
        continue;
      }
      const fp = statementFingerprint(p.content);
      const twin = ex.statements.find((s) => sameStatement(fp, s.fingerprint));
      if (twin !== undefined) {
        dropped.push({ id, reason: `near-duplicate statement of ${twin.id} in ${twin.dir}` });
        continue;
      }
    }
    kept.push(p);
  }
  return { kept, dropped };
}
