/** `coreb build --dry-run`: the calls and tokens a build would spend, without any call. */
import type { ChatModel } from '../../core/chat.js';
import { HARD_NEGATIVE_STRATEGIES } from '../mini-authored.js';
import { isContextIndependent } from './contracts.js';
import type { PromptName } from './prompts.js';
import type { BuildStage, BuildOptions, BuildSelection } from './types.js';
import { TESTS_BATCH } from './stages/tests.js';
import { SEARCH_QUERY_KINDS } from './stages/queries.js';
import { loadProblems } from './stages/load.js';
import { checkModels, shapeRoles } from './context.js';

/** What {@link planBuild} returns for `--dry-run`. */
export interface BuildPlan {
  problems: number;
  stages: Array<{ stage: BuildStage; model: string; calls: number; inputTokens: number; outputTokens: number; note?: string }>;
  /** What the selection kept and left out. */
  selection: BuildSelection;
}

/**
 * The plan of a build without any call: per stage and model the number of requests and an
 * estimate of tokens (prompt text / 4; replies estimated from the problem texts). `tests` counts
 * the worst case (every problem's rewrite changes its I/O).
 */
export async function planBuild(o: BuildOptions): Promise<BuildPlan> {
  checkModels(o.models);
  shapeRoles(o);
  const { problems, selection } = await loadProblems(o);
  const languages = o.languages ?? ['python', 'cpp', 'java', 'go', 'ruby'];
  const tok = (s: string): number => Math.ceil(s.length / 4);
  const rows: BuildPlan['stages'] = [];
  const add = (stage: BuildStage, model: ChatModel, calls: number, inputTokens: number, outputTokens: number, note?: string): void => {
    const row: BuildPlan['stages'][number] = { stage, model: model.id, calls, inputTokens, outputTokens };
    if (note !== undefined) row.note = note;
    rows.push(row);
  };
  const t = (name: PromptName): string => (o.prompts.templates[name].system ?? '') + o.prompts.templates[name].user;
  const stmt = problems.reduce((s, p) => s + tok(p.title + p.content), 0);
  const rewriter = o.models.rewriter;
  add('rewrite', rewriter, problems.length, problems.length * tok(t('rewrite')) + stmt * 2, stmt + 50 * problems.length);
  const batches = problems.reduce((s, p) => {
    const n = [...p.publicTests, ...p.privateTests].filter((x) => !isContextIndependent(x.input, x.outputs[0] ?? '')).length;
    return s + Math.ceil(n / TESTS_BATCH);
  }, 0);
  const testChars = problems.reduce(
    (s, p) =>
      s +
      [...p.publicTests, ...p.privateTests]
        .filter((x) => !isContextIndependent(x.input, x.outputs[0] ?? ''))
        .reduce((a, x) => a + tok(x.input + (x.outputs[0] ?? '')), 0),
    0,
  );
  add('tests', rewriter, batches, batches * tok(t('tests')) + stmt + testChars, testChars, 'at most: only problems whose rewrite changes I/O');
  add('abbreviate', o.models.abbreviator ?? rewriter, problems.length, problems.length * tok(t('abbreviate')) + stmt, 150 * problems.length);
  for (const s of o.models.solvers) {
    const n = problems.length * languages.length;
    add('solve', s, n, n * tok(t('solve')) + stmt * languages.length, 600 * n);
  }
  const kinds = Object.keys(SEARCH_QUERY_KINDS).length;
  const perVariant = o.queriesPerVariant ?? 2;
  add(
    'queries',
    o.models.queryWriter ?? rewriter,
    problems.length * kinds,
    problems.length * kinds * tok(t('queries')) + stmt * kinds * 6,
    problems.length * kinds * (1 + languages.length) * perVariant * 30,
    'at most: problems with a passing program; target + 5 similar problems per call',
  );
  const negCalls = problems.length * HARD_NEGATIVE_STRATEGIES.length;
  add('negatives', o.models.negativeWriter ?? rewriter, negCalls, negCalls * tok(t('negatives')) + stmt * 4, stmt * 4);
  return { problems: problems.length, stages: rows, selection };
}
