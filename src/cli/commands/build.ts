/**
 * `coreb build`: builds a contamination-limited CoREB release from LiveCodeBench-format problems
 * through chat-model endpoints and the sandboxed judge (see docs/build.md).
 */
import { nameList, tableLines } from '../../core/table.js';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { ChatModel } from '../../core/chat.js';
import { CorebError, EXIT_CODES } from '../../core/errors.js';
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { EXEC_LANGUAGES } from '../../core/execution.js';
import { BUILD_STAGES, planBuild, runBuild, shapeRoles, type BuildOptions, type BuildStage } from '../../construct/pipeline/index.js';
import { loadPromptSet } from '../../construct/pipeline/prompts.js';
import { parseSelectionDate } from '../../construct/problem-selection.js';
import { resolveReleaseShape, type Code2CodeSubtask } from '../../construct/release-shape.js';
import { createDenseEmbedder } from '../../eval/dense-embedder.js';
import { compareReleases } from '../../eval/release-drift.js';
import { renderDriftReport } from '../../report/render-drift.js';
import { CHAT_PROVIDERS, createChatModel } from '../../providers/chat/registry.js';
import { normalizeChatConfig, parseChatSpec, type ChatModelConfig } from '../../providers/chat/config.js';
import { missingPackages, toolchainVersions } from '../../sandbox/languages/index.js';
import { opt, parseOptions, type OptionValues } from '../options.js';
import { loadBuildConfig, settingList, type BuildFileConfig } from '../../construct/build-config.js';
import type { Command, CommandContext } from '../command.js';
import { readJudgeOption } from '../judge-option.js';
import { createProgressBar } from '../progress-bar.js';
import { corebVersion } from '../../core/version.js';

const USAGE = `coreb build --problems FILE --out DIR --rewriter SPEC --solver SPEC [options]

Builds a CoREB release from LiveCodeBench-format problems (JSONL) through chat models:
  load -> rewrite (+ tests) -> abbreviate -> solve -> execute -> queries -> negatives -> qrels -> release
Every model reply is cached under COREB_CACHE_DIR by its full request, every stage writes
DIR/work/<stage>.jsonl, and execution resumes from DIR/work/execute.jsonl: rerunning the same
command sends no answered request again and writes byte-identical tables. Ctrl-C (or a kill)
at any moment loses at most the requests in flight.

SPEC = PROVIDER:MODEL[?baseUrl=URL&apiKeyEnv=VAR&temperature=T&maxTokens=N&seed=N&concurrency=N
                      &timeoutMs=N&maxRetries=N&requestsPerMinute=N]
${nameList(Object.entries(CHAT_PROVIDERS).map(([name, e]) => [name, `${e.summary}${'apiKeyEnv' in e ? ` (key: ${e.apiKeyEnv})` : ''}`])).join('\n')}
  e.g. openai:Qwen/Qwen2.5-Coder-7B-Instruct?baseUrl=http://127.0.0.1:8000/v1 (vLLM)
       ollama:qwen2.5-coder:7b

Options:
  --problems FILE          LiveCodeBench problems JSONL (private tests JSON or base64/zlib/pickle)
  --out DIR                release directory (tables, problems.jsonl, manifest.json; work/ inside)
  --rewriter SPEC          model for the counterfactual rewrite and the test adaptation
  --abbreviator SPEC       model for the 50-150-word summaries (default: the rewriter)
  --solver SPEC            a solution model; repeat for several (each writes one program per
                           problem and language)
  --query-writer SPEC      model for search queries (default: the rewriter)
  --negative-writer SPEC   model for the hard-negative descriptions (default: the rewriter)
  --languages LIST         comma-separated, from python,cpp,java,go,ruby (default all five)
  --release-name NAME      release name and id tag (code_NAME_00001); default vYYYYMM of the first run
  --seed N                 seed of the seeded choices (default 42)
  --concurrency N          requests in flight per endpoint (base URL), shared by every model
                           served from it; each endpoint of a multi-endpoint model (baseUrl=A,B)
                           has its own (default 4). A model's concurrency= parameter, when given,
                           also caps that model over all its endpoints
  --from DATE              only problems whose contest_date is on or after DATE (YYYY-MM-DD)
  --to DATE                only problems whose contest_date is on or before DATE
  --exclude-release DIR    leave out the problems of an earlier release (a CoREB release directory
                           or a build), by id and by near-duplicate statement; repeatable
  --limit N                use only the first N problems of the file (after the selection)
  --prompts DIR            prompt template folder (default: coreb's own, prompts/build)
  --config FILE            build.json with the same settings (camelCase keys; solvers: [SPEC...]);
                           command-line options win
  --stages LIST            run only these stages (others read their output from DIR/work)
  --until STAGE            run from load up to STAGE
  --created-at ISO         meta_created_at of every row (default: the first run's time)
  --jobs N                 sandboxed processes at once when judging (default: cores)
  --timeout-ms N           judge CPU-time limit per test, ms (default 6000)
  --judge-cache DIR        judge helper/PCH/Go cache (default $COREB_JUDGE_CACHE or <tmp>/coreb-judge)
  --judge SPEC             where programs run: local (default) | sandboxfusion:URL | judge0:URL |
                           piston:URL[,key-env=VAR] (API key from $COREB_<SERVICE>_API_KEY)
  --previous DIR           the last release: after the release stage, print the series check of
                           this build against it (coreb drift PREVIOUS DIR; docs/build.md)
  --previous-split NAME    parquet split of --previous (default: the only one)
  --shape NAME             release shape: coreb-v202603 (default; the official rules), coreb-v202602
                           (the same with c2c_cross_lang only) or coreb-mini (docs/build.md)
  --search-cap N|all       most t2c_search queries per subtask, a seeded sample (default 50)
  --c2c-subtasks LIST      code-to-code subtasks, from mono_lang,cross_lang,cross_model (default all)
  --primary-solver LABEL   the solver whose programs are model A of the shape's rules (positives of
                           every c2c subtask, preferred c2t anchor); default the first --solver; the
                           first other solver is model B (anchors of mono_lang and cross_model)
  --similar-embedder SPEC  rank the similar problems shown to the query writer with this embedder
                           (dense spec as in coreb eval; cached); default TF-IDF cosine
  --dry-run                print the plan (stages, calls per model, token estimate) and exit;
                           needs no API key and sends nothing

Stages: ${BUILD_STAGES.join(', ')}.`;

