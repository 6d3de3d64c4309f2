/**
 * `coreb contamination`: the paper's contamination study (§3 step 2, §A.7, Table 13) on any build.
 * Each solver writes, per released problem and language, a program for the original problem and one
 * for its counterfactual rewrite, through the solve stage's prompt and reply contract; each program
 * is judged on the tests of the problem it was written for. Replies go through the build's reply
 * cache (`BUILD_DIR/work/llm-cache`) and verdicts through the build's judge journal
 * (`BUILD_DIR/work/execute.jsonl`), so a rerun sends no answered request and judges nothing twice,
 * and a rewritten-problem request identical to one the build made is not sent again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { ChatModel } from '../../core/chat.js';
import { CorebError } from '../../core/errors.js';
import type { ExecLanguage, Program, TestCase } from '../../core/execution.js';
import { compareCodePoints } from '../../core/ids.js';
import type { Logger, Progress } from '../../core/progress.js';
import { loadLcbProblems, type LcbProblem } from '../../dataset/lcb.js';
import type { JudgeBackend } from '../../sandbox/backend.js';
import { runJudging } from '../../sandbox/judge-run.js';
import { extractProgram } from './contracts.js';
import { ask, checkModels, modelLabel, pool, resolveCtx, stageWidth } from './context.js';
import { executeRecords } from './stages/execute.js';
import { programId, solveMessages } from './stages/solve.js';
import type { BuildFailure, StageUsage } from './types.js';
import type { PromptSet } from './prompts.js';

/** The two forms of a problem. */
export const CONTAMINATION_ARMS = ['original', 'rewritten'] as const;
/** One form. */
export type ContaminationArm = (typeof CONTAMINATION_ARMS)[number];

/** Options of {@link runContamination}. */
export interface ContaminationOptions {
  /** A `coreb build` output directory (with `problems.jsonl`, `manifest.json`, `work/`). */
  buildDir: string;
  /** The original problems (LiveCodeBench JSONL); default the manifest's `source.problems_file`. */
  problemsFile?: string;
  solvers: ChatModel[];
  /** Languages; default the manifest's. */
  languages?: readonly ExecLanguage[];
  /** Programs per problem, language and arm (pass@1 by the unbiased estimator); default 1. Samples after the first send `seed` = the model's seed (or 0) + sample index. */
  samples?: number;
  prompts: PromptSet;
  /** Items in flight per model; default 4. */
  concurrency?: number;
  /** Reply-contract retries (the parse error quoted back); default 2. */
  contractRetries?: number;
  judge: () => Promise<JudgeBackend>;
  /** The reply cache the build used (`BuildOptions.cacheDir`); default the build's `work/llm-cache`. */
  cacheDir?: string;
  logger?: Logger;
  progress?: Progress;
  signal?: AbortSignal;
}

/** One judged program (the report's `ContaminationOutcome`, plus where it came from). */
export interface ContaminationRow {
  model: string;
  problem: string;
  language: ExecLanguage;
  arm: ContaminationArm;
  sample: number;
  passed: boolean;
  /** The judge's verdict, or `no_program` when the reply broke the contract after retries. */
  verdict: string;
  tests_passed: number;
  tests_total: number;
  /** The judge journal's program id. */
  program: string;
}

/** What {@link runContamination} returns. */
export interface ContaminationResult {
  rows: ContaminationRow[];
  problems: number;
  languages: ExecLanguage[];
  samples: number;
  usage: StageUsage;
  /** Requests sent in this run. */
  calls: number;
  failures: BuildFailure[];
}

interface Manifest {
  source?: { problems_file?: string };
  languages?: ExecLanguage[];
}

/** The item (and `X-Coreb-Item`) of one request: `PID/LANGUAGE/ARM`, plus `/SAMPLE` for samples after the first. */
export function contaminationItem(problem: string, language: string, arm: ContaminationArm, sample: number): string {
  return `${problem}/${language}/${arm}${sample > 0 ? `/${sample}` : ''}`;
}

/**
 * Runs the study: asks every solver for every released problem × language × arm × sample (cached),
 * judges every program (resumed from the build's journal) and returns one row per program.
 * @throws CorebError `NOT_FOUND` when the build has no `problems.jsonl` or the originals are missing,
 * `INTERRUPTED` when `signal` aborts (a rerun resumes).
 */
