/** Stage `negatives`: four near-miss descriptions per problem, one per strategy of paper §A.2. */
import type { LcbProblem } from '../../../dataset/lcb.js';
import { HARD_NEGATIVE_STRATEGIES } from '../../mini-authored.js';
import { hash32 } from '../../seeded-choice.js';
import { parseNegative } from '../contracts.js';
import { renderMessages } from '../prompts.js';
import type { RewriteRow, NegativeRow } from '../types.js';
import { ask, poolStage, modelStage, need, fullText, type Ctx } from '../context.js';

/** What each hard-negative strategy asks for (paper §A.2), keyed like {@link HARD_NEGATIVE_STRATEGIES}. */
export const STRATEGY_DESCRIPTIONS: Readonly<Record<(typeof HARD_NEGATIVE_STRATEGIES)[number], string>> = {
  operation_type:
    'change the fundamental operation the algorithm performs (for example, a "remove/delete" goal becomes a "select/construct/merge" goal), so the core action differs, not just its name.',
  optimization_objective:
    'change what is optimised or counted (for example, maximise becomes minimise, or "find one" becomes "count distinct"), so the objective differs structurally.',
  algorithmic_approach:
    'change the algorithmic paradigm the problem needs (for example, subsequences become contiguous subarrays or a graph, greedy becomes dynamic programming, two pointers become binary search).',
  problem_domain:
    'change the input data types and the setting (for example, strings become graphs, arrays become trees), giving a structurally different problem with no obvious mapping to the original.',
};

/** The temperature of one hard-negative request: seeded, uniform in [0.85, 1.0], two decimals (§A.2). */
export function negativeTemperature(seed: number, problemId: string, strategy: string): number {
  return Math.round((0.85 + (0.15 * hash32(`${seed}:neg:${problemId}:${strategy}`)) / 0xffffffff) * 100) / 100;
}

async function stageNegatives(ctx: Ctx, ready: Array<{ p: LcbProblem; rw: RewriteRow }>): Promise<NegativeRow[]> {
  const model = ctx.o.models.negativeWriter ?? ctx.o.models.rewriter;
  const jobs = ready.flatMap(({ p, rw }) => HARD_NEGATIVE_STRATEGIES.map((strategy) => ({ p, rw, strategy })));
  return poolStage(ctx, 'negatives', jobs, [model], async ({ p, rw, strategy }): Promise<NegativeRow> => {
    const temperature = negativeTemperature(ctx.seed, p.questionId, strategy);
    const messages = renderMessages(ctx.prompts, 'negatives', {
      strategy,
      strategyDescription: STRATEGY_DESCRIPTIONS[strategy],
      title: rw.title ?? '',
      statement: fullText(rw.title ?? '', rw.statement ?? ''),
    });
    const r = await ask(ctx, 'negatives', `${p.questionId}/${strategy}`, model, messages, parseNegative, { temperature });
    ctx.progress.tick();
    return 'value' in r ? { id: p.questionId, strategy, temperature, text: r.value } : { id: p.questionId, strategy, temperature, failed: r.error };
  });
}

/** Stage `negatives` behind the stage table. */
export const negatives = modelStage<NegativeRow>(
  'negatives',
  (ctx, work) => stageNegatives(ctx, need(work, 'ready', 'negatives')),
  (work, rows) => {
    work.negatives = rows;
  },
);