/** A model setting (spec string or `{provider, model, ...}` object) to a config. */
function modelConfig(v: unknown, where: string): ChatModelConfig {
  if (typeof v === 'string') return parseChatSpec(v);
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return normalizeChatConfig(v as Record<string, unknown>, where);
  throw new CorebError('CONFIG', `${where}: expected a spec string PROVIDER:MODEL[?...] or an object {provider, model, ...}`);
}

/** `--from`, `--to`, `--exclude-release` (or `from`, `to`, `excludeReleases` in build.json). */
function selectionOptions(
  values: Pick<BuildValues, 'from' | 'to' | 'exclude-release'>,
  cfg: BuildFileConfig,
  cwd: string,
  cfgDir: string,
): Pick<BuildOptions, 'from' | 'to' | 'excludeReleases'> {
  const date = (name: 'from' | 'to'): string | undefined => {
    const v = values[name] ?? cfg[name];
    return v === undefined ? undefined : parseSelectionDate(`--${name}`, v);
  };
  const cli = values['exclude-release'].length > 0 ? values['exclude-release'].map((d) => resolve(cwd, d)) : undefined;
  const fromCfg = cfg.excludeReleases?.map((d) => resolve(cfgDir, d));
  const from = date('from');
  const to = date('to');
  if (from !== undefined && to !== undefined && from > to) throw new CorebError('USAGE', `--from ${from} is after --to ${to}`);
  const excludeReleases = cli ?? fromCfg;
  return {
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(excludeReleases !== undefined ? { excludeReleases } : {}),
  };
}

/** The error for a stage name `coreb build` does not know. */
function unknownStage(name: string): string {
  return `unknown stage \`${name}\`; stages: ${BUILD_STAGES.join(', ')}`;
}

/** `--search-cap N|all` (or `searchCap` in build.json): candidates per search query, null for all. */
function parseSearchCap(text: string): number | null {
  if (text === 'all') return null;
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new CorebError('USAGE', `--search-cap must be an integer >= 0 or all, got \`${text}\``);
  return n;
}

