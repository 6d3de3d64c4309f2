/**
 * The review items of a build, read from its work folder only (`BUILD_DIR/work/*.jsonl`, the stage
 * outputs of `coreb build`): per problem the original and its rewrite with a word diff, the tests,
 * abbreviation, solutions with verdicts, queries and near-miss texts, the automatic checks, and the
 * reviewer's decisions so far (edits applied).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { compareCodePoints } from '../../core/ids.js';
import { loadLcbProblems } from '../../dataset/lcb.js';
import { HARD_NEGATIVE_STRATEGIES } from '../mini-authored.js';
import { nearMissScores, runReviewChecks, type ReviewCheck, type SampleCase } from './checks.js';
import { reviewStatus, type ReviewRecord, type ReviewState, type ReviewStatus } from './decisions.js';
import { diffWords, type DiffSegment } from './word-diff.js';

/** Longest test input or output sent to the page, in characters (longer ones are cut, marked `…`). */
const TEST_CHARS = 2000;
/** Most tests of each kind (public, private) sent to the page. */
const TESTS_SHOWN = 20;

/** The stage rows of a build as `coreb build` wrote them (wire names). */
export interface BuildWork {
  dir: string;
  /** Problem ids in order (code-point order, like the build). */
  ids: string[];
  originals: Map<string, { title: string; statement: string; starterCode: string; samples: SampleCase[] }>;
  rewrites: Map<string, { id: string; title?: string; statement?: string; starter_code?: string; io_changed?: boolean; failed?: string }>;
  tests: Map<
    string,
    {
      id: string;
      public_tests?: Array<{ input: string; output: string }>;
      private_tests?: Array<{ input: string; output: string }>;
      rewritten?: number;
      failed?: string;
    }
  >;
  abbreviations: Map<string, { id: string; abbreviated: string; fallback: boolean; words: number }>;
  solutions: Array<{ id: string; model: string; language: string; code?: string; failed?: string }>;
  verdicts: Map<string, { verdict: string; passed: boolean; tests_passed: number; tests_total: number }>;
  queries: Map<string, { id: string; queries: string[]; variants?: Array<{ type: string; language: string }>; failed?: string }>;
  negatives: Array<{ id: string; strategy: string; temperature: number; text?: string; failed?: string }>;
}

function readRows<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: T[] = [];
  lines.forEach((l, i) => {
    if (l.trim() === '') return;
    try {
      out.push(JSON.parse(l) as T);
    } catch (e) {
      // A torn last line of a killed stage is not an error (the build rewrites the file on rerun).
      if (i === lines.length - 1) return;
      throw new CorebError('PARSE', `malformed stage output (${(e as Error).message}); rerun that stage of coreb build`, {
        file,
        line: i + 1,
        cause: e,
      });
    }
  });
  return out;
}

/**
 * Reads a build's work folder. The originals come from `work/load.jsonl` (written by coreb build
 * since the review tool; older builds: `problemsFile`, default the manifest's
 * `source.problems_file`).
 * @throws CorebError `NOT_FOUND` when `dir/work` has no stage output, or the originals cannot be found
 */
export async function loadBuildWork(dir: string, problemsFile?: string): Promise<BuildWork> {
  const work = join(dir, 'work');
  const load = readRows<{ id: string; title: string; statement?: string; starter_code?: string; samples?: SampleCase[] }>(join(work, 'load.jsonl'));
  if (load.length === 0) {
    throw new CorebError('NOT_FOUND', 'not a coreb build folder: work/load.jsonl is missing or empty; give the --out folder of `coreb build`', {
      file: join(work, 'load.jsonl'),
    });
  }
  const originals: BuildWork['originals'] = new Map();
  if (load.every((r) => typeof r.statement === 'string')) {
    for (const r of load)
      originals.set(r.id, { title: r.title, statement: r.statement as string, starterCode: r.starter_code ?? '', samples: r.samples ?? [] });
  } else {
    let file = problemsFile;
    const manifest = join(dir, 'manifest.json');
    if (file === undefined && existsSync(manifest)) {
      file = (JSON.parse(readFileSync(manifest, 'utf8')) as { source?: { problems_file?: string } }).source?.problems_file;
    }
    if (file === undefined || !existsSync(file)) {
      throw new CorebError(
        'NOT_FOUND',
        `this build's work/load.jsonl does not hold the original statements (built before coreb review); give the source problems with --problems FILE${file !== undefined ? ` (${file} does not exist)` : ''}`,
        { file: join(work, 'load.jsonl') },
      );
    }
    const all = await loadLcbProblems(file);
    for (const r of load) {
      const p = all.get(r.id);
      if (p === undefined) throw new CorebError('NOT_FOUND', `problem \`${r.id}\` of the build is not in ${file}`, { file });
      originals.set(r.id, {
        title: p.title,
        statement: p.content,
        starterCode: p.starterCode ?? '',
        samples: p.publicTests.map((t) => ({ input: t.input, output: t.outputs[0] ?? '' })),
      });
    }
  }
  const byId = <T extends { id: string }>(rows: T[]): Map<string, T> => new Map(rows.map((r) => [r.id, r]));
  const verdicts: BuildWork['verdicts'] = new Map();
  for (const r of readRows<{ id: string; verdict: string; passed: boolean; tests_passed: number; tests_total: number }>(
    join(work, 'execute.jsonl'),
  )) {
    verdicts.set(r.id, r);
  }
  return {
    dir,
    ids: load.map((r) => r.id).sort(compareCodePoints),
    originals,
    rewrites: byId(readRows(join(work, 'rewrite.jsonl'))),
    tests: byId(readRows(join(work, 'tests.jsonl'))),
    abbreviations: byId(readRows(join(work, 'abbreviate.jsonl'))),
    solutions: readRows(join(work, 'solve.jsonl')),
    verdicts,
    queries: byId(readRows(join(work, 'queries.jsonl'))),
    negatives: readRows(join(work, 'negatives.jsonl')),
  };
}

