/**
 * `coreb compare`: paired significance tests of every retriever in a results file against a
 * baseline (t-test, Fisher randomization, paired bootstrap), per task and overall, Holm-adjusted.
 */
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { COMPARE_TESTS, compareResults, loadEvalResults, renderCompareTable, type CompareTest } from '../../report/index.js';
import { parseChoiceOption, parseCommandArgs, parseIntOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb compare RESULTS.json [options]

Paired two-sided significance tests over per-query values between every retriever and the
baseline, overall (all queries pooled) and per task.

Options:
  --baseline NAME     Baseline retriever (default: the first in the file).
  --measure M         Measure label as in the results (default ndcg@10).
  --test T            t-test | randomization | bootstrap | all (default all).
                        t-test         paired Student's t (exact t distribution), with its 95% CI
                        randomization  Fisher's sign-flip test, p = (hits + 1) / (n + 1)
                        bootstrap      paired bootstrap percentile 95% CI, shifted-null p
  --permutations N    Sign flips of the randomization test (default 10000).
  --bootstrap N       Resamples of the bootstrap (default 10000).
  --seed N            PRNG seed of randomization and bootstrap (default 42).
  --format F          table (default) | json

p (Holm) is the Holm–Bonferroni adjusted p-value over all comparisons made with the same test.
JSON: {"baseline", "measure", "settings", "comparisons": [{"retriever", "scope", "measure",
"test", "delta", "ci": [lo, hi] | null, "pValue", "pHolm", "queries"}]}.
Needs per-query values (results written without --no-per-query). See docs/report.md.
`;

const command: Command = {
  summary: 'paired significance tests between retrievers of a results file (t-test, randomization, bootstrap, Holm)',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals } = parseCommandArgs(
      'compare',
      ctx.argv,
      {
        baseline: { type: 'string' },
        measure: { type: 'string' },
        test: { type: 'string' },
        permutations: { type: 'string' },
        bootstrap: { type: 'string' },
        seed: { type: 'string' },
        format: { type: 'string' },
      },
      true,
    );
    if (positionals.length !== 1)
      throw new CorebError('USAGE', `coreb compare takes one RESULTS.json, got ${positionals.length}; see \`coreb compare --help\``);
    const format = parseChoiceOption('format', values.format as string | undefined, ['table', 'json'] as const, 'table');
    const test = parseChoiceOption('test', values.test as string | undefined, [...COMPARE_TESTS, 'all'] as const, 'all');
    const { results } = await loadEvalResults(resolve(ctx.cwd, positionals[0]));
    const report = compareResults(results, {
      ...(values.baseline !== undefined ? { baseline: values.baseline as string } : {}),
      ...(values.measure !== undefined ? { measure: values.measure as string } : {}),
      tests: test === 'all' ? COMPARE_TESTS : [test as CompareTest],
      seed: parseIntOption('seed', values.seed as string | undefined, 42, 0),
      permutations: parseIntOption('permutations', values.permutations as string | undefined, 10000, 1),
      bootstrapSamples: parseIntOption('bootstrap', values.bootstrap as string | undefined, 10000, 1),
    });
    ctx.stdout.write(format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderCompareTable(report));
    return 0;
  },
};
export default command;
