/**
 * `coreb contamination`: Pass@1 on original vs counterfactually rewritten problems of a build, per
 * solver model and language, with the paired 2×2 table and McNemar's exact p (see docs/build.md).
 */
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { CorebError } from '../../core/errors.js';
import { EXEC_LANGUAGES } from '../../core/execution.js';
import { loadPromptSet } from '../../construct/pipeline/prompts.js';
import { runContamination } from '../../construct/pipeline/contamination.js';
import { saveFileAtomic, saveLinesAtomic } from '../../dataset/atomic-write.js';
import { createChatModel } from '../../providers/chat/registry.js';
import { parseChatSpec } from '../../providers/chat/config.js';
import { renderContaminationTable, summarizeContamination } from '../../report/contamination.js';
import { missingPackages } from '../../sandbox/languages/index.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { JUDGE_USAGE, readJudgeOption } from '../judge-option.js';
import { createProgressBar } from '../progress-bar.js';

const USAGE = `coreb contamination BUILD_DIR --solver SPEC [--solver SPEC ...] [options]

The contamination study of a build (paper §A.7, Table 13): each solver writes a program per
released problem and language for the ORIGINAL problem (the build's source file) and for its
REWRITE (BUILD_DIR/problems.jsonl), with the solve stage's prompt and reply contract; each program
is judged on the tests of the problem it was written for. Prints and writes Pass@1 original vs
rewritten, the difference, the paired 2x2 table and McNemar's exact two-sided p, per model and
per language. Requests carry X-Coreb-Stage: solve and X-Coreb-Item: PID/LANGUAGE/original or
PID/LANGUAGE/rewritten (+ /SAMPLE for samples after the first). Replies are cached in
the reply cache (COREB_CACHE_DIR, and BUILD_DIR/work/llm-cache) and verdicts in BUILD_DIR/work/execute.jsonl: a rerun sends and judges
nothing again; a killed run resumes.

SPEC = PROVIDER:MODEL[?baseUrl=URL&apiKeyEnv=VAR&temperature=T&...]  (as for coreb build)

Options:
  --solver SPEC        a solver model; repeat for several
  --samples N          programs per problem, language and form (default 1); pass@1 by the unbiased
                       estimator; samples after the first send seed = model seed (or 0) + index
  --out DIR            where contamination.json, contamination.txt and contamination-programs.jsonl
                       go (default BUILD_DIR)
  --problems FILE      the original problems (default: the manifest's source.problems_file)
  --languages LIST     comma-separated (default: the build's languages)
  --concurrency N      requests in flight per endpoint (base URL), shared by the models on it (default 4)
  --prompts DIR        prompt template folder (default coreb's own, prompts/build)
  --jobs N             sandboxed processes at once when judging (default: cores)
  --timeout-ms N       judge CPU-time limit per test, ms (default 6000)
  --judge-cache DIR    judge helper/PCH/Go cache (default $COREB_JUDGE_CACHE or <tmp>/coreb-judge)
${JUDGE_USAGE}`;

const command: Command = {
  summary: 'contamination study: Pass@1 on original vs rewritten problems of a build, McNemar exact p',
  usage: USAGE,
  async run(ctx: CommandContext) {
    const { values, positionals } = parseOptions(
      'contamination',
      ctx.argv,
      {
        solver: opt.strings(),
        samples: opt.int(1, 1),
        out: opt.string(),
        problems: opt.string(),
        languages: opt.list(EXEC_LANGUAGES),
        concurrency: opt.optionalInt(1),
        prompts: opt.string(),
        jobs: opt.int(availableParallelism(), 1),
        'timeout-ms': opt.optionalInt(1),
        'judge-cache': opt.string(),
        judge: opt.string(),
      },
      true,
    );
    if (positionals.length !== 1) throw new CorebError('USAGE', 'coreb contamination: give exactly one BUILD_DIR; see `coreb contamination --help`');
    const buildDir = resolve(ctx.cwd, positionals[0]);
    const specs = values.solver.map(parseChatSpec);
    if (specs.length === 0)
      throw new CorebError('USAGE', 'coreb contamination: at least one --solver SPEC is required; see `coreb contamination --help`');
    const { languages, samples, jobs } = values;
    const outDir = values.out !== undefined ? resolve(ctx.cwd, values.out) : buildDir;
    const timeLimitMs = values['timeout-ms'];
    const judgeCache = values['judge-cache'] !== undefined ? resolve(ctx.cwd, values['judge-cache']) : ctx.env.COREB_JUDGE_CACHE;
    const judgeChoice = readJudgeOption(values.judge, ctx, { cacheDir: judgeCache, jobs, timeLimitMs }, { jobs, timeLimitMs });
    const missing = judgeChoice.local ? missingPackages(languages ?? [...EXEC_LANGUAGES], true) : [];
    if (languages !== undefined && missing.length > 0) {
      throw new CorebError(
        'TOOLCHAIN',
        `missing toolchain packages for ${languages.join(', ')}: ${missing.join(' ')}; install them with apt-get install -y ${missing.join(' ')}`,
      );
    }
    const r = await runContamination({
      buildDir,
      problemsFile: values.problems !== undefined ? resolve(ctx.cwd, values.problems) : undefined,
      solvers: await Promise.all(specs.map((s) => createChatModel(s, { env: ctx.env, logger: ctx.logger }))),
      languages,
      samples,
      prompts: loadPromptSet(values.prompts !== undefined ? resolve(ctx.cwd, values.prompts) : undefined),
      concurrency: values.concurrency,
      judge: judgeChoice.create,
      cacheDir: resolveCacheDir(ctx.env),
      logger: ctx.logger,
      progress: createProgressBar(ctx.stderr, ctx.interactive),
      signal: ctx.signal,
    });
    const summary = summarizeContamination(r.rows, r.samples);
    const table = renderContaminationTable(summary);
    try {
      await mkdir(outDir, { recursive: true });
    } catch (e) {
      throw new CorebError('IO', `cannot create the output directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
        file: outDir,
        cause: e,
      });
    }
    await saveFileAtomic(join(outDir, 'contamination.json'), JSON.stringify(summary, null, 2) + '\n');
    await saveFileAtomic(join(outDir, 'contamination.txt'), table);
    await saveLinesAtomic(
      join(outDir, 'contamination-programs.jsonl'),
      r.rows.map((x) => JSON.stringify(x)),
      ctx.signal,
    );
    ctx.stdout.write(
      `coreb contamination: ${r.problems} problem(s) x ${r.languages.length} language(s) x ${specs.length} solver(s) x ${r.samples} sample(s) x 2 forms; ${r.usage.replies} replies, ${r.calls} request(s) sent this run\n`,
    );
    ctx.stdout.write(table);
    if (r.failures.length > 0) {
      ctx.stdout.write(
        `${r.failures.length} request(s) gave no program after retries (counted as failing), e.g. ${r.failures[0].item}: ${r.failures[0].error}\n`,
      );
    }
    ctx.stdout.write(`wrote ${join(outDir, 'contamination.json')}, contamination.txt, contamination-programs.jsonl\n`);
    return 0;
  },
};
export default command;
