/**
 * `coreb validate <dir>`: detects a CoREB release or a BEIR/CoIR directory, prints its statistics
 * and every problem found, and exits non-zero when any problem is an error.
 */
import { renderIssue, type ValidationIssue } from '../../core/issues.js';
import { CorebError, EXIT_CODES } from '../../core/errors.js';
import { isBeirDir, loadBeir } from '../../dataset/beir.js';
import { loadCl100kCounter, releaseTokenStats, renderReleaseTokenStats, verifiedByModelLanguage } from '../../dataset/release-tokens.js';
import { loadRelease, RELEASE_FORMATS, type ReleaseFormat } from '../../dataset/release.js';
import { releaseStats, renderReleaseStats, renderRetrievalTaskStats, retrievalTaskStats } from '../../dataset/release-stats.js';
import { beirIssues, releaseIssues } from '../../eval/dataset-issues.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';

const LAYOUTS = ['auto', 'release', 'beir'] as const;
const FORMATS = ['table', 'json'] as const;

const usage = `Usage: coreb validate <dir> [options]

Checks a dataset directory and prints its statistics and every problem found (file, line or
parquet row, field, what was expected). Exit status 0 when there are no errors (warnings are
allowed), 4 when there are errors.

Warnings include label proxies: document fields present on the positives (label 2) of a task but
absent from its hard negatives (label 1), or the reverse, found from the qrels for every field. A
retriever that reads such a field reads the label (CoREB's abbreviated_text is on original problem
texts only); coreb's BM25 indexes only title and text unless a spec adds fields.

Layouts (detected; force with --layout):
  release   an official CoREB release: <table>.jsonl[.gz] for the 8 tables, or the published
            parquet <split>/<table>-<split>-00000-of-00001.parquet
  beir      a BEIR/CoIR directory: corpus.jsonl, queries.jsonl, qrels/<split>.tsv

Options:
  --format table|json       output format (default table: aligned text; text works too)
  --layout auto|release|beir
                            directory layout (default auto: beir when corpus.jsonl exists)
  --input auto|jsonl|parquet
                            release storage format (default auto: JSONL when present)
  --no-tokens               skip the token statistics (cl100k_base, a release only)
  --split NAME              parquet release split (default: the only one) or BEIR qrels split
                            (default test)
  -h, --help                this help
`;

function countBy(issues: readonly ValidationIssue[]): { errors: number; warnings: number } {
  let errors = 0;
  for (const i of issues) if (i.severity === 'error') errors++;
  return { errors, warnings: issues.length - errors };
}

async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(
    'validate',
    ctx.argv,
    {
      format: opt.format(FORMATS, 'table'),
      layout: opt.choice(LAYOUTS, 'auto'),
      input: opt.choice<ReleaseFormat, ReleaseFormat>(RELEASE_FORMATS, 'auto'),
      split: opt.string(),
      'no-tokens': opt.flag(),
    },
    true,
  );
  if (positionals.length !== 1) {
    throw new CorebError('USAGE', `coreb validate takes exactly one directory, got ${positionals.length}; see \`coreb validate --help\``);
  }
  const dir = positionals[0];
  const { format, input, split } = values;
  let { layout } = values;
  if (layout === 'auto') layout = (await isBeirDir(dir)) ? 'beir' : 'release';

  let issues: ValidationIssue[];
  let statsText: string;
  let stats: unknown;
  let resolvedSplit: string;
  if (layout === 'beir') {
    const loaded = await loadBeir(dir, { split, signal: ctx.signal });
    issues = beirIssues(loaded, { labelProxies: true });
    const s = retrievalTaskStats(loaded.task);
    stats = s;
    statsText = `BEIR directory ${dir} (split ${loaded.split})\n\n` + renderRetrievalTaskStats(s);
    resolvedSplit = loaded.split;
  } else {
    const loaded = await loadRelease(dir, { format: input, split });
    issues = releaseIssues(loaded, { labelProxies: true });
    const s = releaseStats(loaded.release);
    const tokens = values['no-tokens'] ? undefined : await releaseTokenStats(loaded.release, await loadCl100kCounter(), ctx.signal);
    const verified = verifiedByModelLanguage(loaded.release);
    stats = { ...s, ...(tokens !== undefined ? { tokens } : {}), verified };
    statsText = `${renderReleaseStats(s).trimEnd()}\n\n${renderReleaseTokenStats(tokens, verified)}\n`;
    resolvedSplit = loaded.release.split;
  }
  // Ctrl-C during the checks ends the command without a report (exit status 130), never with one.
  ctx.signal.throwIfAborted();
  const { errors, warnings } = countBy(issues);
  if (format === 'json') {
    ctx.stdout.write(JSON.stringify({ dir, layout, split: resolvedSplit, ok: errors === 0, errors, warnings, stats, issues }, null, 2) + '\n');
  } else {
    const lines = [statsText.trimEnd(), ''];
    if (issues.length > 0) {
      lines.push(`problems (${issues.length}):`);
      for (const i of issues) lines.push('  ' + renderIssue(i));
      lines.push('');
      const byKind = new Map<string, number>();
      for (const i of issues) byKind.set(`${i.severity} ${i.kind}`, (byKind.get(`${i.severity} ${i.kind}`) ?? 0) + 1);
      lines.push(`by kind: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    }
    lines.push(`${errors} error(s), ${warnings} warning(s): ${errors === 0 ? 'valid' : 'INVALID'}`);
    ctx.stdout.write(lines.join('\n') + '\n');
  }
  return errors > 0 ? EXIT_CODES.VALIDATION : 0;
}

const command: Command = {
  summary: 'check a CoREB release or BEIR directory: statistics and every problem',
  usage,
  run,
};
export default command;
