/**
 * The automatic checks `coreb review` shows beside each problem of a build: numbers and sample I/O
 * of the statement kept by the rewrite, the abbreviation's length, search queries leaking the
 * problem id or title, and near-miss texts too close to or too far from the original. Pure
 * functions over texts, so the page, the tests and any script agree.
 */
import { createTokenizer } from '../../search/tokenize.js';
import { wordCount } from '../../core/words.js';

/** Check names, in display order. */
export const REVIEW_CHECKS = ['numbers', 'samples', 'abbreviation', 'query_leaks', 'near_misses'] as const;
/** A check name. */
export type ReviewCheckName = (typeof REVIEW_CHECKS)[number];

/** The outcome of one check. */
export interface ReviewCheck {
  name: ReviewCheckName;
  ok: boolean;
  /** One line a reviewer reads ("2 numbers of the original missing: 100, 10^5"). */
  message: string;
}

/** Thresholds of the checks (defaults documented in docs/build.md, "Reviewing a build"). */
export interface ReviewCheckThresholds {
  /** Fewest words of an abbreviation (default 50, the paper's 50–150-word summary, §A.1). */
  abbreviationMinWords?: number;
  /** Most words of an abbreviation (default 150). */
  abbreviationMaxWords?: number;
  /**
   * A near-miss text at or above this cosine similarity to the original is "too close" (a
   * paraphrase, not a different problem); default 0.8 (1.8% of CoREB v202602's near-miss texts,
   * no pair of two different v202602 problems reaches it: their 99th percentile is 0.47).
   */
  nearMissTooClose?: number;
  /**
   * A near-miss text below this cosine similarity is "too far" (less alike than most unrelated
   * problems, so not a hard negative); default 0.08 (7.6% of v202602's near-miss texts; 29% of
   * pairs of two different v202602 problems are below it, their median is 0.13).
   */
  nearMissTooFar?: number;
}

/** Numbers written in a text (`3`, `-4`, `2.5`, `10^5` counts `10` and `5`), in order, distinct. */
export function numbersIn(text: string): string[] {
  return [...new Set(text.match(/\d+(?:\.\d+)?/g) ?? [])];
}

/**
 * The numbers of `original` absent from `rewrite` (a counterfactual rewrite must keep every
 * constraint and example value; paper §3 step 2).
 */
export function missingNumbers(original: string, rewrite: string): string[] {
  const have = new Set(numbersIn(rewrite));
  return numbersIn(original).filter((n) => !have.has(n));
}

const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** True when every non-empty line of `sample` appears (whitespace-normalised) in `text`. */
export function sampleInText(sample: string, text: string): boolean {
  const hay = flat(text);
  const lines = sample
    .split('\n')
    .map(flat)
    .filter((l) => l !== '');
  return lines.length > 0 && lines.every((l) => hay.includes(l));
}

/** A sample test case: input and expected output. */
export interface SampleCase {
  input: string;
  output: string;
}

/**
 * Sample I/O of the original statement kept by the rewrite: each public test whose input and
 * output are written in the original statement must appear in the rewrite, in its rewritten form
 * (`rewrittenSamples[i]`, the tests stage's adaptation; the original case when absent).
 * @returns the indices (0-based) of the statement's samples and of those missing from the rewrite
 */
export function samplesKept(
  originalStatement: string,
  rewriteStatement: string,
  originalSamples: readonly SampleCase[],
  rewrittenSamples: readonly SampleCase[] = [],
): { inStatement: number[]; missing: number[] } {
  const inStatement: number[] = [];
  const missing: number[] = [];
  originalSamples.forEach((s, i) => {
    if (!sampleInText(s.input, originalStatement) || !sampleInText(s.output, originalStatement)) return;
    inStatement.push(i);
    const r = rewrittenSamples[i] ?? s;
    if (!sampleInText(r.input, rewriteStatement) || !sampleInText(r.output, rewriteStatement)) missing.push(i);
  });
  return { inStatement, missing };
}

const phrase = (s: string): string =>
  ` ${s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;

/** A contest problem id of AtCoder (`abc387_a`, `arc190_b`, `agc070_c`) or Codeforces (`2050A`) style. */
const CONTEST_ID = /\b(?:a[brg]c\d{3}_[a-z]\d?|\d{3,4}[A-Z]\d?)\b/;

/**
 * Why a search query gives its answer away, or `undefined`: it names the problem id (`abc387_a`,
 * also spelt `abc387 a`; a numeric id only as a whole word), names another contest problem id
 * (`abc376_a`: ids are not what a developer searches with), or contains a title of two words or
 * more (original or rewritten), compared case- and punctuation-insensitively.
 */
export function queryLeak(query: string, problemId: string, titles: readonly string[]): string | undefined {
  const q = phrase(query);
  const id = phrase(problemId);
  if (id.trim() !== '' && q.includes(id)) return `names the problem id \`${problemId}\``;
  const other = CONTEST_ID.exec(query);
  if (other !== null) return `names a problem id (\`${other[0]}\`)`;
  for (const t of titles) {
    const p = phrase(t);
    if (p.trim().split(' ').length >= 2 && q.includes(p)) return `contains the title "${t.trim()}"`;
  }
  return undefined;
}

