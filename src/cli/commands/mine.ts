/**
 * `coreb mine`: reranker training records from a CoREB release and any run or retriever (hard
 * negatives from the qrels and the ranking, seeded easy negatives, problem disjointness enforced),
 * and exports of records (mined, or the published CoREB reranker dataset) for the Python trainers.
 */
import { counted } from '../../core/words.js';
import { resolve } from 'node:path';
import { TASK_SHORT_NAME, type RetrievalTask, type TaskName } from '../../core/dataset.js';
import { CorebError } from '../../core/errors.js';
import type { RerankTrainRecord } from '../../core/rerank-training.js';
import { loadRelease } from '../../dataset/release.js';
import { loadRerankRecords, saveRerankRecords } from '../../dataset/rerank-records.js';
import { releaseTasks } from '../../dataset/release-tasks.js';
import { saveAtomic, saveLinesAtomic } from '../../dataset/atomic-write.js';
import { resolveTasks } from '../../eval/eval-data.js';
import { retrieveTasks } from '../../eval/retrieve-tasks.js';
import { checkExportable, EXPORT_FORMATS, EXPORT_TEMPLATES, exportLines, resolveYesNoLayout, type ExportFormat } from '../../train/export.js';
import { disjointnessWarning, loadProblemSet, mineRerankRecords } from '../../train/mine.js';
import { opt, parseOptions } from '../options.js';
import type { Command } from '../command.js';
import { createProgressBar } from '../progress-bar.js';
import { corebVersion } from '../../core/version.js';

const USAGE = `Usage: coreb mine --data DIR (--run FILE | --retriever SPEC) --out FILE [options]
       coreb mine --from RECORDS --export FORMAT --out FILE [options]

Mines reranker training records from a CoREB release: one record per (query, positive) pair in the
published CoREB reranker dataset's shape (query_id, task, subtask, query, pos, hard_neg, easy_neg),
written as JSONL with a manifest beside it (FILE.manifest.json: counts, run, options).

Mining:
  --data DIR               CoREB release (JSONL or parquet); --split NAME for a parquet split.
  --run FILE               A TREC run over the release's queries (same as --retriever run:FILE).
  --retriever SPEC         Any coreb eval spec: bm25, embeddings:FILE, rrf:..., dense:... .
  --tasks LIST             t2c,c2t,c2c (default all).
  --hard-negatives N       Per record (default 8): the qrels' same-problem hard negatives (label
                           1), best-ranked first, then non-positives from the --window ranks.
  --window FROM-TO         Ranks the run-mined hard negatives come from (default 10-100).
  --easy-negatives N       Per record (default 8): random documents of other problems (seeded).
  --seed N                 Sampling seed (default 42).
  --depth N                Documents retrieved per query (default: the window's end).
  --exclude-problems X     Repeatable: a release directory (all its problems), a file of problem
                           ids (one per line), or ids separated by commas. Problems shared with the
                           mined release are refused with an error listing them.
  --drop-overlap           Leave shared problems (their queries and documents) out instead.

Export (with --export FORMAT, --out receives the export; records come from mining or --from):
  --from FILE              Records to export: coreb mine output, or the published dataset
                           (hq-bench/coreb-code-reranker-train-test-dataset) as parquet or JSONL.
  --export FORMAT          ${EXPORT_FORMATS.join(' | ')}
  --template NAME          Yes/no template for llama-factory, yesno-examples and the FlagEmbedding
                           prompt: qwen3 (default; empty thinking block) | qwen3-nothink.
  --all-pairs              llama-factory: every pair instead of the balanced 2 pos / 1 easy / 1 hard.

  --quiet                  No progress output.

See docs/train.md for each format and the trainer command line that reads it.
`;

function parseWindow(text: string | undefined): [number, number] {
  if (text === undefined) return [10, 100];
  const m = /^(\d+)-(\d+)$/.exec(text.trim());
  if (m === null || Number(m[1]) < 1 || Number(m[2]) < Number(m[1]))
    throw new CorebError('USAGE', `--window must be FROM-TO ranks with 1 <= FROM <= TO, e.g. 10-100; got \`${text}\``);
  return [Number(m[1]), Number(m[2])];
}

