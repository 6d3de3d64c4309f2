/**
 * `coreb repo build`: a graded, time-split code-search benchmark from git repositories (corpus: the
 * snapshot before --since, chunked by tree-sitter; queries: later commit messages; qrels: the chunks
 * each commit changed), written in the BEIR layout that `coreb eval` and `coreb validate` read.
 */
import { counted } from '../../core/words.js';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildRepoBenchmark, REPO_BUILD_DEFAULTS } from '../../construct/repo-benchmark.js';
import { CorebError } from '../../core/errors.js';
import { loadIssues } from '../../dataset/issue-titles.js';
import { opt, parseOptions } from '../options.js';
import { createProgressBar } from '../progress-bar.js';
import type { Command } from '../command.js';

const USAGE = `Usage: coreb repo build --repo PATH [--repo PATH ...] --since DATE [--until DATE] --out DIR [options]

Builds a code-search benchmark from git history, measured the CoREB way:
  corpus   each repository at its last commit before --since, cut into functions, methods and
           classes by tree-sitter (Python, JavaScript/TypeScript, Go, Java, C/C++, Ruby, Rust, C#,
           PHP), line windows for other text files; vendored, generated, binary and >1 MiB files,
           symlinks and submodules skipped
  queries  the commits after --since (and before --until): subject, and subject + body as a second
           query type, cleaned (trailers such as Signed-off-by / Co-authored-by, URLs and a
           squash merge's "(#123)" taken out); merges, reverts, bots, noise (version bumps,
           "Polishing", lint or format passes, typo fixes) and commits touching no code file or
           more than --max-files are dropped, each counted
  qrels    relevance 2: the snapshot chunks the commit's diff touches (lines mapped back to the
           snapshot, renames followed); 1: the other chunks of the files it touches
Output (BEIR layout): corpus.jsonl, queries.jsonl, qrels/test.tsv, manifest.json (repositories,
snapshot commits, window, filters and what each dropped). Evaluate with
\`coreb eval --data DIR --protocol coreb\`.

Options:
  --repo PATH      Repeatable: a git repository (work tree or bare); NAME=PATH names it
                   (default: its folder's name), the prefix of its chunk and query ids.
  --since DATE     Start of the query window (ISO 8601, e.g. 2025-01-01).
  --until DATE     End of the window (exclusive; default now).
  --out DIR        Output directory: new or empty (corpus.jsonl, queries.jsonl, qrels/test.tsv,
                   manifest.json).
  --overwrite      Replace those four files in a --out DIR that already holds files.
  --max-files N    Drop commits touching more code files (default ${REPO_BUILD_DEFAULTS.maxFiles}).
  --corpus-at snapshot|parent
                   What each query is searched and labelled against (default snapshot):
                     snapshot  one corpus, the repository before --since; a changed line
                               rewritten since is mapped back (labels marked approximated)
                     parent    the repository at each query's parent commit (SWE-bench's
                               base commit): the snapshot plus every later version of a
                               changed chunk, each valid over a range of states; labels exact;
                               coreb eval searches each query in its own state
  --no-body        Subject queries only.
  --keep-noise     Keep noise commits (version bumps, "Polishing", lint, format, typo), their
                   queries marked meta_noise, instead of dropping them.
  --issues FILE    A local export of the repository's issues, made with
                     gh issue list --state closed --limit 10000 --json number,title,body,closedAt > issues.json
                   or GitHub's REST API (GET /repos/OWNER/REPO/issues?state=closed, every page;
                   pull requests in it are skipped): a commit that closes #N (Fixes #N, Closes #N,
                   Resolves #N) gets a third query, the issue's title and body (cleaned).
See docs/repo.md.
`;

const command: Command = {
  summary: 'build a time-split, graded code-search benchmark from git history (BEIR layout)',
  usage: USAGE,
  async run(ctx): Promise<number> {
    const [sub, ...rest] = ctx.argv;
    if (sub !== 'build') throw new CorebError('USAGE', `coreb repo: unknown subcommand \`${sub ?? ''}\`; valid: build (see \`coreb repo --help\`)`);
    const { values } = parseOptions('repo build', rest, {
      repo: opt.strings(),
      since: opt.string(),
      until: opt.string(),
      out: opt.string(),
      'max-files': opt.int(REPO_BUILD_DEFAULTS.maxFiles, 1),
      'no-body': opt.flag(),
      'keep-noise': opt.flag(),
      'corpus-at': opt.choice(['snapshot', 'parent'] as const, REPO_BUILD_DEFAULTS.corpusAt),
      issues: opt.string(),
      overwrite: opt.flag(),
    });
    const repos = values.repo;
    if (repos.length === 0 || values.since === undefined || values.out === undefined) {
      throw new CorebError('USAGE', 'coreb repo build needs --repo PATH, --since DATE and --out DIR; see `coreb repo --help`');
    }
    for (const [k, v] of [
      ['since', values.since],
      ['until', values.until],
    ] as const) {
      if (v !== undefined && Number.isNaN(Date.parse(v))) throw new CorebError('USAGE', `--${k}: \`${v}\` is not a date (ISO 8601, e.g. 2025-01-01)`);
    }
    if (values.until !== undefined && Date.parse(values.until) <= Date.parse(values.since)) {
      throw new CorebError('USAGE', `--until ${values.until} is not after --since ${values.since}: the query window would be empty`);
    }
    const outDir = resolve(ctx.cwd, values.out);
    let held: string[] = [];
    try {
      held = readdirSync(outDir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new CorebError('USAGE', `--out ${outDir} is a file; --out names a directory for the benchmark`);
      if (code !== 'ENOENT')
        throw new CorebError('IO', `cannot read the output directory (${code ?? (e as Error).message})`, { file: outDir, cause: e });
    }
    if (held.length > 0 && values.overwrite !== true) {
      throw new CorebError(
        'USAGE',
        `--out ${outDir} already holds ${held.length} file(s) (${held.slice(0, 3).join(', ')}${held.length > 3 ? ', ...' : ''}): earlier files are never replaced silently; pass --overwrite to replace the benchmark's files, or choose an empty or new directory`,
      );
    }
    const t0 = performance.now();
    const manifest = await buildRepoBenchmark({
      repos: repos.map((r) => {
        const eq = /^([A-Za-z0-9._-]+)=(.+)$/.exec(r);
        return eq === null ? resolve(ctx.cwd, r) : `${eq[1]}=${resolve(ctx.cwd, eq[2])}`;
      }),
      since: values.since,
      ...(values.until !== undefined ? { until: values.until } : {}),
      out: resolve(ctx.cwd, values.out),
      maxFiles: values['max-files'],
      bodyQueries: !values['no-body'],
      noise: values['keep-noise'] ? 'keep' : 'drop',
      corpusAt: values['corpus-at'],
      ...(values.issues !== undefined ? { issues: await loadIssues(resolve(ctx.cwd, values.issues)) } : {}),
      logger: ctx.logger,
      progress: createProgressBar(ctx.stderr, ctx.interactive),
      signal: ctx.signal,
      gitEnv: ctx.env,
    });
    ctx.stderr.write(
      `coreb repo build: ${counted(manifest.counts.docs, 'chunk')}, ${counted(manifest.counts.queries, 'query', 'queries')} (${manifest.counts.qrels.relevant} relevant, ${manifest.counts.qrels.sameFile} same-file judgments) in ${((performance.now() - t0) / 1000).toFixed(1)} s\nwrote ${resolve(ctx.cwd, values.out)}\n`,
    );
    return 0;
  },
};
export default command;