/** The options of `coreb build`; each setting may come from --config instead (the command line wins). */
const BUILD_OPTIONS = {
  problems: opt.string(),
  out: opt.string(),
  rewriter: opt.string(),
  abbreviator: opt.string(),
  solver: opt.strings(),
  'query-writer': opt.string(),
  'negative-writer': opt.string(),
  languages: opt.list(EXEC_LANGUAGES),
  'release-name': opt.string(),
  seed: opt.optionalInt(0),
  concurrency: opt.optionalInt(1),
  limit: opt.optionalInt(1),
  prompts: opt.string(),
  config: opt.string(),
  stages: opt.list(BUILD_STAGES, unknownStage),
  until: opt.choice(BUILD_STAGES, undefined, unknownStage),
  'created-at': opt.string(),
  jobs: opt.int(availableParallelism(), 1),
  'timeout-ms': opt.optionalInt(1),
  'judge-cache': opt.string(),
  judge: opt.string(),
  'dry-run': opt.flag(),
  previous: opt.string(),
  from: opt.string(),
  to: opt.string(),
  'exclude-release': opt.strings(),
  'previous-split': opt.string(),
  shape: opt.string(),
  'search-cap': opt.string(),
  'c2c-subtasks': opt.string(),
  'primary-solver': opt.string(),
  'similar-embedder': opt.string(),
};
type BuildValues = OptionValues<typeof BUILD_OPTIONS>;

