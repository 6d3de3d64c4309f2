/**
 * `coreb compare`: paired significance tests of every retriever in a results file against a
 * baseline (t-test, Fisher randomization, paired bootstrap), per task and overall, Holm-adjusted.
 */
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { EventLoopTurns } from '../../core/event-loop-turns.js';
import { loadResultsInput } from '../../dataset/results-store.js';
import {
  COMPARE_TESTS,
  compareResults,
  defaultBaseline,
  renderCompareTable,
  renderCompareTableAs,
  type CompareReport,
} from '../../report/compare.js';
import { explainGroups, groupResults } from '../../report/result-groups.js';
import type { LoadedResults } from '../../dataset/results-file.js';
import { opt, parseOptions } from '../options.js';
import { createProgressBar } from '../progress-bar.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb compare INPUT... [options]

Paired two-sided significance tests over per-query values between every retriever and the
baseline, overall (all queries pooled) and per task. Each INPUT is a results file, a folder with
a results.json (\`coreb eval --out\`), or a results store (\`coreb eval --results\`: every entry).
Rows of several inputs are merged per dataset and protocol, as \`coreb report\` merges them (the
same row twice counts once); each (dataset, protocol) is compared on its own, never against another.

Options:
  --baseline NAME     Baseline retriever (default: a BM25 row; else the first row of a results
                      file; else, in a results store, the best row by the first measure).
  --measure M         Measure label as in the results (default ndcg@10); repeatable or a comma
                      list, each measure tested (and Holm-adjusted) on its own.
  --test T            t-test | randomization | bootstrap | all (default all).
                        t-test         paired Student's t (exact t distribution), with its 95% CI
                        randomization  Fisher's sign-flip test, p = (hits + 1) / (n + 1)
                        bootstrap      paired bootstrap percentile 95% CI, shifted-null p
  --permutations N    Sign flips of the randomization test (default 10000).
  --bootstrap N       Resamples of the bootstrap (default 10000).
  --seed N            PRNG seed of randomization and bootstrap (default 42).
  --format F          table (default) | markdown | latex | json. markdown and LaTeX: one table per
                      measure, a row per retriever, a column per scope, the mean with a
                      superscript + (significantly better than the baseline) or − (worse)

p (Holm) is the Holm–Bonferroni adjusted p-value over all comparisons of one measure made with
the same test. JSON, one dataset and one measure: {"baseline", "measure", "settings",
"comparisons": [{"retriever", "scope", "measure", "test", "delta", "ci": [lo, hi] | null, "pValue",
"pHolm", "queries"}], "skipped"}; otherwise {"groups": [{"dataset", "protocol", "reports": [that
object per measure]}]}.
Needs per-query values (results written without --no-per-query). See docs/report.md.
`;

const command: Command = {
  summary: 'paired significance tests between retrievers of results files, folders or stores (t-test, randomization, bootstrap, Holm)',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals } = parseOptions(
      'compare',
      ctx.argv,
      {
        baseline: opt.string(),
        measure: opt.strings(),
        test: opt.choice([...COMPARE_TESTS, 'all'] as const, 'all'),
        permutations: opt.int(10000, 1),
        bootstrap: opt.int(10000, 1),
        seed: opt.int(42, 0),
        format: opt.format(['table', 'markdown', 'latex', 'json'] as const, 'table'),
      },
      true,
    );
    if (positionals.length === 0)
      throw new CorebError('USAGE', 'coreb compare takes one or more results files, folders or stores; see `coreb compare --help`');
    const { format, test } = values;
    const loaded: LoadedResults[] = [];
    const progress = createProgressBar(ctx.stderr, ctx.interactive, { delayMs: 2000 });
    for (const p of positionals) loaded.push(...(await loadResultsInput(resolve(ctx.cwd, p), progress, ctx.signal)));
    // One results file (or eval folder) keeps its rows' order; a store's is its file names'.
    const ordered = loaded.length === positionals.length;
    let groups = groupResults(loaded);
    // Imported rows (published task means) have no per-query values: nothing to test.
    for (const g of groups) {
      const imported = g.retrievers.filter((r) => r.imported !== undefined);
      if (imported.length === 0) continue;
      ctx.stderr.write(`${g.label}: not compared (imported, no per-query values): ${imported.map((r) => r.name).join(', ')}\n`);
      g.retrievers = g.retrievers.filter((r) => r.imported === undefined);
    }
    for (const g of groups.filter((x) => x.retrievers.length < 2)) {
      ctx.stderr.write(`${g.label}: not compared (${g.retrievers.length} row(s) with per-query values; a comparison needs two)\n`);
    }
    groups = groups.filter((x) => x.retrievers.length >= 2);
    if (groups.length === 0)
      throw new CorebError('USAGE', 'nothing to compare: no dataset has more than one retriever with per-query values (a comparison needs two)');
    const measures = (values.measure.length > 0 ? values.measure : ['ndcg@10'])
      .flatMap((m) => m.split(','))
      .map((m) => m.trim())
      .filter(Boolean);
    const settings = {
      tests: test === 'all' ? COMPARE_TESTS : [test],
      seed: values.seed,
      permutations: values.permutations,
      bootstrapSamples: values.bootstrap,
    };
    const turns = new EventLoopTurns(ctx.signal);
    const out: Array<{ dataset: string; protocol: string; label: string; reports: CompareReport[] }> = [];
    for (const g of groups) {
      let baseline = values.baseline;
      if (baseline === undefined) {
        const picked = defaultBaseline(g.retrievers, measures[0], ordered);
        baseline = picked.name;
        if (format !== 'json') ctx.stderr.write(`${g.label}: baseline ${picked.name} (${picked.why}; --baseline NAME picks another)\n`);
      }
      const reports: CompareReport[] = [];
      for (const measure of measures)
        reports.push(await compareResults({ ...g.results, retrievers: g.retrievers }, { baseline, measure, ...settings, turns }));
      out.push({ dataset: g.split, protocol: g.protocol, label: g.label, reports });
    }
    const single = out.length === 1 && out[0].reports.length === 1;
    if (format === 'json') {
      ctx.stdout.write(`${JSON.stringify(single ? out[0].reports[0] : { groups: out.map(({ label: _l, ...g }) => g) }, null, 2)}\n`);
      return 0;
    }
    const why = explainGroups(groups);
    if (why.length > 0) ctx.stdout.write(`${groups.length} datasets or protocols, compared apart: ${why.join('; ')}\n\n`);
    for (const g of out) {
      if (out.length > 1) ctx.stdout.write(`== ${g.label} (protocol ${g.protocol})\n`);
      const rows = groups.find((x) => x.label === g.label)!.retrievers;
      for (const r of g.reports) ctx.stdout.write(format === 'table' ? renderCompareTable(r) : `${renderCompareTableAs(r, rows, format)}\n`);
    }
    return 0;
  },
};
export default command;
