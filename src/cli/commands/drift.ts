/**
 * `coreb drift`: the series check of a release against the last one (what moved: counts, qrels,
 * token lengths, verified-correct shares, BM25), each figure flagged outside its documented band.
 */
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { resolve } from 'node:path';
import { CHECK_FAILED_EXIT, CorebError } from '../../core/errors.js';
import { compareReleases, DEFAULT_DRIFT_BANDS } from '../../eval/release-drift.js';
import { renderDriftReport } from '../../report/render-drift.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { corebVersion } from '../../core/version.js';

const b = DEFAULT_DRIFT_BANDS;
const USAGE = `Usage: coreb drift PREVIOUS CURRENT [options]

Compares two CoREB releases (directories in any layout coreb reads; PREVIOUS the last release,
CURRENT the new one or a coreb build) and prints every figure with its change, flagging those
outside their band:

  counts     queries per task and per subtask family (languages pooled)     ±${b.countRelative * 100}%
  qrels      positives and hard negatives per query, per task               ±${b.perQueryRelative * 100}%
  tokens     mean cl100k_base tokens of queries and of each corpus group    ±${b.tokensRelative * 100}%
  verified   verified-correct share of each model x language                ±${b.verifiedAbsolute} (absolute)
  bm25       coreb's BM25 per task: nDCG@10 ±${b.ndcgAbsolute}, hard negatives in the top 10 per
             query ±${b.hardNegativesTop10Absolute}, hard-negative intrusion ±${b.intrusionAbsolute}

A subtask one release has and the other lacks is flagged added or removed. Both releases are
checked as \`coreb validate\` checks them (errors stop the command). Token counts are cached by
content under COREB_CACHE_DIR/datasets, shared with \`coreb eval\` and \`coreb validate\`.

Options:
  --previous-split NAME   Parquet split of PREVIOUS (default: the only one).
  --current-split NAME    Parquet split of CURRENT (default: the only one).
  --no-bm25               Skip the BM25 figures (the slowest part).
  --flagged               Print only the flagged figures.
  --strict                Exit 1 when any figure is flagged (for CI).
  --format F              table (default) | markdown | json
See docs/build.md ("The series check").
`;

const command: Command = {
  summary: 'series check of a release against the last one: what moved, flagged outside documented bands',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals } = parseOptions(
      'drift',
      ctx.argv,
      {
        'previous-split': opt.string(),
        'current-split': opt.string(),
        'no-bm25': opt.flag(),
        flagged: opt.flag(),
        strict: opt.flag(),
        format: opt.format(['table', 'markdown', 'latex', 'json'] as const, 'table'),
      },
      true,
    );
    if (positionals.length !== 2)
      throw new CorebError(
        'USAGE',
        `coreb drift takes two release directories (PREVIOUS CURRENT), got ${positionals.length}; see \`coreb drift --help\``,
      );
    const { format } = values;
    const report = await compareReleases(resolve(ctx.cwd, positionals[0]), resolve(ctx.cwd, positionals[1]), {
      ...(values['previous-split'] !== undefined ? { previousSplit: values['previous-split'] } : {}),
      ...(values['current-split'] !== undefined ? { currentSplit: values['current-split'] } : {}),
      bm25: !values['no-bm25'],
      corebVersion: corebVersion(),
      statsCacheDir: resolveCacheDir(ctx.env),
      signal: ctx.signal,
      logger: ctx.logger,
    });
    ctx.stdout.write(renderDriftReport(report, format, Boolean(values.flagged)));
    return values.strict && report.flagged > 0 ? CHECK_FAILED_EXIT : 0;
  },
};
export default command;
