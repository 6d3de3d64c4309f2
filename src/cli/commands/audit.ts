/**
 * `coreb audit`: the paper's dataset checks (qrels cardinality, aligned ids, lexical triviality,
 * label proxies, duplicates, language labels, prose-only code) on a CoREB release or BEIR directory.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { runAudit } from '../../eval/audit/audit.js';
import { renderAuditTable } from '../../report/render-audit.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';
import { createProgressBar } from '../progress-bar.js';

const USAGE = `Usage: coreb audit DATA [OTHER_RELEASE] [options]

Audits a CoREB release (JSONL or parquet) or a BEIR/CoIR directory the way the CoREB paper audits
other benchmarks (§1, §B.12).

Per task: queries; relevant documents per query (relevant = label >= 2 for a CoREB release, >= 1
for BEIR) and the share with exactly one (oneToOneShare); the share of queries whose relevant
document id ends in the query id's number (qN -> dN, alignedIdShare); lexical triviality: BM25
(title + text, default parameters) share of queries with a relevant document at rank 1 and its
nDCG@10; query length in characters and words; label proxies: document fields present on (or with
a value found on) >= 95% of one label class and <= 5% of the other.
Per corpus: documents; exactDuplicates (whitespace-normalised); near-duplicates (MinHash, 100
hashes, LSH 20x5, over 5-token shingles, kept at exact Jaccard >= threshold); declared languages
that an offline detector (guesslang's model in @vscode/vscode-languagedetection) disputes; empty,
prose-only (no code punctuation) and letter-free "code".
Label findings: queries sharing their exact text whose qrels differ (per subtask, with the best
nDCG@10 a retriever that reads only the query text can reach); judgments at the relevance level on
programs the release labels failing (meta.passed false), and below it on passing ones, per language
with examples. Given OTHER_RELEASE: the programs, statements and query texts both releases hold.

Options:
  --split NAME             Parquet release split or BEIR qrels split.
  --near-dup-threshold X   Jaccard threshold of near-duplicates (default 0.8).
  --no-language-check      Skip the language detector (the slowest step, ~40 ms per document).
  --format F               table (default) | markdown | latex | json
  --quiet                  No progress or informational output (warnings and errors still print).
See docs/report.md.
`;

const command: Command = {
  summary: 'audit a CoREB release or BEIR dir: 1-to-1 qrels, lexical triviality, label proxies, duplicates, language labels',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals } = parseOptions(
      'audit',
      ctx.argv,
      {
        split: opt.string(),
        'near-dup-threshold': opt.number(0.8, (x) => x > 0 && x <= 1, 'a number in (0, 1]'),
        'no-language-check': opt.flag(),
        format: opt.format(['table', 'markdown', 'latex', 'json'] as const, 'table'),
        quiet: opt.flag(),
      },
      true,
    );
    if (positionals.length !== 1 && positionals.length !== 2)
      throw new CorebError(
        'USAGE',
        `coreb audit takes a DATA directory and optionally a second release, got ${positionals.length}; see \`coreb audit --help\``,
      );
    const [data, against] = positionals.map((p) => resolve(ctx.cwd, p));
    for (const d of [data, against]) if (d !== undefined && !existsSync(d)) throw new CorebError('NOT_FOUND', `${d}: no such directory`);
    const { format } = values;
    const report = await runAudit({
      data,
      ...(values.split !== undefined ? { split: values.split } : {}),
      languageCheck: !values['no-language-check'],
      nearDuplicates: { threshold: values['near-dup-threshold'] },
      ...(against !== undefined ? { against } : {}),
      signal: ctx.signal,
      logger: ctx.logger,
      ...(values.quiet ? {} : { progress: createProgressBar(ctx.stderr, ctx.interactive) }),
    });
    ctx.stdout.write(format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderAuditTable(report, format));
    return 0;
  },
};
export default command;
