/** Stage `rewrite`: each problem rewritten counterfactually (title, statement, starter code, whether its I/O changed). */
import type { LcbProblem } from '../../../dataset/lcb.js';
import { parseRewriteReply } from '../contracts.js';
import { renderMessages } from '../prompts.js';
import type { RewriteRow } from '../types.js';
import { ask, poolStage, modelStage, sampleTests, type Ctx } from '../context.js';

async function stageRewrite(ctx: Ctx, problems: LcbProblem[]): Promise<RewriteRow[]> {
  const model = ctx.o.models.rewriter;
  return poolStage(ctx, 'rewrite', problems, [model], async (p) => {
    const messages = renderMessages(ctx.prompts, 'rewrite', {
      title: p.title,
      statement: p.content,
      starterCode: p.starterCode ?? '',
      funcName: p.funcName ?? '',
      sampleTests: sampleTests(p),
    });
    const r = await ask(ctx, 'rewrite', p.questionId, model, messages, (t) => parseRewriteReply(t, (p.starterCode ?? '').trim() !== ''));
    ctx.progress.tick();
    if ('error' in r) return { id: p.questionId, failed: r.error };
    return {
      id: p.questionId,
      title: r.value.title,
      statement: r.value.statement,
      starter_code: r.value.starterCode,
      io_changed: r.value.ioChanged,
    };
  });
}

/** Stage `rewrite` behind the stage table. */
export const rewrite = modelStage<RewriteRow>(
  'rewrite',
  (ctx, work) => stageRewrite(ctx, work.problems),
  (work, rows) => {
    work.rewrites = new Map(rows.map((r) => [r.id, r]));
  },
);
