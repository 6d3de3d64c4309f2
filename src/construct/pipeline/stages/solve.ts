/** Stage `solve`: one program per solver, problem and language. */
import type { ChatMessage } from '../../../core/chat.js';
import type { ExecLanguage, Program } from '../../../core/execution.js';
import type { LcbProblem } from '../../../dataset/lcb.js';
import { extractProgram } from '../contracts.js';
import { renderMessages, type PromptSet } from '../prompts.js';
import type { RewriteRow, TestsRow, SolveRow } from '../types.js';
import { languagePrompt } from '../../../sandbox/languages/index.js';
import { ask, poolStage, modelStage, need, modelLabel, wireToTests, type Ctx } from '../context.js';

/**
 * The solve request for one problem text and language (the solve stage's, and `coreb contamination`'s
 * for the original and the rewritten text). `functional`: the problem's tests call a method.
 */
export function solveMessages(
  prompts: PromptSet,
  problem: { title: string; statement: string; starterCode: string; functional: boolean },
  language: ExecLanguage,
): ChatMessage[] {
  const info = languagePrompt(language);
  return renderMessages(prompts, 'solve', {
    languageName: info.name,
    fence: info.fence,
    ioRule: problem.functional ? info.functionalRule : 'Read all input from standard input and write the answer to standard output.',
    // functional: the (Python) starter code gives every language the method's name and parameters
    starterCode: language === 'python' || problem.functional ? problem.starterCode : '',
    title: problem.title,
    statement: problem.statement,
  });
}

async function stageSolve(ctx: Ctx, ready: Array<{ p: LcbProblem; rw: RewriteRow }>): Promise<SolveRow[]> {
  const jobs = ready.flatMap(({ p, rw }) => ctx.o.models.solvers.flatMap((solver) => ctx.languages.map((language) => ({ p, rw, solver, language }))));
  return poolStage(ctx, 'solve', jobs, ctx.o.models.solvers, async ({ p, rw, solver, language }): Promise<SolveRow> => {
    const functional = p.publicTests.some((t) => t.kind === 'functional');
    const messages = solveMessages(
      ctx.prompts,
      { title: rw.title ?? '', statement: rw.statement ?? '', starterCode: rw.starter_code ?? '', functional },
      language,
    );
    const r = await ask(ctx, 'solve', `${p.questionId}/${language}`, solver, messages, (t) => extractProgram(t, language));
    ctx.progress.tick();
    const base = { id: p.questionId, model: modelLabel(solver), language };
    return 'value' in r ? { ...base, code: r.value } : { ...base, failed: r.error };
  });
}

/** The program id of a solution: `<problem>/<model>/<language>`. */
export function programId(row: { id: string; model: string; language: string }): string {
  return `${row.id}/${row.model}/${row.language}`;
}

/** Stage `solve` behind the stage table; it also gathers each problem's tests for the judge. */
export const solve = modelStage<SolveRow>(
  'solve',
  (ctx, work) => stageSolve(ctx, need(work, 'ready', 'solve')),
  (work, rows) => {
    work.solutions = rows;
    const tests = need(work, 'tests', 'solve');
    work.testsOf = new Map(
      need(work, 'ready', 'solve').map(({ p }) => {
        const t = tests.get(p.questionId) as TestsRow;
        return [p.questionId, wireToTests([...(t.public_tests ?? []), ...(t.private_tests ?? [])], p.funcName)];
      }),
    );
  },
);

/** The programs of the solutions that have code, as the judge takes them. */
export function programsOf(solutions: readonly SolveRow[]): Program[] {
  return solutions
    .filter((s) => s.code !== undefined)
    .map((s) => ({ id: programId(s), problemId: s.id, language: s.language, code: s.code as string }));
}
