/**
 * `coreb validate <dir>`: detects a CoREB release or a BEIR/CoIR directory, prints its statistics
 * and every problem found, and exits non-zero when any problem is an error.
 */
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { renderIssue, type ValidationIssue } from '../../core/issues.js';
import { CorebError, EXIT_CODES } from '../../core/errors.js';
import { isBeirDir, loadBeir } from '../../dataset/beir.js';
import { cachedReleaseTokenStats, renderReleaseTokenStats, verifiedByModelLanguage } from '../../dataset/release-tokens.js';
import { loadRelease, RELEASE_FORMATS, type ReleaseFormat } from '../../dataset/release.js';
import { poolReleases } from '../../dataset/release-pool.js';
import type { Release } from '../../core/dataset.js';
import { releaseStats, renderReleaseStats, renderRetrievalTaskStats, retrievalTaskStats } from '../../dataset/release-stats.js';
import { beirIssues, releaseIssues } from '../../eval/dataset-issues.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';

const LAYOUTS = ['auto', 'release', 'beir'] as const;
const FORMATS = ['table', 'json'] as const;

const usage = `Usage: coreb validate <dir> [<dir>...] [options]

Checks a dataset directory and prints its statistics and every problem found (file, line or
parquet row, field, what was expected). Exit status 0 when there are no errors (warnings are
allowed), 4 when there are errors.

Given several CoREB releases, each is checked and counted, then the statistics of all of them
pooled (counts summed, means over every item of every release, medians of the pooled values; a
seed problem in two releases counts once), as the paper's tables aggregate its two releases.
JSON: {"releases": [one object per directory, as for one], "pooled": {"splits", "stats"}}.

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
  --no-tokens               skip the token statistics (cl100k_base, a release only; counted once
                            per content and cached under COREB_CACHE_DIR/datasets)
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
  if (positionals.length === 0) throw new CorebError('USAGE', 'coreb validate takes a directory (or several releases); see `coreb validate --help`');
  const checked: Checked[] = [];
  for (const dir of positionals) checked.push(await check(ctx, dir, values));
  // Ctrl-C during the checks ends the command without a report (exit status 130), never with one.
  ctx.signal.throwIfAborted();
  const errors = checked.reduce((n, c) => n + c.errors, 0);
  if (checked.length === 1) {
    const c = checked[0];
    if (values.format === 'json') ctx.stdout.write(JSON.stringify(c.json, null, 2) + '\n');
    else ctx.stdout.write(c.text);
    return errors > 0 ? EXIT_CODES.VALIDATION : 0;
  }
  const releases = checked.map((c) => c.release);
  if (releases.some((r) => r === undefined)) {
    throw new CorebError('USAGE', 'pooled statistics are for CoREB releases; a BEIR directory is checked on its own (`coreb validate DIR`)');
  }
  const pool = poolReleases(releases as Release[]);
  const stats = releaseStats(pool);
  const tokens = values['no-tokens'] ? undefined : await cachedReleaseTokenStats(pool, resolveCacheDir(ctx.env), ctx.signal);
  const verified = verifiedByModelLanguage(pool);
  ctx.signal.throwIfAborted();
  if (values.format === 'json') {
    const pooled = { splits: releases.map((r) => r!.split), stats: { ...stats, ...(tokens !== undefined ? { tokens } : {}), verified } };
    ctx.stdout.write(JSON.stringify({ releases: checked.map((c) => c.json), pooled }, null, 2) + '\n');
  } else {
    const pooledText = `${renderReleaseStats(stats).trimEnd()}\n\n${renderReleaseTokenStats(tokens, verified)}\n`.replace(
      /^CoREB release .*/,
      `Pooled over ${releases.length} releases (${releases.map((r) => r!.split).join(', ')}): counts summed, means over all items, a seed problem in two releases once`,
    );
    ctx.stdout.write([...checked.map((c) => c.text), pooledText].join('\n'));
  }
  return errors > 0 ? EXIT_CODES.VALIDATION : 0;
}

/** One directory checked: its report as text and as JSON, its error count, the release when it is one. */
interface Checked {
  text: string;
  json: Record<string, unknown>;
  errors: number;
  release?: Release;
}

async function check(
  ctx: CommandContext,
  dir: string,
  values: { layout: (typeof LAYOUTS)[number]; input: ReleaseFormat; split?: string | undefined; 'no-tokens'?: boolean | undefined },
): Promise<Checked> {
  const { input, split } = values;
  let { layout } = values;
  if (layout === 'auto') layout = (await isBeirDir(dir)) ? 'beir' : 'release';
  let issues: ValidationIssue[];
  let statsText: string;
  let stats: unknown;
  let resolvedSplit: string;
  let release: Release | undefined;
  if (layout === 'beir') {
    const loaded = await loadBeir(dir, { split, signal: ctx.signal });
    issues = beirIssues(loaded, { labelProxies: true });
    const s = retrievalTaskStats(loaded.task);
    stats = s;
    statsText = `BEIR directory ${dir} (split ${loaded.split})\n\n` + renderRetrievalTaskStats(s);
    resolvedSplit = loaded.split;
  } else {
    const loaded = await loadRelease(dir, { format: input, split });
    release = loaded.release;
    issues = releaseIssues(loaded, { labelProxies: true });
    const s = releaseStats(loaded.release);
    const tokens = values['no-tokens'] ? undefined : await cachedReleaseTokenStats(loaded.release, resolveCacheDir(ctx.env), ctx.signal);
    const verified = verifiedByModelLanguage(loaded.release);
    stats = { ...s, ...(tokens !== undefined ? { tokens } : {}), verified };
    statsText = `${renderReleaseStats(s).trimEnd()}\n\n${renderReleaseTokenStats(tokens, verified)}\n`;
    resolvedSplit = loaded.release.split;
  }
  const { errors, warnings } = countBy(issues);
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
  return {
    text: lines.join('\n') + '\n',
    json: { dir, layout, split: resolvedSplit, ok: errors === 0, errors, warnings, stats, issues },
    errors,
    ...(release !== undefined ? { release } : {}),
  };
}

const command: Command = {
  summary: 'check a CoREB release or BEIR directory: statistics and every problem',
  usage,
  run,
};
export default command;
