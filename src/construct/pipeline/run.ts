/**
 * `coreb build`: the resumable release-building pipeline. Fresh LiveCodeBench-format problems go
 * through counterfactual rewriting, abbreviation, multi-model solution generation, sandboxed
 * execution, query and hard-negative writing, then the release shape's qrels rules and the 8
 * official tables. Each stage is a module of `stages/` behind one table (`STAGE_MODULES`), with one
 * shape in and out: it reads the `BuildWork` so far and adds its own output.
 *
 * Every LLM call goes through the reply cache (keyed by the full request), and every stage writes
 * its results to `<out>/work/<stage>.jsonl`, so a rerun sends nothing that was answered before and
 * a killed build resumes where it stopped. Execution resumes from its own journal (`work/execute.jsonl`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { saveFileAtomic } from '../../dataset/atomic-write.js';
import type { BuildWork, BuildStage, BuildOptions, BuildResult } from './types.js';
import { BUILD_STAGES } from './types.js';
import { LOCAL_STAGES, STAGE_MODULES } from './stages/index.js';
import { loadProblems } from './stages/load.js';
import { checkModels, resolveCtx, shapeRoles, writeWork } from './context.js';

interface BuildState {
  created_at: string;
}

function readState(outDir: string): BuildState | undefined {
  const f = join(outDir, 'work', 'state.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as BuildState) : undefined;
}

/**
 * Runs the build (the stages in `options.stages`, default all) and, when the release stage runs,
 * writes `<out>/<table>.jsonl` (8 tables), `<out>/problems.jsonl` and `<out>/manifest.json`.
 * @throws CorebError `INTERRUPTED` when `signal` aborts (a rerun resumes), `NOT_FOUND` when a stage
 * needs output of a stage not run yet, provider errors after the client's retries.
 */
export async function runBuild(o: BuildOptions): Promise<BuildResult> {
  checkModels(o.models);
  shapeRoles(o);
  const ctx = resolveCtx(o);
  const run = new Set<BuildStage>(o.stages ?? BUILD_STAGES);
  const now = o.now ?? (() => new Date());
  const started = now().toISOString();
  const stateFile = join(o.outDir, 'work', 'state.json');
  try {
    await mkdir(join(o.outDir, 'work'), { recursive: true });
  } catch (e) {
    throw new CorebError('IO', `cannot create the output directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      file: o.outDir,
      cause: e,
    });
  }
  let state = readState(o.outDir);
  if (state === undefined || (o.createdAt !== undefined && state.created_at !== o.createdAt)) {
    state = { created_at: o.createdAt ?? started.replace(/\.\d{3}Z$/, 'Z') };
    await saveFileAtomic(stateFile, JSON.stringify(state, null, 2) + '\n');
  }
  const createdAt = state.created_at;
  const releaseName = o.releaseName ?? `v${createdAt.slice(0, 4)}${createdAt.slice(5, 7)}`;

  // load
  const { problems, selection } = await loadProblems(o);
  if (problems.length === 0) throw new CorebError('VALIDATION', 'no problems to build from', { file: o.problemsFile });
  await writeWork(
    o.outDir,
    'load',
    problems.map((p) => ({
      id: p.questionId,
      title: p.title,
      platform: p.platform,
      public_tests: p.publicTests.length,
      private_tests: p.privateTests.length,
      // The originals, for `coreb review` (which reads only this folder).
      statement: p.content,
      starter_code: p.starterCode ?? '',
      samples: p.publicTests.map((t) => ({ input: t.input, output: t.outputs[0] ?? '' })),
    })),
  );
  ctx.logger.info(`load: ${problems.length} problem(s) from ${o.problemsFile}`);

  const work: BuildWork = { createdAt, started, releaseName, problems, selection };
  const last = BUILD_STAGES.filter((s) => run.has(s)).at(-1) ?? 'load';
  for (const name of BUILD_STAGES.slice(1, BUILD_STAGES.indexOf(last) + 1) as Array<Exclude<BuildStage, 'load'>>) {
    const stage = STAGE_MODULES[name];
    await (run.has(name) || LOCAL_STAGES.has(name) ? stage.run(ctx, work) : stage.resume(ctx, work));
  }
  return {
    usage: ctx.usage,
    failures: ctx.failures,
    calls: Object.values(ctx.usage).reduce((s, u) => s + (u?.calls ?? 0), 0),
    ...(ctx.judging !== undefined ? { judging: ctx.judging } : {}),
    ...(work.release !== undefined
      ? { counts: work.release.plan.counts, problemsReleased: work.release.authored.length, dropped: work.release.dropped }
      : {}),
  };
}
