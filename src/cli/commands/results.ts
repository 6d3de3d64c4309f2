/**
 * `coreb results ls|show|rm DIR`: the results store `coreb eval --results DIR` keeps (see
 * dataset/results-store.ts and docs/eval.md, "Results store").
 */
import { counted } from '../../core/words.js';
import { tableLines, type ColumnAlign } from '../../core/table.js';
import { resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { entryPath, hasEntry, listEntries, readEntry, removeEntries, writeEntry } from '../../dataset/results-store.js';
import { readMtebResults } from '../../eval/mteb-import.js';
import { corebVersion } from '../../core/version.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb results ls DIR [--format table|json]
       coreb results show DIR ENTRY
       coreb results rm DIR ENTRY [ENTRY ...]
       coreb results import-mteb DIR MTEB_RESULTS [--split NAME] [--force]

The results store of \`coreb eval --results DIR\`: one results file per retriever x dataset x
protocol, at DIR/<retriever>__<hash>/<split>__<dataset hash>/<protocol>__<hash>.json.
  ls     every entry: retriever, dataset split, protocol, tasks, queries, overall nDCG@10, path
  show   one entry's results file (JSON), by the path ls prints
  rm     remove entries (folders left empty go too)
  import-mteb
         add published MTEB results for the CoREB tasks (the results repository's layout:
         ORG__MODEL/REVISION/Coreb*.json with model_meta.json; a whole repository, one model's
         folder or one revision folder) as rows of protocol mteb marked imported: task means
         only, shown in the mteb leaderboard of their release (never the coreb one), in no
         significance test. The release is the one whose MTEB dataset revisions the files carry
         (every revision MTEB has pinned for CoREB holds release_v2603), or what --split NAME
         says; a task file on a revision MTEB never pinned is left out, named, unless --split
         is given. MTEB's Coreb*Reranking tasks become a row of their own, ranked in the
         release's reranking board by MAP@10 (MTEB's main score). An entry already there is kept
         and said so (--force replaces it). A row that is coreb's own \`export mteb\` of a row
         in the store is shown once by \`coreb leaderboard\`.
`;

const command: Command = {
  summary: 'list, show, remove or import (MTEB results) the rows of a results store (coreb eval --results DIR)',
  usage: USAGE,
  async run(ctx: CommandContext) {
    const { values, positionals } = parseOptions(
      'results',
      ctx.argv,
      { format: opt.format(['table', 'json'] as const, 'table'), split: opt.string(), force: opt.flag() },
      true,
    );
    const [verb, dirArg, ...rest] = positionals;
    if (verb === undefined || dirArg === undefined)
      throw new CorebError('USAGE', `coreb results: give a verb and the store (ls|show|rm DIR); see \`coreb results --help\``);
    const dir = resolve(ctx.cwd, dirArg);
    if (verb === 'ls') {
      const { format } = values;
      const entries = await listEntries(dir);
      const rows = entries.map((e) => ({
        path: e.path,
        retriever: e.row.imported !== undefined ? `${e.row.name} (imported)` : e.row.name,
        split: e.results.dataset.split,
        dataset: e.results.dataset.sha256.slice(0, 12),
        protocol: e.results.protocol.name,
        tasks: Object.keys(e.row.tasks),
        queries: e.row.overall.queries,
        ndcg10: e.row.overall.metrics['ndcg@10'] ?? e.row.taskMean?.metrics['ndcg@10'] ?? null,
        createdAt: e.results.createdAt,
      }));
      if (format === 'json') {
        ctx.stdout.write(`${JSON.stringify({ store: dir, entries: rows }, null, 2)}\n`);
        return 0;
      }
      if (rows.length === 0) {
        ctx.stdout.write(`${dir}: no entries\n`);
        return 0;
      }
      const header = ['retriever', 'split', 'protocol', 'tasks', 'queries', 'nDCG@10', 'entry'];
      const cells = rows.map((r) => [
        r.retriever,
        r.split,
        r.protocol,
        r.tasks.join(','),
        String(r.queries),
        r.ndcg10 === null ? '-' : r.ndcg10.toFixed(4),
        r.path,
      ]);
      const align: ColumnAlign[] = ['left', 'left', 'left', 'left', 'right', 'right', 'left'];
      ctx.stdout.write(`${tableLines({ header, rows: cells, align }).join('\n')}\n`);
      ctx.stdout.write(`${counted(rows.length, 'entry', 'entries')} in ${dir}\n`);
      return 0;
    }
    if (verb === 'show') {
      if (rest.length !== 1) throw new CorebError('USAGE', 'coreb results show DIR ENTRY: give one entry path (as `coreb results ls` prints it)');
      ctx.stdout.write(`${JSON.stringify((await readEntry(dir, rest[0])).results, null, 2)}\n`);
      return 0;
    }
    if (verb === 'rm') {
      if (rest.length === 0)
        throw new CorebError('USAGE', 'coreb results rm DIR ENTRY...: give the entries to remove (as `coreb results ls` prints them)');
      removeEntries(dir, rest);
      ctx.stderr.write(`removed ${counted(rest.length, 'entry', 'entries')} from ${dir}\n`);
      return 0;
    }
    if (verb === 'import-mteb') {
      if (rest.length !== 1)
        throw new CorebError('USAGE', 'coreb results import-mteb DIR MTEB_RESULTS: give the store and one folder of MTEB results');
      const { imported, skipped } = await readMtebResults(resolve(ctx.cwd, rest[0]), {
        corebVersion: corebVersion(),
        ...(values.split !== undefined ? { split: values.split } : {}),
      });
      for (const x of skipped) for (const w of x.warnings) ctx.logger.warn(`${x.folder}: ${w}`);
      let added = 0;
      let kept = 0;
      for (const m of imported) {
        for (const w of m.warnings) ctx.logger.warn(`${m.folder}: ${w}`);
        for (const row of m.results.retrievers) {
          if (values.force !== true && hasEntry(dir, row, m.results)) {
            kept++;
            ctx.stderr.write(`${row.name} (${m.folder}): already in the store as ${entryPath(row, m.results)}; kept (--force replaces it)\n`);
            continue;
          }
          const path = await writeEntry(dir, m.results, row);
          added++;
          ctx.stderr.write(`${row.name} (${m.folder}): ${Object.keys(row.tasks).join(', ')} on ${m.results.dataset.split} -> ${path}\n`);
        }
      }
      ctx.stderr.write(
        `imported ${added} row(s) into ${dir}${kept > 0 ? `, ${kept} already there` : ''}${skipped.length > 0 ? `; ${skipped.length} folder(s) left out (above)` : ''}\n`,
      );
      return 0;
    }
    throw new CorebError('USAGE', `coreb results: unknown verb \`${verb}\`; expected ls, show, rm or import-mteb`);
  },
};
export default command;
