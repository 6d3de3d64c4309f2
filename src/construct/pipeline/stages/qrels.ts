/**
 * Stage `qrels`: the problems with everything needed (rewrite, tests, four near-miss texts, not
 * rejected in review) planned into the release's tables under its shape's rules
 * (construct/release-shape.ts); the reviewer's edits replace the texts first. Writes
 * `work/qrels.json` (counts, dropped problems).
 */
import { join } from 'node:path';
import { saveFileAtomic } from '../../../dataset/atomic-write.js';
import type { JudgeRecord } from '../../../sandbox/judge-run.js';
import { HARD_NEGATIVE_STRATEGIES, outcomeKey, type AuthoredProblem, type SolutionOutcome } from '../../mini-authored.js';
import { planMiniRelease } from '../../mini-release.js';
import { resolveReleaseShape } from '../../release-shape.js';
import { applyReviewInPlace, loadReviewState, reviewStatus } from '../../review/decisions.js';
import type { BuildWork } from '../types.js';
import { searchQueriesOf } from './queries.js';
import { programId } from './solve.js';
import { need, fullText, shapeRoles, type BuildStageModule, type Ctx } from '../context.js';

/** Plans the release from the work so far. */
async function assemble(ctx: Ctx, work: BuildWork): Promise<void> {
  const o = ctx.o;
  const problems = work.problems;
  const rewrites = need(work, 'rewrites', 'qrels');
  const tests = need(work, 'tests', 'qrels');
  const abbrevs = need(work, 'abbrevs', 'qrels');
  const solutions = need(work, 'solutions', 'qrels');
  const records = need(work, 'records', 'qrels');
  const queries = need(work, 'queries', 'qrels');
  const negatives = need(work, 'negatives', 'qrels');
  const releaseName = work.releaseName;
  const createdAt = work.createdAt;
  // The reviewer's decisions (`coreb review`): edits replace the texts, rejected problems are left out.
  const review = loadReviewState(o.outDir);
  applyReviewInPlace(review, { rewrites, abbreviations: abbrevs, queries, negatives });

  // qrels: the problems with everything needed, through the shared v2 rules.
  const authored: AuthoredProblem[] = [];
  const outcomes = new Map<string, SolutionOutcome>();
  const dropped: Array<{ id: string; reason: string }> = [];
  for (const p of problems) {
    const rw = rewrites.get(p.questionId);
    const tr = tests.get(p.questionId);
    if (rw?.failed !== undefined) {
      dropped.push({ id: p.questionId, reason: 'rewrite failed' });
      continue;
    }
    if (tr?.failed !== undefined) {
      dropped.push({ id: p.questionId, reason: 'test adaptation failed' });
      continue;
    }
    if (reviewStatus(review, p.questionId) === 'rejected') {
      dropped.push({ id: p.questionId, reason: 'rejected in review' });
      continue;
    }
    const negs = negatives.filter((n) => n.id === p.questionId);
    const missing = HARD_NEGATIVE_STRATEGIES.filter((s) => negs.find((n) => n.strategy === s)?.text === undefined);
    if (missing.length > 0) {
      dropped.push({ id: p.questionId, reason: `no hard negative for ${missing.join(', ')}` });
      continue;
    }
    const pid = `lcb_${p.questionId}`;
    const sols = solutions.filter((s) => s.id === p.questionId && s.code !== undefined);
    for (const s of sols) {
      const rec = records.get(programId(s)) as JudgeRecord;
      outcomes.set(outcomeKey(pid, `${s.model}_${s.language}`), { passed: rec.passed, testsPassed: rec.tests_passed, testsTotal: rec.tests_total });
    }
    authored.push({
      id: pid,
      title: rw?.title ?? '',
      statement: fullText(rw?.title ?? '', rw?.statement ?? ''),
      abbreviated: abbrevs.get(p.questionId)?.abbreviated ?? '',
      tests: [],
      hardNegatives: negs.map((n) => ({ strategy: n.strategy, text: n.text as string })),
      searchQueries: searchQueriesOf(queries.get(p.questionId)),
      solutions: sols.map((s) => ({
        file: `${s.model}_${s.language}`,
        language: s.language,
        author: s.model,
        intent: 'correct',
        code: s.code as string,
      })),
    });
  }
  const shape = o.shape ?? resolveReleaseShape();
  const roles = shapeRoles(o);
  const needsSecond = shape.rules === 'official' && shape.code2code.some((s) => s !== 'cross_lang');
  if (needsSecond && roles.secondary === undefined) {
    ctx.logger.warn(`qrels: c2c_mono_lang and c2c_cross_model need a second solver; with one (${roles.primary}) they have no query`);
  }
  const plan = planMiniRelease(authored, outcomes, {
    idTag: releaseName,
    createdAt,
    version: releaseName,
    seed: ctx.seed,
    maxHardNegatives: o.maxHardNegatives,
    shape,
    roles,
  });
  // The official solution key is `{model}_{language}` (one solution per model and language).
  for (const row of plan.tables.code_corpus) row.meta_solution_key = `${String(row.model)}_${String(row.language)}`;
  await saveFileAtomic(join(o.outDir, 'work', 'qrels.json'), JSON.stringify({ counts: plan.counts, dropped }, null, 2) + '\n');
  work.release = { plan, authored, dropped, review, shape, roles };
}

/** Stage `qrels` behind the stage table: local and deterministic, so it is computed on every run that reaches it. */
export const qrels: BuildStageModule = { name: 'qrels', run: assemble, resume: assemble };