const command: Command = {
  summary: 'build a CoREB release from LiveCodeBench problems through chat models and the judge',
  usage: USAGE,
  async run(ctx: CommandContext) {
    const { values } = parseOptions('build', ctx.argv, BUILD_OPTIONS);
    const cfgFile = values.config !== undefined ? resolve(ctx.cwd, values.config) : undefined;
    const cfg: BuildFileConfig = cfgFile !== undefined ? loadBuildConfig(cfgFile) : {};
    const cfgDir = cfgFile !== undefined ? dirname(cfgFile) : ctx.cwd;
    const path = (cli: string | undefined, fromCfg: string | undefined, name: string): string => {
      if (cli !== undefined) return resolve(ctx.cwd, cli);
      if (fromCfg !== undefined) return resolve(cfgDir, fromCfg);
      throw new CorebError('USAGE', `coreb build: --${name} is required (or \`${name}\` in --config); see \`coreb build --help\``);
    };
    const problemsFile = path(values.problems, cfg.problems, 'problems');
    const outDir = path(values.out, cfg.out, 'out');

    const specOf = (cli: string | undefined, fromCfg: unknown, where: string): ChatModelConfig | undefined =>
      cli !== undefined ? parseChatSpec(cli) : fromCfg !== undefined ? modelConfig(fromCfg, `${cfgFile}: ${where}`) : undefined;
    const rewriterCfg = specOf(values.rewriter, cfg.rewriter, 'rewriter');
    if (rewriterCfg === undefined) throw new CorebError('USAGE', 'coreb build: --rewriter SPEC is required; see `coreb build --help`');
    const solverSpecs =
      values.solver.length > 0 ? values.solver.map(parseChatSpec) : (cfg.solvers ?? []).map((s, i) => modelConfig(s, `${cfgFile}: solvers[${i}]`));
    if (solverSpecs.length === 0) throw new CorebError('USAGE', 'coreb build: at least one --solver SPEC is required; see `coreb build --help`');

    // The file's languages and stages were checked when it was read (loadBuildConfig).
    const languages = values.languages ?? cfg.languages ?? [...EXEC_LANGUAGES];
    const stageList = values.stages ?? cfg.stages;
    const until = values.until ?? cfg.until;
    if (stageList !== undefined && until !== undefined) throw new CorebError('USAGE', 'give --stages or --until, not both');
    let stages: BuildStage[] | undefined = stageList;
    if (until !== undefined) stages = BUILD_STAGES.slice(0, BUILD_STAGES.indexOf(until) + 1);

    const promptsDir =
      values.prompts !== undefined ? resolve(ctx.cwd, values.prompts) : cfg.prompts !== undefined ? resolve(cfgDir, cfg.prompts) : undefined;

    // One model object per distinct spec, so a model used in several roles shares its concurrency.
    // A dry run reads no API key (planOnly models refuse to send).
    const planOnly = values['dry-run'];
    const models = new Map<string, Promise<ChatModel>>();
    const model = (c: ChatModelConfig | undefined): Promise<ChatModel> | undefined => {
      if (c === undefined) return undefined;
      const key = JSON.stringify(c);
      if (!models.has(key)) models.set(key, createChatModel(c, { env: ctx.env, logger: ctx.logger, planOnly }));
      return models.get(key);
    };
    const capText = values['search-cap'] ?? (cfg.searchCap !== undefined ? String(cfg.searchCap) : undefined);
    const c2cSubtasks = values['c2c-subtasks'] !== undefined ? settingList(values['c2c-subtasks']) : cfg.c2cSubtasks;
    const shape = resolveReleaseShape(values.shape ?? cfg.shape, {
      ...(capText !== undefined ? { searchCap: parseSearchCap(capText) } : {}),
      ...(c2cSubtasks !== undefined ? { code2code: c2cSubtasks as Code2CodeSubtask[] } : {}),
    });
    const embedderSpec = values['similar-embedder'] ?? cfg.similarEmbedder;
    const similarityEmbedder =
      embedderSpec === undefined || planOnly
        ? undefined
        : await createDenseEmbedder(embedderSpec, {
            env: ctx.env,
            cwd: ctx.cwd,
            logger: ctx.logger,
            ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
          });
    const { jobs, 'timeout-ms': timeLimitMs } = values;
    const judgeCache = values['judge-cache'] !== undefined ? resolve(ctx.cwd, values['judge-cache']) : ctx.env.COREB_JUDGE_CACHE;
    const options: BuildOptions = {
      problemsFile,
      outDir,
      models: {
        rewriter: await (model(rewriterCfg) as Promise<ChatModel>),
        abbreviator: await model(specOf(values.abbreviator, cfg.abbreviator, 'abbreviator')),
        solvers: await Promise.all(solverSpecs.map((s) => model(s) as Promise<ChatModel>)),
        queryWriter: await model(specOf(values['query-writer'], cfg.queryWriter, 'queryWriter')),
        negativeWriter: await model(specOf(values['negative-writer'], cfg.negativeWriter, 'negativeWriter')),
        ...(similarityEmbedder !== undefined ? { similarityEmbedder } : {}),
      },
      shape,
      ...((values['primary-solver'] ?? cfg.primarySolver) !== undefined ? { primarySolver: values['primary-solver'] ?? cfg.primarySolver } : {}),
      languages,
      releaseName: values['release-name'] ?? cfg.releaseName,
      seed: values.seed ?? cfg.seed,
      concurrency: values.concurrency ?? cfg.concurrency,
      limit: values.limit ?? cfg.limit,
      cacheDir: resolveCacheDir(ctx.env),
      ...selectionOptions(values, cfg, ctx.cwd, cfgDir),
      prompts: loadPromptSet(promptsDir),
      stages,
      createdAt: values['created-at'] ?? cfg.createdAt,
      logger: ctx.logger,
      progress: createProgressBar(ctx.stderr, ctx.interactive),
      signal: ctx.signal,
      command: ['coreb', 'build', ...ctx.argv].join(' '),
    };
    if (options.releaseName !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(options.releaseName)) {
      throw new CorebError('USAGE', `--release-name must be letters, digits, '_', '.', '-', got \`${options.releaseName}\``);
    }
    if (options.createdAt !== undefined && Number.isNaN(Date.parse(options.createdAt))) {
      throw new CorebError('USAGE', `--created-at must be an ISO date-time, got \`${options.createdAt}\``);
    }

    if (values['dry-run']) {
      const plan = await planBuild(options);
      const sel = plan.selection;
      if (sel.dropped.length > 0 || sel.from !== null || sel.to !== null || sel.excluded.length > 0) {
        ctx.stdout.write(`selection: ${plan.problems} of ${sel.offered} problem(s) kept, ${sel.dropped.length} left out\n`);
        for (const d of sel.dropped.slice(0, 20)) ctx.stdout.write(`  ${d.id}: ${d.reason}\n`);
        if (sel.dropped.length > 20) ctx.stdout.write(`  … ${sel.dropped.length - 20} more (all of them in the manifest of a real run)\n`);
      }
      const rows = plan.stages.map((s) => [s.stage, s.model, String(s.calls), String(s.inputTokens), String(s.outputTokens), s.note ?? '']);
      rows.push(['execute', 'judge', `${plan.problems * languages.length * solverSpecs.length} programs`, '', '', 'sandboxed, no model calls']);
      rows.push(['qrels, release', '-', '0', '', '', 'local']);
      const head = ['stage', 'model', 'calls', 'in tokens~', 'out tokens~', 'note'];
      ctx.stdout.write(
        `coreb build --dry-run: ${plan.problems} problem(s), ${languages.length} language(s), ${solverSpecs.length} solver(s); no request sent\n`,
      );
      ctx.stdout.write(tableLines({ header: head, rows, align: ['left', 'left', 'right', 'right', 'right', 'left'] }).join('\n') + '\n');
      const roles = shapeRoles(options);
      ctx.stdout.write(
        `shape: ${shape.name} (docs/build.md, "Release shape"); model A (primary): ${roles.primary}; model B: ${roles.secondary ?? 'none (c2c_mono_lang and c2c_cross_model get no query)'}\n`,
      );
      const byModel = new Map<string, { calls: number; inT: number; outT: number }>();
      for (const s of plan.stages) {
        const m = byModel.get(s.model) ?? { calls: 0, inT: 0, outT: 0 };
        m.calls += s.calls;
        m.inT += s.inputTokens;
        m.outT += s.outputTokens;
        byModel.set(s.model, m);
      }
      ctx.stdout.write('per model: ' + [...byModel].map(([m, v]) => `${m} ${v.calls} calls ~${v.inT}+${v.outT} tokens`).join('; ') + '\n');
      return 0;
    }

    const runsJudge = stages === undefined || stages.some((s) => BUILD_STAGES.indexOf(s) >= BUILD_STAGES.indexOf('execute'));
    if (runsJudge) {
      const judgeChoice = readJudgeOption(values.judge, ctx, { cacheDir: judgeCache, jobs, timeLimitMs }, { jobs, timeLimitMs });
      const missing = judgeChoice.local ? missingPackages(languages, true) : [];
      if (missing.length > 0) {
        throw new CorebError(
          'TOOLCHAIN',
          `missing toolchain packages for ${languages.join(', ')}: ${missing.join(' ')}; install them with apt-get install -y ${missing.join(' ')}`,
        );
      }
      options.judge = judgeChoice.create;
      options.toolVersions = judgeChoice.local
        ? { coreb: corebVersion(), ...toolchainVersions(languages) }
        : { coreb: corebVersion(), judge: judgeChoice.spec.kind, judgeUrl: judgeChoice.spec.url ?? '' };
    }
    let r: Awaited<ReturnType<typeof runBuild>>;
    try {
      r = await runBuild(options);
    } finally {
      similarityEmbedder?.close();
    }
    const calls = r.calls;
    ctx.stdout.write(`coreb build: ${calls} request(s) sent this run (cache: ${options.cacheDir})\n`);
    if (r.judging !== undefined) {
      ctx.stdout.write(
        `  judged ${r.judging.judged} program(s) in the sandbox this run; ${r.judging.fromCache} from the verdict cache, ${r.judging.resumed} already in work/execute.jsonl\n`,
      );
    }
    const usage = Object.entries(r.usage);
    if (usage.length > 0) {
      const rows = usage.map(([stage, u]) => [stage, ...[u.replies, u.calls, u.inputTokens, u.outputTokens, u.failed].map(String)]);
      const header = ['stage', 'replies', 'new', 'in tokens', 'out tokens', 'failed'];
      ctx.stdout.write(`${tableLines({ header, rows, indent: '  ' }).join('\n')}\n`);
    }
    if (r.counts !== undefined) {
      ctx.stdout.write(
        `release: ${r.problemsReleased} problem(s); ` +
          Object.entries(r.counts.tables)
            .map(([t, n]) => `${t} ${n}`)
            .join(', ') +
          '\n',
      );
      ctx.stdout.write(`wrote ${outDir} (8 tables, problems.jsonl, manifest.json)\n`);
      if (values.previous !== undefined) {
        const drift = await compareReleases(resolve(ctx.cwd, values.previous), outDir, {
          ...(values['previous-split'] !== undefined ? { previousSplit: values['previous-split'] } : {}),
          corebVersion: corebVersion(),
          signal: ctx.signal,
          logger: ctx.logger,
        });
        ctx.stdout.write(`\n${renderDriftReport(drift)}`);
      }
    }
    if (r.failures.length > 0) {
      ctx.stdout.write(
        `missing: ${r.failures.length} item(s) failed (reply contract broken, or a provider error, after retries; listed in manifest.json failures):\n`,
      );
      for (const f of r.failures.slice(0, 20)) ctx.stdout.write(`  ${f.stage} ${f.item}: ${f.error}\n`);
      if (r.failures.length > 20) ctx.stdout.write(`  … ${r.failures.length - 20} more\n`);
      for (const d of r.dropped ?? []) ctx.stdout.write(`  problem ${d.id} left out of the release: ${d.reason}\n`);
      ctx.stdout.write('rerun the same command to retry only the failed items (answered calls come from the cache)\n');
      // Something is missing from the release: say so in the status too (docs/build.md).
      return EXIT_CODES.PROVIDER;
    }
    return 0;
  },
};
export default command;
