/**
 * `coreb report`: a self-contained HTML report (charts inlined as SVG, no scripts, printable) of one
 * or more results files, plus each chart as .svg and .png.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CorebError, isCorebError } from '../../core/errors.js';
import { loadEvalResults } from '../../dataset/results-file.js';
import { loadResultsInput } from '../../dataset/results-store.js';
import { readContaminationIn, renderContaminationTable, type ContaminationSummary } from '../../report/contamination.js';
import { writeHtmlReport } from '../../report/html-report.js';
import { opt, parseOptions } from '../options.js';
import { createProgressBar } from '../progress-bar.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb report RESULTS.json|DIR [RESULTS.json|DIR ...] --out DIR [options]

Writes DIR/index.html — one self-contained page (no network, no JavaScript, printable) — and
DIR/charts/<chart>.svg and .png. Contents: leaderboard (overall, task mean, per task) with
significance superscripts, per-language / per-subtask / per-sub_query_type heat tables,
hard-negative intrusion diagnostics, Recall@k curve, reranking deltas with the recall ceiling
(for reranked entries), cross-release stability (given results of two releases: rank correlation
and per-model change), and a collapsible provenance section.

Results files of the same dataset (split + sha256) are merged into one leaderboard; files of a
second dataset give the cross-release view (first vs second).

A folder argument stands for its results.json (coreb eval --out) and/or its contamination.json (a
coreb build folder after coreb contamination). A contamination.json next to a results file or in
a folder given is shown too: printed as a table and as the page's "Contamination study" section
(Pass@1 original vs rewritten per model and language, 2x2 table, McNemar p).

Options:
  --out DIR            Output directory (required).
  --title TEXT         Page title (default "CoREB report").
  --alpha X            Significance level of the superscripts (default 0.05; Holm-adjusted
                       paired randomization test over all pairs of a column).
  --permutations N     Sign flips of that test (default 10000).
  --seed N             Its seed (default 42).
  --no-png             Skip the PNG copies (they need the optional @resvg/resvg-js).
See docs/report.md.
`;

const command: Command = {
  summary: 'self-contained HTML report with charts (SVG/PNG), significance marks, cross-release view, provenance',
  usage: USAGE,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals } = parseOptions(
      'report',
      ctx.argv,
      {
        out: opt.required('DIR'),
        title: opt.string(),
        alpha: opt.number(0.05, (x) => x > 0 && x < 1, 'a number in (0, 1)'),
        permutations: opt.int(10000, 1),
        seed: opt.int(42, 0),
        'no-png': opt.flag(),
      },
      true,
    );
    if (positionals.length === 0) throw new CorebError('USAGE', 'coreb report needs at least one RESULTS.json or folder; see `coreb report --help`');
    const files = [];
    const progress = createProgressBar(ctx.stderr, ctx.interactive, { delayMs: 2000 });
    const studies: Array<{ file: string; summary: ContaminationSummary }> = [];
    const addStudy = async (dir: string): Promise<boolean> => {
      const found = await readContaminationIn(dir);
      if (found === undefined) return false;
      if (!studies.some((x) => x.file === found.file)) studies.push(found);
      return true;
    };
    for (const p of positionals) {
      const path = resolve(ctx.cwd, p);
      let isDir = false;
      try {
        isDir = statSync(path).isDirectory();
      } catch {
        // a missing path is reported by the results loader below
      }
      if (isDir) {
        // A folder: results.json (coreb eval --out) or a results store (coreb eval --results), and/or
        // a contamination.json (coreb contamination).
        const hasStudy = await addStudy(path);
        try {
          files.push(...(await loadResultsInput(path, progress, ctx.signal)));
        } catch (e) {
          if (!isCorebError(e, 'NOT_FOUND')) throw e;
          if (!hasStudy) {
            throw new CorebError(
              'NOT_FOUND',
              'the folder has no results.json (coreb eval --out), no results-store entry (coreb eval --results) and no contamination.json (coreb contamination)',
              { file: path },
            );
          }
        }
      } else {
        files.push(await loadEvalResults(path));
        await addStudy(dirname(path));
      }
    }
    for (const st of studies) ctx.stdout.write(`contamination study (${st.file}):\n${renderContaminationTable(st.summary)}`);
    const outDir = resolve(ctx.cwd, values.out);
    const out = await writeHtmlReport(files, {
      outDir,
      png: !values['no-png'],
      alpha: values.alpha,
      permutations: values.permutations,
      seed: values.seed,
      ...(values.title !== undefined ? { title: values.title } : {}),
      contamination: studies,
      logger: ctx.logger,
      signal: ctx.signal,
    });
    ctx.logger.info(`wrote ${out.indexFile} and ${out.charts.length} chart(s) in ${resolve(outDir, 'charts')}`);
    return 0;
  },
};
export default command;
