/**
 * `coreb leaderboard`: leaderboards of a results store (or results files, eval folders), one per
 * release and protocol, with significance marks, model metadata and the cross-release view; or a
 * static multi-page site of them (`--site OUT`).
 */
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { loadResultsInput } from '../../dataset/results-store.js';
import type { LoadedResults } from '../../dataset/results-file.js';
import { buildLeaderboards, crossReleaseViews, renderCrossRelease, renderLeaderboard } from '../../report/leaderboard.js';
import { writeLeaderboardSite } from '../../report/leaderboard-site.js';
import { opt, parseOptions } from '../options.js';
import { createProgressBar } from '../progress-bar.js';
import type { Command, CommandContext } from '../command.js';
import { readModelMetaOption } from '../model-meta-option.js';

const USAGE = `Usage: coreb leaderboard INPUT... [options]

Prints one leaderboard per release, protocol and task family — never mixing datasets, protocols,
or retrieval with reranking fixed candidate lists (MTEB's Coreb*Reranking tasks, top-ranked:) — from
results stores (\`coreb eval --results DIR\`, with rows imported by \`coreb results import-mteb\`),
results files or \`coreb eval --out\` folders. The same row in several inputs is shown once. Rows
are ranked by the protocol's aggregate (coreb: query-weighted overall; mteb, beir: task mean) of
the measure; superscripts name the rows a score is significantly better than (paired
randomization test, Holm–Bonferroni over all pairs of a column). Imported rows (published MTEB
results, marked †) have task means only and take part in no test. With two or more releases under
one protocol, a cross-release table follows.

Options:
  --format F          table (default) | markdown | latex | json. JSON: {"leaderboards": [{"dataset",
                      "datasetSha256", "protocol", "family", "label", "measure", "rankBy", "tasks",
                      "extraMeasures", "rows": [{"rank", "letter", "retriever", "overall",
                      "taskMean", "tasks", "queries", "measures", "significantlyBetterThan",
                      "model", "imported"}], "notes"}], "crossRelease": [...]}
  --site OUT          Also write a static site to OUT: index.html, one page per release and
                      protocol (with its parameters-vs-score Pareto chart), one per model (every
                      release, task, language and subtask), cross-release.html, pareto.html.
                      Plain HTML and SVG: no JavaScript, no network.
  --model-meta FILE   Model metadata over what the rows carry: a JSON object keyed by row name or
                      model id, e.g. {"my-e5": {"parameters": 109482240, "embedDim": 768,
                      "maxTokens": 512, "openWeights": true, "license": "mit",
                      "codeSpecialised": false, "releaseDate": "2023-05-01", "reference": "..."}}
                      (MTEB's names n_parameters, embed_dim, max_tokens, ... work too).
  --measure M         The measure ranked and tested (default: each board's main score, ndcg@10
                      for retrieval, map@10 for reranking as MTEB ranks its reranking tasks).
  --alpha X           Significance level (default 0.05).
  --permutations N    Sign flips of the test (default 10000).
  --seed N            Its seed (default 42).
See docs/report.md ("Leaderboards").
`;

const command: Command = {
  summary: 'leaderboards of a results store per release and protocol (text, markdown, LaTeX, JSON) and a static site',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals } = parseOptions(
      'leaderboard',
      ctx.argv,
      {
        format: opt.format(['table', 'markdown', 'latex', 'json'] as const, 'table'),
        site: opt.string(),
        'model-meta': opt.string(),
        measure: opt.string(),
        alpha: opt.number(0.05, (x) => x > 0 && x < 1, 'a number in (0, 1)'),
        permutations: opt.int(10000, 1),
        seed: opt.int(42, 0),
      },
      true,
    );
    if (positionals.length === 0)
      throw new CorebError('USAGE', 'coreb leaderboard takes one or more results stores, files or folders; see `coreb leaderboard --help`');
    const { format } = values;
    const files: LoadedResults[] = [];
    // Progress lines appear only for a step that takes over 2 s (a big store).
    const progress = createProgressBar(ctx.stderr, ctx.interactive, { delayMs: 2000 });
    for (const p of positionals) files.push(...(await loadResultsInput(resolve(ctx.cwd, p), progress, ctx.signal)));
    const options = {
      signal: ctx.signal,
      alpha: values.alpha,
      permutations: values.permutations,
      seed: values.seed,
      progress,
      ...(values.measure !== undefined ? { measure: values.measure } : {}),
      ...(values['model-meta'] !== undefined
        ? { modelMeta: await readModelMetaOption(ctx.cwd, values['model-meta'], (m) => ctx.logger.warn(m)) }
        : {}),
    };
    const boards = await buildLeaderboards(files, options);
    const missing = boards.filter((b) => b.rows.every((r) => r.taskMean === null && r.overall === null));
    if (missing.length > 0 && missing.length === boards.length) {
      throw new CorebError(
        'USAGE',
        `no row has \`${[...new Set(boards.map((b) => b.measure))].join('` or `')}\`; the results hold ${[...new Set(files.flatMap((f) => f.results.measures))].slice(0, 12).join(', ')}, ...`,
      );
    }
    const cross = crossReleaseViews(boards);
    if (format === 'json') ctx.stdout.write(`${JSON.stringify({ leaderboards: boards, crossRelease: cross }, null, 2)}\n`);
    else {
      ctx.stdout.write(boards.map((b) => renderLeaderboard(b, format)).join('\n'));
      for (const v of cross) ctx.stdout.write(`\n${renderCrossRelease(v, format)}`);
    }
    if (values.site !== undefined) {
      const outDir = resolve(ctx.cwd, values.site);
      const site = await writeLeaderboardSite(files, { ...options, outDir, boards });
      ctx.logger.info(`wrote ${site.pages.length} page(s) to ${outDir} (open ${resolve(outDir, 'index.html')})`);
    }
    return 0;
  },
};
export default command;