export async function runContamination(o: ContaminationOptions): Promise<ContaminationResult> {
  const samples = o.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1) throw new CorebError('USAGE', `--samples must be a positive integer, got ${samples}`);
  const releasedFile = join(o.buildDir, 'problems.jsonl');
  if (!existsSync(releasedFile)) {
    throw new CorebError('NOT_FOUND', 'not a finished build (no problems.jsonl); run `coreb build` through the release stage first', {
      file: releasedFile,
    });
  }
  const manifestFile = join(o.buildDir, 'manifest.json');
  let manifest: Manifest = {};
  if (existsSync(manifestFile)) {
    try {
      manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
    } catch (e) {
      throw new CorebError('PARSE', `manifest.json is not valid JSON (${(e as Error).message})`, { file: manifestFile, cause: e });
    }
  }
  const source = o.problemsFile ?? manifest.source?.problems_file;
  if (source === undefined)
    throw new CorebError('USAGE', 'the build manifest names no source problems file; give --problems FILE (the original problems)', {
      file: manifestFile,
    });
  const sourceFile = isAbsolute(source) ? source : resolve(o.buildDir, source);
  if (!existsSync(sourceFile)) {
    throw new CorebError('NOT_FOUND', 'the original problems file of the build is not there; give --problems FILE', { file: sourceFile });
  }
  const languages = [...(o.languages ?? manifest.languages ?? ['python', 'cpp', 'java', 'go', 'ruby'])] as ExecLanguage[];
  const rewritten = [...(await loadLcbProblems(releasedFile)).values()].sort((a, b) => compareCodePoints(a.questionId, b.questionId));
  const originals = await loadLcbProblems(sourceFile);
  const pairs: Array<{ id: string; forms: Record<ContaminationArm, LcbProblem> }> = [];
  for (const r of rewritten) {
    const orig = originals.get(r.questionId);
    if (orig === undefined)
      throw new CorebError('NOT_FOUND', `problem \`${r.questionId}\` of the build is not in the original problems file`, { file: sourceFile });
    pairs.push({ id: r.questionId, forms: { original: orig, rewritten: r } });
  }

  // The build's context: its reply cache, the solve contract and retries; usage under `solve`.
  const ctx = resolveCtx({
    problemsFile: sourceFile,
    outDir: o.buildDir,
    models: { rewriter: o.solvers[0], solvers: o.solvers },
    languages,
    concurrency: o.concurrency,
    contractRetries: o.contractRetries,
    prompts: o.prompts,
    ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
    logger: o.logger,
    progress: o.progress,
    signal: o.signal,
  });
  // A program the model would not write is an outcome of the study (no_program), not an item to ask again.
  ctx.keepBrokenReplies = true;
  checkModels(ctx.o.models);
  const jobs = pairs.flatMap((p) =>
    o.solvers.flatMap((solver) =>
      languages.flatMap((language) =>
        CONTAMINATION_ARMS.flatMap((arm) => Array.from({ length: samples }, (_, sample) => ({ p, solver, language, arm, sample }))),
      ),
    ),
  );
  ctx.progress.start('contamination: solve', jobs.length);
  let solved: Array<{
    model: string;
    problem: string;
    language: ExecLanguage;
    arm: ContaminationArm;
    sample: number;
    program?: Program;
    error?: string;
  }>;
  try {
    solved = await pool(
      jobs,
      stageWidth(ctx, o.solvers),
      async ({ p, solver, language, arm, sample }) => {
        const f = p.forms[arm];
        const messages = solveMessages(
          ctx.prompts,
          { title: f.title, statement: f.content, starterCode: f.starterCode ?? '', functional: f.publicTests.some((t) => t.kind === 'functional') },
          language,
        );
        const seed = sample > 0 ? (solver.resolve({ messages }).seed ?? 0) + sample : undefined;
        const r = await ask(ctx, 'solve', contaminationItem(p.id, language, arm, sample), solver, messages, (t) => extractProgram(t, language), {
          seed,
          // A provider error is not a failed program: it would bias Pass@1, so it stops the study (a rerun resumes).
          providerErrors: 'throw',
        });
        ctx.progress.tick();
        const model = modelLabel(solver);
        const base = { model, problem: p.id, language, arm, sample };
        if ('error' in r) return { ...base, error: r.error };
        // The rewritten arm's first sample has the build's program id and problem, so the build's verdict is reused.
        const id =
          arm === 'rewritten' && sample === 0
            ? programId({ id: p.id, model, language })
            : `${programId({ id: p.id, model, language })}/${arm}${sample > 0 ? `/${sample}` : ''}`;
        return { ...base, program: { id, problemId: arm === 'rewritten' ? p.id : `${p.id}/original`, language, code: r.value } };
      },
      ctx.signal,
    );
  } finally {
    ctx.progress.done();
  }

  const testsOf = new Map<string, TestCase[]>();
  for (const p of pairs) {
    testsOf.set(p.id, [...p.forms.rewritten.publicTests, ...p.forms.rewritten.privateTests]);
    testsOf.set(`${p.id}/original`, [...p.forms.original.publicTests, ...p.forms.original.privateTests]);
  }
  const programs = solved.flatMap((s) => (s.program !== undefined ? [s.program] : []));
  const judge = await o.judge();
  let records: ReturnType<typeof executeRecords>;
  try {
    await runJudging({
      judge,
      testsOf: (id) => testsOf.get(id),
      programs,
      outFile: join(o.buildDir, 'work', 'execute.jsonl'),
      concurrency: ctx.concurrency * 2,
      progress: ctx.progress,
      logger: ctx.logger,
      signal: ctx.signal,
    });
    records = executeRecords(o.buildDir, programs, testsOf, judge.describe());
  } finally {
    await judge.close();
  }
  const rows: ContaminationRow[] = solved.map((s) => {
    const base = { model: s.model, problem: s.problem, language: s.language, arm: s.arm, sample: s.sample };
    if (s.program === undefined) return { ...base, passed: false, verdict: 'no_program', tests_passed: 0, tests_total: 0, program: '' };
    const rec = records.get(s.program.id);
    if (rec === undefined) throw new CorebError('NOT_FOUND', `program ${s.program.id} has no verdict (its problem has no tests?)`);
    return { ...base, passed: rec.passed, verdict: rec.verdict, tests_passed: rec.tests_passed, tests_total: rec.tests_total, program: s.program.id };
  });
  const usage = ctx.usage.solve ?? { replies: 0, calls: 0, inputTokens: 0, outputTokens: 0, contractRetries: 0, failed: 0 };
  return { rows, problems: pairs.length, languages, samples, usage, calls: usage.calls, failures: ctx.failures };
}
