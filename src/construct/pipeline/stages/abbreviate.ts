/** Stage `abbreviate`: a 50-150-word summary of each rewritten problem (the canonical text), or a fallback. */
import type { LcbProblem } from '../../../dataset/lcb.js';
import { wordCount } from '../../../core/words.js';
import { parseAbbreviation } from '../contracts.js';
import { renderMessages } from '../prompts.js';
import type { RewriteRow, AbbrevRow } from '../types.js';
import { ask, poolStage, modelStage, need, type Ctx } from '../context.js';

/** The fallback abbreviation (upstream heuristic): `Title: … | Goal: first sentence | Constraints: …`, at most 600 chars. */
export function fallbackAbbreviation(title: string, statement: string): string {
  const flat = statement.replace(/\s+/g, ' ').trim();
  const goal = (/^(.*?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat).slice(0, 300);
  const cons = /constraints?\s*:?\s*(.*)$/i.exec(flat)?.[1] ?? '';
  const s = `Title: ${title} | Goal: ${goal}${cons ? ` | Constraints: ${cons}` : ''}`;
  return s.length > 600 ? s.slice(0, 599) + '…' : s;
}

async function stageAbbreviate(ctx: Ctx, ready: Array<{ p: LcbProblem; rw: RewriteRow }>): Promise<AbbrevRow[]> {
  const model = ctx.o.models.abbreviator ?? ctx.o.models.rewriter;
  return poolStage(ctx, 'abbreviate', ready, [model], async ({ p, rw }) => {
    const title = rw.title ?? '';
    const statement = rw.statement ?? '';
    const messages = renderMessages(ctx.prompts, 'abbreviate', { title, statement });
    const r = await ask(ctx, 'abbreviate', p.questionId, model, messages, (t) => parseAbbreviation(t), {
      retries: Math.min(1, ctx.contractRetries),
    });
    ctx.progress.tick();
    const abbreviated = 'value' in r ? r.value : fallbackAbbreviation(title, statement);
    return {
      id: p.questionId,
      abbreviated,
      fallback: !('value' in r),
      words: wordCount(abbreviated),
      ...('error' in r ? { failed: `${r.error}; the fallback summary is used` } : {}),
    };
  });
}

/** Stage `abbreviate` behind the stage table. */
export const abbreviate = modelStage<AbbrevRow>(
  'abbreviate',
  (ctx, work) => stageAbbreviate(ctx, need(work, 'ready', 'abbreviate')),
  (work, rows) => {
    work.abbrevs = new Map(rows.map((r) => [r.id, r]));
  },
);