/** One test case as shown (cut to {@link TEST_CHARS}). */
export interface ShownTest {
  input: string;
  output: string;
}

/** One problem as the review page shows it (texts with the reviewer's edits applied). */
export interface ReviewItem {
  id: string;
  status: ReviewStatus;
  original: { title: string; statement: string; starterCode: string };
  rewrite?: { title: string; statement: string; starterCode: string; ioChanged: boolean };
  /** Why the rewrite (or its test adaptation) failed; the build leaves the problem out. */
  failed?: string;
  /** Word diff original statement → rewritten statement. */
  diff?: DiffSegment[];
  tests?: { rewritten: number; publicTotal: number; privateTotal: number; public: ShownTest[]; private: ShownTest[] };
  abbreviation?: { text: string; words: number; fallback: boolean };
  solutions: Array<{
    model: string;
    language: string;
    code?: string;
    failed?: string;
    verdict?: string;
    passed?: boolean;
    testsPassed?: number;
    testsTotal?: number;
  }>;
  /** `kind`: the query type and language it was asked for (`description_search · python`), when the build recorded it. */
  queries?: { texts: Array<{ text: string; rejected: boolean; kind?: string }>; failed?: string };
  negatives: Array<{ strategy: string; temperature?: number; text?: string; failed?: string; similarity?: number; verdict?: string }>;
  checks: ReviewCheck[];
  /** The item ids edited so far (`PID`, `PID/abbreviation`, …). */
  edited: string[];
  /** The last decision per item id of this problem. */
  decisions: Record<string, ReviewRecord>;
}

const cut = (s: string): string => (s.length > TEST_CHARS ? s.slice(0, TEST_CHARS) + '…' : s);

/** The current text of an item (the build's, or the last edit), or `undefined` when the item does not exist. */
export function currentText(
  work: BuildWork,
  state: ReviewState,
  ref: { problem: string; part: string; index?: number; strategy?: string },
): string | undefined {
  const p = state.problems.get(ref.problem);
  const rw = work.rewrites.get(ref.problem);
  switch (ref.part) {
    case 'statement':
      return rw?.failed === undefined ? (p?.statement ?? rw?.statement) : undefined;
    case 'title':
      return rw?.failed === undefined ? (p?.title ?? rw?.title) : undefined;
    case 'abbreviation':
      return p?.abbreviation ?? work.abbreviations.get(ref.problem)?.abbreviated;
    case 'query': {
      const q = work.queries.get(ref.problem)?.queries[ref.index as number];
      if (q === undefined) return undefined;
      return p?.queries.get(ref.index as number) ?? q;
    }
    case 'negative': {
      const n = work.negatives.find((x) => x.id === ref.problem && x.strategy === ref.strategy);
      if (n?.text === undefined) return undefined;
      return p?.negatives.get(ref.strategy as string) ?? n.text;
    }
    default:
      return undefined;
  }
}

