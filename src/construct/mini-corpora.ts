/**
 * The two corpora of coreb-mini: one code row per judged solution (labels from the judge's outcome)
 * and, per problem, its original text plus one hard negative per strategy of paper §A.2.
 */
import { CorebError } from '../core/errors.js';
import { compareCodePoints } from '../core/ids.js';
import { HARD_NEGATIVE_STRATEGIES, outcomeKey, pad5, type AuthoredProblem, type AuthoredSolution, type SolutionOutcome } from './mini-authored.js';
import type { CodeQrelsOptions, JudgedCandidate } from './qrels.js';
import type { ReleaseShape, ShapeRoles } from './release-shape.js';
import type { WireRow } from './wire-row.js';

/** Settings every planning step shares (resolved from the options of `planMiniRelease`). */
export interface MiniPlanContext {
  /** Id tag inside every id (`code_<tag>_00001`). */
  tag: string;
  /** `meta_created_at` of every row. */
  createdAt: string;
  /** `meta_corpus_version` / `meta_generator_version`. */
  version: string;
  /** Seed of the deterministic choices. */
  seed: number;
  /** Options of the qrels rules (hard negatives per code query; sampled in the official shape). */
  qrelOptions: CodeQrelsOptions;
  /** The release shape (which queries, how judged). */
  shape: ReleaseShape;
  /** Which corpus model is the primary (model A) and which the second (model B). */
  roles: ShapeRoles;
}

/** A code corpus row as the qrels rules see it, with its authored solution. */
export interface CodeDoc extends JudgedCandidate {
  solution: AuthoredSolution;
}

/** The corpora and the lookups the query planners need. */
export interface MiniCorpora {
  codeCorpus: WireRow[];
  textCorpus: WireRow[];
  /** Code docs per problem id, in corpus order. */
  docsByProblem: Map<string, CodeDoc[]>;
  /** All code docs in corpus order. */
  allDocs: CodeDoc[];
  /** The original text id per problem id. */
  textIdOf: Map<string, string>;
  /** The hard-negative text ids per problem id (strategy order). */
  noiseIdsOf: Map<string, string[]>;
  /** Languages with a passing solution of a problem, in code-point order. */
  passingLanguages(problemId: string): string[];
}

/**
 * Plans both corpora. Problems come sorted by id; code rows per problem by (author, language, file).
 * @throws CorebError `VALIDATION` when a solution has no outcome or a problem lacks a strategy.
 */
export function planCorpora(sorted: readonly AuthoredProblem[], outcomes: ReadonlyMap<string, SolutionOutcome>, ctx: MiniPlanContext): MiniCorpora {
  const { tag, createdAt, version } = ctx;
  const codeCorpus: WireRow[] = [];
  const textCorpus: WireRow[] = [];
  const docsByProblem = new Map<string, CodeDoc[]>();
  const textIdOf = new Map<string, string>();
  const noiseIdsOf = new Map<string, string[]>();
  let codeNo = 0;
  for (const [pi, p] of sorted.entries()) {
    const sols = [...p.solutions].sort(
      (a, b) => compareCodePoints(a.author, b.author) || compareCodePoints(a.language, b.language) || compareCodePoints(a.file, b.file),
    );
    const docs: CodeDoc[] = [];
    for (const s of sols) {
      const o = outcomes.get(outcomeKey(p.id, s.file));
      if (o === undefined) {
        throw new CorebError('VALIDATION', `no execution outcome for ${p.id}/${s.file}; run the judge on every solution first`);
      }
      const id = `code_${tag}_${pad5(++codeNo)}`;
      docs.push({ id, problemId: p.id, language: s.language, model: s.author, passed: o.passed, solution: s });
      codeCorpus.push({
        code_id: id,
        code: s.code,
        language: s.language,
        model: s.author,
        code_length: s.code.length,
        meta_source_problem_id: p.id,
        meta_solution_key: `${s.author}_${s.file}`,
        meta_passed: o.passed,
        meta_pass_rate: o.testsTotal === 0 ? 0 : o.testsPassed / o.testsTotal,
        meta_test_passed: o.testsPassed,
        meta_test_total: o.testsTotal,
        meta_created_at: createdAt,
        meta_corpus_version: version,
      });
    }
    docsByProblem.set(p.id, docs);

    const textId = `text_${tag}_${pad5(pi + 1)}`;
    textIdOf.set(p.id, textId);
    textCorpus.push({
      text_id: textId,
      text: p.statement,
      text_style: 'title_plus_description',
      text_length: p.statement.length,
      abbreviated_text: p.abbreviated,
      abbreviated_text_length: p.abbreviated.length,
      meta_source_problem_id: p.id,
      meta_created_at: createdAt,
      meta_corpus_version: version,
      meta_original_text_id: null,
      meta_original_problem_id: null,
      meta_is_noise_sample: null,
      meta_noise_type: null,
      meta_noise_variation: null,
    });
  }
  for (const p of sorted) {
    const textId = textIdOf.get(p.id) as string;
    const ids: string[] = [];
    for (const [k, strategy] of HARD_NEGATIVE_STRATEGIES.entries()) {
      const hn = p.hardNegatives.find((h) => h.strategy === strategy);
      if (hn === undefined) {
        throw new CorebError('VALIDATION', `${p.id}: no hard negative for strategy \`${strategy}\`; every problem needs all four`);
      }
      const id = `${textId}_noise${k + 1}`;
      ids.push(id);
      textCorpus.push({
        text_id: id,
        text: hn.text,
        text_style: 'llm_generated_noise',
        text_length: hn.text.length,
        abbreviated_text: null,
        abbreviated_text_length: null,
        meta_source_problem_id: `${p.id}_noise${k + 1}`,
        meta_created_at: createdAt,
        meta_corpus_version: version,
        meta_original_text_id: textId,
        meta_original_problem_id: p.id,
        meta_is_noise_sample: true,
        meta_noise_type: 'llm_generated',
        meta_noise_variation: k + 1,
      });
    }
    noiseIdsOf.set(p.id, ids);
  }
  const allDocs = sorted.flatMap((p) => docsByProblem.get(p.id) as CodeDoc[]);
  const passingLanguages = (pid: string): string[] =>
    [...new Set((docsByProblem.get(pid) as CodeDoc[]).filter((d) => d.passed).map((d) => d.language))].sort(compareCodePoints);
  return { codeCorpus, textCorpus, docsByProblem, allDocs, textIdOf, noiseIdsOf, passingLanguages };
}