const tokenize = createTokenizer({ stopwords: 'english', keepNumbers: false });

/**
 * Cosine similarity of the term-frequency vectors of two texts (English stop words dropped,
 * identifiers split, S-stemmed: coreb's BM25 tokeniser), in [0, 1]; 0 when either is empty.
 */
export function textSimilarity(a: string, b: string): number {
  const tf = (s: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const t of tokenize(s)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  };
  const x = tf(a);
  const y = tf(b);
  let dot = 0;
  let nx = 0;
  let ny = 0;
  for (const [t, v] of x) {
    nx += v * v;
    dot += v * (y.get(t) ?? 0);
  }
  for (const v of y.values()) ny += v * v;
  return nx === 0 || ny === 0 ? 0 : dot / Math.sqrt(nx * ny);
}

/** What {@link runReviewChecks} reads of one problem. */
export interface CheckedProblem {
  id: string;
  original: { title: string; statement: string; samples: readonly SampleCase[] };
  /** Absent when the rewrite failed or has not run. */
  rewrite?: { title: string; statement: string; samples?: readonly SampleCase[] };
  abbreviation?: string;
  queries?: readonly string[];
  negatives?: ReadonlyArray<{ strategy: string; text: string }>;
}

/** Similarity of each near-miss text to the rewritten problem's full text, and its verdict. */
export interface NearMissScore {
  strategy: string;
  similarity: number;
  verdict: 'ok' | 'too_close' | 'too_far';
}

/** The near-miss scores of a problem (against its rewritten title + statement, the release's positive text). */
export function nearMissScores(p: CheckedProblem, t: ReviewCheckThresholds = {}): NearMissScore[] {
  if (p.rewrite === undefined) return [];
  const close = t.nearMissTooClose ?? 0.8;
  const far = t.nearMissTooFar ?? 0.08;
  const full = `${p.rewrite.title}\n\n${p.rewrite.statement}`;
  return (p.negatives ?? []).map((n) => {
    const similarity = Math.round(textSimilarity(n.text, full) * 1000) / 1000;
    return { strategy: n.strategy, similarity, verdict: similarity >= close ? 'too_close' : similarity < far ? 'too_far' : 'ok' };
  });
}

/** Every check of one problem, in {@link REVIEW_CHECKS} order; checks of stages not yet run are left out. */
export function runReviewChecks(p: CheckedProblem, t: ReviewCheckThresholds = {}): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  if (p.rewrite !== undefined) {
    const miss = missingNumbers(p.original.statement, p.rewrite.statement);
    out.push({
      name: 'numbers',
      ok: miss.length === 0,
      message:
        miss.length === 0
          ? `all ${numbersIn(p.original.statement).length} numbers of the original kept`
          : `${miss.length} number(s) of the original missing: ${miss.slice(0, 8).join(', ')}${miss.length > 8 ? ', …' : ''}`,
    });
    const s = samplesKept(p.original.statement, p.rewrite.statement, p.original.samples, p.rewrite.samples);
    out.push({
      name: 'samples',
      ok: s.missing.length === 0,
      message:
        s.inStatement.length === 0
          ? 'no sample I/O written in the original statement'
          : s.missing.length === 0
            ? `all ${s.inStatement.length} sample(s) of the statement kept`
            : `sample(s) ${s.missing.map((i) => i + 1).join(', ')} of ${s.inStatement.length} not found in the rewrite`,
    });
  }
  if (p.abbreviation !== undefined) {
    const min = t.abbreviationMinWords ?? 50;
    const max = t.abbreviationMaxWords ?? 150;
    const n = wordCount(p.abbreviation);
    out.push({ name: 'abbreviation', ok: n >= min && n <= max, message: `${n} words (${min}–${max} expected)` });
  }
  if (p.queries !== undefined) {
    const titles = [p.original.title, ...(p.rewrite !== undefined ? [p.rewrite.title] : [])];
    const leaks = p.queries.map((q, i) => ({ i, why: queryLeak(q, p.id, titles) })).filter((x) => x.why !== undefined);
    out.push({
      name: 'query_leaks',
      ok: leaks.length === 0,
      message:
        leaks.length === 0
          ? p.queries.length === 0
            ? 'no queries'
            : `${p.queries.length} quer${p.queries.length === 1 ? 'y' : 'ies'}, none leaks`
          : leaks.map((l) => `query ${l.i + 1} ${l.why}`).join('; '),
    });
  }
  if (p.negatives !== undefined && p.rewrite !== undefined) {
    const scores = nearMissScores(p, t);
    const bad = scores.filter((s) => s.verdict !== 'ok');
    out.push({
      name: 'near_misses',
      ok: bad.length === 0,
      message:
        `similarity ${scores.map((s) => s.similarity.toFixed(2)).join(' / ')}` +
        (bad.length === 0 ? '' : `; ${bad.map((b) => `${b.strategy} ${b.verdict.replace('_', ' ')}`).join(', ')}`),
    });
  }
  return out;
}