/** The review items of a build, in problem-id order. */
export function createReviewItems(work: BuildWork, state: ReviewState): ReviewItem[] {
  return work.ids.map((id) => {
    const o = work.originals.get(id) as { title: string; statement: string; starterCode: string; samples: SampleCase[] };
    const rv = state.problems.get(id);
    const rw = work.rewrites.get(id);
    const tr = work.tests.get(id);
    const item: ReviewItem = {
      id,
      status: reviewStatus(state, id),
      original: { title: o.title, statement: o.statement, starterCode: o.starterCode },
      solutions: [],
      negatives: [],
      checks: [],
      edited: rv === undefined ? [] : [...rv.items.values()].filter((r) => r.decision === 'edit').map((r) => r.item),
      decisions: rv === undefined ? {} : Object.fromEntries(rv.items),
    };
    if (rw?.failed !== undefined) item.failed = `rewrite failed: ${rw.failed}`;
    else if (tr?.failed !== undefined) item.failed = `test adaptation failed: ${tr.failed}`;
    if (rw !== undefined && rw.failed === undefined) {
      item.rewrite = {
        title: rv?.title ?? rw.title ?? '',
        statement: rv?.statement ?? rw.statement ?? '',
        starterCode: rw.starter_code ?? '',
        ioChanged: rw.io_changed === true,
      };
      item.diff = diffWords(o.statement, item.rewrite.statement);
    }
    if (tr !== undefined && tr.failed === undefined) {
      const pub = tr.public_tests ?? [];
      const priv = tr.private_tests ?? [];
      const show = (ts: Array<{ input: string; output: string }>): ShownTest[] =>
        ts.slice(0, TESTS_SHOWN).map((t) => ({ input: cut(t.input), output: cut(t.output) }));
      item.tests = { rewritten: tr.rewritten ?? 0, publicTotal: pub.length, privateTotal: priv.length, public: show(pub), private: show(priv) };
    }
    const ab = work.abbreviations.get(id);
    if (ab !== undefined) {
      const text = rv?.abbreviation ?? ab.abbreviated;
      item.abbreviation = { text, words: text.split(/\s+/).filter(Boolean).length, fallback: ab.fallback };
    }
    for (const s of work.solutions.filter((x) => x.id === id)) {
      const v = work.verdicts.get(`${s.id}/${s.model}/${s.language}`);
      const row: ReviewItem['solutions'][number] = { model: s.model, language: s.language };
      if (s.code !== undefined) row.code = s.code;
      if (s.failed !== undefined) row.failed = s.failed;
      if (v !== undefined && s.code !== undefined)
        Object.assign(row, { verdict: v.verdict, passed: v.passed, testsPassed: v.tests_passed, testsTotal: v.tests_total });
      item.solutions.push(row);
    }
    const q = work.queries.get(id);
    if (q !== undefined) {
      item.queries = {
        texts: q.queries.map((t, i) => {
          const e = rv?.queries.get(i);
          const v = q.variants?.[i];
          const row: { text: string; rejected: boolean; kind?: string } = { text: typeof e === 'string' ? e : t, rejected: e === null };
          if (v !== undefined) row.kind = `${v.type} · ${v.language}`;
          return row;
        }),
      };
      if (q.failed !== undefined) item.queries.failed = q.failed;
    }
    const negs = work.negatives.filter((n) => n.id === id);
    const negTexts = negs
      .filter((n) => n.text !== undefined)
      .map((n) => ({ strategy: n.strategy, text: rv?.negatives.get(n.strategy) ?? (n.text as string) }));
    const checked = {
      id,
      original: { title: o.title, statement: o.statement, samples: o.samples },
      rewrite: item.rewrite === undefined ? undefined : { title: item.rewrite.title, statement: item.rewrite.statement, samples: tr?.public_tests },
      abbreviation: item.abbreviation?.text,
      queries: item.queries?.texts.filter((t) => !t.rejected).map((t) => t.text),
      negatives: negs.length > 0 ? negTexts : undefined,
    };
    item.checks = runReviewChecks(checked);
    const scores = new Map(nearMissScores(checked).map((s) => [s.strategy, s]));
    for (const strategy of HARD_NEGATIVE_STRATEGIES) {
      const n = negs.find((x) => x.strategy === strategy);
      if (n === undefined) continue;
      const s = scores.get(strategy);
      const row: ReviewItem['negatives'][number] = { strategy, temperature: n.temperature };
      const t = negTexts.find((x) => x.strategy === strategy)?.text;
      if (t !== undefined) row.text = t;
      if (n.failed !== undefined) row.failed = n.failed;
      if (s !== undefined) Object.assign(row, { similarity: s.similarity, verdict: s.verdict });
      item.negatives.push(row);
    }
    return item;
  });
}