const command: Command = {
  summary: 'mine reranker training data from any run; export it for sentence-transformers, FlagEmbedding, ms-swift, LLaMA-Factory',
  usage: USAGE,
  async run(ctx) {
    const { values } = parseOptions('mine', ctx.argv, {
      data: opt.string(),
      split: opt.string(),
      run: opt.string(),
      retriever: opt.string(),
      tasks: opt.strings(),
      'hard-negatives': opt.int(8, 0),
      window: opt.string(),
      'easy-negatives': opt.int(8, 0),
      seed: opt.int(42, 0),
      depth: opt.optionalInt(1),
      'exclude-problems': opt.strings(),
      'drop-overlap': opt.flag(),
      from: opt.string(),
      export: opt.choice<ExportFormat, undefined>(EXPORT_FORMATS, undefined),
      template: opt.choice(EXPORT_TEMPLATES, 'qwen3'),
      'all-pairs': opt.flag(),
      out: opt.required('FILE', '; see `coreb mine --help`'),
      quiet: opt.flag(),
    });
    const out = resolve(ctx.cwd, values.out);
    const { export: format, template: templateName, seed } = values;
    const progress = values.quiet ? undefined : createProgressBar(ctx.stderr, ctx.interactive);
    const manifest: Record<string, unknown> = { schema: 'coreb-rerank-records/1', coreb: corebVersion(), createdAt: new Date().toISOString() };
    let records: RerankTrainRecord[];

    if (values.from !== undefined) {
      if (values.data !== undefined || values.run !== undefined || values.retriever !== undefined) {
        throw new CorebError('USAGE', '--from exports existing records; it does not combine with --data/--run/--retriever');
      }
      if (format === undefined) throw new CorebError('USAGE', '--from needs --export FORMAT (the records are already in the dataset shape)');
      const from = resolve(ctx.cwd, values.from);
      records = await loadRerankRecords(from);
      manifest.source = { records: from, count: records.length };
    } else {
      if (values.data === undefined) throw new CorebError('USAGE', 'coreb mine needs --data DIR (or --from RECORDS); see `coreb mine --help`');
      if ((values.run === undefined) === (values.retriever === undefined))
        throw new CorebError('USAGE', 'give exactly one of --run FILE and --retriever SPEC');
      const spec = values.run !== undefined ? `run:${values.run}` : (values.retriever ?? '');
      const window = parseWindow(values.window);
      const data = resolve(ctx.cwd, values.data);
      const { release, issues } = await loadRelease(data, values.split !== undefined ? { split: values.split } : {});
      const errors = issues.filter((i) => i.severity === 'error');
      if (errors.length > 0)
        throw new CorebError('VALIDATION', `${data}: ${errors.length} problem(s), first: ${errors[0].message}. Run \`coreb validate ${data}\``, {
          file: data,
        });
      const all = releaseTasks(release);
      const tasks = new Map<TaskName, RetrievalTask>(resolveTasks(values.tasks.length > 0 ? values.tasks : undefined).map((t) => [t, all[t]]));
      const excludeValues = values['exclude-problems'].map((v) => (/[/\\]/.test(v) || v.startsWith('.') ? resolve(ctx.cwd, v) : v));
      const excluded = excludeValues.length > 0 ? await loadProblemSet(excludeValues) : undefined;
      const warning = disjointnessWarning(release.split, excluded !== undefined);
      if (warning) ctx.logger.warn(warning);
      const depth = values.depth ?? window[1];
      const retrieved = await retrieveTasks({
        spec,
        tasks,
        depth,
        baseDir: ctx.cwd,
        env: ctx.env,
        ...(ctx.env.COREB_CACHE_DIR ? { cacheDir: ctx.env.COREB_CACHE_DIR } : {}),
        signal: ctx.signal,
        ...(progress ? { progress } : {}),
        logger: ctx.logger,
      });
      const hardNegatives = values['hard-negatives'];
      const easyNegatives = values['easy-negatives'];
      const mined = mineRerankRecords({
        tasks,
        lists: retrieved.lists,
        hardNegatives,
        easyNegatives,
        window,
        seed,
        ...(excluded ? { excludeProblems: excluded.problems } : {}),
        dropOverlap: Boolean(values['drop-overlap']),
        signal: ctx.signal,
        ...(progress ? { progress } : {}),
      });
      records = mined.records;
      for (const [t, s] of Object.entries(mined.stats)) {
        if (s.queriesWithoutList > 0)
          ctx.logger.warn(
            `${t}: ${counted(s.queriesWithoutList, 'query', 'queries')} ${s.queriesWithoutList === 1 ? 'has' : 'have'} no ranked list in the run (qrels hard negatives only)`,
          );
        if (s.missingPositives > 0) ctx.logger.warn(`${t}: ${s.missingPositives} positives are not in the corpus (left out)`);
      }
      manifest.dataset = { dir: data, split: release.split };
      manifest.retriever = { spec, description: retrieved.description, depth };
      manifest.options = { hardNegatives, window, easyNegatives, seed, positiveLevel: 2, tasks: [...tasks.keys()].map((t) => TASK_SHORT_NAME[t]) };
      manifest.excludeProblems = excluded
        ? { sources: excluded.sources, problems: excluded.problems.size, overlap: mined.overlap, dropOverlap: Boolean(values['drop-overlap']) }
        : null;
      manifest.counts = { records: records.length, byTask: mined.stats };
      ctx.logger.info(
        `mined ${records.length} records: ${Object.entries(mined.stats)
          .map(([t, s]) => `${t} ${s.records}`)
          .join(', ')}`,
      );
    }

    if (format === undefined) {
      await saveRerankRecords(out, records, ctx.signal);
    } else {
      checkExportable(records, format);
      const layout = resolveYesNoLayout(templateName);
      let lines = 0;
      await saveLinesAtomic(
        out,
        (function* () {
          for (const l of exportLines(records, format, { layout, seed, allPairs: Boolean(values['all-pairs']) })) {
            lines++;
            yield l;
          }
        })(),
        ctx.signal,
      );
      manifest.export = {
        format,
        template: { ...layout.template, instructions: layout.instructions },
        seed,
        allPairs: Boolean(values['all-pairs']),
        lines,
      };
      ctx.logger.info(`wrote ${lines} ${format} lines`);
    }
    await saveAtomic(`${out}.manifest.json`, JSON.stringify(manifest, null, 2) + '\n');
    ctx.logger.info(`wrote ${out} and ${out}.manifest.json`);
    return 0;
  },
};
export default command;
