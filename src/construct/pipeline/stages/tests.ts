/** Stage `tests`: the tests of a problem whose rewrite changed its I/O, adapted in batches; others pass through. */
import type { LcbProblem } from '../../../dataset/lcb.js';
import { isContextIndependent, parseTestsReply } from '../contracts.js';
import { renderMessages } from '../prompts.js';
import type { RewriteRow, TestsRow } from '../types.js';
import { ask, poolStage, modelStage, need, testsToWire, type Ctx } from '../context.js';

/** Test cases per adaptation request: 10. */
export const TESTS_BATCH = 10;

async function stageTests(ctx: Ctx, problems: LcbProblem[], rewrites: Map<string, RewriteRow>): Promise<TestsRow[]> {
  const model = ctx.o.models.rewriter;
  return poolStage(ctx, 'tests', problems, [model], async (p): Promise<TestsRow> => {
    const rw = rewrites.get(p.questionId);
    const pub = testsToWire(p.publicTests);
    const priv = testsToWire(p.privateTests);
    try {
      if (rw === undefined || rw.failed !== undefined) return { id: p.questionId, failed: 'rewrite failed' };
      if (rw.io_changed !== true) return { id: p.questionId, public_tests: pub, private_tests: priv, rewritten: 0 };
      const all = [...pub, ...priv];
      const todo = all.map((t, i) => ({ t, i })).filter(({ t }) => !isContextIndependent(t.input, t.output));
      for (let b = 0; b < todo.length; b += TESTS_BATCH) {
        const batch = todo.slice(b, b + TESTS_BATCH);
        const messages = renderMessages(ctx.prompts, 'tests', {
          originalTitle: p.title,
          title: rw.title ?? '',
          statement: rw.statement ?? '',
          tests: JSON.stringify(
            batch.map(({ t }) => ({ input: t.input, output: t.output })),
            null,
            1,
          ),
          count: String(batch.length),
        });
        const r = await ask(ctx, 'tests', p.questionId, model, messages, (t) => parseTestsReply(t, batch.length));
        if ('error' in r) return { id: p.questionId, failed: r.error };
        r.value.forEach((nt, k) => {
          const { i } = batch[k];
          all[i] = { ...all[i], input: nt.input, output: nt.output };
        });
      }
      return { id: p.questionId, public_tests: all.slice(0, pub.length), private_tests: all.slice(pub.length), rewritten: todo.length };
    } finally {
      ctx.progress.tick();
    }
  });
}

/** Stage `tests` behind the stage table; it also settles which problems go on (rewrite and tests both succeeded). */
export const tests = modelStage<TestsRow>(
  'tests',
  (ctx, work) => stageTests(ctx, work.problems, need(work, 'rewrites', 'tests')),
  (work, rows) => {
    const rewrites = need(work, 'rewrites', 'tests');
    const byId = new Map(rows.map((r) => [r.id, r]));
    work.tests = byId;
    work.ready = work.problems
      .filter((p) => rewrites.get(p.questionId)?.failed === undefined && byId.get(p.questionId)?.failed === undefined)
      .map((p) => ({ p, rw: rewrites.get(p.questionId) as RewriteRow }));
  },
);
